"""Flags host KV pools that pin more DRAM on a node than its budget or the host has.

## Why it matters
Pinned host memory cannot be swapped or reclaimed: a pool above the budget takes DRAM other
replicas on the node were promised, and one above the host ends in an out-of-memory kill
during the sweep (#2816: 256 GiB per rank against about 75 GB per rank of budget).

## When it fires
Every host pool of every instance is sized in bytes per rank (vLLM Simple CPU offload
`cpu_bytes_to_use_per_rank`, or `cpu_bytes_to_use` ÷ one DP engine's world size; LMCache
`LMCACHE_MAX_LOCAL_CPU_SIZE`, GB read as 2^30 B; SGLang `hicache-size`, GB read as 10^9 B;
TensorRT-LLM `kv_cache_config.host_cache_size`, bytes) and multiplied by the instance's ranks
on one node. Then, per node:

- the pools of the prefill (or aggregated) instance must fit `TOTAL_CPU_DRAM_GB`, which the
  planner computes for that instance's share of one node (`generate_sweep_configs.py`
  `agentic_dram_offload_gb`; only prefill offloads in disaggregated points). Pools the
  repository sizes *from* the budget (Simple CPU, LMCache) must equal it, which
  `offload-pool-mismatch` checks, so here they count only beside another pool;
- the pools of all replicas that share a node must fit the host's DRAM (the runner's
  `available-cpu-dram-mib` from configs/runners.yaml, or the option table), before the
  planner's cap, since the host is the physical limit.

Pools that cannot be sized from the recipe (HiCache given only as `hicache-ratio`, a size bound
at launch) are reported as Skipped, naming what is missing.

## Example
    hicache-size: 256                # GB per rank, × 8 ranks on the node = 2,048 GB
    TOTAL_CPU_DRAM_GB: '600'

## Fix
Size the pool from the budget: TOTAL_CPU_DRAM_GB / ranks on the node per rank (600 / 8 = 75
GB here), or raise `dram-utilization` if the host has room.

## Options
`host_dram_gb`: host DRAM (decimal GB) by runner label or GPU type, used when the PR's context
has no configs/runners.yaml (the same table as `dram-budget-mismatch`).
"""
from collections.abc import Iterator
from fractions import Fraction

from pydantic import Field

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.host_memory import host_dram, node_pool, snapshot_gb
from rules.serving.recipe_points import Once, as_int, points_note
from rules.serving.settings import DRAM_ENV, GB, changed_settings, fmt, where

CODE = "RR219"
NAME = "host-pool-exceeds-budget"
SEVERITY = Severity.BLOCKING
PROOF = "written:E19"
ENFORCES = ("E19",)
BUDGET_SIZED = ("simple-cpu", "lmcache")


class Options(RuleOptions):
    # Host DRAM (decimal GB) by runner label or GPU type; runners.yaml in the PR context wins.
    host_dram_gb: dict[str, float] = Field(default_factory=snapshot_gb)


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:  # noqa: C901 (per point and role budget checks, then grouped findings, passes and skips)
    for path, bps in changed_settings(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            runner = next((m.runner for m in bp.master if m.runner), None)
            host = host_dram(ctx, runner, bp.gpu_type, options.host_dram_gb)
            budget = as_int(bp.total_cpu_dram_gb.value) if bp.total_cpu_dram_gb is not None else None
            for es in bp.roles:
                w = where(bp, es)
                nps = []
                for pool in es.pools:
                    if pool.ref:
                        continue
                    if pool.per_rank is None:
                        skipped.add(
                            (pool.line, pool.unresolved),
                            bp.name,
                            f"{w}: {pool.written}: {pool.unresolved}; not compared",
                        )
                        continue
                    if es.parallel_unknown is not None:
                        skipped.add((pool.line, "ranks"), bp.name, f"{w}: {es.parallel_unknown}; pool not compared")
                        continue
                    nps.append(node_pool(es, pool))
                if not nps:
                    continue
                total = sum(n.bytes for n in nps)
                arith = "; ".join(f"{n.pool.written}: {n.arith}" for n in nps)
                if len(nps) > 1:
                    arith += f"; together {fmt(total)} B = {fmt(Fraction(total, GB))} GB"
                lines = tuple(n.pool.line for n in nps)
                budgeted = es.role != "decode" or not bp.disaggregated
                compared = False
                if budget is not None and budgeted and any(n.pool.kind not in BUDGET_SIZED for n in nps):
                    compared = True
                    if total > budget * GB:
                        msg = (f"host pools pin {fmt(Fraction(total, GB))} GB on a node ({arith}), above {DRAM_ENV} "
                               f"`{budget}` for this instance's share of the node")
                        per = budget * GB // nps[0].ranks
                        bad.add(
                            (lines, "budget"),
                            bp.name,
                            (
                                w,
                                lines + (bp.total_cpu_dram_gb.line,),
                                msg,
                                f"Size the pools from the budget: at most {fmt(per)} B "
                                f"({fmt(Fraction(per, GB))} GB) per rank "
                                f"for {nps[0].ranks} ranks on the node.",
                            ),
                        )
                        continue
                    good.add((lines, "budget"), bp.name, f"{w}: {arith} ≤ {DRAM_ENV} {budget} ✓")
                if host is not None:
                    compared = True
                    gpn = as_int(es.gpus_per_node.value) if es.gpus_per_node is not None else None
                    ranks = nps[0].ranks
                    replicas = 1
                    workers = as_int(es.workers.value) if es.workers is not None else 1
                    if gpn and ranks < gpn and workers and workers > 1:
                        replicas = min(workers, gpn // ranks)
                    node_total = total * replicas
                    words = (
                        f"{arith}"
                        + (f"; × {replicas} replicas sharing a node = {fmt(node_total)} B" if replicas > 1 else "")
                        + f" vs host {fmt(host.raw_gb)} GB ({host.source})"
                    )
                    if node_total > host.raw_gb * GB:
                        msg = (f"host pools pin {fmt(Fraction(node_total, GB))} GB on a node, more than the host's "
                               f"{fmt(host.raw_gb)} GB of DRAM ({words})")
                        bad.add((lines, "host"), bp.name, (w, lines, msg, "Shrink the pools to fit the host's DRAM."))
                        continue
                    good.add((lines, "host"), bp.name, f"{w}: {words} ✓")
                if not compared:
                    why = ("no TOTAL_CPU_DRAM_GB for this role and host DRAM unknown" if host is None
                           else "nothing to compare")
                    skipped.add((lines, why), bp.name, f"{w}: {arith}; {why} (runner `{runner}`)")
        for (w, lines, msg, fix), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", fix=fix)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
