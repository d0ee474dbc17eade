import pytest

from rules.serving.checks import capture_range_below_concurrency as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt

FIXED = {"type": "sa-bench", "isl": 1024, "osl": 1024}

CASES = [
    (
        "SGLang graph cap below the per-rank batch",
        "sglang",
        {"tp-size": 8, "max-running-requests": 512, "cuda-graph-max-bs": 128},
        "64x256",
        "one rank runs 256 requests",
    ),
    (
        "SGLang DP attention splits the batch over ranks: 2,048 / 16 = 128",
        "sglang",
        {
            "tp-size": 16,
            "dp-size": 16,
            "enable-dp-attention": True,
            "max-running-requests": 2048,
            "cuda-graph-max-bs": 128,
        },
        "4096",
        None,
    ),
    (
        "admission caps the batch: 256 admitted of 4,096",
        "sglang",
        {"tp-size": 8, "max-running-requests": 256, "cuda-graph-max-bs": 256},
        "4096",
        None,
    ),
    (
        "vLLM counts tokens: 128 per rank × (3 + 1) = 512 > 256",
        "vllm",
        {
            "tensor-parallel-size": 8,
            "max-num-seqs": 128,
            "max-cudagraph-capture-size": 256,
            "speculative-config": {"method": "mtp", "num_speculative_tokens": 3},
        },
        "128",
        "runs 512 tokens",
    ),
    (
        "vLLM explicit lists are the capture-list rules'",
        "vllm",
        {
            "tensor-parallel-size": 8,
            "max-num-seqs": 128,
            "compilation-config": {"cudagraph_capture_sizes": [1, 2, 4, 8]},
        },
        "128",
        None,
    ),
    (
        "vLLM eager runs no graphs",
        "vllm",
        {"tensor-parallel-size": 8, "max-num-seqs": 128, "max-cudagraph-capture-size": 8, "enforce-eager": True},
        "128",
        None,
    ),
    (
        "TensorRT-LLM graph sizes in requests per attention-DP rank",
        "trtllm",
        {
            "tensor_parallel_size": 8,
            "enable_attention_dp": True,
            "max_batch_size": 64,
            "cuda_graph_config": {"max_batch_size": 32},
        },
        "512",
        "one rank runs 64 requests",
    ),
]


@pytest.mark.parametrize("engine,args,concs,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_capture(engine, args, concs, expect):
    text = srt(engine, {"aggregated": args}, None, {**FIXED, "concurrencies": concs})
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR212"] and expect in r.findings[0].message, r.findings


def test_finding_sits_on_the_cap_with_a_suggestion():
    text = srt("sglang", {"aggregated": {"tp-size": 8, "max-running-requests": 512, "cuda-graph-max-bs": 128}}, None,
               {**FIXED, "concurrencies": "256"})
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR212", line_of(text, "cuda-graph-max-bs"))]
    assert r.findings[0].suggestion.strip() == "cuda-graph-max-bs: 256"


def test_agentic_points_are_not_judged():
    text = srt(
        "sglang",
        {"aggregated": {"tp-size": 8, "cuda-graph-max-bs": 64}},
        None,
        {"type": "custom", "env": {"CONC": "96"}},
    )
    assert review(text, [rule], path=MN_PATH).findings == []


BUDGET_CASES = [
    # A rank never runs more in one step than its token budget (vLLM Scheduler.schedule's token_budget).
    ("vLLM: 512 per rank × (1 + 1) = 1,024 tokens, but a 512-token budget runs at most 512 per step", "vllm",
     {"tensor-parallel-size": 1, "data-parallel-size": 8, "max-num-seqs": 512, "max-num-batched-tokens": 512,
      "max-cudagraph-capture-size": 512, "speculative-config": {"method": "mtp", "num_speculative_tokens": 1}},
     "4096", None),
    ("vLLM control: graphs below the budget still fall short", "vllm",
     {"tensor-parallel-size": 1, "data-parallel-size": 8, "max-num-seqs": 512, "max-num-batched-tokens": 512,
      "max-cudagraph-capture-size": 256, "speculative-config": {"method": "mtp", "num_speculative_tokens": 1}},
     "4096", "one rank runs 512 tokens"),
    ("vLLM control: a budget above the need does not bound it", "vllm",
     {"tensor-parallel-size": 8, "max-num-seqs": 128, "max-num-batched-tokens": 8192, "max-cudagraph-capture-size": 256,
      "speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}, "128", "runs 512 tokens"),
    ("TensorRT-LLM: max_num_tokens 128 / (1 + 3) = 32 requests per step", "trtllm",
     {"tensor_parallel_size": 4, "max_batch_size": 64, "max_num_tokens": 128,
      "speculative_config": {"decoding_type": "MTP", "num_nextn_predict_layers": 3},
      "cuda_graph_config": {"max_batch_size": 32}}, "64", None),
    ("TensorRT-LLM control: graphs below the per-step bound", "trtllm",
     {"tensor_parallel_size": 4, "max_batch_size": 64, "max_num_tokens": 128,
      "speculative_config": {"decoding_type": "MTP", "num_nextn_predict_layers": 3},
      "cuda_graph_config": {"max_batch_size": 16}}, "64", "one rank runs 32 requests"),
    # SGLang's chunked-prefill-size bounds prefill chunks, not decode batches.
    ("SGLang: chunked-prefill-size does not bound decode", "sglang",
     {"tp-size": 8, "max-running-requests": 512, "chunked-prefill-size": 128, "cuda-graph-max-bs": 128}, "256",
     "one rank runs 256 requests"),
]


@pytest.mark.parametrize("engine,args,concs,expect", [c[1:] for c in BUDGET_CASES], ids=[c[0] for c in BUDGET_CASES])
def test_need_is_bounded_by_the_step_budget(engine, args, concs, expect):
    text = srt(engine, {"aggregated": args}, None, {**FIXED, "concurrencies": concs})
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == [], r.findings
        assert any("per step" in c.detail for c in r.checks)
    else:
        assert [f.code for f in r.findings] == ["RR212"] and expect in r.findings[0].message, r.findings
