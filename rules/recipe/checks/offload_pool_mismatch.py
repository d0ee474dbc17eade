"""Flags a CPU KV-offload pool whose byte counts disagree with each other or with `TOTAL_CPU_DRAM_GB`.

For a `kv-transfer-config` whose `kv_connector_extra_config` sizes a host pool (vLLM's
`SimpleCPUOffloadConnector`), per point and role:

- `cpu_bytes_to_use_per_rank × ranks = cpu_bytes_to_use` when both are set;
- the pool in decimal GB, floored, equals the point's `TOTAL_CPU_DRAM_GB` when the recipe states it.

Ranks are the role's GPUs on one node: tensor × data × pipeline (× prefill-context) parallel
size, capped at `resources.gpus_per_node`, because the budget is one host's DRAM. Sizes written
as `@dram.…` references are bound by the launcher and pass.

## Why it matters
The pool is pinned host memory. A per-rank size that does not add up to the budget either
leaves DRAM the benchmark claims to use idle or over-commits the host, which ends in an OOM kill
hours into the sweep, or a published result for a different pool than the changelog describes.

## Example
    kv-transfer-config: '{"kv_connector":"SimpleCPUOffloadConnector","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":224875000000}}'
    TOTAL_CPU_DRAM_GB: '898'        # 224,875,000,000 × 8 = 1,799.0 GB

## Fix
Derive the per-rank size from the budget: TOTAL_CPU_DRAM_GB × 10^9 / ranks (rounded down), or
state the budget the pool actually uses.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.recipe.points import Once, Point, Role, anchor, as_int, changed_recipes, fmt, parallelism, points_note, where

CODE = "RR205"
NAME = "offload-pool-mismatch"
SEVERITY = Severity.BLOCKING
PER_RANK, TOTAL = "cpu_bytes_to_use_per_rank", "cpu_bytes_to_use"
DRAM_ENV = "TOTAL_CPU_DRAM_GB"


def pool_config(role: Role) -> dict | None:
    """The connector extra config that sizes a host pool (also inside a MultiConnector)."""
    cfg = role.json_dict("kv-transfer-config")
    stack = [cfg]
    while stack:
        cur = stack.pop()
        extra = cur.get("kv_connector_extra_config")
        if isinstance(extra, dict) and (PER_RANK in extra or TOTAL in extra):
            return extra
        for sub in (extra or {}).get("connectors", []) if isinstance(extra, dict) else []:
            if isinstance(sub, dict):
                stack.append(sub)
    return None


def ranks_on_node(point: Point, role: Role) -> tuple[int, str] | None:
    par = parallelism(role)
    if par is None:
        return None
    gpn = point.gpus_per_node
    if gpn and par.gpus > gpn:
        return gpn, f"{par.arith}, {gpn} per node"
    return par.gpus, par.arith


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, points in changed_recipes(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for point in points:
            for role in point.roles:
                extra = pool_config(role)
                if extra is None:
                    continue
                w = where(point, role)
                line = role.arg("kv-transfer-config").line
                per_raw, tot_raw = extra.get(PER_RANK), extra.get(TOTAL)
                if any(isinstance(v, str) and v.startswith("@dram.") for v in (per_raw, tot_raw)):
                    good.add((line, "ref"), point.name, f"{w}: pool sized by `@dram` reference (bound at launch)")
                    continue
                per, tot = as_int(per_raw), as_int(tot_raw)
                rk = ranks_on_node(point, role)
                if per is None and tot is None:
                    continue
                if rk is None and per is not None:
                    skipped.add((line, "ranks"), point.name, f"{w}: rank count unknown (no parallel sizes), pool not checked")
                    continue
                ranks, ranks_arith = rk if rk else (None, "")
                steps = []
                if per is not None and tot is not None:
                    if per * ranks != tot:
                        msg = (f"{PER_RANK} `{fmt(per)}` × {ranks} ranks = {fmt(per * ranks)} B, "
                               f"but {TOTAL} is `{fmt(tot)}`")
                        bad.add((line, msg), point.name, (w, (line,), msg,
                                f"Set {TOTAL} to {per * ranks} or {PER_RANK} to {tot // ranks}.",
                                (f"ranks = {ranks_arith}",)))
                        continue
                    steps.append(f"{fmt(per)} B/rank × {ranks} = {fmt(tot)} = {TOTAL}")
                pool = tot if tot is not None else per * ranks
                if per is not None and tot is None:
                    steps.append(f"{fmt(per)} B/rank × {ranks} ({ranks_arith}) = {fmt(pool)} B")
                env = point.env(DRAM_ENV)
                stated = as_int(env.value) if env is not None else None
                if env is None or stated is None:
                    good.add((line, tuple(steps), "nobudget"), point.name,
                             f"{w}: {'; '.join(steps) or fmt(pool) + ' B'} ({DRAM_ENV} not stated in the recipe)")
                    continue
                gb = pool // 10**9
                if gb != stated:
                    msg = (f"the offload pool is {fmt(pool)} B = {fmt(pool / 1e9)} GB, "
                           f"but {DRAM_ENV} is `{stated}`")
                    fix = (f"Set {PER_RANK} to {stated * 10**9 // ranks} ({stated} × 10^9 / {ranks})"
                           if per is not None and ranks else f"Set {TOTAL} to {stated * 10**9}")
                    bad.add((line, env.line, msg), point.name, (w, (line, env.line), msg, fix + f", or {DRAM_ENV} to {gb}.",
                            tuple(steps) + (f"{DRAM_ENV} = {stated} (line {env.line})",)))
                    continue
                good.add((line, env.line, tuple(steps)), point.name,
                         f"{w}: {'; '.join(steps)} = {fmt(pool / 1e9)} GB → {gb} = {DRAM_ENV} {stated}")
        for (w, lines, msg, fix, evidence), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", fix=fix, evidence=evidence)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)} ✓", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
