"""Flags a `cluster:<name>` runner named in a changelog description that `runners.yaml` does not define.

## Why it matters
A runner name in the description is how a reader finds where the numbers were measured. A `cluster:`
label that exists nowhere in the repository (#2126's `cluster:gbt350docker`, a stale copy-paste)
sends them to a fleet that does not exist, and usually means the description was copied from another
PR.

## When it fires
On the descriptions of new changelog entries this PR writes: it fires for each `cluster:<name>`
token whose label (or name) is neither a label nor a node of `runners.yaml` at the head, nor a
hardware entry there, naming similar labels. Without a readable `runners.yaml` it stays quiet;
entries that re-add other PRs' history are not read.

## Example
    description:
      - "Run on cluster:gbt350docker->mi355x-amds"   # runners.yaml has cluster:mi355x-amds only

## Fix
Name the runner label the master config uses (`runner:` of the key), as `runners.yaml` spells it.
"""
from collections.abc import Iterator

from rules.claims.description import claim_checks
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity

CODE = "RR255"
NAME = "changelog-runner-unknown"
SEVERITY = Severity.NIT
KIND = "runner"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    yield from claim_checks(ctx, KIND)
