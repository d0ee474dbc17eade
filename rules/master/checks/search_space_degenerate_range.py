"""Flags a search-space concurrency range a PR narrows to a single point.

## Why it matters
A row that used to sweep a range and now has `conc-start` = `conc-end` measures one point instead
of a curve: usually a leftover from a debugging run or a typo for the intended bounds (#1002
turned 32–256 into 2–2 for both sequence lengths, without a word in the description), and the
curve the config used to publish silently disappears. New one-point rows are common and
deliberate (about one row in ten of the real master configs), so only a narrowing is flagged;
a single point written as `conc-list: [N]` says it on purpose. A nit.

## Example
    search-space:
      - { tp: 8, ep: 8, conc-start: 2, conc-end: 2 }     # was conc-start: 32, conc-end: 256

## Fix
Restore the intended range, or write the single point as `conc-list: [N]`.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import key_info, touched_rows
from rules.master.matrix import conc_values, row_topology, scenarios_of
from rules.master.schema import key_line

CODE = "RR107"
NAME = "search-space-degenerate-range"
SEVERITY = Severity.NIT
MAX_ROWS = 20_000


def _points(value) -> list[tuple[tuple, dict]]:
    out = []
    scenarios = scenarios_of(value)
    if not isinstance(scenarios, dict):
        return out
    for name, blocks in scenarios.items():
        for b, block in enumerate(blocks if isinstance(blocks, list) else []):
            for r, row in enumerate((block.get("search-space") or []) if isinstance(block, dict) else []):
                if isinstance(row, dict):
                    out.append((("scenarios", name, b, "search-space", r), row))
                if len(out) >= MAX_ROWS:
                    return out
    return out


def _seq(value, path) -> tuple:
    block = scenarios_of(value)[path[1]][path[2]]
    return (block.get("isl"), block.get("osl"))


def _degenerate(row: dict) -> bool:
    s, e = row.get("conc-start"), row.get("conc-end")
    return isinstance(s, int) and not isinstance(s, bool) and s == e and "conc-list" not in row


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    checked = found = 0
    for info in touched_rows(ctx):
        if isinstance(info, Skipped):
            continue
        base = key_info(ctx, info.key, "base")
        base_rows = dict(_points(base.value)) if base is not None and isinstance(base.value, dict) else {}
        by_topology = {}
        for bpath, brow in base_rows.items():
            by_topology.setdefault((bpath[1], _seq(base.value, bpath), row_topology(brow)), brow)
        for path, row in _points(info.value):
            checked += 1
            old = by_topology.get((path[1], _seq(info.value, path), row_topology(row)))
            if not _degenerate(row) or not isinstance(old, dict) or len(conc_values(old)) <= 1:
                continue
            found += 1
            line = key_line(info.text, info.line, path)
            block = scenarios_of(info.value)[path[1]][path[2]]
            seq = f" (isl {block.get('isl')}, osl {block.get('osl')})" if path[1] == "fixed-seq-len" else ""
            was = conc_values(old)
            yield Problem(info.path, line,
                          f"`{info.key}`: row `{path[1]}[{path[2]}].search-space[{path[4]}]`{seq} now has `conc-start` "
                          f"= `conc-end` = {row['conc-start']}: a one-point range where the base swept "
                          f"{was[0]}–{was[-1]} ({len(was)} points).",
                          fix=f"Restore the intended range, or write `conc-list: [{row['conc-start']}]` if one point is "
                              "meant (and say so in the changelog entry).",
                          evidence=(f"head row: {row!r}", f"base row: {old!r}"))
    if checked and not found:
        yield Passed(f"{checked} search-space row(s) of changed keys checked: no range narrowed to one point")
