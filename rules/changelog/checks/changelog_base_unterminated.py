"""Flags a PR whose base perf-changelog does not end with a newline, which no append can survive.

## Why it matters
When the base file's last line has no final newline, every append has to add that newline to
the last existing line, and `git diff` shows the line as deleted and re-added: the PR-run
`check-changelog` reports "Found deleted line" and fails on every push (real case #1717), and
the merge helper refuses the base itself ("base perf-changelog.yaml does not end with a
newline"). Nothing the PR does to its own entry fixes it; the PR only looks broken.

## When it fires
The base's changelog lacks its final newline and the PR appends an entry, which rewrites that
last line. A PR that only adds the missing newline is the remedy (git shows the line as deleted,
but that is the maintainer's one-byte fix, pushed with `[skip-sweep]`), and one that edits the
changelog elsewhere leaves the last line as it was: neither gets a finding.

## Example
    base ends:  …  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1798⟂   (no newline)
    head:       …  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1798⏎
                ⏎
                - config-keys:
                    - dsv4-fp4-mi355x-atom

## Fix
Ask a maintainer to add the missing final newline on the base branch (a one-byte commit, with
`[skip-sweep]`), then merge the base branch into this PR and re-append this PR's entry after
exactly one empty line.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs, short
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR015"
NAME = "changelog-base-unterminated"
SEVERITY = Severity.BLOCKING
PROOF = "gate"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: base final newline not checked: {d.skip_reason}", path=d.path)
            continue
        if d.status in ("added", "removed") or d.base is None:
            continue
        if not d.base_unterminated:
            yield Passed(f"{d.path}: the base file ends with a newline (byte {len(d.base):,} is `\\n`)", path=d.path)
            continue
        base = d.base
        last_start = base.rfind(b"\n") + 1
        if not d.new_entries:
            # No append to break: a PR that only adds the missing newline is the fix itself (a
            # maintainer's `[skip-sweep]` commit; judged on #333, #571, #577 and #1815), and one
            # that edits elsewhere leaves the last line as it was.
            continue
        last = base[last_start:].decode("utf-8", "replace")
        line = base.count(b"\n") + 1  # the base's last line, which head shares
        n = note(ctx, d, pr_run=("deleted-line", "final-newline"), merge=("file-format",))
        yield Problem(
            d.path, min(line, max(d.head_line_count, 1)),
            n.on("The base branch's changelog does not end with a newline (its last line is "
                 + (f"`{short(last.strip())}`" if last.strip() else f"`{last!r}`, whitespace only")
                 + "), so appending rewrites that line."),
            evidence=(f"base is {len(base):,} bytes; its last byte is `{base[-1:].decode('utf-8', 'replace')!r}`, "
                      f"not a newline", f"base line {line:,} has no final newline; head changes it", *n.evidence))
