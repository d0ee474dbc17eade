"""Flags a recipe's `TOTAL_CPU_DRAM_GB` that differs from what the master config's `dram-utilization` gives.

## Why it matters
The planner rejects a recipe whose pinned budget disagrees with the master config, or, where it
does not check, the benchmark runs with a pool sized for one budget while the published result
and changelog describe another (the 0.6 → 1799 GB versus 2577 GB pinned episode of #4867).

## When it fires
The sweep generator computes the host-DRAM budget of an offload point as
`floor(min(host DRAM, cap) × dram-utilization × G / gpus-per-node)` in decimal GB, where host
DRAM is the runner's `available-cpu-dram-mib` (configs/runners.yaml), the cap is 2,861,022 MiB
(≈ 3,000 GB, the per-server limit), and G is the GPUs one replica of the point's worker occupies
on a node: the engine instance's ranks from its parallelism (vLLM TP × DP × PP × PCP, SGLang and
TensorRT-LLM TP × PP), of the prefill role when there is one, at most gpus-per-node (a replica
larger than a node fills each node). The budget is therefore **per node**, never per instance
(`generate_sweep_configs.py` `agentic_dram_offload_gb` / `worker_gpus_per_node`). A recipe that
states `TOTAL_CPU_DRAM_GB` must state that number. The master row is the one whose
`CONFIG_FILE=` / `srt-recipe` names the recipe.

When the recipe's pool, an `N GB` comment and the two budgets disagree, the finding goes on the
value the others outvote (with no majority, on the one the PR changed when it changed only one): a
stated `TOTAL_CPU_DRAM_GB` out of line with the pool and the master gets the comment on its own
line, with a suggestion; a `dram-utilization` out of line with the pool and the budget gets it on
the master row (when the PR changes that file) or on the budget line naming the row. A pool out of
line is `offload-pool-mismatch`'s.

## Example
    # master: dram-utilization: 0.2994, runner: cluster:mi355x-amds (≈ 3,000 GB)
    TOTAL_CPU_DRAM_GB: '1799'       # 0.2994 × 3,000 GB resolves to 898

## Fix
Set `TOTAL_CPU_DRAM_GB` to the resolved value, or change `dram-utilization` so that it resolves
to the budget the recipe needs (budget / host GB, e.g. 898 / 3,000 = 0.2994).

## Options
`host_dram_gb`: host DRAM in decimal GB by runner label or GPU type, used when the PR's context
has no `configs/runners.yaml` (which wins when present). Defaults come from runners.yaml of the
Aug-2026 snapshot, capped; GPU types with one host size (b300, gb200, gb300, mi325x, mi355x) are
listed too. `dram_cap_gb`: the per-server cap applied to every host (default 2,861,022 MiB).
"""
from collections.abc import Iterator
from fractions import Fraction

from pydantic import Field

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.host_memory import BUDGET, MASTER, MasterBudget, agreements, cap_gb, master_budget, snapshot_gb
from rules.serving.recipe_points import as_int
from rules.serving.settings import DRAM_ENV, changed_settings, suggest_number

CODE = "RR206"
NAME = "dram-budget-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "written:E16"
ENFORCES = ("E16",)


class Options(RuleOptions):
    # Host DRAM (decimal GB) by runner label or GPU type; runners.yaml in the PR context wins.
    host_dram_gb: dict[str, float] = Field(default_factory=snapshot_gb)
    # Per-server cap on host DRAM used for budgets (decimal GB).
    dram_cap_gb: float = Field(default_factory=cap_gb)


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    changed = {f.path for f in ctx.changeset.files if f.status != "removed"}
    for path, bps in changed_settings(ctx):
        stated = [
            bp for bp in bps if bp.total_cpu_dram_gb is not None and as_int(bp.total_cpu_dram_gb.value) is not None
        ]
        if not stated:
            continue
        if not any(m.dram_util is not None for bp in stated for m in bp.master):
            yield Skipped(f"{path}: no master config row with dram-utilization references this recipe; "
                          f"{DRAM_ENV} not compared", path=path)
            continue
        seen = set()
        for bp in stated:
            env = bp.total_cpu_dram_gb
            mb = master_budget(ctx, bp, options.host_dram_gb, options.dram_cap_gb)
            if not isinstance(mb, MasterBudget):
                why = mb or "no master point with a dram-utilization covers it"
                yield Skipped(f"{path}: `{bp.name}` {why}; {DRAM_ENV} not compared", path=path)
                continue
            have = as_int(env.value)
            key = (env.line, have, mb.expect)
            if key in seen:
                continue
            seen.add(key)
            if have == mb.expect:
                yield Passed(f"{path}: `{bp.name}` {mb.arith} = {DRAM_ENV} {have} ✓", path=path, line=env.line)
                continue
            ag = [a for a in agreements(ctx, bp, options.host_dram_gb, options.dram_cap_gb) if a.budget == have]
            a = ag[0] if ag else None
            votes = "; ".join(f"{c.what} {c.value}" for c in a.claims) if a is not None else ""
            evidence = (mb.arith, f"master row `{mb.key}` at {mb.path}:{mb.line}") + (
                (f"votes: {votes}",) if votes else ()
            )
            if a is not None and a.agreed is not None and a.blames(MASTER) and not a.blames(BUDGET):
                # Pool and budget agree; the master's dram-utilization is the value out of line.
                want = float(Fraction(have) / mb.share)
                on_master = mb.path in changed
                yield Problem(
                    mb.path if on_master else path, mb.line if on_master else env.line,
                    f"`{bp.name}`: dram-utilization {mb.util} of `{mb.key}` resolves to {mb.expect}, but the pool and "
                    f"{DRAM_ENV} of {path} are `{have}` ({votes}: dram-utilization is the value out of line).",
                    fix=f"Set dram-utilization of `{mb.key}` to about {want:.4f} so it resolves to {have}.",
                    evidence=evidence)
                continue
            if a is not None and a.agreed is not None and a.blames(BUDGET):
                yield Problem(
                    path, env.line,
                    f"`{bp.name}`: {DRAM_ENV} is `{have}`, but dram-utilization {mb.util} of `{mb.key}` resolves to "
                    f"{mb.expect} ({votes}: {DRAM_ENV} is the value out of line).",
                    fix=f"Set {DRAM_ENV} to {mb.expect}.",
                    suggestion=suggest_number(ctx, path, env.line, have, mb.expect), evidence=evidence)
                continue
            yield Problem(
                path,
                anchor(ctx, path, env.line),
                f"`{bp.name}`: {DRAM_ENV} is `{have}`, but dram-utilization {mb.util} of `{mb.key}` resolves "
                f"to {mb.expect}.",
                fix=(
                    f"Set {DRAM_ENV} to {mb.expect}, or set dram-utilization in {mb.path}:{mb.line} so it resolves "
                    f"to {have} (about {float(Fraction(have) / mb.share):.4f})."
                ),
                evidence=evidence,
            )
