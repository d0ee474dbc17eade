"""Host memory of a benchmark point: pinned KV pools per node, the planner's budget, host DRAM,
and which of several values that must agree is the one out of line.

What is per node and what per instance, as the repository's planner and launchers define it
(`utils/matrix_logic/generate_sweep_configs.py` `agentic_dram_offload_gb`, `worker_gpus_per_node`;
`benchmarks/benchmark_lib.sh` `require_agentic_kv_offload_backend`):

- `TOTAL_CPU_DRAM_GB` is the budget of **one server node's share**: floor(min(host DRAM, cap) ×
  dram-utilization × G / gpus-per-node) in decimal GB, where G is the GPUs one replica occupies
  on a node (TP × PP × PCP for single-node points; the prefill worker's per-node footprint for
  multinode points: a replica larger than a node fills each of its nodes, G = gpus-per-node).
  The launchers pass it through unchanged; scripts divide it by their rank count for per-rank
  sizes.
- Engine pool sizes are **per rank** (vLLM `cpu_bytes_to_use_per_rank`, SGLang `hicache-size`,
  LMCache `LMCACHE_MAX_LOCAL_CPU_SIZE`, TensorRT-LLM `host_cache_size`); the pool an instance
  pins on one node is the per-rank size × the instance's ranks on that node
  (`EngineSettings.ranks_on_node`: TP × DP × PP × PCP, at most gpus-per-node).
- vLLM's `cpu_bytes_to_use` is written as the instance's total (per-rank × TP × DP × PP × PCP),
  or, in older recipes, as one node's total; vLLM itself ignores it when the per-rank value is
  set and otherwise divides it by one DP engine's world size (TP × PP × PCP).

`out_of_line(claims)` decides where a finding about values that must agree goes: the value the
others outvote; only when they split evenly are all of them named.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from rules.added import added_in
from rules.context import ReviewContext
from rules.serving.recipe_points import as_int
from rules.serving.settings import (
    DRAM_ENV,
    GB,
    BenchmarkPoint,
    EngineSettings,
    HostPool,
    fmt,
    line_text,
)

# Host DRAM of the runners (MiB), as in configs/runners.yaml `hardware:` of the Aug-2026 snapshot;
# runners.yaml in the PR's context wins. GPU types whose hosts all have one size are listed too.
SNAPSHOT_HOST_MIB = {
    "cluster:h100-dgxc": 2_063_837, "cluster:h100-cw": 1_998_848, "cluster:h200-dgxc": 1_471_356,
    "cluster:h200-cw": 1_998_848, "cluster:h200-nb": 1_472_512, "cluster:b200-dgxc": 3_095_781,
    "b200-nscale": 2_063_920, "cluster:b200-nscale": 2_063_920, "cluster:b300-nv": 2_964_436,
    "cluster:gb200-nv": 860_160, "cluster:gb300-nv": 860_160, "cluster:rtx6000pro-lat": 1_500_000,
    "cluster:mi300x-amds": 2_321_924, "cluster:mi300x-tw": 2_322_328, "cluster:mi325x-amds": 3_091_589,
    "cluster:mi355x-amds": 3_095_781,
    "b300": 2_964_436, "gb200": 860_160, "gb300": 860_160, "mi325x": 3_091_589, "mi355x": 3_095_781,
}
MIB = 1_048_576
# The planner's per-server cap on host DRAM for budgets (generate_sweep_configs.py), ≈ 3,000 GB.
DRAM_CAP_MIB = 2_861_022
_COMMENT_GB = re.compile(r"(?<![\w.])(\d[\d,_]*(?:\.\d+)?)\s*GB\b")


def snapshot_gb() -> dict[str, float]:
    """The snapshot table in decimal GB (the default of the `host_dram_gb` options)."""
    return {k: v * MIB / GB for k, v in SNAPSHOT_HOST_MIB.items()}


def cap_gb() -> float:
    return DRAM_CAP_MIB * MIB / GB


def runners_hardware(ctx: ReviewContext) -> dict:
    """`hardware:` of configs/runners.yaml in the PR's context (label → mapping), memoized."""

    def compute() -> dict:
        for p in ctx.head_paths_of("runners"):
            doc = ctx.head_doc(p)
            hw = doc.data.get("hardware") if doc.ok and isinstance(doc.data, dict) else None
            if isinstance(hw, dict):
                return {str(k): v for k, v in hw.items() if isinstance(v, dict)}
        return {}

    return ctx.memo(("recipe", "runners-hardware"), compute)


@dataclass(frozen=True)
class HostDram:
    gb: Fraction  # decimal GB, after the planner's cap
    raw_gb: Fraction  # the host as reported, before the cap
    gpus_per_node: int | None
    source: str


