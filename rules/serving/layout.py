"""Nodes a role's workers need, as srtctl's allocator places them, against the nodes a recipe states.

srtctl (srt-slurm, `src/srtctl/core/topology.py` `allocate_endpoints`) walks the job's nodes in
order: a worker of a full node or more takes ⌈GPUs / GPUs per node⌉ nodes of its own; smaller
workers are packed ⌊GPUs per node / GPUs per worker⌋ to a node (`{role}_workers_per_node`
overrides the packing) unless `spread_workers` / `spread_{role}_workers` gives each its own
node. When the nodes run out it raises "Not enough nodes …" and the job fails; nodes left over
after the last worker get no process. Older srt-slurm templates placed each worker on
`nodes / workers` nodes, so a count of one node (set) per worker also fits. Roles allowed to
share nodes (`backend.allow_prefill_decode_colocation`) are packed together by srtctl.

`node_fits(bp)` gives one `NodeFit` per role that declares its GPUs per worker (or one for the
colocated roles together): the stated count, the count needed, and whether the stated one is
enough (`few`), exact, or more than the workers use (`many`). The rules split on that:
`workers-nodes-mismatch` (too few: the launch fails) and `workers-nodes-excess` (too many: idle
nodes, a nit).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from rules.serving.recipe_points import as_int
from rules.serving.settings import BenchmarkPoint, EngineSettings, where


def nodes_needed(workers: int, gpus: int, gpn: int, spread: bool = False, per_node: int | None = None) -> int:
    """Nodes srtctl's allocator uses for `workers` workers of `gpus` GPUs on `gpn`-GPU nodes."""
    if gpus >= gpn or spread:
        return workers * math.ceil(gpus / gpn)
    fit = gpn // gpus
    if per_node is not None and 0 < per_node < fit:
        fit = per_node
    return math.ceil(workers / fit)


def layout_knobs(bp: BenchmarkPoint, role: str) -> tuple[bool, int | None, str]:
    """(spread, workers per node, how it is written) from the recipe's resources."""
    res = bp.resources
    prefix = "agg" if role == "agg" else role
    spread = any(res.get(k) is True for k in ("spread_workers", f"spread_{prefix}_workers"))
    per = as_int(res.get(f"{prefix}_workers_per_node"))
    how = ("; spread: one node per worker" if spread else "") + (f"; {prefix}_workers_per_node {per}" if per else "")
    return spread, per, how


@dataclass(frozen=True)
class NodeFit:
    """One role (or the colocated roles together): the nodes it states against the nodes it needs."""

    where: str
    es: EngineSettings | None  # None for colocated roles judged together
    stated: int
    need: int
    arith: str
    verdict: str  # "ok" | "few" | "many"
    ok_text: str  # the passed check's text when the verdict is "ok"
    lines: tuple[int | None, ...]  # the node count's line first, then the values it is compared with
    gpn: int


def _ints(es: EngineSettings) -> dict:
    vals = {}
    for fld in ("workers", "nodes", "gpus", "gpus_per_node"):
        s = getattr(es, fld)
        vals[fld] = as_int(s.value) if s is not None else None
    return vals


def node_fits(bp: BenchmarkPoint) -> tuple[list[NodeFit], list[tuple[tuple, str]]]:
    """(node fits of the point's roles, skipped (key, reason) for roles that cannot be read)."""
    roles, skipped = [], []
    for es in bp.roles:
        v = _ints(es)
        if es.nodes is None or es.gpus is None or v["gpus_per_node"] is None:
            continue
        if None in (v["nodes"], v["gpus"]) or (es.workers is not None and v["workers"] is None):
            skipped.append(((es.role, "unreadable"), f"{where(bp, es)}: nodes, workers or GPUs are not integers"))
            continue
        w = v["workers"] if v["workers"] is not None else 1
        if w <= 0 or v["gpus"] <= 0 or v["gpus_per_node"] <= 0:
            if v["nodes"] == 0 and w == 0:
                continue
            skipped.append(((es.role, "nonpositive"), f"{where(bp, es)}: workers, GPUs or GPUs per node not positive"))
            continue
        if any(s is not None for s in (es.tp, es.dp, es.pp, es.pcp)) and es.parallel_unknown is None \
                and es.instance_ranks != v["gpus"]:
            # The declared GPUs are not what the engine's parallelism takes (gpus-per-role-mismatch):
            # which of the two is wrong decides the nodes, so they are not compared.
            skipped.append(((es.role, "gpus"), f"{where(bp, es)}: {es.gpus.name} {v['gpus']} is not the engine's "
                            f"{es.parallel_arith} ranks; node count not compared"))
            continue
        roles.append((es, w, v["nodes"], v["gpus"], v["gpus_per_node"]))
    if not roles:
        return [], skipped
    if bp.colocated is not None and len(roles) > 1:
        gpn = roles[0][4]
        gpus = sum(w * g for _, w, _, g, _ in roles)
        nodes = sum(n for _, _, n, _, _ in roles)
        need = math.ceil(gpus / gpn)
        text = " + ".join(f"{w} {es.role} × {g}" for es, w, _, g, _ in roles)
        arith = f"{text} = {gpus} GPUs on {gpn}-GPU nodes (colocated) = {need} nodes"
        # srtctl packs colocated roles itself, which lowers the job's node count: only too few counts.
        verdict = "ok" if nodes >= need else "few"
        fit = NodeFit(where(bp), None, nodes, need, arith, verdict, f"{where(bp)}: {arith} = {nodes} nodes ✓",
                      tuple(es.nodes.line for es, *_ in roles), gpn)
        return [fit], skipped
    out = []
    for es, w, n, g, gpn in roles:
        spread, per, how = layout_knobs(bp, es.role)
        need = nodes_needed(w, g, gpn, spread, per)
        one_each = nodes_needed(w, g, gpn, True)
        arith = (f"{w} worker{'s' if w > 1 else ''} × {g} GPUs ({es.gpus.name}) on {gpn}-GPU nodes{how} = "
                 f"{need} node{'s' if need > 1 else ''}")
        lines = (es.nodes.line,) + tuple(s.line for s in (es.workers, es.gpus) if s is not None)
        ok_text = f"{where(bp, es)}: {arith} = {es.nodes.name} {n} ✓"
        if not spread and per is None and need != one_each:
            arith += f" packed, or {one_each} with a node (set) per worker"
            if n == one_each:
                out.append(NodeFit(where(bp, es), es, n, need, arith, "ok",
                                   f"{where(bp, es)}: {arith} = {es.nodes.name} {n} (one per worker) ✓", lines, gpn))
                continue
            ok_text = f"{where(bp, es)}: {arith} = {es.nodes.name} {n} ✓"
        verdict = "ok" if n == need else "few" if n < need else "many"
        out.append(NodeFit(where(bp, es), es, n, need, arith, verdict, ok_text, lines, gpn))
    return out, skipped
