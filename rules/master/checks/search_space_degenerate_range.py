"""Flags a search-space concurrency range a PR narrows to a single point.

## Why it matters
A row that used to sweep a range and now has `conc-start` = `conc-end` measures one point instead
of a curve: usually a leftover from a debugging run or a typo for the intended bounds (#1002
turned 32–256 into 2–2 for both sequence lengths, without a word in the description), and the
curve the config used to publish silently disappears. New one-point rows are common and
deliberate (about one row in ten of the real master configs), so only a narrowing is flagged;
a single point written as `conc-list: [N]` says it on purpose. A nit.

A narrowing is a row the base and the head each have once (by its topology, within its sequence
lengths): a split into a range and a one-point row, or a rewrite with several rows of one
topology, adds points rather than narrowing one (#1384, #1990; a format migration that keeps two
rows of one topology, #1214). And only a narrowing that drops concurrencies the key no longer runs
in any row for those sequence lengths is flagged: points moved to another parallelism (#387's
TP2 row, #632's TP8/EP1 row) still publish the curve.

## When it fires
On each master-config key the PR adds or changes: it fires for a search-space row whose `conc-start`
equals its `conc-end` (no `conc-list`) when it narrows one base row of the same topology and
sequence lengths and concurrencies that row ran are run by no head row any more. A split (a new
one-point row beside the old range), a rewrite of several rows, and points the key still runs in
another row stay quiet.

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


def _blocks(value) -> dict[tuple, list[tuple[tuple, dict]]]:
    """(scenario, isl, osl) -> the rows of its blocks, with their paths."""
    out: dict[tuple, list[tuple[tuple, dict]]] = {}
    for path, row in _points(value):
        out.setdefault((path[1], *_seq(value, path)), []).append((path, row))
    return out


def narrowed_from(row: dict, heads: list[dict], bases: list[dict]) -> tuple[dict, list[int]] | None:
    """The base row a one-point head row narrows, and the concurrencies no head row runs any more.

    The row is identified by its topology within its sequence lengths, and only when that is
    unambiguous: one row of the topology at base and one at head. Two head rows of a topology
    where the base had one are a split (#1384: 256–1024 plus a new one-point 4096 row), several
    base rows a rewrite (#1990, #1214): the one-point row is then a point of its own, not a
    narrowed range. A narrowing whose points the key still runs in another row (another
    parallelism: #387, #632) moved them; only points no head row runs any more are a lost curve.
    """
    topo = row_topology(row)
    same_head = [r for r in heads if row_topology(r) == topo]
    same_base = [r for r in bases if row_topology(r) == topo]
    if len(same_head) != 1 or len(same_base) != 1:
        return None
    old = same_base[0]
    was = conc_values(old)
    if len(was) <= 1 or conc_values(old) == conc_values(row):
        return None
    still = {c for r in heads for c in conc_values(r)}
    lost = [c for c in was if c not in still]
    return (old, lost) if lost else None


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    checked = found = 0
    for info in touched_rows(ctx):
        if isinstance(info, Skipped):
            continue
        base = key_info(ctx, info.key, "base")
        base_blocks = _blocks(base.value) if base is not None and isinstance(base.value, dict) else {}
        for where_, rows in _blocks(info.value).items():
            heads = [r for _, r in rows]
            for path, row in rows:
                checked += 1
                if not _degenerate(row):
                    continue
                got = narrowed_from(row, heads, [r for _, r in base_blocks.get(where_, [])])
                if got is None:
                    continue
                old, lost = got
                found += 1
                line = key_line(info.text, info.line, path)
                block = scenarios_of(info.value)[path[1]][path[2]]
                seq = f" (isl {block.get('isl')}, osl {block.get('osl')})" if path[1] == "fixed-seq-len" else ""
                was = conc_values(old)
                yield Problem(
                    info.path,
                    line,
                    f"`{info.key}`: row `{path[1]}[{path[2]}].search-space[{path[4]}]`{seq} now has `conc-start` "
                    f"= `conc-end` = {row['conc-start']}: a one-point range where the base swept "
                    f"{was[0]}–{was[-1]} ({len(was)} points).",
                    fix=f"Restore the intended range, or write `conc-list: [{row['conc-start']}]` if one point is "
                    "meant (and say so in the changelog entry).",
                    evidence=(
                        f"head row: {row!r}",
                        f"base row: {old!r}",
                        f"no row of the key runs {', '.join(map(str, lost))} for these sequence lengths any more",
                    ),
                )
    if checked and not found:
        yield Passed(f"{checked} search-space row(s) of changed keys checked: no range narrowed to one point")
