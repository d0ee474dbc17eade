"""Flags a recipe's `TOTAL_CPU_DRAM_GB` that differs from what the master config's `dram-utilization` gives.

The sweep generator computes the host-DRAM budget of an offload point as
`floor(min(host DRAM, cap) × dram-utilization × G / gpus-per-node)` in decimal GB, where host
DRAM is the runner's `available-cpu-dram-mib` (configs/runners.yaml), the cap is 2,861,022 MiB
(≈ 3,000 GB, the per-server limit), and G is the GPUs of the point's worker (a worker larger
than a node counts as a full node). A recipe that states `TOTAL_CPU_DRAM_GB` must state that
number. The master row is the one whose `CONFIG_FILE=` / `srt-recipe` names the recipe.

## Why it matters
The planner rejects a recipe whose pinned budget disagrees with the master config, or, where it
does not check, the benchmark runs with a pool sized for one budget while the published result
and changelog describe another (the 0.6 → 1799 GB versus 2577 GB pinned episode of #4867).

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
import math
from collections.abc import Iterator
from fractions import Fraction

from pydantic import Field

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.recipe.points import Point, anchor, as_int, changed_recipes, fmt, parallelism

from rules.master import analysis as _mc

CODE = "RR206"
NAME = "dram-budget-mismatch"
SEVERITY = Severity.BLOCKING
DRAM_ENV = "TOTAL_CPU_DRAM_GB"
MIB = 1_048_576
CAP_MIB = 2_861_022  # generator cap (generate_sweep_configs.py), ≈ 3,000 GB
_SNAPSHOT_MIB = {  # runners.yaml `hardware:` of the Aug-2026 snapshot
    "cluster:h100-dgxc": 2_063_837, "cluster:h100-cw": 1_998_848, "cluster:h200-dgxc": 1_471_356,
    "cluster:h200-cw": 1_998_848, "cluster:h200-nb": 1_472_512, "cluster:b200-dgxc": 3_095_781,
    "b200-nscale": 2_063_920, "cluster:b200-nscale": 2_063_920, "cluster:b300-nv": 2_964_436,
    "cluster:gb200-nv": 860_160, "cluster:gb300-nv": 860_160, "cluster:rtx6000pro-lat": 1_500_000,
    "cluster:mi300x-amds": 2_321_924, "cluster:mi300x-tw": 2_322_328, "cluster:mi325x-amds": 3_091_589,
    "cluster:mi355x-amds": 3_095_781,
    # GPU types whose hosts all have one size.
    "b300": 2_964_436, "gb200": 860_160, "gb300": 860_160, "mi325x": 3_091_589, "mi355x": 3_095_781,
}


def _gb(mib: int) -> float:
    return mib * MIB / 1e9


class Options(RuleOptions):
    # Host DRAM (decimal GB) by runner label or GPU type; runners.yaml in the PR context wins.
    host_dram_gb: dict[str, float] = Field(default_factory=lambda: {k: _gb(v) for k, v in _SNAPSHOT_MIB.items()})
    # Per-server cap on host DRAM used for budgets (decimal GB).
    dram_cap_gb: float = _gb(CAP_MIB)


def _runners(ctx: ReviewContext) -> dict:
    def compute() -> dict:
        for p in ctx.head_paths_of("runners"):
            doc = ctx.head_doc(p)
            hw = doc.data.get("hardware") if doc.ok and isinstance(doc.data, dict) else None
            if isinstance(hw, dict):
                return {str(k): v for k, v in hw.items() if isinstance(v, dict)}
        return {}
    return ctx.memo(("recipe", "runners-hardware"), compute)


def _ref_target(ref: str) -> tuple[str, str | None]:
    """(recipe path suffix, variant or None) of a master reference."""
    path, variant = ref, None
    for ext in (".yaml:", ".yml:"):
        if ext in ref:
            head, variant = ref.split(ext, 1)
            path = head + ext[:-1]
    if path.startswith("recipes/"):
        path = path[len("recipes/"):]
    return path.lstrip("/"), variant or None


def _matches(ref: str, path: str) -> tuple[bool, str | None]:
    target, variant = _ref_target(ref)
    return (path == target or path.endswith("/" + target)), variant


def candidates(ctx: ReviewContext, path: str) -> list[dict]:
    """Master search-space points with a dram-utilization that name this recipe."""
    base = path.rsplit("/", 1)[-1]
    out = []
    for key, info in _mc.master_keys(ctx).items():
        if base not in info.text:
            continue
        value = info.value
        row_refs = _mc.recipe_refs(value)
        for _scen, block, sp in _mc.scenario_entries(value):
            util = _mc.dram_utilization(block)
            if util is None:
                continue
            for ref in _mc.recipe_refs(sp) or row_refs:
                ok, variant = _matches(ref, path)
                if ok:
                    out.append({"key": key, "path": info.path, "line": info.line, "util": util,
                                "runner": value.get("runner"), "variant": variant,
                                "conc": sp.get("conc-list"), "conc_range": (sp.get("conc-start"), sp.get("conc-end"))})
    return out


def _covers(c: dict, conc: int) -> bool | None:
    """Whether a master point's concurrencies include `conc` (None: the point lists none)."""
    lo, hi = c["conc_range"]
    if isinstance(c["conc"], list):
        return conc in c["conc"]
    if isinstance(lo, int) and isinstance(hi, int):
        return lo <= conc <= hi
    return None


