"""Flags search-space rows of a master-config key that benchmark the same deployment and concurrency twice.

## Why it matters
Two identical rows for the same sequence lengths whose concurrencies overlap run the same
benchmark twice: the sweep spends GPU hours on a duplicate, and the dashboard shows two results
for one point. Identical blocks after a copy-paste, or a row edited into a copy of its neighbour
(#1584), are the usual cause. A nit: nothing fails.

## When it fires
On each master-config key the PR adds or changes: it fires when two search-space rows have the same
sequence lengths and overlapping concurrencies and are the same benchmark.

Two rows are the same benchmark when everything but their concurrencies is equal, defaults
applied: the topology (tp, ep, dp-attn, spec-decoding, workers …) and the workers'
`additional-settings`. The settings are what the launcher deploys: the recipe file
(`CONFIG_FILE=`), the node counts (`PREFILL_NODES=`, `DECODE_NODES=`, which set the GPUs the result
records), the draft depth (`DECODE_MTP_SIZE=`), the script mode. Rows that differ there are
different deployments run on purpose (a DEP48 and a DEP32 decode at one concurrency, #274; a
MegaMoE recipe beside the plain one, #1217), not a repeat, and merging them would drop one.
Whether such rows publish under one label depends on what the launcher records, which the
master config does not show: not flagged.

A duplicate that the base already has is not this PR's doing and stays quiet; the finding goes on
the later row. A key that does not parse is left to the schema and image rules.

## Example
    search-space:
      - { tp: 8, ep: 8, dp-attn: true, conc-list: [64, 128] }
      - { tp: 8, ep: 8, dp-attn: true, conc-start: 64, conc-end: 256 }   # 64 and 128 again

## Fix
Merge the rows, or remove the overlapping concurrencies from one of them.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import touched_rows
from rules.master.matrix import conc_values, row_topology, scenarios_of
from rules.master.schema import key_line

CODE = "RR106"
NAME = "search-space-duplicate-row"
SEVERITY = Severity.NIT
MAX_ROWS = 20_000
def overlaps(value) -> list[tuple[tuple, tuple, list[int]]]:
    """(path of the earlier row, path of the later row, shared concurrencies) for each overlap."""
    out = []
    scenarios = scenarios_of(value)
    if not isinstance(scenarios, dict):
        return out
    groups: dict[tuple, dict[int, tuple]] = {}  # (scenario, seq, topology) -> concurrency -> first row path
    n = 0
    for name, blocks in scenarios.items():
        for b, block in enumerate(blocks if isinstance(blocks, list) else []):
            if not isinstance(block, dict):
                continue
            seq = (block.get("isl"), block.get("osl"), json.dumps(block.get("dram-utilization")))
            for r, row in enumerate(block.get("search-space") or []):
                n += 1
                if n > MAX_ROWS or not isinstance(row, dict):
                    continue
                concs = conc_values(row)
                if not concs:
                    continue
                path = ("scenarios", name, b, "search-space", r)
                seen = groups.setdefault((name, seq, row_topology(row)), {})
                by_row: dict[tuple, list[int]] = {}
                for c in concs:
                    if c in seen:
                        by_row.setdefault(seen[c], []).append(c)
                # one overlap per earlier row this one repeats (three copies of a block: row 3
                # repeats row 1 for some concurrencies and row 2 for others)
                out.extend((first, path, sorted(set(shared))) for first, shared in by_row.items())
                for c in concs:
                    seen.setdefault(c, path)
    return out


def _fmt(path: tuple) -> str:
    return f"{path[1]}[{path[2]}].search-space[{path[4]}]"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    clean = []
    for info in touched_rows(ctx):
        if isinstance(info, Skipped):
            continue  # the schema and image rules say why
        found = overlaps(info.value)
        if not found:
            clean.append(info.key)
            continue
        before = _base_overlaps(ctx, info.key)
        by_second: dict[tuple, list[tuple[tuple, list[int]]]] = {}
        for first, second, shared in found:
            if (first, second, tuple(shared)) in before:
                continue  # already duplicated at base: not this PR's doing
            by_second.setdefault(second, []).append((first, shared))
        for second, repeats in by_second.items():
            line = key_line(info.text, info.line, second)
            parts = []
            for first, shared in repeats:
                shown = ", ".join(map(str, shared[:8])) + (" …" if len(shared) > 8 else "")
                parts.append(f"row `{_fmt(first)}` (concurrenc{'y' if len(shared) == 1 else 'ies'} {shown})")
            every = sorted({c for _, shared in repeats for c in shared})
            if len(repeats) == 1:
                first, shared = repeats[0]
                shown = ", ".join(map(str, shared[:8])) + (" …" if len(shared) > 8 else "")
                what = (f"row `{_fmt(first)}`, so concurrenc{'y' if len(shared) == 1 else 'ies'} {shown} run twice")
            else:
                what = " and ".join(parts) + f", so {len(every)} concurrencies run twice"
            yield Problem(
                info.path,
                line,
                f"`{info.key}`: row `{_fmt(second)}` repeats the topology of {what}.",
                evidence=(
                    f"rows at lines {', '.join(f'{key_line(info.text, info.line, f):,}' for f, _ in repeats)}"
                    f" and {line:,}",
                    "same sequence lengths, same topology and additional-settings (defaults applied), "
                    "overlapping concurrencies",
                ),
            )
    if clean:
        shown = ", ".join(f"`{k}`" for k in clean[:6]) + (f" and {len(clean) - 6} more" if len(clean) > 6 else "")
        yield Passed(f"{len(clean)} changed key(s) have no duplicate search-space rows: {shown}")


def _base_overlaps(ctx, key: str) -> set:
    from rules.master.analysis import key_info

    b = key_info(ctx, key, "base")
    if b is None or not isinstance(b.value, dict):
        return set()
    return {(f, s, tuple(sh)) for f, s, sh in overlaps(b.value)}
