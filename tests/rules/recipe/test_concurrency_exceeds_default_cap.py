import pytest

from rules.recipe.checks import concurrency_exceeds_default_cap as rule
from tests.rules.recipe_helpers import MN_PATH, review, srt

FIXED = {"type": "sa-bench", "isl": 1024, "osl": 1024}


@pytest.mark.parametrize("engine,args,container,concs,expect", [
    ("vllm", {"tensor-parallel-size": 8}, "vllm/vllm-openai:v0.20.1", "2048", "vLLM 0.20.1 default (max-num-seqs 1024"),
    ("vllm", {"tensor-parallel-size": 8}, "vllm/vllm-openai:nightly-abc", "2048", "newest behaviour assumed"),
    ("vllm", {"tensor-parallel-size": 1, "data-parallel-size": 2}, "vllm/vllm-openai:v0.20.1", "2048", None),
    ("trtllm", {"tensor_parallel_size": 8}, None, "4096", "max_batch_size 2048"),
    ("vllm", {"tensor-parallel-size": 8, "max-num-seqs": 64}, None, "2048", None),  # explicit: RR210's
    ("sglang", {"tp-size": 8}, None, "100000", None),  # SGLang has no fixed default
], ids=["vLLM default 1,024 below 2,048", "version unknown names the assumption", "DP2 doubles the default",
        "TensorRT-LLM default 2,048", "explicit caps are not this rule's", "SGLang sizes its cap from the KV pool"])
def test_default_cap(engine, args, container, concs, expect):
    text = srt(engine, {"aggregated": args}, None, {**FIXED, "concurrencies": concs}, container=container)
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [(f.code, f.severity.value) for f in r.findings] == [("RR211", "nit")]
        assert expect in r.findings[0].message, r.findings[0].message
