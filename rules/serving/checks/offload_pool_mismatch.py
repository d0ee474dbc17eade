"""Flags a host KV-offload pool whose byte counts disagree with each other or with `TOTAL_CPU_DRAM_GB`.

## Why it matters
The pool is pinned host memory. A per-rank size that does not add up to the budget either
leaves DRAM the benchmark claims to use idle or over-commits the host, which ends in an OOM kill
hours into the sweep, or a published result for a different pool than the changelog describes.

## When it fires
For pools the repository sizes from the DRAM budget (vLLM's `SimpleCPUOffloadConnector` in
`kv-transfer-config`, LMCache's `LMCACHE_MAX_LOCAL_CPU_SIZE`), per point and role:

- `cpu_bytes_to_use_per_rank × ranks = cpu_bytes_to_use` when both are set. Ranks are the
  engine instance's, from its parallelism (TP × DP × PP × PCP), so DP8 over two 4-GPU nodes has
  8 ranks; a `cpu_bytes_to_use` written as one node's total (per-rank × the instance's ranks on
  a node, the older convention) also passes. vLLM uses the per-rank value when it is set.
- the pool **on one node** (per-rank size × the instance's ranks on that node), in decimal GB,
  floored, equals the point's `TOTAL_CPU_DRAM_GB`, which the planner computes per node
  (`generate_sweep_configs.py` `agentic_dram_offload_gb`: one server node's share of host DRAM).

When the pool disagrees, the finding goes on the value out of line (`host_memory.out_of_line`):
the pool, the budget, the master's `dram-utilization` and an `N GB` total stated in a comment on
the pool or budget line, or in the comment lines directly above them, vote. When two agree, the
odd one is blamed; with no majority (pool against budget alone), the one the PR changed is
blamed when it changed only one of them. A pool out of line is flagged here with a suggestion
for the per-rank size. A budget out of line is `dram-budget-mismatch`'s when a master row with a
`dram-utilization` resolves the point (that rule compares the two); without one it is flagged
here, on the budget line, with a suggestion. Only an undecided split names both. Sizes written
as `@dram.…` references are bound by the launcher and pass.

## Example
    kv-transfer-config: '{"kv_connector":"SimpleCPUOffloadConnector","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":224875000000}}'
    TOTAL_CPU_DRAM_GB: '898'        # 224,875,000,000 × 8 = 1,799.0 GB

## Fix
Derive the per-rank size from the budget: TOTAL_CPU_DRAM_GB × 10^9 / ranks on a node (rounded
down), or state the budget the pool actually uses.
"""
from collections.abc import Iterator
from fractions import Fraction

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.host_memory import BUDGET, POOL, agreements, node_pool
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import DRAM_ENV, GB, changed_settings, fmt, suggest_number, where

