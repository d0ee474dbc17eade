"""Flags TensorRT-LLM CUDA-graph batch sizes above the engine's `max_batch_size`: dead config.

## Why it matters
The recipe claims a capture range the engine does not run: usually `max_batch_size` was lowered
for a low-latency point and the list was copied from another one (NVIDIA's template ladders up
to 2,048 under `max_batch_size: 1`), so a reader cannot tell whether the batch cap or the list
is what the author meant (#2596: `batch_sizes [1, 2, 4]` with `max_batch_size: 1`).

## When it fires
TensorRT-LLM captures decode graphs only for batch sizes up to min(`max_batch_size`,
`max_num_tokens` / (1 + draft tokens)), "the largest possible batch size for a pure decoding
batch", and drops the rest: `_filter_cuda_graph_batch_sizes` in
`tensorrt_llm/_torch/pyexecutor/model_engine.py`, called by `PyTorchModelEngine.__init__` on
`cuda_graph_config.batch_sizes` (or on the ladder `CudaGraphConfig` generates up to its
`max_batch_size`). With `enable_padding` the first dropped size is replaced by that limit, so
batches pad to the limit instead. Either way no step ever runs a batch above the limit (the
micro-batch scheduler admits at most `max_batch_size` requests and `max_num_tokens` tokens per
iteration), so nothing runs differently from a list that stops at the limit: the sizes above
it are dead config, and this is a nit. A `cuda_graph_config.batch_sizes` list (or its
`max_batch_size`) above the limit states graphs the engine never captures. Only values written
in the recipe are compared.

The filter runs per point, so a list is judged over every point that reads it (the same written
list, or the same line): a size is dead config only when it is above the limit of each point whose
list holds it, and nothing is said when a point reads the list with sizes or a limit the review
cannot resolve (a list extended by `$(seq …)` at the large points may hold any size). A single-node
script serves every concurrency of its keys with one list and a per-point `--max_batch_size` (often
`$CONC`, or `$CONC / 8` under attention DP): the sizes a small point drops are the ones its large
points run (#1712, #1722, #1894), which is TensorRT-LLM's normal per-point filtering, not dead
config.

A `trtllm-serve` command in a single-node benchmark script is read too (its `--max_batch_size`,
`--max_num_tokens`, and the `--extra_llm_api_options` file it writes from here-documents). There
only an explicit `batch_sizes` list is judged: one `cuda_graph_config.max_batch_size` cap over
per-point limits states nothing wrong.

## Example
    max_batch_size: 1
    cuda_graph_config:
      batch_sizes: [1, 2, 4]

## Fix
End the list at `max_batch_size` (drop the larger sizes), or raise `max_batch_size` to the
largest size the point needs.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, as_int, points_note
from rules.serving.settings import fmt, where

CODE = "RR214"
NAME = "trt-capture-exceeds-max-batch"
SEVERITY = Severity.NIT


def _limit(es) -> tuple[int, str]:
    """The largest batch one point of this role can capture: min(max_batch_size, max_num_tokens / (1 + k))."""
    mbs = as_int(es.max_seqs.value)
    limit, why = mbs, f"`max_batch_size` {fmt(mbs)}"
    mnt = as_int(es.max_batched_tokens.value) if es.max_batched_tokens is not None else None
    if mnt is not None and mnt // (1 + es.k) < limit:
        limit = mnt // (1 + es.k)
        why = f"`max_num_tokens` {fmt(mnt)} / (1 + {es.k} draft tokens) = {fmt(limit)}"
    return limit, why


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:  # noqa: C901 (per written list: reads, dead sizes, then grouped findings and passes)
    for path, bps in engine_points(ctx):
        # One written list (or cap) serves every point that reads it: (role, its line) -> the points.
        lists: dict[tuple, list] = {}
        unread: set[tuple] = set()  # lists some point reads with sizes or a limit that are not known
        for bp in bps:
            for es in bp.roles:
                if es.engine != "trtllm" or es.capture_off is not None:
                    continue
                top = es.capture_top()
                if top is None or as_int(top.value) is None or es.max_seqs is None or as_int(es.max_seqs.value) is None:
                    written = es.capture_sizes or es.capture_cap
                    if written is not None and written.explicit:
                        unread.add((es.role, written.line))  # that point may run any size of the list
                    continue
                if not top.explicit or not es.max_seqs.explicit:
                    continue
                if es.source == "script" and es.capture_sizes is None:
                    continue  # a per-script cap over per-point limits (see the docstring)
                limit, why = _limit(es)
                sizes = es.capture_sizes.value if es.capture_sizes is not None else [top.value]
                ints = tuple(as_int(x) for x in sizes if as_int(x) is not None)
                key = (es.role, top.line) if top.line is not None else (es.role, bp.name)
                lists.setdefault(key, []).append((bp, es, top, limit, why, ints))
        bad, good = Once(), Once()
        for where_, uses in lists.items():
            if where_ in unread:
                continue  # a point whose list or limit is unknown may run the sizes the others drop
            # A size is dead config only if no point that reads the list can run it.
            live = {s for _, _, _, limit, _, ints in uses for s in ints if s <= limit}
            dead = sorted({s for _, _, _, _, _, ints in uses for s in ints} - live)
            bp, es, top, limit, why, ints = max(uses, key=lambda u: u[3])
            w = where(bp, es)
            if not dead:
                for bp2, es2, top2, limit2, why2, _ in uses:
                    note = (
                        ""
                        if as_int(top2.value) <= limit2
                        else "; the larger sizes run at the points with a larger limit"
                    )
                    good.add((es2.max_seqs.line, top2.line, limit2), bp2.name,
                             f"{where(bp2, es2)}: graphs up to {fmt(top2.value)}, {why2}{note} ✓")
                continue
            listed = ", ".join(str(x) for x in dead)
            top_value = max(as_int(u[2].value) for u in uses)
            if len({(u[3], u[5]) for u in uses}) == 1:
                msg = (f"{top.name} goes up to `{fmt(top_value)}`, above {why}: TensorRT-LLM drops "
                       f"{'size' if len(dead) == 1 else 'sizes'} {listed} (dead config)")
            else:
                msg = (f"{top.name} goes up to `{fmt(top_value)}`, above the limit of every point that reads it "
                       f"(the largest: {why}): TensorRT-LLM drops {'size' if len(dead) == 1 else 'sizes'} "
                       f"{listed} at every point (dead config)")
            for bp2, *_ in uses:
                bad.add((top.line, es.max_seqs.line, msg), bp2.name, (w, (top.line, es.max_seqs.line), msg))
        for (w, lines, msg), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.")
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
