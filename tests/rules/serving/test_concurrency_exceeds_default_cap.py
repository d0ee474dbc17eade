import pytest

from rules.serving.checks import concurrency_exceeds_default_cap as rule
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
        f = r.findings[0]
        assert expect in f.message + " ".join(f.evidence), (f.message, f.evidence)


# --- Precision (issue 21) -----------------------------------------------------------------------

def test_the_version_is_evidence_not_the_message():
    """The message is the finding's identity (the base replay compares it): it names the default's
    behaviour, and the evidence the version it was taken for."""
    text = srt("vllm", {"aggregated": {"tensor-parallel-size": 8}}, None, {**FIXED, "concurrencies": "2048"},
               container="vllm/vllm-openai:v0.20.1")
    f = review(text, [rule], path=MN_PATH).findings[0]
    assert "vLLM default (max-num-seqs 1024" in f.message and "0.20.1" not in f.message, f.message
    assert any("vLLM 0.20.1 default" in e for e in f.evidence), f.evidence


def test_an_image_bump_that_keeps_the_default_is_already_in_the_base():
    # The PR bumps the image and edits the role (a KV dtype) but leaves the cap and the concurrency.
    base = srt("vllm", {"aggregated": {"tensor-parallel-size": 8}}, None, {**FIXED, "concurrencies": "2048"},
               container="vllm/vllm-openai:v0.19.0")
    head = base.replace("v0.19.0", "v0.20.1").replace(
        "tensor-parallel-size: 8", "tensor-parallel-size: 8\n      kv-cache-dtype: fp8"
    )
    r = review(head, [rule], path=MN_PATH, base=base)
    assert r.findings == [] and [f.code for f in r.in_base] == ["RR211"]


def test_raising_the_concurrency_above_the_default_is_the_prs():
    base = srt("vllm", {"aggregated": {"tensor-parallel-size": 8}}, None, {**FIXED, "concurrencies": "512"},
               container="vllm/vllm-openai:v0.19.0")
    head = base.replace("v0.19.0", "v0.20.1").replace('concurrencies: "512"', 'concurrencies: "2048"')
    assert [f.code for f in review(head, [rule], path=MN_PATH, base=base).findings] == ["RR211"]


def test_sglang_eagle_without_a_cap_admits_48():
    # SGLang resets an unset max-running-requests to 48 for EAGLE-family speculative decoding.
    eagle = {"tp-size": 8, "speculative-algorithm": "EAGLE", "speculative-num-steps": 3}
    r = review(srt("sglang", {"aggregated": eagle}, None, {**FIXED, "concurrencies": "1024"}), [rule], path=MN_PATH)
    assert [f.code for f in r.findings] == ["RR211"]
    assert "max-running-requests 48" in r.findings[0].message, r.findings[0].message
    plain = review(
        srt("sglang", {"aggregated": {"tp-size": 8}}, None, {**FIXED, "concurrencies": "1024"}), [rule], path=MN_PATH
    )
    assert plain.findings == []  # without speculation SGLang sizes the cap from the KV pool
