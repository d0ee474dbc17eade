import pytest

from rules.recipe.checks import ep_mismatch as rule
from tests.rules.recipe_helpers import MN_PATH, NV_MASTER, mc_row, review, srt

RECIPE_REF = "sglang/model/8k1k/disagg-1p1d.yaml"


def recipe(engine, decode):
    pre = {"sglang": {"tp-size": 4}, "vllm": {"tensor-parallel-size": 4}, "trtllm": {"tensor_parallel_size": 4}}[engine]
    return srt(engine, {"prefill": pre, "decode": decode}, None, {"type": "sa-bench", "concurrencies": "64"})


@pytest.mark.parametrize("engine,decode,ep,expect", [
    # #1978 as a recipe: labelled tp 2 / ep 4, launched TP1 DP2 with expert parallelism: EP 2.
    ("vllm", {"tensor-parallel-size": 1, "data-parallel-size": 2, "enable-expert-parallel": True}, 4, "expert parallelism 2"),
    ("vllm", {"tensor-parallel-size": 1, "data-parallel-size": 8, "enable-expert-parallel": True}, 8, None),
    ("vllm", {"tensor-parallel-size": 8}, 8, "expert parallelism 1 (no `enable-expert-parallel`)"),
    ("sglang", {"tp-size": 8, "ep-size": 8}, 8, None),
    ("sglang", {"tp-size": 8}, 8, "no `expert-parallel-size`"),
    ("trtllm", {"tensor_parallel_size": 16, "moe_expert_parallel_size": 16}, 16, None),
    ("trtllm", {"tensor_parallel_size": 16, "moe_expert_parallel_size": 8}, 16, "`moe_expert_parallel_size` 8"),
], ids=["vLLM DP2 with EP is EP 2, labelled 4", "vLLM DEP8", "vLLM TP8 without EP", "SGLang ep-size 8",
        "SGLang no ep-size", "TRT EP16", "TRT EP8 labelled 16"])
def test_ep(engine, decode, ep, expect):
    ctx = {NV_MASTER: mc_row("k", RECIPE_REF, decode={"num-worker": 1, "tp": 8, "ep": ep, "dp-attn": False})}
    r = review(recipe(engine, decode), [rule], path=MN_PATH, context=ctx)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR216"] and expect in r.findings[0].message, r.findings


def test_placeholder_parallelism_is_skipped():
    ctx = {NV_MASTER: mc_row("k", RECIPE_REF, decode={"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": False})}
    r = review(recipe("sglang", {"tp-size": "${TP}", "ep-size": 8}), [rule], path=MN_PATH, context=ctx)
    assert r.findings == [] and any("${TP}" in c.detail for c in r.checks if c.status == "skipped")
