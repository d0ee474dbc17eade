import pytest

from rules.serving.checks import capture_default_below_concurrency as rule
from tests.rules.recipe_helpers import MN_PATH, review, srt

FIXED = {"type": "sa-bench", "isl": 1024, "osl": 1024}


@pytest.mark.parametrize(
    "engine,args,container,gpu,concs,expect",
    [
        # #1375: conc-end raised to 256 with no --cuda-graph-max-bs; H200 at TP 2 captures 256 by default.
        ("sglang", {"tp-size": 2}, "lmsysorg/sglang:v0.5.12", "h200", "512", "SGLang 0.5.12 default"),
        ("sglang", {"tp-size": 8}, "lmsysorg/sglang:v0.5.12", "h200", "512", None),  # TP ≥ 4: 512
        ("sglang", {"tp-size": 8}, "lmsysorg/sglang:v0.5.2", "b200", "256", "160"),  # before the GPU-memory table
        (
            "vllm",
            {"tensor-parallel-size": 8, "max-num-seqs": 1024},
            "vllm/vllm-openai:v0.20.1",
            "b200",
            "1024",
            "512 tokens",
        ),
        (
            "vllm",
            {"tensor-parallel-size": 8, "max-num-seqs": 1024, "max-cudagraph-capture-size": 256},
            None,
            "b200",
            "1024",
            None,
        ),
        ("trtllm", {"tensor_parallel_size": 8, "max_batch_size": 512}, None, "b200", "512", "128 requests"),
        (
            "trtllm",
            {"tensor_parallel_size": 8, "max_batch_size": 512, "cuda_graph_config": None},
            None,
            "b200",
            "512",
            None,
        ),
    ],
    ids=[
        "SGLang H200 TP2 default 256 below 512",
        "SGLang TP8 default 512 covers it",
        "older SGLang default 160",
        "vLLM default cap 512 tokens",
        "an explicit cap is RR212's",
        "TensorRT-LLM default graphs up to 128",
        "TensorRT-LLM graphs off",
    ],
)
def test_default_capture(engine, args, container, gpu, concs, expect):
    text = srt(engine, {"aggregated": args}, {"gpu_type": gpu}, {**FIXED, "concurrencies": concs}, container=container)
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [(f.code, f.severity.value) for f in r.findings] == [("RR213", "nit")]
        f = r.findings[0]
        assert expect in f.message + " ".join(f.evidence), (f.message, f.evidence)


# --- Precision (issue 21) -----------------------------------------------------------------------

def test_an_image_bump_and_a_kv_dtype_that_keep_the_default_are_already_in_the_base():
    # #1838/#1839 pattern: same default capture and concurrency, the PR bumps the image and edits the
    # role (KV dtype); the gap was there before.
    args = {"tensor-parallel-size": 8, "max-num-seqs": 1024}
    base = srt("vllm", {"aggregated": args}, {"gpu_type": "b200"}, {**FIXED, "concurrencies": "1024"},
               container="vllm/vllm-openai:v0.19.0")
    head = base.replace("v0.19.0", "v0.20.1").replace(
        "max-num-seqs: 1024", "max-num-seqs: 1024\n      kv-cache-dtype: fp8"
    )
    r = review(head, [rule], path=MN_PATH, base=base)
    assert r.findings == [] and [f.code for f in r.in_base] == ["RR213"]
    f = r.in_base[0]
    assert "0.20.1" not in f.message and any("vLLM 0.20.1 default" in e for e in f.evidence), (f.message, f.evidence)


def test_an_image_bump_that_changes_the_default_is_the_prs():
    # SGLang 0.5.2 captured up to 160; the GPU-memory table of 0.5.3 gives 512 on B200: the
    # default changed, so the message does and the finding is the PR's.
    base = srt("sglang", {"aggregated": {"tp-size": 8}}, {"gpu_type": "b200"}, {**FIXED, "concurrencies": "256"},
               container="lmsysorg/sglang:v0.5.12")
    head = base.replace("v0.5.12", "v0.5.2").replace("tp-size: 8", "kv-cache-dtype: fp8_e4m3\n      tp-size: 8")
    r = review(head, [rule], path=MN_PATH, base=base)
    assert [f.code for f in r.findings] == ["RR213"] and "160" in r.findings[0].message


def test_sglang_eagle_without_a_cap_runs_at_most_48_requests():
    # #1139: EAGLE with no --max-running-requests: SGLang admits 48, well inside its default graphs.
    eagle = {"tp-size": 8, "speculative-algorithm": "EAGLE", "speculative-num-steps": 3}
    text = srt("sglang", {"aggregated": eagle}, {"gpu_type": "b200"}, {**FIXED, "concurrencies": "1024"})
    assert review(text, [rule], path=MN_PATH).findings == []
    # control: the same point with the cap written runs 1,024 per rank, above the 512 default graphs
    capped = srt("sglang", {"aggregated": {**eagle, "max-running-requests": 1024}}, {"gpu_type": "b200"},
                 {**FIXED, "concurrencies": "1024"})
    assert [f.code for f in review(capped, [rule], path=MN_PATH).findings] == ["RR213"]
