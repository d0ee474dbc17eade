"""Flags a changelog description's version transition (`from X to Y`, `X → Y`) that the selected keys' images contradict.

## Why it matters
The description is the permanent record of what a sweep measured. "Update SGLang from v0.5.11-cu130
to v0.5.12-cu130" when the key was already on v0.5.12 (#1567), or one line for two keys of which one
started from another version (#1417, #1419), tells every later reader the wrong starting point, and
comparisons against the "previous" result pick the wrong run. Checked only when the claimed version
names an image tag of the selected keys at base or head.

## When it fires
- A claim is about the keys its item names (`glm5-fp8-b200-sglang: v0.9.2 → v0.10.0`), else the
  keys of the hardware its part of the item names (`… for MI300X and MI325X, from v0.10.1 to
  v0.16.0 for MI355X`), else every selected key whose image changed.
- A version token ends on a letter or digit: `to v0.5.12-cu130.` is `v0.5.12-cu130`. A claim that
  spells a whole reference (`rocm/atom:rocm7.2.2_…`) is compared with the whole image; an
  abbreviated tag (`rocm7.2.3_..._atom20260511`) part by part; `from A/B` holds when either does.
- New entries whose `pr-link`s name two or more other PRs are history re-added (a restored or
  rewritten changelog), not this PR's description, and are not read.

## Example
    - config-keys:
        - glm5-fp4-b200-sglang
        - glm5-fp4-b200-sglang-mtp            # was on v0.5.11-cu130
      description:
        - "Update SGLang image from v0.5.10.post1-cu130 to v0.5.12-cu130"

## Fix
Write each key's real base and head versions; split the line when keys started from different versions.
"""
from collections.abc import Iterator

from rules.claims.description import claim_checks
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity

CODE = "RR252"
NAME = "changelog-version-claim-wrong"
SEVERITY = Severity.NIT
KIND = "version"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    yield from claim_checks(ctx, KIND)