def host_dram(ctx: ReviewContext, runner: str | None, gpu_type: str | None,
              table_gb: Mapping[str, float] | None = None, cap: float | None = None) -> HostDram | None:
    """Host DRAM of a runner: runners.yaml in the context, else the table (runner label, then GPU type)."""
    capf = Fraction(str(cap)) if cap is not None else Fraction(DRAM_CAP_MIB * MIB, GB)
    hw = runners_hardware(ctx).get(runner or "")
    if hw is not None and as_int(hw.get("available-cpu-dram-mib")) is not None:
        raw = Fraction(as_int(hw["available-cpu-dram-mib"]) * MIB, GB)
        return HostDram(min(raw, capf), raw, as_int(hw.get("gpus-per-node")), f"{runner} (runners.yaml)")
    table = table_gb if table_gb is not None else snapshot_gb()
    for key in (runner, gpu_type):
        if key and key in table:
            raw = Fraction(str(table[key]))
            return HostDram(min(raw, capf), raw, None, f"{key} (option host_dram_gb)")
    return None


# --- pools per node ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NodePool:
    """What one instance's pool pins on one node."""

    es: EngineSettings
    pool: HostPool
    bytes: int
    ranks: int
    arith: str  # "137,438,953,472 B/rank × 4 ranks on a node (… 8 ranks over 2 nodes) = 549,755,813,888 B"

    @property
    def gb(self) -> Fraction:
        return Fraction(self.bytes, GB)


def node_pool(es: EngineSettings, pool: HostPool) -> NodePool | None:
    """The pool's bytes on one node: per-rank size × the instance's ranks on that node."""
    if pool.per_rank is None or es.parallel_unknown is not None:
        return None
    ranks = es.ranks_on_node()
    spread = ""
    if ranks < es.instance_ranks:
        nodes = math.ceil(es.instance_ranks / ranks)
        spread = f"; {es.instance_ranks} ranks ({es.parallel_arith}) over {nodes} nodes"
    b = pool.per_rank * ranks
    return NodePool(
        es,
        pool,
        b,
        ranks,
        f"{fmt(pool.per_rank)} B/rank × {ranks} ranks on a node{spread} = {fmt(b)} B = {fmt(Fraction(b, GB))} GB",
    )


# --- the planner's budget for a point ----------------------------------------------------------


@dataclass(frozen=True)
class MasterBudget:
    """TOTAL_CPU_DRAM_GB as the planner resolves it for one point, with its arithmetic."""

    expect: int
    arith: str
    key: str
    path: str
    line: int
    util: float
    share: Fraction  # host GB × G / gpn (budget per unit of dram-utilization)


def master_budget(ctx: ReviewContext, bp: BenchmarkPoint, table_gb: Mapping[str, float] | None = None,
                  cap: float | None = None) -> MasterBudget | str | None:
    """The budget the master config gives this point; a reason string when it cannot be told;
    None when no master row with a dram-utilization runs the recipe."""
    cands = [m for m in bp.master if m.dram_util is not None]
    if not cands:
        return None
    conc = next((c.value for c in bp.concurrencies if c.source == "CONC"), None)
    if conc is not None:
        known = [m for m in cands if m.covers(conc) is not None]
        if known and not any(m.covers(conc) for m in known):
            # e.g. a GPU-resident conc-1 point next to DRAM-offload points: no budget applies to it.
            return f"CONC {conc} is not a concurrency of the DRAM-offload master points"
        cands = [m for m in cands if m.covers(conc) is not False]
    if len({(m.dram_util, m.runner) for m in cands}) > 1:
        return "matches several master points with different dram-utilization"
    if not cands:
        return "no master point with a dram-utilization covers it"
    m = cands[0]
    host = host_dram(ctx, m.runner, bp.gpu_type, table_gb, cap)
    if host is None:
        return f"host DRAM of runner `{m.runner}` unknown (add it to host_dram_gb)"
    gpn = host.gpus_per_node or bp.gpus_per_node or 8
    role = next((r for r in bp.roles if r.role == "prefill"), bp.roles[0] if bp.roles else None)
    g = gpn
    if role is not None:
        declared = as_int(role.gpus.value) if role.gpus is not None else None
        g = role.instance_ranks if (role.tp or role.dp or role.pp or role.pcp) else (declared or gpn)
    g = min(g, gpn)
    util = Fraction(str(m.dram_util))
    share = host.gb * g / gpn
    exact = share * util
    expect = math.floor(exact)
    arith = (f"{m.dram_util} × {fmt(host.gb)} GB ({host.source})" + (f" × {g}/{gpn} GPUs" if g != gpn else "")
             + f" = {fmt(exact)} → {expect}")
    return MasterBudget(expect, arith, m.key, m.path, m.line, m.dram_util, share)


# --- values that must agree ----------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One value in a set that must agree: what it is, its value, where it is written."""

    what: str
    value: int
    path: str
    line: int | None


def out_of_line(claims: list[Claim], changed: set[tuple[str, int]] | None = None) -> tuple[int | None, list[Claim]]:
    """(the value most claims agree on, the claims that differ from it).

    Values tied by arithmetic: when two agree with each other, the odd one is blamed. With no
    majority (two values, or an even split) the value the PR changed is blamed when it changed
    only one of them (`changed`: the (path, line) pairs the PR adds) and the others agree among
    themselves: the edit is what broke an agreement. Otherwise the agreed value is None and every
    claim is returned: the finding then names all of them.
    """
    if not claims:
        return None, []
    counts = Counter(c.value for c in claims)
    (top, n), *rest = counts.most_common()
    if n >= 2 and not (rest and rest[0][1] == n):
        return top, [c for c in claims if c.value != top]
    if changed:
        edited = [c for c in claims if c.line is not None and (c.path, c.line) in changed]
        kept = [c for c in claims if c not in edited]
        if edited and kept and len({c.value for c in edited}) == 1 and len({c.value for c in kept}) == 1 \
                and edited[0].value != kept[0].value:
            return kept[0].value, edited
    return None, list(claims)


