"""Flags a changelog description that says the search space grew (`cover more configs`) when it shrank, or the reverse.

## Why it matters
"Update search space to cover more configs" on a PR that cut the rows from 7 to 4 (#1990, #1991)
hides a coverage loss: readers of the history assume the old points are still measured. Compared on
both search-space rows and concurrency points of the selected keys, base vs head; a nit because the
wording may refer to something else.

## When it fires
The words must count configs, rows, points, coverage or the search space: "extend the concurrency
range" is about where a range ends, not how many points run, and is not read. A later new entry
of the PR that selects the same keys has the last word on their rows.

## Example
    description:
      - "Update search space to cover more configs"      # rows 7 → 4, points 31 → 18

## Fix
Say what changed: which rows or concurrencies were removed, and why.
"""
from collections.abc import Iterator

from rules.claims.description import claim_checks
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity

CODE = "RR254"
NAME = "changelog-config-count-claim-wrong"
SEVERITY = Severity.NIT
KIND = "count"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    yield from claim_checks(ctx, KIND)
