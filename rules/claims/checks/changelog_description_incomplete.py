"""Flags a changed image or engine flag that the new changelog entry's description does not mention.

## Why it matters
The changelog is how anyone reading a result learns what changed between two sweeps. When a PR
bumps a key's image or changes a serving flag of its benchmark script (`--gpu-memory-utilization
0.90 → 0.95`, a new `--kv-cache-dtype fp8`, an engine environment variable) and the description
only says "update vllm image" or nothing about it (#1991, #2124), the history loses the cause of
a step in the curve. A nit: the change still runs.

## Example
    # benchmarks/single_node/minimaxm3_fp4_b300_mtp.sh
    -    --gpu-memory-utilization 0.90 \
    +    --gpu-memory-utilization 0.95 \
    description:
      - "Update search space"

## Fix
Add a description item per material change: the image `from → to`, each flag with its old and
new value.
"""
from collections.abc import Iterator

from rules.claims.description import description_claims, omissions
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity

CODE = "RR256"
NAME = "changelog-description-incomplete"
SEVERITY = Severity.NIT
MAX_LISTED = 5


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    entries = [ec for ec in description_claims(ctx) if ec.items and ec.keys]
    if not entries:
        return
    missing: dict[int, list[tuple[str, str]]] = {}
    for ec, what, ev in omissions(ctx):
        missing.setdefault(id(ec), []).append((what, ev))
    for ec in entries:
        gaps = missing.get(id(ec))
        if not gaps:
            continue
        what = "; ".join(m for m, _ in gaps[:MAX_LISTED]) + (f"; and {len(gaps) - MAX_LISTED} more"
                                                             if len(gaps) > MAX_LISTED else "")
        line = ec.entry.key_lines.get("description", ec.entry.start_line)
        yield Problem(ec.path, line, f"The description of the entry for `{ec.entry.summary}` does not mention: {what}.",
                      evidence=tuple(ev for _, ev in gaps[:MAX_LISTED]))
    if not missing:
        yield Passed(f"the descriptions of {len(entries)} new entr{'y' if len(entries) == 1 else 'ies'} mention every "
                     f"image and engine-flag change of their keys and scripts")