_PER_RANK_AFTER = re.compile(r"^\s*(?:/|per|each|a)\s*(?:rank|gpu|worker)\b", re.I)


def _comment_figure(comment: str) -> int | None:
    """The one `N GB` total a comment states (None for none, several, or a per-rank figure)."""
    found = []
    for m in _COMMENT_GB.finditer(comment):
        if _PER_RANK_AFTER.match(comment[m.end():]):
            continue
        found.append(m.group(1))
    if len(found) != 1:
        return None
    try:
        return int(float(found[0].replace(",", "").replace("_", "")))
    except ValueError:
        return None


def comment_claims(ctx: ReviewContext, path: str, lines: list[int | None]) -> list[Claim]:
    """`N GB` totals stated in the comments of the given lines: each line's own comment, and the
    comment-only lines directly above it (the note written over a value). One figure per
    comment; per-rank figures (`135 GB per rank`) are not totals and do not vote."""
    out = []
    seen: set[int] = set()
    for line in dict.fromkeys(x for x in lines if x is not None):
        text = line_text(ctx, path, line)
        if text is not None and "#" in text and line not in seen:
            seen.add(line)
            value = _comment_figure(text.split("#", 1)[1])
            if value is not None:
                out.append(Claim("the comment", value, path, line))
        above = line - 1
        while above > 0 and above not in seen:
            t = line_text(ctx, path, above)
            if t is None or not t.lstrip().startswith("#"):
                break
            seen.add(above)
            value = _comment_figure(t.lstrip()[1:])
            if value is not None:
                out.append(Claim("the comment", value, path, above))
                break  # the nearest note above the value speaks for it
            above -= 1
    return out


@dataclass(frozen=True)
class DramAgreement:
    """The host-DRAM values of one point and pool that must agree, and which one is out of line."""

    bp: BenchmarkPoint
    np: NodePool
    budget: int | None  # TOTAL_CPU_DRAM_GB as stated
    budget_line: int | None
    master: MasterBudget | None
    master_why: str | None
    claims: tuple[Claim, ...]
    agreed: int | None
    blamed: tuple[Claim, ...]

    def blames(self, what: str) -> bool:
        return any(c.what == what for c in self.blamed)


POOL, BUDGET, MASTER = "the pool", DRAM_ENV, "dram-utilization"


def dram_agreement(ctx: ReviewContext, bp: BenchmarkPoint, np: NodePool,
                   table_gb: Mapping[str, float] | None = None, cap: float | None = None) -> DramAgreement:
    """Pool (GB on a node, floored), TOTAL_CPU_DRAM_GB, the master's budget and comments: the vote."""
    path = bp.path
    claims = [Claim(POOL, math.floor(np.gb), path, np.pool.line)]
    budget = budget_line = None
    if bp.total_cpu_dram_gb is not None:
        budget = as_int(bp.total_cpu_dram_gb.value)
        budget_line = bp.total_cpu_dram_gb.line
        if budget is not None:
            claims.append(Claim(BUDGET, budget, path, budget_line))
    mb = master_budget(ctx, bp, table_gb, cap)
    master = mb if isinstance(mb, MasterBudget) else None
    if master is not None:
        claims.append(Claim(MASTER, master.expect, master.path, master.line))
    claims += comment_claims(ctx, path, [np.pool.line, budget_line])
    changed = {(path, x) for x in added_in(ctx, path)}
    if master is not None:
        changed |= {(master.path, x) for x in added_in(ctx, master.path)}
    agreed, blamed = out_of_line(claims, changed)
    return DramAgreement(bp, np, budget, budget_line, master, mb if isinstance(mb, str) else None,
                         tuple(claims), agreed, tuple(blamed))


def budget_pools(bp: BenchmarkPoint) -> list[NodePool]:
    """Pools that the repository sizes from TOTAL_CPU_DRAM_GB (Simple CPU and LMCache), per node."""
    out = []
    for es in bp.roles:
        for pool in es.pools:
            if pool.kind in ("simple-cpu", "lmcache") and not pool.ref:
                np = node_pool(es, pool)
                if np is not None:
                    out.append(np)
    return out


def agreements(ctx: ReviewContext, bp: BenchmarkPoint, table_gb: Mapping[str, float] | None = None,
               cap: float | None = None) -> list[DramAgreement]:
    """One agreement per budget-sized pool of a point (memoized per review and host table)."""
    key = ("recipe", "dram-agreement", bp.path, bp.name,
           tuple(sorted(table_gb.items())) if table_gb is not None else None, cap)
    return ctx.memo(key, lambda: [dram_agreement(ctx, bp, np, table_gb, cap) for np in budget_pools(bp)])
