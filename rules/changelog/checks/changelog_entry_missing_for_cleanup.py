"""Flags a revert, removal or deprecation PR that adds no changelog entry (a nit, unlike a real change).

## Why it matters
Reverts, removed configs and moves to `configs/deprecated/` change what the dashboards will show
next, but they need no new measurement, and maintainers have merged them without an entry
(#2493, #2527, #2561, #2661). An entry still records *why* a curve stopped or changed; without one
the history of the results has a silent gap.

## When it fires
When the PR makes benchmark changes, appends no changelog entry, and reads as a cleanup or a revert
(its title marks a revert, or it only removes or moves benchmark configs, recipes or scripts, e.g.
into `deprecated/`; the finding gives the reason). A PR that appends an entry, whose changelog
cannot be read, or whose base has no changelog is left to `changelog-entry-missing`.

## Example
A PR titled `Revert "Bump vLLM for dsv4 B200"`, or one that only deletes the
`dsv4-fp4-h100-vllm` key from `configs/nvidia-master.yaml`, or moves it into
`configs/deprecated/nvidia-dsv4-master.yaml`, with no change to `perf-changelog.yaml`.

## Fix
Optionally append an entry that names the removed or reverted keys and says why; a revert that
restores configs which should be re-measured needs a real entry (and a sweep).
"""
from collections.abc import Iterator

from rules.changelog.changes import benchmark_changes, changelog_at_base, cleanup_reason, entry_state
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity

CODE = "RR010"
NAME = "changelog-entry-missing-for-cleanup"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    changes = benchmark_changes(ctx)
    if not changes:
        return
    count, unreadable = entry_state(ctx)
    if count or unreadable or changelog_at_base(ctx) is False:
        return  # changelog-entry-missing reports these (passed / skipped)
    reason = cleanup_reason(ctx, changes)
    if reason is None:
        return
    first = changes[0]
    kind = "revert" if reason.startswith("the PR title") else "cleanup"
    yield Problem(first.path, first.line,
                  f"this {kind} PR changes `{first.path}` but appends no perf-changelog entry to record it",
                  evidence=(reason, *(c.detail for c in changes[:10]), "no changelog entry is added"))
