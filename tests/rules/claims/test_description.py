"""rules.claims.description: reading versions, images and flags out of descriptions and patches."""

import pytest

from rules.claims.description import Item, changed_flags, core, in_image, search_space_findings


@pytest.mark.parametrize("version, image, hit", [
    ("v0.5.12-cu130", "lmsysorg/sglang:v0.5.12-cu130", True),
    ("0.5.12-cu130", "lmsysorg/sglang:v0.5.12-cu130", True),
    ("v0.5.1", "lmsysorg/sglang:v0.5.12-cu130", False),
    ("v0.5.12", "lmsysorg/sglang:v0.5.12-cu130", True),
    ("nightly-dev-cu13-20260523-c112f762", "lmsysorg/sglang:nightly-dev-cu13-20260523-c112f762", True),
    ("v0.20.1", None, False),
], ids=["exact", "without-v", "prefix-is-not-a-match", "release-of-a-cuda-tag", "nightly", "no-image"])
def test_in_image(version, image, hit):
    assert in_image(version, image) is hit


def test_core_strips_the_repository():
    assert core("sglang:v0.5.12-cu130") == "v0.5.12-cu130"


def test_changed_flags_reads_added_and_changed_values_not_comments():
    patch = ("@@ -1,4 +1,5 @@\n-    --max-num-seqs 128 \\\n+    --max-num-seqs 256 \\\n+    --enforce-eager 1 \\\n"
             "+# --comment-only 5\n-export VLLM_X=1\n+export VLLM_X=2\n+    --model $MODEL \\\n")
    assert changed_flags(patch) == [("--max-num-seqs", "128", "256"), ("--enforce-eager", None, "1"),
                                    ("VLLM_X", "1", "2")]


def test_ten_thousand_numbers_in_a_description_are_bounded():
    text = " ".join(f"conc {i}-{i + 1}" for i in range(10_000))
    heads = {
        "k": {"scenarios": {"fixed-seq-len": [{"isl": 1, "osl": 1, "search-space": [{"tp": 8, "conc-list": [1]}]}]}}
    }
    # Bounded by what is read (the item's first 4,000 characters); wall time: benchmarks/bounded_inputs.py.
    out = search_space_findings(Item("p", 1, text[:4000], None), heads)
    assert isinstance(out, list) and len(out) <= 4000
