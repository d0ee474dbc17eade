"""RR102 master-image-unpinned: no tag or `latest` is a nit; tags and digests are pinned."""
import pytest

from rules import run
from rules.master.checks import master_image_unpinned as rule
from tests.rules.mc_helpers import NV, ROWS, change_one, row

DIGEST = "sha256:" + "0123456789abcdef" * 4


def _run(image):
    return run(change_one((ROWS[0], row("dsv4-fp4-b300-vllm", image=image), ROWS[2])).changeset, rules=[rule])


@pytest.mark.parametrize("image, problem", [
    ("vllm/vllm-openai:v0.21.0", None),
    ("vllm/vllm-openai:nightly-2026-08-01", None),
    (f"vllm/vllm-openai@{DIGEST}", None),
    (f"vllm/vllm-openai:latest@{DIGEST}", None),
    ("vllm/vllm-openai:latest-rocm", "moving tag `latest-rocm`"),
    ("myregistry.local:5000/vllm", "has no tag"),
    ("vllm/vllm-openai", "has no tag"),
    ("vllm/vllm-openai:latest", "moving tag `latest`"),
    ("vllm/vllm-openai:LATEST", "moving tag `LATEST`"),
    ("rocm/vllm-dev:deepseek-v4-latest", "moving tag `deepseek-v4-latest`"),
    ("lmsysorg/sglang:dev-dsv41", "moving tag `dev-dsv41`"),
    ("vllm/vllm-openai:nightly", "moving tag `nightly`"),
    ("vllm/vllm-openai:nightly-93d8f834dd8acf33eb0e2a75b2711b628cb6e226", None),
    ("lmsysorg/sglang:nightly-dev-cu13-20260522-7cf193fe", None),
    ("lmsysorg/sglang:v0.5.12-cu130", None),
    ("lmsysorg/sglang:dev-nightly-0820", None),
    ("lmsysorg/sglang:dev-nightly-1340", "moving tag `dev-nightly-1340`"),
], ids=["release tag", "dated nightly tag", "digest", "latest pinned by digest", "latest-suffixed tag",
        "port is not a tag", "no tag", "latest", "latest upper case", "latest suffix (#1282)", "dev branch tag (#3241)",
        "bare nightly", "nightly pinned by commit", "nightly pinned by date and commit", "release with cuda",
        "nightly pinned by month and day", "four digits that are no date"])
def test_image(image, problem):
    r = _run(image)
    if problem is None:
        assert r.findings == []
        assert any(c.status == "passed" and image in c.detail for c in r.checks)
    else:
        [f] = r.findings
        assert (f.code, f.path, f.line, f.blocking) == ("RR102", NV, 17, False)
        assert problem in f.message and f.fix and f.evidence


def test_malformed_image_is_skipped_for_rr101_to_report():
    r = _run("/local/vllm.sqsh")
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
