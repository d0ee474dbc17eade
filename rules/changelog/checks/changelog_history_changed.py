"""Flags a PR that edits, deletes, reorders or re-spaces existing perf-changelog bytes.

## Why it matters
Existing changelog bytes are immutable: the head file must begin with the base file byte for
byte (`validate_raw_change`: `head_raw.startswith(base_raw)`), the bytes after the last entry
included, a `"  \n"` separator line at the very end of base too. Tooling replays history from
it, the merge path restores main's bytes and re-appends only the PR's entries, and a deleted or
edited entry silently rewrites what past sweeps claimed. The PR-run check only catches deleted
lines with content (on this push); edits of whitespace, reorders and re-spaced separators pass it
and are rejected by the merge path at merge. Each finding names the gate that rejects it.

## When it fires
On every history change the analysis finds in a changed perf-changelog (an edited, deleted, moved or
re-spaced existing entry, the bytes after the last entry, the header; one finding per stretch,
whitespace included), when a gate of the repository at the revision rejects it or its written
guidance states the append-only contract; otherwise it is handed to changelog-convention-unwritten
as a nit. A PR whose title marks a revert (`Revert ...`, `revert: ...`) may delete or restore the
reverted PR's entries: the written rule excepts maintainer reverts, so those changes pass
(re-spaced separators and the tail are still judged). An isolated canonical correction of an old
entry's pr-link (no other byte changed) is allowed by the merge path but rejected by the PR-run
check, so it fires only where that check applies. A new file has no history and passes; a
changelog the review cannot read or compare is skipped with the reason.

## Example
    - config-keys:
        - 70b-fp8-*-vllm
      description:
        - "7% uplift for llama"        # was "6-7% uplift for llama for 6/8 configs"

## Severity
A nit until it is fixed: judged on ten sampled InferenceX PRs (benchmarks/precision.py), 8 true, 2
false as blocking (a mis-indented new entry read as a history change; one more) after the revert
exception; the bar for a blocking rule is 95 %.

## Fix
Restore the base branch's bytes (`git checkout origin/main -- perf-changelog.yaml`) and re-append
only this PR's entries. To correct an old entry, add a new entry; a pr-link correction goes in a
PR of its own. Historical irregular separators (trailing spaces) stay exactly as they are.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.changes import REVERT_TITLE
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR002"
NAME = "changelog-history-changed"
SEVERITY = Severity.NIT
ENFORCES = ("A3", "A4")

_RAW = ("raw-prefix", "no-change", "corrections-raw")
_LOCAL = ("edited", "tail", "separator", "header")
# history change kind -> (PR-run stages, merge-path stages) that reject it
_STAGES = {
    "edited": (("deleted-line", "added-yaml", "no-additions", "entry-schema"),
               ("entry-changed", "correction-invalid", *_RAW)),
    "deleted": (("deleted-line",), ("entries-deleted", "entry-count", *_RAW)),
    "moved": (("deleted-line",), ("entry-changed", *_RAW)),
    "separator": (("deleted-line", "no-additions"), _RAW),
    "tail": (("deleted-line", "no-additions"), _RAW),
    "header": (("deleted-line", "no-additions"), _RAW),
    "removed": (("deleted-line",), ("entries-deleted",)),
    "renamed": (("file-missing",), ("file-missing",)),
    "correction-mixed": ((), ("correction-invalid",)),
}


_REVERTED = ("deleted", "removed", "edited", "moved")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    title = ctx.changeset.title or ""
    revert = bool(REVERT_TITLE.match(title))
    for d in changelog_diffs(ctx):
        reverted = [c for c in d.history_changes if revert and c.kind in _REVERTED]
        if reverted:
            yield Passed(f"{d.path}: {len(reverted)} change(s) to existing entries in a revert (the PR title "
                         f"`{title[:80]}`): a maintainer revert is the written exception to immutable history",
                         path=d.path)
        for c in d.history_changes:
            if c in reverted:
                continue
            # An edit or a re-spacing is judged on its own lines; a deletion or a move deletes content.
            lines = (c.line - 1, (c.end_line or c.line) + 1) if c.line is not None and c.kind in _LOCAL else None
            n = note(ctx, d, *_STAGES.get(c.kind, _STAGES["edited"]), lines=lines, written="append-only")
            problem = Problem(d.path, c.line, n.on(c.message), end_line=c.end_line, fix=c.fix,
                              suggestion=c.suggestion, evidence=(*c.evidence, *n.evidence))
            if n.unproven:
                yield Skipped(f"{d.path}:{c.line}: a history change is not flagged here: {n.unproven}", path=d.path,
                              unproven=problem)
                continue
            yield problem
        if d.skip_reason:
            yield Skipped(f"{d.path}: history not checked: {d.skip_reason}", path=d.path)
            continue
        flagged = 0
        for e in d.corrections:
            # Allowed by the merge path and the documented contract, rejected by the PR-run check.
            n = note(ctx, d, pr_run=("deleted-line",), merge=("corrections-raw", "correction-invalid"))
            if n.gate is None:
                continue
            line = e.key_lines.get("pr-link", e.start_line)
            flagged += 1
            yield Problem(d.path, line, n.on(f"The pr-link of existing entry at line {e.start_line:,} is corrected to "
                                             f"`{e.pr_link}`; the merge path allows an isolated canonical correction, "
                                             "but the PR-run check rejects every deleted line."),
                          fix="Land the correction as its own change with the PR-run check overridden by a maintainer "
                              "(the merge helper accepts it), or leave the historical link as it is.",
                          evidence=("an isolated canonical pr-link correction (no other byte changed)", *n.evidence))
        if d.history_changes or flagged:
            continue
        if d.status == "added":
            yield Passed(f"{d.path}: new file, no history to preserve", path=d.path)
        elif d.history_ok:
            yield Passed(f"{d.path}: head begins with the {len(d.base or b''):,} base bytes "
                         f"({d.base_line_count:,} lines, {d.base_count:,} entries) unchanged", path=d.path)
        elif d.corrections and not flagged:
            yield Passed(f"{d.path}: {len(d.corrections)} isolated canonical pr-link correction(s) "
                         f"({', '.join(e.label for e in d.corrections)}); no other byte changed", path=d.path)
        else:
            yield Passed(f"{d.path}: all {d.base_count:,} existing entries and separators are unchanged "
                         f"apart from the inserted entries", path=d.path)
