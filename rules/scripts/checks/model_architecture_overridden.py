"""Flags a model-config override the PR adds that changes what the model computes (layers, experts, architecture).

## Why it matters
The review checklist does not accept benchmark hacks that change the model architecture, such
as `--hf-overrides` that skip the indexer every few layers, and in general no optimisation that
cuts the model's FLOPs (F5): the point would publish the throughput of a smaller model under the
real one's name. #1967 and #1968 passed `use_index_cache` / `index_topk_freq` through
`--hf-overrides` and were reverted by #1999.

## When it fires
On the lines the PR adds to benchmark scripts, launchers (and other `.sh` / `.bash` files) and
recipes: it fires for each model-config override (`--hf-overrides`, `--json-model-override-args`,
`--model-override-args`, `--hf-config-overrides`, `--override-generation-config`, with a `{…}` value
on the same command line; in a recipe an `hf_overrides` / `json_model_override_args` /
`model_override_args` key) that sets one of `computation_keys` at any depth, or any key with `skip`
in its name. Overrides of other keys change no FLOPs and pass: context length and RoPE scaling
(`max_position_embeddings`, `rope_scaling`), dtypes, quantization settings, tokenizer and generation
defaults (`--override-generation-config` sampling values); so does a file with no override on its
added lines. The rule is read from the base revision's guidance (the checklist's architecture item,
early July 2026): a base without it is Skipped with that reason, and so is a review that did not
read the guidance.

## Example
    vllm serve "$MODEL" --hf-overrides '{"num_hidden_layers": 30}'
    --json-model-override-args '{"index_topk_freq": 4, "use_index_cache": true}'

## Fix
Drop the override and benchmark the model as it is published. A model that supports the option
natively reads it from its own config, without an override.

## Options
`computation_keys`: the config keys (at any depth of the override) whose change changes the
computation: layer counts and the layers' layout (`num_hidden_layers`, `num_layers`,
`first_k_dense_replace`, `moe_layer_freq`, `layer_types`), experts (`num_experts`,
`n_routed_experts`, `num_experts_per_tok`, `moe_topk`, `topk_group`, `n_group`), the shape of
attention and MLPs (heads, hidden and intermediate sizes, `head_dim`, LoRA ranks of MLA), the
sparse-attention indexer (`index_topk`, `index_topk_freq`, `use_index_cache`, `index_n_heads`),
sliding windows, and the model's identity (`architectures`, `model_type`). Any key with `skip` in
its name counts as well.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import touched
from rules.scripts.overrides import shell_overrides, yaml_overrides
from rules.scripts.patching import written_rule

CODE = "RR432"
NAME = "model-architecture-overridden"
SEVERITY = Severity.BLOCKING
PROOF = "written:F5"
ENFORCES = ("F5",)

COMPUTATION_KEYS = (
    "num_hidden_layers", "num_layers", "n_layers", "n_layer", "num_decoder_layers", "first_k_dense_replace",
    "moe_layer_freq", "layer_types", "decoder_sparse_step", "mlp_only_layers", "full_attention_interval",
    "num_experts", "num_local_experts", "n_routed_experts", "n_shared_experts", "num_experts_per_tok", "moe_topk",
    "moe_k", "top_k_experts", "topk_group", "n_group", "num_attention_heads", "num_key_value_heads", "hidden_size",
    "intermediate_size", "moe_intermediate_size", "shared_expert_intermediate_size", "head_dim", "kv_lora_rank",
    "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "index_topk", "index_topk_freq",
    "use_index_cache", "index_n_heads", "index_head_dim", "sliding_window", "max_window_layers",
    "use_sliding_window", "architectures", "model_type",
)


class Options(RuleOptions):
    computation_keys: tuple[str, ...] = COMPUTATION_KEYS


def _computes(key: str, keys: set[str]) -> bool:
    return key in keys or "skip" in key.lower()


def _judged(ctx: ReviewContext, path: str) -> bool:
    return ctx.kind(path) in ("scripts", "launchers", "recipes") or path.endswith((".sh", ".bash"))


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    keys = set(options.computation_keys)
    if not any(_judged(ctx, f.path) for f in ctx.changeset.files if f.status != "removed"):
        return
    rule = written_rule(ctx.changeset, "architecture")
    if rule is None:
        yield Skipped(
            "the base revision's guidance was not read, so whether it forbids architecture overrides is unknown"
        )
        return
    if rule is False:
        yield Skipped("the base revision's guidance (AGENTS.md, CONTRIBUTING.md, the review checklist) does not "
                      "forbid changing the model architecture yet")
        return
    said = f"{rule.path}:{rule.line}: {rule.text}"
    for f in ctx.changeset.files:
        if f.status == "removed" or f.head_text is None:
            continue
        kind = ctx.kind(f.path)
        if kind in ("scripts", "launchers") or f.path.endswith((".sh", ".bash")):
            found = shell_overrides
        elif kind == "recipes":
            found = yaml_overrides
        else:
            continue
        added = touched(ctx, f.path)
        if added is not None and not added:
            continue
        overrides = found(f.path, f.head_text, added)
        for o in overrides:
            bad = [k for k in o.keys if _computes(k, keys)]
            if not bad:
                yield Passed(f"{o.path}:{o.line}: `{o.flag}` overrides only {', '.join(o.keys) or 'nothing'}, "
                             "which change no computation", path=o.path)
                continue
            yield Problem(o.path, o.line,
                          f"`{o.flag}` overrides {', '.join(f'`{k}`' for k in bad)}, which changes what the model "
                          "computes (its architecture or FLOPs)",
                          end_line=o.end if o.end != o.line else None,
                          evidence=(f"override: {o.text}", said))
        if not overrides:
            yield Passed(f"{f.path}: no model-config override on the lines the PR adds", path=f.path)
