"""Flags new perf-changelog entries not separated from history or from each other by exactly one empty line.

## Why it matters
The merge helper (`prepare_perf_changelog_merge.py`, via `validate_raw_change`) rejects the PR
at merge when the first appended entry does not follow the base bytes with exactly one empty
line (`- config-keys:` directly when base already ends with an empty line, else
`\n- config-keys:`), or when any later appended entry is not preceded by exactly `\n\n` — a
missing empty line, two of them, or a whitespace-only line (`"  \n"`) all fail. The PR-run
check passes all of these, so the failure appears only when the PR is merged. Historical
irregular separators (the 41 `"  "` lines) are base bytes: they are kept, never "fixed".

An entry inserted between two existing entries is changelog-entry-misplaced's finding; the
separator lines around it that are the bytes the base already had between those two entries (a
historical `"  "` line now above or below the inserted entry) are part of that misplacement and
go away with the move, so they are not reported here. A separator the PR wrote itself next to a
misplaced entry, and any separator of an entry appended at the end, still is.

## When it fires
On each changed perf-changelog with new entries: it fires for each separator around a new entry that
is not exactly one empty line (none, several, or spaces), including a new entry that directly
follows a historical whitespace-only separator. Separators inside rewritten history
(`changelog-history-changed`) and base bytes around an entry inserted mid-file
(`changelog-entry-misplaced`) are left to those rules. When neither a gate nor the guidance at the
merge base proves the convention (older bases), it is not flagged here:
`changelog-convention-unwritten` reports it as a nit. A changelog the review cannot read or compare
is skipped with the reason.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2707
    ␠␠                               # whitespace-only separator line (new text)
    - config-keys:
        - dsv4-fp4-b300-vllm
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867

## Fix
Separate each new entry from the previous one by exactly one empty line (no spaces); after a
historical whitespace separator at the end of base, keep it and add one empty line.
"""
from collections.abc import Iterator

from rules.changelog.analysis import anchored, changelog_diffs, show_bytes
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR007"
NAME = "changelog-separator-irregular"
SEVERITY = Severity.BLOCKING
PROOF = "written:A5"
ENFORCES = ("A5",)


def _describe(lines: tuple[str, ...]) -> str:
    if not lines:
        return "no empty line"
    return show_bytes(("\n".join(lines) + "\n").encode())


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: separators not checked: {d.skip_reason}", path=d.path)
            continue
        if not d.new_entries:
            continue
        bad = 0
        for s in d.separators:
            if s.ok or s.history_changed:  # rewritten history bytes are changelog-history-changed's
                continue
            if s.spliced:  # base bytes around an entry inserted mid-file: changelog-entry-misplaced's
                continue
            bad += 1
            want = s.allowed[0]
            line, end, text = anchored(d.head_lines(), s.first_line, s.anchor_line, [*want, s.anchor_text])
            above = "above" if s.anchor_line == s.entry.start_line else "below"
            kept = f" (keeping the historical `{_describe(s.history)}`)" if s.history else ""
            if s.history and s.actual == s.history:
                message = (f"New entry `{s.entry.summary}` directly follows the historical whitespace-only separator "
                           f"`{_describe(s.history)}`; one empty line must follow it.")
            else:
                message = (f"New entry `{s.entry.summary}` has no empty line {above} it{kept}." if not s.actual else
                           f"The separator {above} new entry `{s.entry.summary}` is `{_describe(s.actual)}`, "
                           f"not one empty line{kept}.")
            n = note(ctx, d, merge=("separator-history", "separator-between"), lines=(line, end),
                     contract="the documented contract (entries separated by exactly one empty line)",
                     written="one-empty-line")
            problem = Problem(
                d.path,
                line,
                n.on(message),
                end_line=end,
                suggestion=text,
                fix=f"Use exactly one empty line (no spaces) between entries{kept}.",
                evidence=(
                    f"lines {s.first_line:,}-{s.anchor_line - 1:,} between entries"
                    if s.anchor_line > s.first_line
                    else f"no line between line {s.first_line - 1:,} and the entry at line {s.anchor_line:,}",
                    f"expected separator lines {list(want)!r}, found {list(s.actual)!r}",
                    *n.evidence,
                ),
            )
            if n.unproven:
                yield Skipped(f"{d.path}:{line}: the separator is not flagged here: {n.unproven}", path=d.path,
                              unproven=problem)
                continue
            yield problem
        if not bad:
            yield Passed(f"{d.path}: {len(d.separators)} separator(s) around new entries are exactly one empty line "
                         f"(expected {show_bytes(d.expected_separator)} after the base bytes)", path=d.path)
