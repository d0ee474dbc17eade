import pytest

from rules.recipe.checks import capture_default_below_concurrency as rule
from tests.rules.recipe_helpers import MN_PATH, review, srt

FIXED = {"type": "sa-bench", "isl": 1024, "osl": 1024}


@pytest.mark.parametrize("engine,args,container,gpu,concs,expect", [
    # #1375: conc-end raised to 256 with no --cuda-graph-max-bs; H200 at TP 2 captures 256 by default.
    ("sglang", {"tp-size": 2}, "lmsysorg/sglang:v0.5.12", "h200", "512", "SGLang 0.5.12 default"),
    ("sglang", {"tp-size": 8}, "lmsysorg/sglang:v0.5.12", "h200", "512", None),  # TP ≥ 4: 512
    ("sglang", {"tp-size": 8}, "lmsysorg/sglang:v0.5.2", "b200", "256", "160"),  # before the GPU-memory table
    ("vllm", {"tensor-parallel-size": 8, "max-num-seqs": 1024}, "vllm/vllm-openai:v0.20.1", "b200", "1024",
     "512 tokens"),
    ("vllm", {"tensor-parallel-size": 8, "max-num-seqs": 1024, "max-cudagraph-capture-size": 256}, None, "b200", "1024", None),
    ("trtllm", {"tensor_parallel_size": 8, "max_batch_size": 512}, None, "b200", "512", "128 requests"),
    ("trtllm", {"tensor_parallel_size": 8, "max_batch_size": 512, "cuda_graph_config": None}, None, "b200", "512", None),
], ids=["SGLang H200 TP2 default 256 below 512", "SGLang TP8 default 512 covers it", "older SGLang default 160",
        "vLLM default cap 512 tokens", "an explicit cap is RR212's", "TensorRT-LLM default graphs up to 128",
        "TensorRT-LLM graphs off"])
def test_default_capture(engine, args, container, gpu, concs, expect):
    text = srt(engine, {"aggregated": args}, {"gpu_type": gpu}, {**FIXED, "concurrencies": concs}, container=container)
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [(f.code, f.severity.value) for f in r.findings] == [("RR213", "nit")]
        assert expect in r.findings[0].message, r.findings[0].message
