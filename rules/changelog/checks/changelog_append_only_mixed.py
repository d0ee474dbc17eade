"""Flags a PR that adds `append-only: true` changelog entries together with regular entries.

## Why it matters
An append-only entry runs only the new points of existing curves and reuses published results
for the rest; the sweep processor refuses to mix it with regular entries ("append-only entries
cannot share a sweep with regular changelog entries"), so the changelog check fails.

## When it fires
On each changed perf-changelog: when at least one parsed new entry is `append-only: true`, it fires
on every other new entry that is not. All-append-only and all-regular PRs pass. A changelog the
review cannot read or compare is skipped with the reason.

## Example
    - config-keys:
        - dsv4-fp4-b300-vllm
      description:
        - "Append TP4 concurrency 1, 2 points"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867
      append-only: true

    - config-keys:
        - dsv4-fp4-b200-vllm           # regular entry in the same PR
      description:
        - "Bump vLLM image"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867

## Fix
Mark every new entry `append-only: true`, or move the regular change to its own PR.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR014"
NAME = "changelog-append-only-mixed"
SEVERITY = Severity.BLOCKING
PROOF = "gate"
ENFORCES = ("A18",)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: append-only mix not checked: {d.skip_reason}", path=d.path)
            continue
        parsed = [e for e in d.new_entries if isinstance(e.data, dict)]
        append_only = [e for e in parsed if e.data.get("append-only") is True]
        if not append_only:
            continue
        regular = [e for e in parsed if e.data.get("append-only") is not True]
        first = append_only[0]
        gn = note(ctx, d, pr_run=("append-only", "entry-schema"), merge=("entry-schema",))
        for e in regular:
            line = e.key_lines.get("append-only", e.start_line)
            yield Problem(
                d.path, line,
                gn.on(f"This entry (`{e.summary}`) is not `append-only: true`, but the new entry for "
                      f"`{first.summary}` (line {first.start_line:,}) is."),
                end_line=e.end_line if line == e.start_line else line,
                evidence=(f"{len(append_only)} append-only and {len(regular)} regular new entries",
                          "append-only entries cannot share a sweep with regular changelog entries", *gn.evidence))
        if not regular:
            yield Passed(f"{d.path}: all {len(append_only)} new entries are append-only", path=d.path)
