"""RR110 engine-first-ordering: a new key of another engine needs a vLLM/SGLang key of its model and SKU."""
import pytest

from rules import load_config, run
from rules.master.checks import engine_first_ordering as rule
from tests.rules.master.engine_helpers import AMD, NV, OLD_POLICY, changeset, key, master

SGL_B200 = key("glm5-fp8-b200-sglang", "sglang", "lmsysorg/sglang:v0.5.12")
TRT_B200 = key("glm5-fp8-b200-trt", "trt", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0")
TRT_H200 = key("glm5-fp8-h200-trt", "trt", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0", runner="h200-dgxc")


def _run(base, head, config=None, **kw):
    return run(changeset(base, head, **kw), config, rules=[rule])


def test_new_engine_without_sibling_fires():
    r = _run((SGL_B200,), (SGL_B200, TRT_H200))
    [f] = r.findings
    assert (f.code, f.path, f.line, f.blocking) == ("RR110", NV, 22, True)
    assert "adds trt for `glm5` on h200" in f.message
    assert any("run on: b200" in e for e in f.evidence)
    assert any("PR_REVIEW_CHECKLIST.md:3:" in e for e in f.evidence)


def test_sibling_on_the_same_sku_passes():
    r = _run((SGL_B200,), (SGL_B200, TRT_B200))
    assert r.findings == []
    assert any("glm5 on b200 has vLLM/SGLang key(s) glm5-fp8-b200-sglang" in c.detail for c in r.checks)


def test_sibling_runner_label_differs_but_sku_matches():
    sgl = key("glm5-fp8-h200-sglang", "sglang", "lmsysorg/sglang:v0.5.12", runner="cluster:h200-dgxc")
    assert _run((sgl,), (sgl, TRT_H200)).findings == []


def test_sibling_added_in_the_same_pr_counts():
    assert _run((), (SGL_B200, TRT_B200)).findings == []


def test_dynamo_sglang_is_a_sibling_and_dynamo_trt_is_another_engine():
    dsg = key("glm5-fp8-gb200-dynamo-sglang", "dynamo-sglang", "lmsysorg/sglang:v0.5.12", runner="gb200")
    dtrt = key("glm5-fp8-gb200-dynamo-trt", "dynamo-trt", "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8",
               runner="gb200")
    assert _run((dsg,), (dsg, dtrt)).findings == []
    assert [f.code for f in _run((SGL_B200,), (SGL_B200, dtrt)).findings] == ["RR110"]


def test_sibling_in_another_master_config_counts():
    atom = key("glm5-fp8-mi355x-atom", "atom", "rocm/atom:rocm7.2", runner="mi355x")
    sgl = key("glm5-fp8-mi355x-sglang", "sglang", "lmsysorg/sglang-rocm:v0.5.12", runner="mi355x")
    r = _run((SGL_B200,), (SGL_B200, atom), context={AMD: master(sgl)})
    assert r.findings == []


def test_other_model_on_the_sku_is_no_sibling():
    other = key("dsr1-fp8-h200-vllm", "vllm", "vllm/vllm-openai:v0.21.0", runner="h200")
    assert [f.code for f in _run((other,), (other, TRT_H200)).findings] == ["RR110"]


def test_non_established_sku_passes():
    new_hw = key("glm5-fp8-vr200-trt", "trt", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0", runner="vr200-nvl72")
    r = _run((SGL_B200,), (SGL_B200, new_hw))
    assert r.findings == []
    assert any("not an established SKU" in c.detail for c in r.checks)


def test_key_existing_at_the_base_is_never_flagged():
    # The H200 TRT key has no sibling, but it was there before the PR, which only edits it.
    r = _run((SGL_B200, TRT_H200), (SGL_B200, TRT_H200.replace("conc-end: 64", "conc-end: 128")))
    assert r.findings == []


def test_variant_of_an_engine_the_base_already_runs_passes():
    mtp = key("glm5-fp8-h200-trt-mtp", "trt", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0", runner="h200")
    r = _run((SGL_B200, TRT_H200), (SGL_B200, TRT_H200, mtp))
    assert r.findings == []
    assert any("the base already runs trt for glm5 on h200" in c.detail for c in r.checks)


def test_new_vllm_key_is_not_checked():
    vllm = key("glm5-fp8-h200-vllm", "vllm", "vllm/vllm-openai:v0.21.0", runner="h200")
    r = _run((SGL_B200,), (SGL_B200, vllm))
    assert r.findings == [] and not [c for c in r.checks if c.code == "RR110"]


@pytest.mark.parametrize("kw, why", [
    ({"policy": OLD_POLICY}, "does not ask for vLLM/SGLang configs before other engines"),
    ({"policy": None}, "does not ask for vLLM/SGLang configs before other engines"),
    ({"probed": False}, "was not read"),
])
def test_base_without_the_statement_is_skipped(kw, why):
    r = _run((SGL_B200,), (SGL_B200, TRT_H200), **kw)
    assert r.findings == []
    assert any(c.status == "skipped" and why in c.detail for c in r.checks)


def test_established_skus_option():
    config, errors = load_config({"rules": {"RR110": {"options": {"established_skus": ["b200"]}}}})
    assert errors == []
    assert _run((SGL_B200,), (SGL_B200, TRT_H200), config=config).findings == []