def _pick(cands: list[dict], point: Point) -> tuple[list[dict], str | None]:
    """The master point that governs this recipe point, or ([], why not)."""
    mine = [c for c in cands if c["variant"] in (None, point.name)]
    conc_v = point.env("CONC")
    conc = as_int(conc_v.value) if conc_v is not None else None
    if conc is not None:
        known = [c for c in mine if _covers(c, conc) is not None]
        if known and not any(_covers(c, conc) for c in known):
            # e.g. a GPU-resident conc-1 point next to DRAM-offload points: no budget applies to it.
            return [], f"CONC {conc} is not a concurrency of the DRAM-offload master points"
        mine = [c for c in mine if _covers(c, conc) is not False]
    if len({(c["util"], c["runner"]) for c in mine}) <= 1:
        return mine[:1], None
    return [], "matches several master points with different dram-utilization"


def _host(ctx: ReviewContext, options: Options, runner: str | None, point: Point) -> tuple[Fraction, int | None, str] | None:
    hw = _runners(ctx).get(runner or "")
    cap = Fraction(str(options.dram_cap_gb))
    if hw is not None and as_int(hw.get("available-cpu-dram-mib")) is not None:
        gb = Fraction(as_int(hw["available-cpu-dram-mib"]) * MIB, 10**9)
        return min(gb, cap), as_int(hw.get("gpus-per-node")), f"{runner} (runners.yaml)"
    for key in (runner, point.gpu_type):
        if key and key in options.host_dram_gb:
            return min(Fraction(str(options.host_dram_gb[key])), cap), None, f"{key} (option host_dram_gb)"
    return None


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    for path, points in changed_recipes(ctx):
        stated = [(p, p.env(DRAM_ENV)) for p in points]
        stated = [(p, v) for p, v in stated if v is not None and as_int(v.value) is not None]
        if not stated:
            continue
        cands = candidates(ctx, path)
        if not cands:
            yield Skipped(f"{path}: no master config row with dram-utilization references this recipe; "
                          f"{DRAM_ENV} not compared", path=path)
            continue
        seen = set()
        for point, env in stated:
            picked, why_not = _pick(cands, point)
            if not picked:
                yield Skipped(f"{path}: `{point.name}` {why_not}; {DRAM_ENV} not compared", path=path)
                continue
            c = picked[0]
            host = _host(ctx, options, c["runner"], point)
            if host is None:
                yield Skipped(f"{path}: host DRAM of runner `{c['runner']}` unknown (add it to host_dram_gb)", path=path)
                continue
            host_gb, gpn, source = host
            gpn = gpn or point.gpus_per_node or 8
            role = next((r for r in point.roles if r.name == "prefill"), point.roles[0])
            par = parallelism(role)
            g = as_int(role.gpus.value) if role.gpus is not None else (par.gpus if par else gpn)
            g = min(g or gpn, gpn)
            expect = math.floor(host_gb * Fraction(str(c["util"])) * g / gpn)
            have = as_int(env.value)
            arith = (f"{c['util']} × {fmt(float(host_gb))} GB ({source})"
                     + (f" × {g}/{gpn} GPUs" if g != gpn else "") + f" = {fmt(float(host_gb * Fraction(str(c['util'])) * g / gpn))} → {expect}")
            key = (env.line, have, expect)
            if key in seen:
                continue
            seen.add(key)
            if have == expect:
                yield Passed(f"{path}: `{point.name}` {arith} = {DRAM_ENV} {have} ✓", path=path, line=env.line)
                continue
            yield Problem(
                path, anchor(ctx, path, env.line),
                f"`{point.name}`: {DRAM_ENV} is `{have}`, but dram-utilization {c['util']} of `{c['key']}` resolves to {expect}.",
                fix=(f"Set {DRAM_ENV} to {expect}, or set dram-utilization in {c['path']}:{c['line']} so it resolves "
                     f"to {have} (about {float(Fraction(have) / (host_gb * g / gpn)):.4f})."),
                evidence=(arith, f"master row `{c['key']}` at {c['path']}:{c['line']}"))
