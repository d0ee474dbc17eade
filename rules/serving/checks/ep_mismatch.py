"""Flags a master-config `ep` label that differs from the expert parallelism the recipe role runs.

## Why it matters
The published result records the label (the repository's result processing reads `ep` from the
matrix), so a mismatch publishes an EP-N number for an engine that ran another layout, and sweeps
that compare EP widths compare the wrong things.

## When it fires
The master config's search-space point labels each role it runs (`prefill:` / `decode:`, or the
point for an aggregated recipe) with `ep`. The engine's expert-parallel size, from the recipe:
vLLM `enable-expert-parallel` makes the experts parallel over all ranks of the instance (TP × DP),
otherwise 1; SGLang `expert-parallel-size` / `ep-size` (1 when unset); TensorRT-LLM
`moe_expert_parallel_size` (1 when unset).

The engines' own rules for the expert-parallel size: vLLM `FusedMoEParallelConfig.make`
(`vllm/model_executor/layers/fused_moe/config.py`) uses expert parallelism only with
`enable_expert_parallel` (`use_ep = dp_size * tp_size > 1 and enable_expert_parallel`), and then
over all TP × DP ranks; otherwise the experts are tensor-sharded (EP 1). SGLang
`ServerArgs.ep_size` defaults to 1, and `_handle_a2a_moe` (`python/sglang/srt/server_args.py`)
sets `ep_size = tp_size` for an all-to-all MoE backend (DeepEP, Mooncake, …). TensorRT-LLM's
`Mapping` (`tensorrt_llm/mapping.py`) uses `moe_ep_size` 1 (experts tensor-parallel) when
`moe_expert_parallel_size` is unset.

Single-node benchmark scripts are read too: the expert-parallel size of each resolved point's engine
command against the entry's `ep`. The finding goes on the script's line, or on the master-config
entry when the PR adds that entry and leaves the script's line alone.

## Example
    # master decode: { tp: 4, ep: 4, dp-attn: true }
    decode:
      tensor-parallel-size: 1
      data-parallel-size: 2          # enable-expert-parallel: EP = 1 × 2 = 2
      enable-expert-parallel: true

## Fix
Make the role's expert parallelism equal the label (its parallel sizes, or `ep-size`), or label
the master point with the EP the recipe runs.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.points import engine_points
from rules.serving.recipe_points import Once, as_int, points_note
from rules.serving.settings import label_anchor, master_label, where

CODE = "RR216"
NAME = "ep-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def engine_ep(es) -> tuple[int, str, int | None]:
    """(expert-parallel size, how it follows from the recipe, line)."""
    if es.engine == "vllm":
        if es.expert_parallel is not None:
            return (
                es.instance_ranks // max(es._n(es.pp) * es._n(es.pcp), 1),
                f"enable-expert-parallel over {es.parallel_arith}",
                es.expert_parallel.line,
            )
        return 1, "no `enable-expert-parallel`", es.block_line
    if es.ep is not None and as_int(es.ep.value) is not None:
        return as_int(es.ep.value), es.ep.label, es.ep.line
    name = "expert-parallel-size" if es.engine == "sglang" else "moe_expert_parallel_size"
    return 1, f"no `{name}`", es.block_line


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, bps in engine_points(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            for es in bp.roles:
                if es.engine not in ("vllm", "sglang", "trtllm"):
                    continue
                for mp, lab in master_label(bp, es):
                    if lab.get("ep") is None:
                        continue
                    want = as_int(lab["ep"])
                    w = where(bp, es)
                    if want is None or want <= 0:
                        skipped.add(
                            (mp.key, es.role),
                            bp.name,
                            f"{w}: master `{mp.key}` ep `{lab['ep']}` is not a positive integer",
                        )
                        continue
                    if es.parallel_unknown is not None:
                        skipped.add((mp.key, es.role, "par"), bp.name, f"{w}: {es.parallel_unknown}; ep not compared")
                        continue
                    ep, how, line = engine_ep(es)
                    label = f"master `{mp.key}` labels {es.role} `ep: {want}`"
                    entry = f"master entry: {mp.path}:{mp.line}"  # evidence: a line moves with unrelated edits
                    if ep == want:
                        good.add((es.role, mp.key), bp.name, f"{w}: {label} ({mp.path}:{mp.line}); EP {ep} ({how}) ✓")
                        continue
                    if es.opaque is not None:
                        skipped.add(
                            (mp.key, es.role, "opaque"),
                            bp.name,
                            f"{w}: {label}; {es.opaque}, so the EP size is not known",
                        )
                        continue
                    at, line = label_anchor(ctx, bp, line, mp)
                    # On the master entry, say which file runs the point (the launcher picks it: #1151).
                    role = f"{es.role} role" if at == path else f"{es.role} role (`{path}`)"
                    msg = f"{label}, but the {role} runs expert parallelism {ep} ({how})"
                    bad.add((es.role, at, line, want, ep), bp.name, (w, at, line, msg, entry))
        for (w, at, line, msg, entry), names in bad.items():
            yield Problem(at, line, f"{w}: {msg}{points_note(names)}.", evidence=(entry,))
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
