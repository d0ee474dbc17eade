"""Flags decode graphs captured below the batch the point's concurrency puts on each rank.

## Why it matters
Decode steps with a batch above the largest captured size run without CUDA graphs (eagerly, or
piecewise), so the points at the top of the sweep measure a slower engine than the recipe
describes, and the curve bends where the graphs end rather than where the hardware does.

## When it fires
For every serving instance (decode workers, else aggregated ones) the largest concurrency the
point runs is spread over the workers, capped at what one worker admits, and split over its
scheduling ranks (data-parallel or attention-DP ranks); that is the decode batch of one rank.
The largest captured size must reach it: vLLM counts capture sizes in tokens, so the batch ×
(num_speculative_tokens + 1); SGLang (`cuda-graph-max-bs` / `cuda-graph-bs`, per DP rank) and
TensorRT-LLM (`cuda_graph_config`) count requests. This rule judges caps written in the recipe;
caps from engine defaults are `capture-default-below-concurrency`'s (a nit). Explicit vLLM
capture lists are judged by the capture-list rules (RR201–RR204), so they are not repeated here.

A rank never runs more in one step than its scheduler's token budget, so the need is bounded by
it: vLLM `max-num-batched-tokens` (`Scheduler.schedule`, `vllm/v1/core/sched/scheduler.py`:
each step starts from `token_budget = self.max_num_scheduled_tokens` and schedules no request
once it is spent; a rank with a 512-token budget never runs a 1,024-token decode step), and
TensorRT-LLM `max_num_tokens` / (1 + draft tokens) requests (its micro-batch scheduler caps an
iteration at `max_num_tokens`; `_filter_cuda_graph_batch_sizes` in
`tensorrt_llm/_torch/pyexecutor/model_engine.py` computes the same bound). SGLang's
`chunked-prefill-size` bounds prefill chunks only and does not bound decode.

Engine behaviour past the last graph: vLLM dispatches a batch above the largest captured size
without a graph (`CudagraphDispatcher.dispatch`, `vllm/v1/cudagraph_dispatcher.py`; "if batch
size > largest cudagraph_capture_sizes, cudagraph will not be used", `_set_cudagraph_sizes`);
SGLang's `CudaGraphRunner.can_run` (`python/sglang/srt/model_executor/cuda_graph_runner.py`)
refuses batches above `max_bs`, which then run the eager forward; TensorRT-LLM runs batches
above its largest graph batch size without a graph (`PyTorchModelEngine`,
`_max_cuda_graph_batch_size`).

Single-node benchmark scripts are read too: the engine command each resolved point launches, against
that point's concurrency.

## Example
    max-running-requests: 512
    cuda-graph-max-bs: 128           # one rank runs up to 256 requests at concurrency 256
    benchmark:
      concurrencies: "64x128x256"

## Fix
Raise the capture cap to the per-rank decode batch at the largest concurrency (for vLLM, times
k + 1), or lower the concurrency.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import capture_need, fmt, suggest_number, where

CODE = "RR212"
NAME = "capture-range-below-concurrency"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, bps in engine_points(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            if bp.scenario != "fixed-seq-len":
                continue  # agentic CONC counts sessions, not requests in flight
            for es in bp.serving():
                cn = capture_need(bp, es)
                unread = [u for u in es.unknowns if "graph" in u or "capture" in u or "batch" in u]
                if cn is None and unread:
                    skipped.add(
                        (es.role, tuple(unread)), bp.name, f"{where(bp, es)}: {'; '.join(unread)}; capture not compared"
                    )
                    continue
                if cn is None or not cn.top.explicit:
                    continue
                if es.engine == "vllm" and es.capture_sizes is not None:
                    continue  # explicit lists: RR201–RR204
                w = where(bp, es)
                if not cn.short:
                    good.add((w, cn.arith), bp.name, f"{w}: {cn.arith} ✓")
                    continue
                unit = "tokens" if es.engine == "vllm" else "requests"
                msg = (
                    f"decode graphs stop at {cn.top.label} {unit}, but at concurrency {fmt(cn.demand.conc)} one rank "
                    f"runs {fmt(cn.need)} {unit}"
                )
                sug = suggest_number(ctx, path, cn.top.line, cn.top.value, cn.need)
                bad.add((cn.top.line, msg), bp.name, (w, (cn.top.line,), msg, cn.arith, sug))
        for (w, lines, msg, arith, sug), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.",
                          fix="Raise the capture cap to the per-rank decode batch, or lower the concurrency.",
                          suggestion=sug, evidence=(arith,))
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
