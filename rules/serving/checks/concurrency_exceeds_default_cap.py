"""Flags a benchmark concurrency above what the engines admit by default, when no cap is written.

## Why it matters
A concurrency above the default cap queues requests exactly as an explicit one does, and
nobody sees it in the recipe because the cap is not written down.

## When it fires
The same comparison as `concurrency-exceeds-engine-cap`, for serving instances whose admission
cap is not set in the recipe and comes from the engine-defaults table
(`rules/serving/defaults.py`): vLLM's `max-num-seqs` default (1,024 per DP rank on GPUs
with 70 GiB or more), TensorRT-LLM's `max_batch_size` default (2,048), and SGLang's 48 under
EAGLE-family speculative decoding (`ServerArgs._handle_speculative_decoding` resets an unset
`max-running-requests` to 48, #1139). Otherwise SGLang has no fixed default (it sizes
`max-running-requests` from the KV pool), and it is not judged here. The
evidence names the engine version the default was taken for, or says that the newest behaviour
was assumed because the image names no version; the message names the default's behaviour only,
so a PR that bumps the image and keeps the default does not cause a problem the base had (the
base replay compares messages: #2119). A nit: the default may differ in the build the image
actually runs.

Single-node benchmark scripts are read too: the engine command each resolved point launches.

## Example
    # vLLM image v0.20.1, data-parallel-size 1, no max-num-seqs
    benchmark:
      concurrencies: "2048"         # vLLM admits 1,024 per DP rank by default

## Fix
Write the cap the point needs (`max-num-seqs` ≥ concurrency / workers / DP ranks), or lower
the concurrency.

## Options
`disagg_queue_factor`: as in `concurrency-exceeds-engine-cap` (default 2.0).
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import capacity, fmt, where

CODE = "RR211"
NAME = "concurrency-exceeds-default-cap"
SEVERITY = Severity.NIT


class Options(RuleOptions):
    # As in concurrency-exceeds-engine-cap: the factor above decode capacity a disaggregated point may run.
    disagg_queue_factor: float = 2.0


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed]:
    for path, bps in engine_points(ctx):
        bad, good = Once(), Once()
        for bp in bps:
            if not bp.concurrencies or bp.scenario != "fixed-seq-len":
                continue
            cap = capacity(bp)
            if cap is None or isinstance(cap, str) or cap.explicit:
                continue
            top = bp.conc_values()[0]
            limit = cap.total * options.disagg_queue_factor if bp.disaggregated else cap.total
            exceeds = top.value >= limit if bp.disaggregated else top.value > limit
            words = f"concurrency {fmt(top.value)} vs {cap.arith}; assumed: {'; '.join(cap.assumed)}"
            if not exceeds:
                good.add((words,), bp.name, f"{where(bp)}: {words} ✓")
                continue
            msg = (f"concurrency `{fmt(top.value)}` ({top.source}) is above what the serving workers admit by "
                   f"default: {cap.arith}")
            bad.add(
                (msg,),
                bp.name,
                (where(bp), ((top.line,) if top.path in (None, path) else ()) + (bp.benchmark_line,), msg, words),
            )
        for (w, lines, msg, words), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.",
                          evidence=(words,))
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
