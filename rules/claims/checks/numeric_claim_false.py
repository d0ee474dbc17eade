"""Flags arithmetic stated in a comment or changelog description that is not true.

## Why it matters
Reviewers and later readers trust the arithmetic written next to a value ("2700 blocks x
41,574,656 B = 112,251,571,200 B per rank, 898 GB across the 8 ranks") instead of redoing it.
A wrong product or total there either hides a budget that does not fit or sends the next
person to "fix" a value that was right.

## When it fires
Claims are read from comments in changed recipes, master configs and benchmark scripts (only
comment blocks the PR wrote or edited) and from the descriptions of new changelog entries.
Products, quotients, sums, powers, `P% of Q` and "T across M ranks" next to a per-rank quantity
are checked; prose that is not arithmetic (versions, PR numbers, ranges, `TP8 x DCP8`, `8k/1k`)
is never read as a claim.

The precision written is respected: a result rounded or floored at its last digit (`898 GB` for
898,012,569,600 B) is true, and `~` or `≈` allow 10 %. Only a claim whose arithmetic is false at
that precision fires.

## Example
    # 8 ranks x 120 GB = 920 GB of host DRAM for the offload pool
    cpu_bytes_to_use: 960000000000

## Fix
Correct the stated result (here `960 GB`), or the operands if they are what is wrong.
"""
from collections.abc import Iterator

from rules.claims.locate import changeset_claims
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR250"
NAME = "numeric-claim-false"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    located, skipped = changeset_claims(ctx)
    for detail in skipped:
        yield Skipped(detail)
    for lc in located:
        if not lc.fresh:
            continue
        c = lc.claim
        where = "comment" if lc.source == "comment" else "changelog description"
        if c.holds:
            yield Passed(f"{lc.path}:{lc.line}: {c.detail}", path=lc.path, line=lc.line)
            continue
        fix = (f"Write `{c.fixed}` in place of `{c.stated.text}`, or correct the operands."
               if c.fixed and c.stated else "Correct the stated result or the operands.")
        suggestion = lc.suggestion if lc.suggestion_line == lc.line else None
        yield Problem(
            lc.path, lc.line,
            f"{where} claims `{' '.join(c.text.split())}`, but it works out to `{c.computed}`",
            fix=fix, suggestion=suggestion,
            evidence=(f"claim: {c.text.strip()}", f"computed: {c.detail}",
                      "a result may be rounded or floored at its last written digit; `~`/`≈` allow 10 %"))
