"""Flags a disaggregated point whose concurrency is about twice what its decode workers admit.

## Why it matters
At twice the decode capacity the decode workers never run more than half of the benchmark's
concurrency: the other half waits in prefill, in transfer, or in a queue in front of them, and
how much of it is queueing depends on how fast prefill is, which the recipe does not show
(#1372: concurrency 16 against eight decode workers of `max-running-requests: 1`).

## When it fires
The comparison of `concurrency-exceeds-engine-cap`, in the band that rule does not call a proof:
a disaggregated point whose largest concurrency is from `slack_factor` (2) to
`proof_factor` (2.25) times the decode capacity (vLLM `max-num-seqs` × DP ranks, SGLang
`max-running-requests`, TensorRT-LLM `max_batch_size` × attention-DP ranks, × the decode workers;
only caps written in the recipe). Requests in prefill, in the KV transfer and in the decode
server's pre-allocation queue hold no decode slot, and generated disaggregated submissions run
decode at about 2× its capacity for that reason (2 × capacity plus a small allowance), so nothing
proves the point reports another concurrency than it runs. But at that ratio at least half of the
requests in flight are outside decode at any time: a point worth a word, a nit. Above the band
the point is `concurrency-exceeds-engine-cap`'s (blocking); below it there is nothing to say.

## Example
    decode_workers: 2
    max-num-seqs: 1024              # tensor-parallel-size 4, no DP: 2 × 1,024 = 2,048
    benchmark:
      concurrencies: "4096"

## Fix
Nothing, if the oversubscription is the submission's design; otherwise raise the decode cap to
the concurrency per decode worker (and DP rank), or lower the concurrency.

## Options
`slack_factor`: from how many times the decode capacity a point is reported (default 2.0).
`proof_factor`: above how many times `concurrency-exceeds-engine-cap` reports it instead
(default 2.25; keep it equal to that rule's `disagg_queue_factor`).
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import DISAGG_PROOF_FACTOR, DISAGG_SLACK_FACTOR, capacity, fmt, where

CODE = "RR225"
NAME = "decode-oversubscribed"
SEVERITY = Severity.NIT


class Options(RuleOptions):
    # A disaggregated point is reported from this many times its decode capacity …
    slack_factor: float = DISAGG_SLACK_FACTOR
    # … up to this many times (above it, concurrency-exceeds-engine-cap reports it).
    proof_factor: float = DISAGG_PROOF_FACTOR


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem]:
    for path, bps in engine_points(ctx):
        bad = Once()
        for bp in bps:
            if not bp.disaggregated or not bp.concurrencies or bp.scenario != "fixed-seq-len":
                continue
            cap = capacity(bp)
            if cap is None or isinstance(cap, str) or not cap.explicit or cap.total <= 0:
                continue  # no cap, an unreadable one (RR210 says why), or a default (RR211)
            top = bp.conc_values()[0]
            if not options.slack_factor * cap.total <= top.value <= options.proof_factor * cap.total:
                continue
            times = top.value / cap.total
            outside = top.value - cap.total
            msg = (f"concurrency `{fmt(top.value)}` ({top.source}) is {times:.2g}× what the decode workers admit: "
                   f"{cap.arith}, so at any time {fmt(outside)} of the {fmt(top.value)} requests in flight are "
                   f"outside decode (in prefill, in transfer or queued)")
            lines = ((top.line,) if top.path in (None, path) else ()) + cap.lines
            words = (f"concurrency {fmt(top.value)} vs decode capacity {cap.arith}: {times:.3g}×, within "
                     f"{options.slack_factor:g}–{options.proof_factor:g}×")
            bad.add((msg,), bp.name, (where(bp), lines, msg, words))
        for (w, lines, msg, words), names in bad.items():
            yield Problem(
                path,
                anchor(ctx, path, *lines),
                f"{w}: {msg}{points_note(names)}.",
                fix="If the oversubscription is not the design, raise the decode cap or lower the concurrency.",
                evidence=(words,),
            )
