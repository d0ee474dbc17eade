"""Flags a PR that changes master-config keys, recipes or benchmark scripts but adds no changelog entry.

## Why it matters
`perf-changelog.yaml` is the only trigger of the sweep workflow: a PR that changes what a
benchmark runs without appending an entry gets no sweep and no changelog validation, and on
merge the change ships unmeasured — the published numbers no longer describe the configs in the
repository.

A repository whose base has no changelog file at all (the convention not yet in force there)
is not asked for an entry: the passed checks say so instead.

The written rule (A1, AGENTS.md) asks for an entry for every change that can affect benchmark
performance, so the finding needs a change that reaches a benchmark (`rules/changelog/reach.py`):
a master-config key whose change reaches the jobs' matrix rows, a recipe, a benchmark script a
launcher runs, or an edit of shared harness code (`benchmark_lib.sh`, the multi-node helpers)
that is part of the command starting the serving engine or the benchmark client — its lines, an
assignment or export it reads, the conditions around it. A harness edit elsewhere (telemetry
sampling, eval defaults, log collection, a readiness check), a change of result labels only, or
a PR that is only such changes, is changelog-entry-missing-reach-unproven's nit: the review
cannot show it moves a number. Comment-only and whitespace-only edits need no entry at all.

## When it fires
When the PR makes a benchmark change whose reach to a benchmark command is proven (a master-config
key, a recipe unless nothing the review read names it, a benchmark script unless all its changed
lines come after its benchmark client's last run, or a harness edit of the engine or client command)
and appends no changelog entry. It stays quiet when an entry is appended, when the base has no
changelog file to append to, when the PR is a revert or only removes or moves benchmark files
(`changelog-entry-missing-for-cleanup`), and when no change is proven to reach a benchmark
(`changelog-entry-missing-reach-unproven`). An unreadable changelog is skipped.

## Example
A PR that changes `image:` of `dsv4-fp4-b200-vllm` in `configs/nvidia-master.yaml` and edits
`benchmarks/single_node/dsv4_fp4_b200_vllm.sh`, with no change to `perf-changelog.yaml`.

## Severity
A nit: judged as blocking 3 of 10 (notes/proof.md). It was off by default while its judged
precision as a nit was 5 of 7 (a reference table nothing reads, an eval added after the
throughput run); both causes now go to changelog-entry-missing-reach-unproven (a recipe no file
the review read names; script edits that all come after the benchmark client's last run), and
the rule is on again: notes/precision.md has the figures.

## Fix
Append one entry at the end of `perf-changelog.yaml` that selects the changed keys:

    - config-keys:
        - dsv4-fp4-b200-vllm
      description:
        - "What changed and why"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.changelog.changes import (
    MAX_LISTED,
    benchmark_changes,
    changelog_at_base,
    cleanup_reason,
    entry_state,
    listed,
    recipe_keys,
    suggested_entry,
)
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR009"
NAME = "changelog-entry-missing"
SEVERITY = Severity.NIT
ENFORCES = ("A1",)

def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    changes = benchmark_changes(ctx)
    if not changes:
        return
    count, unreadable = entry_state(ctx)
    if count:
        yield Passed(f"the PR appends {count} changelog {'entry' if count == 1 else 'entries'} for its "
                     f"benchmark changes ({'; '.join(c.detail for c in changes[:MAX_LISTED])})")
        return
    if unreadable:
        yield Skipped(f"the changelog could not be read ({unreadable}), so its new entries were not counted")
        return
    if changelog_at_base(ctx) is False:  # the convention is not in force at the base: nothing to append to
        where = ", ".join(f"`{g}`" for g in ctx.config.paths.changelog)
        yield Passed(f"no entry required: the base has no changelog file ({where} matches none at the root or "
                     f"above the changed files), so the PR's benchmark changes "
                     f"({'; '.join(c.detail for c in changes[:MAX_LISTED])}) have no changelog to append to")
        return
    if cleanup_reason(ctx, changes):
        return  # changelog-entry-missing-for-cleanup reports it as a nit
    proven = [c for c in changes if not c.removal and c.reach == "proven"]
    if not proven:
        return  # nothing proven to reach a benchmark: changelog-entry-missing-reach-unproven's nit
    first = proven[0]
    names = [k for c in proven for k in c.keys]
    if first.keys:
        subject = f"changes {listed(names)}"
    else:
        subject = f"changes the {first.what} `{first.path}`" + (f" and {listed(names)}" if names else "")
    yield Problem(
        first.path,
        first.line,
        f"this PR {subject} but appends no perf-changelog entry, so no sweep will run",
        fix=suggested_entry(ctx, names or recipe_keys(ctx, first.path)),
        evidence=tuple(c.evidence for c in (proven + [c for c in changes if c not in proven])[:10])
        + ("no changelog entry is added",),
    )
