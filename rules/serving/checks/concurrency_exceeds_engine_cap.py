"""Flags a benchmark concurrency above what the serving engines admit at once.

## Why it matters
Requests above the cap wait in a queue; the benchmark then measures the queue (TTFT grows with
concurrency while throughput stays flat), and the curve is labelled with a concurrency the
engine never ran.

## When it fires
The serving instances are the decode workers of a disaggregated point, else the aggregated
workers. One instance admits: vLLM `max-num-seqs` × data-parallel size (each DP rank is its own
engine core with its own scheduler); SGLang `max-running-requests` (the server's total, split
over DP-attention ranks); TensorRT-LLM `max_batch_size` × attention-DP ranks. The point's
capacity is that × the role's workers. The concurrency is the largest the point runs: the
recipe's `benchmark.concurrencies` (what srtctl runs), else `CONC`, else the master-config
search-space points that name the recipe. A single-node benchmark script is read the same way:
the engine command its resolved point launches (`rules/serving/script_points.py`) against that point's
concurrency.

Aggregated points are flagged above their capacity. A disaggregated point holds some requests
outside decode (in prefill, in the KV transfer between the roles, in the decode server's
pre-allocation queue), and generated disaggregated submissions run decode at about 2× its
capacity for that reason (`concurrency = 2 × decode capacity`, plus a small allowance: 2.03×,
2.04×, 2.11× in the bundle). Nothing proves that such a point reports another point than it runs,
so a disaggregated point is a proof only above `disagg_queue_factor` (2.25) × capacity: beyond
the slack band its excess is requests queued where no engine works on them (#1213's 8×, #1305's
3×, #2123's 2.4×). From 2× to 2.25× it is `decode-oversubscribed`'s (a nit).
Agentic points are not compared: their `CONC` counts concurrent sessions with think time, not
requests in flight. Caps that come from engine defaults are `concurrency-exceeds-default-cap`'s.

The caps are admission limits in the engines' schedulers: vLLM's `Scheduler.schedule`
(`vllm/v1/core/sched/scheduler.py`) stops taking waiting requests when
`len(self.running) == self.max_num_running_reqs` (`max_num_seqs`, per engine core, one per DP
rank); SGLang's `Scheduler.get_num_allocatable_reqs` (`python/sglang/srt/managers/scheduler.py`)
admits no new request once the running batch holds `max_running_requests` (split over DP
ranks); TensorRT-LLM's capacity scheduler is built with `max_batch_size` requests
(`BindCapacityScheduler` in `create_py_executor_instance`,
`tensorrt_llm/_torch/pyexecutor/_util.py`). Requests beyond the cap wait in the engine's queue,
so the point runs at most the cap in flight while it reports the benchmark's concurrency.

## Example
    decode_workers: 2
    max-num-seqs: 1024              # tensor-parallel-size 4, no DP: 2 × 1,024 = 2,048
    benchmark:
      concurrencies: "4096"

## Fix
Raise the cap to at least the concurrency divided by workers (and DP ranks), or lower the
concurrency to what the workers admit.

## Options
`disagg_queue_factor`: how many times the decode capacity a disaggregated point may run before
it is flagged (default 2.25: the slack band of generated submissions, about 2×, plus an eighth).
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import DISAGG_PROOF_FACTOR, Capacity, capacity, fmt, where

CODE = "RR210"
NAME = "concurrency-exceeds-engine-cap"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


class Options(RuleOptions):
    # A disaggregated point is flagged when its concurrency is more than this many times the
    # decode capacity (requests in prefill and KV transfer hold no decode slot; generated
    # submissions run about 2× on purpose: decode-oversubscribed reports that band).
    disagg_queue_factor: float = DISAGG_PROOF_FACTOR


def over(bp, cap: Capacity, factor: float) -> tuple[bool, str]:
    """(exceeds, the comparison in words) for the largest concurrency of a point."""
    top = bp.conc_values()[0]
    if bp.disaggregated:
        limit = cap.total * factor
        return top.value > limit, (f"concurrency {fmt(top.value)} vs decode capacity {cap.arith}"
                                   f" (flagged above {factor:g}× = {fmt(limit)})")
    return top.value > cap.total, f"concurrency {fmt(top.value)} vs capacity {cap.arith}"


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    for path, bps in engine_points(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            if not bp.concurrencies:
                if bp.unknowns and bp.scenario == "fixed-seq-len":
                    why = "; ".join(bp.unknowns)
                    skipped.add(
                        ("conc", why), bp.name, f"{where(bp)}: {why}; concurrency not compared with the engine caps"
                    )
                continue
            if bp.scenario != "fixed-seq-len":
                why = ("agentic point: CONC counts concurrent sessions, not requests in flight"
                       if bp.scenario == "agentic" else "benchmark type unknown")
                skipped.add(("scenario", why), bp.name, f"{why}; concurrency not compared with the engine caps")
                continue
            cap = capacity(bp)
            if isinstance(cap, str):
                skipped.add(("cap", cap), bp.name, f"{where(bp)}: {cap}; concurrency not compared")
                continue
            if cap is None or not cap.explicit:
                continue  # no cap, or one from the defaults table: concurrency-exceeds-default-cap
            top = bp.conc_values()[0]
            exceeds, words = over(bp, cap, options.disagg_queue_factor)
            if not exceeds:
                good.add((words,), bp.name, f"{where(bp)}: {words} ✓")
                continue
            role = "decode" if bp.disaggregated else bp.serving()[0].role
            times = top.value / cap.total if cap.total > 0 else float("inf")
            ratio = f"{times:.2g}×" if cap.total > 0 else "more than"
            who = "the server admits" if bp.source == "script" else f"the {role} workers admit"
            msg = (f"concurrency `{fmt(top.value)}` ({top.source}) is {ratio} what {who}: "
                   f"{cap.arith}")
            # Cap and concurrency split evenly: the edited one carries it; in a new file, the
            # concurrency (where the benchmark states what it measures).
            lines = ((top.line,) if top.path in (None, path) else ()) + cap.lines
            bad.add((msg,), bp.name, (where(bp), lines, msg, words))
        for (w, lines, msg, words), names in bad.items():
            yield Problem(
                path,
                anchor(ctx, path, *lines),
                f"{w}: {msg}{points_note(names)}.",
                fix="Raise the cap to the concurrency per worker (and per DP rank), or lower the concurrency.",
                evidence=(words,),
            )
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
