"""Flags a changelog convention the PR breaks where no gate enforces it and the base does not write it down.

Five blocking rules judge the changelog's form: `changelog-entry-misplaced` (new entries at the
end), `changelog-history-changed` (history bytes, whitespace included, stay as they are),
`changelog-pr-link-wrong` (this PR's own link), `changelog-format-broken` (exactly one final
newline) and `changelog-separator-irregular` (one empty line between entries). Each is blocking
where a gate rejects the problem, or where the guidance at the merge base (AGENTS.md, CLAUDE.md,
CONTRIBUTING.md) states the convention. Before the merge path (2026-06-18) and before the
repository wrote these conventions down (new entries at the end: 2026-04-17), neither holds:
the problem is real and reviewers asked for it, but nothing proves the PR wrong. Those problems
are reported here, as nits, with the blocking rule's message.

## Why it matters
The convention is the repository's habit even before it is its rule: an entry inserted mid-file
or a placeholder link made by hand is what the later gates reject, and what a reviewer asks to
change. It does not block: at that revision the PR is accepted as it is.

## When it fires
When one of the five rules above finds a problem and reports it Skipped because no gate rejects
it and the base's guidance was read and does not state the convention (the runner hands that
problem to this rule, so this rule reports only while those rules run too). Where the guidance was not
read (no policy files fetched), the blocking rule keeps its finding and this rule says nothing.

## Example
    (a base of 2026-03, no strict validator, AGENTS.md silent on placement)
    - config-keys:            <- a new entry above 31 existing ones
        - dsr1-fp8-h200-sglang

## Fix
As the blocking rule's message says: move the entry to the end, use this PR's link, one empty
line between entries, one newline at the end.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity

CODE = "RR026"
NAME = "changelog-convention-unwritten"
SEVERITY = Severity.NIT
# The rules whose unproven problems this rule reports: the runner stamps them with this rule's code
# and severity (rules/runner.py). Its own check finds nothing else.
REPORTS_UNPROVEN_OF = ("RR001", "RR002", "RR004", "RR006", "RR007")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    return iter(())
