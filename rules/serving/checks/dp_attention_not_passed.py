"""Flags a master-config point labelled `dp-attn: true` whose recipe role never enables DP attention.

## Why it matters
The results are published under the label: a point labelled DP-attention that runs the plain
TP path is compared against other DP-attention points as if it were one, and its concurrency
range (usually chosen for DP attention) does not fit the engine that ran.

## When it fires
The master config's search-space point names the recipe (`CONFIG_FILE=` in
`additional-settings`, or `srt-recipe`) and labels each role (`prefill:` / `decode:`, or the
point itself for an aggregated recipe) with `dp-attn`. The label must reach the engine: SGLang
`enable-dp-attention: true`, TensorRT-LLM `enable_attention_dp: true`, vLLM a
`data-parallel-size` above 1 (vLLM's data parallelism is attention data parallelism).

Without the switch the engine runs plain tensor-parallel attention, its default:
SGLang `ServerArgs.enable_dp_attention = False` (`python/sglang/srt/server_args.py`),
TensorRT-LLM `enable_attention_dp = False` (`tensorrt_llm/llmapi/llm_args.py`), vLLM
`ParallelConfig.data_parallel_size = 1` (`vllm/config/parallel.py`). The repository's result
processing publishes the matrix's `dp-attn` label with the result, so the point is published
as a DP-attention result for an engine that did not run it: a mislabelled result.

Single-node benchmark scripts are read too: a point labelled `dp-attn: true` whose resolved engine
command does not enable DP attention. The finding goes on the script's line, or on the master-config
entry when the PR adds that entry and leaves the script's line alone (blame what the PR changed).

## Example
    # master decode: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
    decode:
      tensor-parallel-size: 8
      expert-parallel-size: 8        # no enable-dp-attention

## Fix
Enable DP attention in the role (`enable-dp-attention: true` with `data-parallel-size` equal to
the TP size for SGLang), or label the master point `dp-attn: false`.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import label_anchor, master_label, suggest_number, where

CODE = "RR215"
NAME = "dp-attention-not-passed"
SEVERITY = Severity.BLOCKING
PROOF = "engine"
FLAG = {"sglang": "enable-dp-attention: true", "trtllm": "enable_attention_dp: true",
        "vllm": "data-parallel-size above 1"}


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, bps in engine_points(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            for es in bp.roles:
                if es.engine not in FLAG:
                    continue
                for mp, lab in master_label(bp, es):
                    if lab.get("dp-attn") is not True:
                        continue
                    w = where(bp, es)
                    label = f"master `{mp.key}` labels {es.role} `dp-attn: true`"
                    entry = f"master entry: {mp.path}:{mp.line}"  # evidence: a line moves with unrelated edits
                    if es.dp_attention is not None and es.dp_attention.value is None:
                        skipped.add((es.role, mp.key), bp.name, f"{w}: {label}; {es.dp_attention.name} is not known")
                        continue
                    if es.dp_attention_on:
                        good.add(
                            (es.role, mp.key), bp.name, f"{w}: {label} ({mp.path}:{mp.line}); {es.dp_attention.label} ✓"
                        )
                        continue
                    if es.opaque is not None:
                        skipped.add(
                            (es.role, mp.key, "opaque"),
                            bp.name,
                            f"{w}: {label}; {es.opaque}, so DP attention is not known",
                        )
                        continue
                    have = es.dp_attention.label if es.dp_attention is not None and es.dp_attention.line else "not set"
                    line = (
                        es.dp_attention.line if es.dp_attention is not None and es.dp_attention.line else es.block_line
                    )
                    at, line = label_anchor(ctx, bp, line, mp)
                    # On the master entry, say which file runs the point (the launcher picks it: #1151).
                    role = f"{es.role} role" if at == path else f"{es.role} role (`{path}`)"
                    msg = f"{label}, but the {role} does not enable DP attention ({FLAG[es.engine]}; here {have})"
                    sug = None
                    if at == path and es.engine != "vllm" and es.dp_attention is not None and es.dp_attention.line:
                        sug = suggest_number(ctx, path, es.dp_attention.line, "false", "true")
                    bad.add((es.role, at, line), bp.name, (w, at, line, msg, sug, entry))
        for (w, at, line, msg, sug, entry), names in bad.items():
            yield Problem(at, line, f"{w}: {msg}{points_note(names)}.", suggestion=sug, evidence=(entry,))
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for sk, names in skipped.items():
            yield Skipped(f"{path}: {sk}{points_note(names)}", path=path)
