"""Flags a changelog description's version transition (`from X to Y`, `X → Y`) that the selected keys' images contradict.

## Why it matters
The description is the permanent record of what a sweep measured. "Update SGLang from v0.5.11-cu130 to v0.5.12-cu130" when the key was already on v0.5.12 (#1567), or one line for two keys of which one started from another version (#1417, #1419), tells every later reader the wrong starting point, and comparisons against the "previous" result pick the wrong run. Checked only when the claimed version names an image tag of the selected keys at base or head.

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
