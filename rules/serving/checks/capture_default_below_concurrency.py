"""Flags a default capture range below the decode batch the point's concurrency puts on each rank.

## Why it matters
Without a cap the engine captures only its default range; raising the concurrency above it
(#1375: conc-end 64 → 256 with no `--cuda-graph-max-bs`) leaves the new top points running
without graphs.

## When it fires
The comparison of `capture-range-below-concurrency`, for instances that set no capture cap or
list, so the engine captures its default range (`rules/serving/defaults.py`): vLLM
`max_cudagraph_capture_size` = min(2 × max-num-seqs × (1 + k), 512) capped at
max-num-batched-tokens; SGLang's `cuda-graph-max-bs` from GPU memory (512 on GPUs of 160 GB or
more, 256 below 160 GB at TP < 4, 160 before SGLang 0.5.3); TensorRT-LLM's CUDA graphs up to
128 requests when `cuda_graph_config` gives no sizes. The evidence names the engine version the
default was taken for (from the image tag), or says the newest behaviour was assumed; the message
names the default's behaviour only, so a PR that bumps the image, changes the KV dtype or reverts
such a change, and keeps the default, does not cause a gap the base had (the base replay compares
messages: #1838, #1839, #1842, #1843). A nit: only speed suffers, and the build in the image may
differ.

Single-node benchmark scripts are read too: the engine command each resolved point launches, against
that point's concurrency.

## Example
    # SGLang on H200 (141 GB), tp-size 2, no cuda-graph-max-bs: default 256
    benchmark:
      concurrencies: "512"

## Fix
Set the capture cap explicitly to the per-rank decode batch at the largest concurrency
(`cuda-graph-max-bs`, `max_cudagraph_capture_size`, `cuda_graph_config.max_batch_size`).
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import capture_need, fmt, where

CODE = "RR213"
NAME = "capture-default-below-concurrency"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, bps in engine_points(ctx):
        bad, good = Once(), Once()
        for bp in bps:
            if bp.scenario != "fixed-seq-len":
                continue  # agentic CONC counts sessions, not requests in flight
            for es in bp.serving():
                cn = capture_need(bp, es)
                if cn is None or cn.top.explicit:
                    continue
                w = where(bp, es)
                if not cn.short:
                    good.add((w, cn.arith), bp.name, f"{w}: {cn.arith} ✓")
                    continue
                unit = "tokens" if es.engine == "vllm" else "requests"
                msg = (
                    f"no capture cap is set, so graphs stop at the {cn.top.label}: {fmt(cn.top.value)} {unit}, but at "
                    f"concurrency {fmt(cn.demand.conc)} one rank runs {fmt(cn.need)} {unit}"
                )
                lines = (es.max_seqs.line if es.max_seqs is not None else None, es.block_line)
                bad.add((w, msg), bp.name, (w, lines, msg, f"{cn.arith}; assumed: {cn.top.versioned}"))
        for (w, lines, msg, arith), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", evidence=(arith,))
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
