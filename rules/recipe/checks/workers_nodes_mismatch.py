"""Flags a role whose node count does not fit its workers: nodes × GPUs per node vs workers × GPUs per worker.

For each role of an srt-slurm (`resources.{prefill,decode,agg}_{nodes,workers}`,
`gpus_per_{role}`, `gpus_per_node`) or schema-2 (`roles.<role>.{nodes,workers,gpus}`) recipe that
declares its GPUs per worker, the nodes the role needs follow srtctl's allocator
(`allocate_endpoints`): a worker of a full node or more takes ⌈GPUs / GPUs per node⌉ nodes of
its own; smaller workers are packed ⌊GPUs per node / GPUs per worker⌋ to a node
(`{role}_workers_per_node` overrides the packing) unless `spread_workers` /
`spread_{role}_workers` gives each its own node. Older srt-slurm templates placed each worker on
`nodes / workers` nodes, so a count of one node (set) per worker also passes. The job allocates the stated nodes, so more is
idle hardware and fewer fails the allocation. Roles allowed to share nodes
(`backend.allow_prefill_decode_colocation`) are packed by srtctl itself, which lowers the job's
node count when they fit, so only too few nodes is flagged there. Without a declared GPU count
srtctl derives it from the nodes, and there is nothing to compare.

## Why it matters
The job allocates the nodes the recipe states. Too many leaves whole nodes idle for the length
of the sweep (and, where the launcher spreads workers over them, changes the topology being
measured); too few fails the launch after the job waited in the queue. A count copied from a
layout with another node size is the usual cause (#1649: `decode_nodes: 2` for one 8-GPU
decode worker on 8-GPU nodes, the GB200 4-GPU layout).

## Example
    gpus_per_node: 8
    decode_nodes: 2
    decode_workers: 1
    gpus_per_decode: 8               # one worker fills one node

## Fix
Set the node count to what the workers need (1 here), or change the workers or GPUs per worker.
"""
import math
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.recipe.engine_settings import changed_settings, suggest_number, where
from rules.recipe.points import Once, anchor, as_int, points_note

CODE = "RR217"
NAME = "workers-nodes-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def nodes_needed(workers: int, gpus: int, gpn: int, spread: bool = False, per_node: int | None = None) -> int:
    if gpus >= gpn or spread:
        return workers * math.ceil(gpus / gpn)
    fit = gpn // gpus
    if per_node is not None and 0 < per_node < fit:
        fit = per_node
    return math.ceil(workers / fit)


def _layout_knobs(bp, role: str) -> tuple[bool, int | None, str]:
    """(spread, workers per node, how it is written) from the recipe's resources."""
    res = bp.resources
    prefix = "agg" if role == "agg" else role
    spread = any(res.get(k) is True for k in ("spread_workers", f"spread_{prefix}_workers"))
    per = as_int(res.get(f"{prefix}_workers_per_node"))
    how = ("; spread: one node per worker" if spread else "") + (f"; {prefix}_workers_per_node {per}" if per else "")
    return spread, per, how


def _ints(es):
    vals = {}
    for fld in ("workers", "nodes", "gpus", "gpus_per_node"):
        s = getattr(es, fld)
        vals[fld] = as_int(s.value) if s is not None else None
    return vals


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, bps in changed_settings(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            roles = []
            for es in bp.roles:
                v = _ints(es)
                if es.nodes is None or es.gpus is None or v["gpus_per_node"] is None:
                    continue
                if None in (v["nodes"], v["gpus"]) or (es.workers is not None and v["workers"] is None):
                    skipped.add((es.role, "unreadable"), bp.name, f"{where(bp, es)}: nodes, workers or GPUs are not integers")
                    continue
                w = v["workers"] if v["workers"] is not None else 1
                if w <= 0 or v["gpus"] <= 0 or v["gpus_per_node"] <= 0:
                    if v["nodes"] == 0 and w == 0:
                        continue
                    skipped.add((es.role, "nonpositive"), bp.name, f"{where(bp, es)}: workers, GPUs or GPUs per node not positive")
                    continue
                roles.append((es, w, v["nodes"], v["gpus"], v["gpus_per_node"]))
            if not roles:
                continue
            if bp.colocated is not None and len(roles) > 1:
                gpn = roles[0][4]
                gpus = sum(w * g for _, w, _, g, _ in roles)
                nodes = sum(n for _, _, n, _, _ in roles)
                need = math.ceil(gpus / gpn)
                text = " + ".join(f"{w} {es.role} × {g}" for es, w, _, g, _ in roles)
                arith = f"{text} = {gpus} GPUs on {gpn}-GPU nodes (colocated) = {need} nodes"
                if nodes >= need:
                    good.add(("coloc", arith), bp.name, f"{where(bp)}: {arith} = {nodes} nodes ✓")
                    continue
                lines = tuple(es.nodes.line for es, *_ in roles)
                msg = f"the roles share nodes and need {need} ({arith}), but their node counts add up to only `{nodes}`"
                bad.add((lines, msg), bp.name, (where(bp), lines, msg, None))
                continue
            for es, w, n, g, gpn in roles:
                spread, per, how = _layout_knobs(bp, es.role)
                need = nodes_needed(w, g, gpn, spread, per)
                one_each = nodes_needed(w, g, gpn, True)
                arith = (f"{w} worker{'s' if w > 1 else ''} × {g} GPUs ({es.gpus.name}) on {gpn}-GPU nodes{how} = "
                         f"{need} node{'s' if need > 1 else ''}")
                if not spread and per is None and need != one_each:
                    arith += f" packed, or {one_each} with a node (set) per worker"
                    if n == one_each:
                        good.add((es.role, arith), bp.name, f"{where(bp, es)}: {arith} = {es.nodes.name} {n} (one per worker) ✓")
                        continue
                if n == need:
                    good.add((es.role, arith), bp.name, f"{where(bp, es)}: {arith} = {es.nodes.name} {n} ✓")
                    continue
                msg = f"{es.nodes.name} is `{n}` ({n} × {gpn} = {n * gpn} GPUs), but {arith}"
                sug = suggest_number(ctx, path, es.nodes.line, n, need)
                lines = (es.nodes.line,) + tuple(s.line for s in (es.workers, es.gpus) if s is not None)
                bad.add((es.nodes.line, msg), bp.name, (where(bp, es), lines, msg, sug))
        for (w, lines, msg, sug), names in bad.items():
            line = anchor(ctx, path, *lines)
            yield Problem(path, line, f"{w}: {msg}{points_note(names)}.",
                          suggestion=sug if line == lines[0] else None)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
