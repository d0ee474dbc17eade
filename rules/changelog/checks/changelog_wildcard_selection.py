"""Flags a wildcard-only `config-keys` item (every key) in a PR whose changes reach only some configs.

## Why it matters
`*` (or `*-*`, `**`) matches every master-config key: the entry benchmarks the whole fleet,
hundreds of sweep jobs. When the PR changes only some configs — master-config keys, their
benchmark scripts, recipes or launchers — everything else is re-measured for nothing on the
shared cluster, and the results of unchanged configs are published again as if something had
changed. It passes both gates. A nit: the finding names how many keys and jobs it selects.

## When it fires
Only when every file the PR changes besides the changelog is a per-config file (a master
config, a recipe, a benchmark script that is not shared harness code, a launcher), and at least
one is. A PR that changes what every benchmark runs — the benchmark library, the benchmark
client, the sweep generator, a workflow, any file this review cannot place — may need every
key re-measured, and `*` is the right selection (#339 swapped the benchmark client of every
config and changed the generator's `max-model-len` for all of them); a PR that changes nothing
but the changelog is a deliberate re-run. Entries that are not this PR's own
(rules/changelog/content.py) are not judged.

## Example
    - config-keys:
        - "*"                                # the PR bumps one key's image
      description:
        - "Bump the B200 vLLM image"

## Fix
Select the keys this PR changes, exactly or with a narrow pattern (`dsv4-fp4-*-vllm`).
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.content import accepted, not_own
from rules.changelog.reach import is_harness
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import changed_keys, master_keys, match_keys
from rules.master.matrix import entry_jobs

CODE = "RR019"
NAME = "changelog-wildcard-selection"
SEVERITY = Severity.NIT
# Kinds of file whose change reaches only the configs that use them.
PER_CONFIG = ("master_configs", "recipes", "scripts", "launchers", "deprecated")


def wildcard_only(item: str) -> bool:
    return "*" in item and not item.replace("*", "").strip("-_. ")


def reach_of(ctx: ReviewContext) -> tuple[list[str], list[str]]:
    """(per-config files, shared files) the PR changes, the changelogs left out."""
    logs = {d.path for d in changelog_diffs(ctx)}
    per, shared = set(), set()
    for f in ctx.changeset.files:
        for p in {f.path, f.base_path} - logs:
            kind = ctx.kind(p)
            if kind == "changelog":
                continue
            (per if kind in PER_CONFIG and not is_harness(ctx, p) else shared).add(p)
    return sorted(per), sorted(shared)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    keys = master_keys(ctx, "head")
    per, shared = reach_of(ctx)
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: wildcard selections not checked: {d.skip_reason}", path=d.path)
            continue
        jobs = None
        narrow = 0
        for e in d.new_entries:
            items = e.data.get("config-keys") if isinstance(e.data, dict) else None
            if not isinstance(items, list) or not_own(ctx, d, e) is not None:
                continue
            wild = [i for i in items if isinstance(i, str) and wildcard_only(i)]
            if not wild:
                narrow += 1
                continue
            if shared or not per:
                why = (f"this PR changes shared code (`{shared[0]}`{' …' if len(shared) > 1 else ''}) that every "
                       f"benchmark may run" if shared else "this PR changes nothing but the changelog: a re-run")
                yield Passed(f"{d.path}: the entry at line {e.start_line:,} selects every key with `{wild[0]}`, and "
                             f"{why}", path=d.path, line=e.start_line)
                continue
            if jobs is None:
                jobs = {id(ej.entry): ej for ej in entry_jobs(ctx, d)} if keys else {}
            n_changed = len({c.key for c in changed_keys(ctx) if c.status != "removed"})
            for item in wild:
                n_keys = len(match_keys(item, keys)) if keys else None
                ej = jobs.get(id(e))
                selects = (f"selects all {n_keys:,} master-config keys" if n_keys is not None
                           else "selects every master-config key")
                if ej is not None and ej.jobs:
                    selects += f" ({ej.jobs:,} sweep jobs)"
                others = len([p for p in per if ctx.kind(p) != "master_configs"])
                scope = (f"{n_changed:,} master-config key{'s' if n_changed != 1 else ''} and "
                         f"{others:,} other per-config file(s)")
                yield Problem(
                    d.path,
                    e.key_lines.get("config-keys", e.start_line),
                    f"`config-keys` item `{item}` of the entry at line {e.start_line:,} {selects}, while "
                    f"this PR changes only per-config files ({scope}). {accepted(ctx, d)}",
                    evidence=(
                        f"{len(keys):,} keys at head" if keys else "no master config available",
                        "changed: " + ", ".join(f"`{p}`" for p in per[:4]) + (" …" if len(per) > 4 else ""),
                    ),
                )
        if narrow:
            yield Passed(f"{d.path}: {narrow} new entr{'y selects' if narrow == 1 else 'ies select'} keys without a "
                         f"wildcard-only item", path=d.path)
