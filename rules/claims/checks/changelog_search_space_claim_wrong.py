"""Flags a changelog description's concurrency range, `conc-start`/`conc-end` setting or TP/EP/DP arm that the head search space contradicts.

## Why it matters
Reviewers and dashboards read the description to know which points a sweep covers. "conc 2-256 for all seq-len configs" while one row runs to 512 (#1003), "conc-start lowered to 1 in all search-spaces" while four rows still start at 4 (#1534), or a "TP8 arm" that no row has (#2241) describe a sweep that did not run. Ranges are compared with every natural grouping of the selected rows (all, per sequence length, per TP, per row); `all`/`every` requires every group to agree.

## Example
    description:
      - "Sweep conc 2-256 for all seq-len configs"
    # nvidia-master.yaml: { tp: 2, ep: 2, conc-start: 2, conc-end: 512 }   (isl 1024)

## Fix
Make the description state the ranges and arms the master config actually has, or fix the rows.
"""
from collections.abc import Iterator

from rules.claims.description import claim_checks
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity

CODE = "RR253"
NAME = "changelog-search-space-claim-wrong"
SEVERITY = Severity.NIT
KIND = "search-space"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    yield from claim_checks(ctx, KIND)
