"""Flags TensorRT-LLM CUDA-graph batch sizes above the engine's `max_batch_size`: dead config.

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

A `trtllm-serve` command in a single-node benchmark script is read too (its `--max_batch_size`,
`--max_num_tokens`, and the `--extra_llm_api_options` file it writes from here-documents). There
only an explicit `batch_sizes` list is judged: one script serves every concurrency of its key with
one `cuda_graph_config.max_batch_size` cap and a per-point `--max_batch_size` (often `$CONC`), and
TensorRT-LLM drops the generated sizes above the point's limit, so a cap above a low point's limit
states nothing wrong.

## Why it matters
The recipe claims a capture range the engine does not run: usually `max_batch_size` was lowered
for a low-latency point and the list was copied from another one (NVIDIA's template ladders up
to 2,048 under `max_batch_size: 1`), so a reader cannot tell whether the batch cap or the list
is what the author meant (#2596: `batch_sizes [1, 2, 4]` with `max_batch_size: 1`).

## Example
    max_batch_size: 1
    cuda_graph_config:
      batch_sizes: [1, 2, 4]

## Fix
End the list at `max_batch_size` (drop the larger sizes), or raise `max_batch_size` to the
largest size the point needs.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.recipe.engine_settings import engine_points, fmt, where
from rules.recipe.points import Once, anchor, as_int, points_note

CODE = "RR214"
NAME = "trt-capture-exceeds-max-batch"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, bps in engine_points(ctx):
        bad, good = Once(), Once()
        for bp in bps:
            for es in bp.roles:
                if es.engine != "trtllm" or es.capture_off is not None:
                    continue
                top = es.capture_top()
                if top is None or not top.explicit or es.max_seqs is None or not es.max_seqs.explicit:
                    continue
                if es.source == "script" and es.capture_sizes is None:
                    continue  # a per-script cap over per-point limits (see the docstring)
                mbs = as_int(es.max_seqs.value)
                limit, why = mbs, f"`max_batch_size` {fmt(mbs)}"
                mnt = as_int(es.max_batched_tokens.value) if es.max_batched_tokens is not None else None
                if mnt is not None and mnt // (1 + es.k) < limit:
                    limit = mnt // (1 + es.k)
                    why = f"`max_num_tokens` {fmt(mnt)} / (1 + {es.k} draft tokens) = {fmt(limit)}"
                w = where(bp, es)
                sizes = es.capture_sizes.value if es.capture_sizes is not None else [top.value]
                if top.value <= limit:
                    good.add((es.max_seqs.line, top.line), bp.name, f"{w}: graphs up to {fmt(top.value)} ≤ {why} ✓")
                    continue
                dead = [s for s in sizes if as_int(s) is not None and as_int(s) > limit]
                listed = ", ".join(str(s) for s in dead)
                msg = (f"{top.name} goes up to `{fmt(top.value)}`, above {why}: TensorRT-LLM drops "
                       f"{'size' if len(dead) == 1 else 'sizes'} {listed} (dead config)")
                bad.add((top.line, es.max_seqs.line, msg), bp.name, (w, (top.line, es.max_seqs.line), msg))
        for (w, lines, msg), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.")
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
