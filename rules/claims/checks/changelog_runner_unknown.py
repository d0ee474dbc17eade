"""Flags a `cluster:<name>` runner named in a changelog description that `runners.yaml` does not define.

## Why it matters
A runner name in the description is how a reader finds where the numbers were measured. A `cluster:` label that exists nowhere in the repository (#2126's `cluster:gbt350docker`, a stale copy-paste) sends them to a fleet that does not exist, and usually means the description was copied from another PR.

## Example
    description:
      - "Run on cluster:gbt350docker->mi355x-amds"   # runners.yaml has cluster:mi355x-amds only

## Fix
Name the runner label the master config uses (`runner:` of the key), as `runners.yaml` spells it.
"""
from collections.abc import Iterator

from rules.claims.description import description_claims
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity

CODE = "RR255"
NAME = "changelog-runner-unknown"
SEVERITY = Severity.BLOCKING
KIND = "runner"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    checked = 0
    for ec in description_claims(ctx):
        if not ec.items or not ec.keys:
            continue
        checked += ec.checked
        for f in ec.findings:
            if f.kind != KIND:
                continue
            # The comment spans the entry from its first line to the description item that says it.
            yield Problem(f.item.path, min(f.item.entry.start_line, f.item.line), f.message, end_line=f.item.line,
                          evidence=(f"description item: `{f.item.text[:160]}`", *f.evidence,
                                    f"entry selects {len(ec.keys)} key(s): {', '.join(ec.keys[:4])}"))
    if checked:
        yield Passed(f"{checked} description item(s) of new changelog entries compared with the {KIND} facts of "
                     f"their keys")
