import pytest

from rules.recipe.checks import mtp_recipe_chat_template_missing as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt

SPEC = {"tp-size": 8, "speculative-algorithm": "EAGLE", "speculative-num-steps": 3}


@pytest.mark.parametrize("decode,bench,expect", [
    (SPEC, {"type": "sa-bench", "concurrencies": "64"}, "does not set `use_chat_template: true`"),
    (SPEC, {"type": "sa-bench", "concurrencies": "64", "use_chat_template": True}, None),
    (SPEC, {"type": "sa-bench", "concurrencies": "64", "use_chat_template": False}, "is `False`"),
    ({"tp-size": 8}, {"type": "sa-bench", "concurrencies": "64"}, None),
    (SPEC, {"type": "custom", "env": {"CONC": "8"}}, None),
], ids=["#1907 MTP recipe without the chat template", "set", "set false", "no speculation", "agentic trace replay"])
def test_chat_template(decode, bench, expect):
    r = review(srt("sglang", {"prefill": {"tp-size": 4}, "decode": decode}, None, bench), [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR220"] and expect in r.findings[0].message, r.findings


def test_suggestion_adds_the_key_to_the_benchmark_block():
    text = srt("sglang", {"decode": SPEC}, None, {"type": "sa-bench", "concurrencies": "64"})
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR220", line_of(text, 'type: "sa-bench"'))]
    assert r.findings[0].suggestion == '  type: "sa-bench"\n  use_chat_template: true'


def test_trt_and_vllm_speculation_count():
    trt = srt("trtllm", {"decode": {"tensor_parallel_size": 8, "speculative_config": {"decoding_type": "MTP",
               "num_nextn_predict_layers": 3}}}, None, {"type": "sa-bench", "concurrencies": "4"})
    vllm = srt("vllm", {"decode": {"tensor-parallel-size": 8, "speculative-config": {"method": "mtp",
               "num_speculative_tokens": 2}}}, None, {"type": "sa-bench", "concurrencies": "4"})
    assert [f.code for f in review(trt, [rule], path=MN_PATH).findings] == ["RR220"]
    assert [f.code for f in review(vllm, [rule], path=MN_PATH).findings] == ["RR220"]
