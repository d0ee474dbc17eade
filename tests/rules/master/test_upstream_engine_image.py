"""RR109 upstream-engine-image: vLLM/SGLang keys on established SKUs run the upstream projects' images."""
import pytest

from rules import load_config, run
from rules.master.checks import upstream_engine_image as rule
from tests.rules.master.engine_helpers import NV, OLD_POLICY, changeset, key

SGL = key("dsr1-fp8-h200-sglang", "sglang", "lmsysorg/sglang:v0.5.12", runner="h200")


def _run(new: str, base=(SGL,), config=None, **kw):
    return run(changeset(base, (*base, new) if new.split(":")[0] not in "".join(base) else (new,), **kw),
               config, rules=[rule])


@pytest.mark.parametrize("framework, image, runner, problem", [
    ("sglang-disagg", "rocm/sgl-dev:v0.5.9-mi35x-20260301", "mi355x-disagg", "not an upstream SGLang image"),
    ("vllm", "rocm/vllm-dev:nightly-20260301", "cluster:mi325x-amds", "not an upstream vLLM image"),
    ("llmd-vllm", "ghcr.io/someone/llm-d-vllm:0.3", "gb200", "not an upstream vLLM image"),
    ("dynamo-sglang", "nvcr.io#nvidia/ai-dynamo/sglang-runtime:0.8.1", "gb300-nv", "not an upstream SGLang image"),
    ("vllm", "lmsysorg/sglang:v0.5.12", "b200", "not an upstream vLLM image"),
    ("vllm", "vllm/vllm-openai:v0.21.0", "b200", None),
    ("vllm", "vllm/vllm-openai-rocm:v0.21.0", "mi355x", None),
    ("vllm", "docker.io/vllm/vllm-openai@sha256:" + "a" * 64, "b300", None),
    ("sglang", "lmsysorg#sglang-rocm:v0.5.12-rocm720", "mi300x", None),
    ("dynamo-vllm", "vllm/vllm-openai:v0.21.0", "gb200", None),
    ("sglang", "rocm/sgl-dev:v0.5.9", "mi455x", None),  # new hardware
    ("sglang", "rocm/sgl-dev:v0.5.9", "vr200-nvl72", None),
    ("trt", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0", "b200", None),  # not vLLM/SGLang
    ("atom", "rocm/atom:rocm7.2", "mi355x", None),
    ("vllm", "myregistry.local:5000/vllm/vllm-openai:v1", "b200", None),  # master-image-not-public's
    ("vllm", "/lustre/vllm.sqsh", "b200", None),
])
def test_image(framework, image, runner, problem):
    r = _run(key("m1-fp8-x-" + framework, framework, image, runner=runner))
    if problem is None:
        assert r.findings == [], r.findings
    else:
        [f] = r.findings
        assert (f.code, f.path, f.line, f.blocking) == ("RR109", NV, 17, True)
        assert problem in f.message and image in f.message
        assert any("PR_REVIEW_CHECKLIST.md:2:" in e for e in f.evidence)


def test_upstream_image_passes_out_loud():
    r = _run(key("m1-fp8-b200-vllm", "vllm", "vllm/vllm-openai:v0.21.0"))
    assert r.findings == []
    assert any("upstream vLLM image" in c.detail and "m1-fp8-b200-vllm" in c.detail for c in r.checks
               if c.status == "passed")


def test_unchanged_key_is_not_checked():
    fork = key("m1-fp8-b200-vllm", "vllm", "someorg/vllm:1.0")
    # The fork was there at the base; the PR only edits another key.
    r = run(changeset((fork, SGL), (fork, SGL.replace("conc-end: 64", "conc-end: 128"))), rules=[rule])
    assert r.findings == []


def test_changed_search_space_of_a_fork_is_not_checked():
    fork = key("m1-fp8-b200-vllm", "vllm", "someorg/vllm:1.0")
    r = run(changeset((fork,), (fork.replace("conc-end: 64", "conc-end: 128"),)), rules=[rule])
    assert r.findings == []


def test_image_change_to_a_fork_is_checked():
    up = key("m1-fp8-b200-vllm", "vllm", "vllm/vllm-openai:v0.21.0")
    r = run(changeset((up,), (up.replace("vllm/vllm-openai:v0.21.0", "someorg/vllm:1.0"),)), rules=[rule])
    assert [f.code for f in r.findings] == ["RR109"]


def test_framework_change_is_checked():
    trt = key("m1-fp8-b200-x", "trt", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0")
    r = run(changeset((trt,), (trt.replace("framework: trt", "framework: sglang"),)), rules=[rule])
    assert [f.code for f in r.findings] == ["RR109"]


@pytest.mark.parametrize("kw, why", [
    ({"policy": OLD_POLICY}, "does not ask for upstream"),
    ({"policy": None}, "does not ask for upstream"),
    ({"probed": False}, "was not read"),
])
def test_base_without_the_statement_is_skipped(kw, why):
    r = _run(key("m1-fp8-b200-vllm", "vllm", "someorg/vllm:1.0"), **kw)
    assert r.findings == []
    assert any(c.status == "skipped" and why in c.detail for c in r.checks)


def test_established_skus_option():
    config, errors = load_config({"rules": {"RR109": {"options": {"established_skus": ["h100"]}}}})
    assert errors == []
    assert _run(key("m1-fp8-b200-vllm", "vllm", "someorg/vllm:1.0"), config=config).findings == []