CODE = "RR205"
NAME = "offload-pool-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "written:E19"
ENFORCES = ("E19",)
PER_RANK, TOTAL = "cpu_bytes_to_use_per_rank", "cpu_bytes_to_use"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:  # noqa: C901 (per point and role pool checks, then grouped findings, passes and skips)
    for path, bps in changed_settings(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            agreed = {id(a.np.pool): a for a in agreements(ctx, bp)}
            for es in bp.roles:
                for pool in es.pools:
                    if pool.kind not in ("simple-cpu", "lmcache"):
                        continue
                    w = where(bp, es)
                    if pool.ref:
                        good.add((pool.line, "ref"), bp.name, f"{w}: pool sized by `@dram` reference (bound at launch)")
                        continue
                    if pool.per_rank is None:
                        skipped.add((pool.line, pool.unresolved), bp.name, f"{w}: pool size unknown: {pool.unresolved}")
                        continue
                    if es.parallel_unknown is not None:
                        skipped.add((pool.line, "ranks"), bp.name,
                                    f"{w}: rank count unknown ({es.parallel_unknown}), pool not checked")
                        continue
                    steps = []
                    if pool.kind == "simple-cpu" and pool.total is not None and PER_RANK in pool.written:
                        inst, node = es.instance_ranks, es.ranks_on_node()
                        per, tot = pool.per_rank, pool.total
                        if tot == per * inst:
                            steps.append(
                                f"{fmt(per)} B/rank × {inst} ranks ({es.parallel_arith}) = {fmt(tot)} = {TOTAL}"
                            )
                        elif node != inst and tot == per * node:
                            steps.append(
                                f"{fmt(per)} B/rank × {node} ranks on a node = {fmt(tot)} = {TOTAL} (one node's total)"
                            )
                        else:
                            msg = (
                                f"{PER_RANK} `{fmt(per)}` × {inst} ranks ({es.parallel_arith}) = {fmt(per * inst)} B, "
                                f"but {TOTAL} is `{fmt(tot)}`"
                            )
                            sug = suggest_number(ctx, path, pool.line, tot, per * inst)
                            bad.add((pool.line, msg), bp.name, (w, (pool.line,), msg,
                                    f"Set {TOTAL} to {per * inst} or {PER_RANK} to {tot // inst}.", sug,
                                    (f"ranks = {es.parallel_arith}",)))
                            continue
                    np = node_pool(es, pool)
                    steps.append(np.arith)
                    a = agreed.get(id(pool))
                    if a is None or a.budget is None:
                        good.add((pool.line, tuple(steps), "nobudget"), bp.name,
                                 f"{w}: {'; '.join(steps)} ({DRAM_ENV} not stated in the recipe)")
                        continue
                    gb = a.claims[0].value
                    if gb == a.budget:
                        good.add((pool.line, a.budget_line, tuple(steps)), bp.name,
                                 f"{w}: {'; '.join(steps)} → {gb} = {DRAM_ENV} {a.budget}")
                        continue
                    votes = "; ".join(f"{c.what} {c.value}" + (f" (line {c.line})" if c.line and c.path == path else "")
                                      for c in a.claims)
                    if a.agreed is not None and not a.blames(POOL):
                        # The pool agrees with the others; the budget is the value out of line.
                        if a.master is not None:
                            # dram-budget-mismatch compares the budget with the master row and owns it.
                            good.add((pool.line, "agrees", a.agreed), bp.name,
                                     f"{w}: {'; '.join(steps)} → {gb} agrees with {votes}; {BUDGET} is out of line "
                                     "(reported by dram-budget-mismatch)")
                            continue
                        msg = (f"{DRAM_ENV} is `{a.budget}`, but the offload pool on a node is {fmt(np.bytes)} B = "
                               f"{fmt(np.gb)} GB ({votes}: {DRAM_ENV} is the value out of line)")
                        bad.add((a.budget_line, pool.line, msg), bp.name,
                                (w, (a.budget_line,), msg, f"Set {DRAM_ENV} to {a.agreed}.",
                                 suggest_number(ctx, path, a.budget_line, a.budget, a.agreed),
                                 tuple(steps) + (f"{DRAM_ENV} = {a.budget} (line {a.budget_line})",)))
                        continue
                    target = a.agreed if a.agreed is not None else a.budget
                    msg = (f"the offload pool on a node is {fmt(np.bytes)} B = {fmt(np.gb)} GB, "
                           f"but {DRAM_ENV} is `{a.budget}`")
                    new_per = target * GB // np.ranks
                    if pool.kind == "lmcache":
                        new_size = fmt(Fraction(target * GB, np.ranks * 2**30))
                        fix = f"Set LMCACHE_MAX_LOCAL_CPU_SIZE to {new_size} GiB ({target} GB / {np.ranks} ranks)"
                        sug = None
                    else:
                        fix = f"Set {PER_RANK} to {new_per} ({target} × 10^9 / {np.ranks} ranks on a node)"
                        sug = (
                            suggest_number(ctx, path, pool.line, pool.per_rank, new_per)
                            if PER_RANK in pool.written
                            else None
                        )
                    if a.agreed is None:
                        fix += f", or {DRAM_ENV} to {gb}"
                        lines = (pool.line, a.budget_line)
                        sug = None
                    else:
                        lines = (pool.line,)
                        msg += f" ({votes}: the pool is the value out of line)"
                    bad.add(
                        (pool.line, a.budget_line, msg),
                        bp.name,
                        (
                            w,
                            lines,
                            msg,
                            fix + ".",
                            sug,
                            tuple(steps) + (f"{DRAM_ENV} = {a.budget} (line {a.budget_line})",),
                        ),
                    )
        for (w, lines, msg, fix, sug, evidence), names in bad.items():
            line = lines[0] if len(lines) == 1 else anchor(ctx, path, *lines)
            yield Problem(path, line, f"{w}: {msg}{points_note(names)}.", fix=fix,
                          suggestion=sug if line == lines[0] else None, evidence=evidence)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)} ✓", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
