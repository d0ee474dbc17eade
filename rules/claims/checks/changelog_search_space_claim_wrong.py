"""Flags a changelog description's concurrency range, `conc-start`/`conc-end` setting or TP/EP/DP arm that the head search space contradicts.

## Why it matters
Reviewers and dashboards read the description to know which points a sweep covers. "conc 2-256 for
all seq-len configs" while one row runs to 512 (#1003), "conc-start lowered to 1 in all
search-spaces" while four rows still start at 4 (#1534), or a "TP8 arm" that no row has (#2241)
describe a sweep that did not run. A range stated as the sweep's (`Sweep: TP=4, conc 8-128`) must be
what some grouping of the rows of its arm runs (all, per sequence length, per TP, per row);
`all`/`every` requires every group to agree.

## When it fires
Only on statements about the selected keys' head rows, and only where they can be wrong:

- A range after a qualifier (`at conc 32-48`, `for conc 1-4`, `matching conc 16-24`, `around`,
  `across`, `(conc …)` after `at high concurrency`) names a subset of the points: it is wrong only
  when no matching row runs anything inside it. A list (`DEP8 at conc [64, 128]`) names points: it
  is wrong only for a value no matching row runs.
- The arm a range or list belongs to is every part named since the previous range of its sentence
  (`tp2 ep2`, `TP=8, EP=1`, `DPA+TP8`, `dp-attn=false`); a multi-node row matches a part through
  either worker role or the recipe file it names (`…-dep4-tep8.yaml`). `DEPn` is DP attention
  over n ranks (ep or tp n); `DPn` is DP attention at tp n, or a data-parallel size (`TP8/DP2/EP16`:
  tp × dp = ep); a row without `ep` has ep 1.
- Not claims: negated sentences (`not`, `no`, `without`, `n't`), sentences that call something
  unchanged or kept, that name a master-config key the entry does not select or say the rows
  mirror / are the same as another config, results and comparisons (`%`, `3.2x`, tok/s,
  throughput, `vs`), alternatives that were tried or failed, plans (`will`, `intended`,
  `blocked`), the old side of a transition (`conc 4-64 -> 1-128`), and sentences that drop or
  replace something. An item that names selected keys is compared with those keys' rows only.
- When a later new entry of the PR selects the same keys, the head rows are that entry's state:
  the earlier entry's search-space statements are not compared.

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
