"""RR101 master-image-not-public: local files and non-public registries block; public images pass."""
import pytest

from rules import load_config, run
from rules.changeset import ChangeSet, FileChange
from rules.config import EngineConfig
from rules.master.checks import master_image_not_public as rule
from tests.rules.mc_helpers import BASE, NV, ROWS, change_one, ctx_of, master, modified, row


def _run(image, config=None):
    head = (ROWS[0], row("dsv4-fp4-b300-vllm", image=image), ROWS[2])
    ctx = change_one(head)
    return run(ctx.changeset, config, rules=[rule])


@pytest.mark.parametrize("image, problem", [
    ("vllm/vllm-openai:v0.21.0", None),
    ("public.ecr.aws/q9t5s3a7/vllm-release-repo:fbd51e3", None),
    ("ubuntu:24.04", "names no Docker Hub organisation"),
    ("minimax-m25-disagg:latest", "names no Docker Hub organisation"),
    ("docker.io/library/python:3.12", "names no Docker Hub organisation"),
    ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.8.1", None),
    ("nvcr.io#nvidia/ai-dynamo/sglang-runtime:0.8.1", None),
    ("ghcr.io/org/engine:1.0", None),
    ("quay.io/org/engine:1.0", None),
    ("docker.io/rocm/atom:rocm7.2", None),
    ("NVCR.IO/nvidia/x:1", None),
    ("/lustre/images/vllm.sqsh", "is a local file or path"),
    ("./vllm.sqsh", "is a local file or path"),
    ("images/vllm-v0.20.1.sqsh", "is a local file or path"),
    ("~/vllm.sqsh", "is a local file or path"),
    ("myregistry.local:5000/vllm/vllm-openai:v0.20.1", "`myregistry.local:5000`, which is not a public registry"),
    ("gitlab-master.example.com/org/vllm:1", "not a public registry"),
    ("localhost/vllm:1", "`localhost`, which is not a public registry"),
    ("Vllm/VLLM-openai:v1", "is not a container image reference"),
    ("'vllm/vllm-openai:v1 --gpus all'", "is not a container image reference"),
], ids=["docker hub org/repo", "public ECR", "docker hub official base image", "locally built image",
        "explicit library namespace", "nvcr.io slash", "nvcr.io enroot hash", "ghcr.io", "quay.io",
        "explicit docker.io", "host case-insensitive", "absolute sqsh", "relative sqsh", "sqsh without a leading slash",
        "home path", "private registry with port", "unknown host", "localhost", "uppercase repo", "spaces"])
def test_image(image, problem):
    r = _run(image)
    if problem is None:
        assert r.findings == []
        assert any(image in c.detail and "dsv4-fp4-b300-vllm" in c.detail for c in r.checks if c.status == "passed")
    else:
        [f] = r.findings
        assert (f.code, f.line, f.path) == ("RR101", 17, NV) and problem in f.message and f.blocking
        assert f.evidence[0] == f"dsv4-fp4-b300-vllm.image = {image.strip(chr(39))}"


def test_option_adds_a_public_registry():
    config, errors = load_config({"rules": {"RR101": {"options": {"public_registries": ["myregistry.local:5000"]}}}})
    assert errors == []
    assert _run("myregistry.local:5000/vllm:1", config).findings == []


def test_unchanged_keys_are_not_checked():
    bad = master(row("dsv4-fp4-b200-vllm", image="/local.sqsh"), *ROWS[1:])
    r = run(ctx_of(modified(NV, bad, bad)).changeset, rules=[rule])
    assert r.findings == [] and r.checks == []


@pytest.mark.parametrize("extra, outcome", [
    ("  image: [a, b]\n", "problem"),
    ("", "skipped"),
], ids=["image not a string", "image missing"])
def test_wrong_or_missing_image(extra, outcome):
    block = "dsv4-fp4-gb200-vllm:\n  model-prefix: dsv4\n" + extra
    r = run(change_one((*ROWS, block)).changeset, rules=[rule])
    if outcome == "problem":
        assert [f.line for f in r.findings] == [48] and "not a string" in r.findings[0].message
    else:
        assert r.findings == [] and any(c.status == "skipped" and "no `image`" in c.detail for c in r.checks)


def test_unreadable_master_is_skipped_not_crashed():
    r = run(ChangeSet(files=(FileChange(NV, "modified", base=BASE, head=b"\xff\xfe"),)), rules=[rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_default_options_are_the_public_registries():
    assert EngineConfig().options_for(rule).public_registries == (
        "docker.io",
        "nvcr.io",
        "ghcr.io",
        "quay.io",
        "public.ecr.aws",
    )
