import pytest

from rules.recipe.checks import dp_attention_not_passed as rule
from tests.rules.recipe_helpers import MN_PATH, NV_MASTER, codes, line_of, mc_row, review, srt

RECIPE_REF = "sglang/model/8k1k/disagg-1p1d.yaml"
DEC_DPA = {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True}


def recipe(engine="sglang", decode=None):
    pre = {"sglang": {"tp-size": 4}, "vllm": {"tensor-parallel-size": 4}, "trtllm": {"tensor_parallel_size": 4}}[engine]
    return srt(engine, {"prefill": pre, "decode": decode}, None, {"type": "sa-bench", "concurrencies": "64"})


@pytest.mark.parametrize("engine,decode,expect", [
    ("sglang", {"tp-size": 8, "ep-size": 8}, "does not enable DP attention (enable-dp-attention: true; here not set)"),
    ("sglang", {"tp-size": 8, "dp-size": 8, "enable-dp-attention": True}, None),
    ("sglang", {"tp-size": 8, "enable-dp-attention": False}, "here `enable-dp-attention` False"),
    ("trtllm", {"tensor_parallel_size": 8, "enable_attention_dp": True}, None),
    ("trtllm", {"tensor_parallel_size": 8}, "enable_attention_dp: true"),
    ("vllm", {"tensor-parallel-size": 1, "data-parallel-size": 8}, None),
    ("vllm", {"tensor-parallel-size": 8}, "data-parallel-size above 1"),
], ids=["SGLang flag missing", "SGLang enabled", "SGLang set false", "TRT enabled", "TRT missing", "vLLM DP8",
        "vLLM TP8 runs no attention DP"])
def test_label(engine, decode, expect):
    ctx = {NV_MASTER: mc_row("k-sglang", RECIPE_REF, decode=DEC_DPA)}
    r = review(recipe(engine, decode), [rule], path=MN_PATH, context=ctx)
    if expect is None:
        assert r.findings == [] and any(c.status == "passed" for c in r.checks)
    else:
        assert [f.code for f in r.findings] == ["RR215"] and expect in r.findings[0].message, r.findings


def test_false_flag_gets_a_suggestion_on_its_line():
    text = recipe("sglang", {"tp-size": 8, "enable-dp-attention": False})
    r = review(text, [rule], path=MN_PATH, context={NV_MASTER: mc_row("k", RECIPE_REF, decode=DEC_DPA)})
    assert codes(r) == [("RR215", line_of(text, "enable-dp-attention"))]
    assert r.findings[0].suggestion.strip() == "enable-dp-attention: true"


def test_without_a_master_row_nothing_is_compared():
    assert review(recipe("sglang", {"tp-size": 8}), [rule], path=MN_PATH).findings == []


def test_label_false_is_not_this_rule():
    ctx = {NV_MASTER: mc_row("k", RECIPE_REF, decode={"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False})}
    assert review(recipe("sglang", {"tp-size": 8}), [rule], path=MN_PATH, context=ctx).findings == []
