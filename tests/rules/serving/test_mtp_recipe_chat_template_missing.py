import pytest

from rules.serving.checks import mtp_recipe_chat_template_missing as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt

SPEC = {"tp-size": 8, "speculative-algorithm": "EAGLE", "speculative-num-steps": 3}


@pytest.mark.parametrize("decode,bench,expect", [
    (SPEC, {"type": "sa-bench", "concurrencies": "64", "use_chat_template": False}, "is `False`"),
    (SPEC, {"type": "sa-bench", "concurrencies": "64", "use_chat_template": "false"}, "is `false`"),
    (SPEC, {"type": "sa-bench", "concurrencies": "64", "use_chat_template": True}, None),
    # srtctl's BenchmarkConfig.use_chat_template defaults to true (#1907, #2113 were flagged wrongly)
    (SPEC, {"type": "sa-bench", "concurrencies": "64"}, None),
    ({"tp-size": 8}, {"type": "sa-bench", "concurrencies": "64", "use_chat_template": False}, None),
    (SPEC, {"type": "custom", "env": {"CONC": "8"}}, None),
], ids=["set false", "set false as a string", "set", "unset: srtctl's default is true", "no speculation",
        "agentic trace replay"])
def test_chat_template(decode, bench, expect):
    r = review(srt("sglang", {"prefill": {"tp-size": 4}, "decode": decode}, None, bench), [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR220"] and expect in r.findings[0].message, r.findings


def test_an_unset_key_passes_naming_the_default():
    r = review(srt("sglang", {"decode": SPEC}, None, {"type": "sa-bench", "concurrencies": "64"}), [rule], path=MN_PATH)
    assert r.findings == [] and any("srtctl's default: true" in c.detail for c in r.checks if c.status == "passed")


def test_suggestion_turns_the_value_true():
    text = srt(
        "sglang", {"decode": SPEC}, None, {"type": "sa-bench", "concurrencies": "64", "use_chat_template": False}
    )
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR220", line_of(text, "use_chat_template"))]
    assert r.findings[0].suggestion == "  use_chat_template: true"


def test_trt_and_vllm_speculation_count():
    off = {"type": "sa-bench", "concurrencies": "4", "use_chat_template": False}
    trt = srt("trtllm", {"decode": {"tensor_parallel_size": 8, "speculative_config": {"decoding_type": "MTP",
               "num_nextn_predict_layers": 3}}}, None, off)
    vllm = srt("vllm", {"decode": {"tensor-parallel-size": 8, "speculative-config": {"method": "mtp",
               "num_speculative_tokens": 2}}}, None, off)
    assert [f.code for f in review(trt, [rule], path=MN_PATH).findings] == ["RR220"]
    assert [f.code for f in review(vllm, [rule], path=MN_PATH).findings] == ["RR220"]


def test_other_benchmark_types_do_not_read_the_key():
    r = review(srt("sglang", {"decode": SPEC}, None, {"type": "mooncake", "isl": 1024, "use_chat_template": False}),
               [rule], path=MN_PATH)
    assert r.findings == []
