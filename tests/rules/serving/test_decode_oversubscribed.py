import pytest

from rules.serving.checks import concurrency_exceeds_engine_cap as blocking
from rules.serving.checks import decode_oversubscribed as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt

FIXED = {"type": "sa-bench", "isl": 1024, "osl": 1024}

CASES = [
    # id, engine, decode args, decode workers, concurrencies, expected code (None: nothing)
    ("exactly 2× a vLLM decode pair (two TP4 workers × 1,024)", "vllm",
     {"tensor-parallel-size": 4, "max-num-seqs": 1024}, 2, "4096", "RR225"),
    ("2× eight SGLang batch-1 workers", "sglang", {"tp-size": 4, "max-running-requests": 1}, 8, "16", "RR225"),
    ("2× plus a small allowance (2,161 against 1,024)", "sglang",
     {"tp-size": 8, "max-running-requests": 1024}, 1, "4x2161", "RR225"),
    ("TensorRT-LLM batch 1 × 5 workers at conc 10", "trtllm",
     {"tensor_parallel_size": 4, "max_batch_size": 1}, 5, "10", "RR225"),
    ("below 2× the pipeline slack is ordinary", "sglang",
     {"tp-size": 8, "max-running-requests": 1024}, 1, "1500", None),
    ("above the band it is concurrency-exceeds-engine-cap's (4×)", "vllm",
     {"tensor-parallel-size": 4, "max-num-seqs": 512}, 2, "4096", "RR210"),
]


@pytest.mark.parametrize("engine,decode,workers,concs,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_band(engine, decode, workers, concs, expect):
    prefill = (
        {"tp-size": 4}
        if engine == "sglang"
        else {"tensor-parallel-size": 4}
        if engine == "vllm"
        else {"tensor_parallel_size": 4}
    )
    text = srt(engine, {"prefill": prefill, "decode": decode}, {"decode_workers": workers},
               {**FIXED, "concurrencies": concs})
    r = review(text, [rule, blocking], path=MN_PATH)
    assert [f.code for f in r.findings] == ([expect] if expect else []), r.findings


def test_the_message_says_how_many_wait_outside_decode():
    text = srt(
        "vllm",
        {"prefill": {"tensor-parallel-size": 4}, "decode": {"tensor-parallel-size": 4, "max-num-seqs": 1024}},
        {"decode_workers": 2},
        {**FIXED, "concurrencies": "4096"},
    )
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR225", line_of(text, "concurrencies"))]
    msg = r.findings[0].message
    assert "2× what the decode workers admit" in msg and "2,048 of the 4,096 requests" in msg, msg
    assert r.findings[0].severity.value == "nit"


def test_aggregated_points_are_not_this_rules():
    text = srt("sglang", {"aggregated": {"tp-size": 8, "max-running-requests": 32}}, {"agg_workers": 1},
               {**FIXED, "concurrencies": "64"})
    assert review(text, [rule], path=MN_PATH).findings == []


def test_default_caps_and_agentic_points_are_not_compared():
    default = srt("vllm", {"prefill": {"tensor-parallel-size": 4}, "decode": {"tensor-parallel-size": 4}},
                  {"decode_workers": 1}, {**FIXED, "concurrencies": "2048"})
    agentic = srt(
        "vllm",
        {"prefill": {"tensor-parallel-size": 4}, "decode": {"tensor-parallel-size": 4, "max-num-seqs": 2}},
        None,
        {"type": "custom", "env": {"CONC": "4"}},
    )
    assert review(default, [rule], path=MN_PATH).findings == []
    assert review(agentic, [rule], path=MN_PATH).findings == []


def test_zero_and_unreadable_caps_do_not_crash():
    zero = srt("sglang", {"prefill": {"tp-size": 4}, "decode": {"tp-size": 8, "max-running-requests": 0}}, None,
               {**FIXED, "concurrencies": "8"})
    bad = srt("sglang", {"prefill": {"tp-size": 4}, "decode": {"tp-size": 8, "max-running-requests": "8k"}}, None,
              {**FIXED, "concurrencies": "8"})
    for text in (zero, bad):
        r = review(text, [rule], path=MN_PATH)
        assert r.findings == [] and all(f.code != "RR000" for f in r.findings)
