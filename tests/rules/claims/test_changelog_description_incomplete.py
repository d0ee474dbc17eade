"""RR256 changelog-description-incomplete: image and flag changes the description leaves out (#1991, #2124)."""
from rules.changeset import FileChange
from rules.claims.checks import changelog_description_incomplete as rr256
from tests.rules.claims._desc_helpers import entry, pr, review, row

KEY = "minimaxm3-fp4-b300-vllm"
SCRIPT = "benchmarks/single_node/fixed_seq_len/minimaxm3_fp4_b300.sh"
PATCH = ("@@ -10,3 +10,4 @@\n vllm serve $MODEL \\\n-    --gpu-memory-utilization 0.90 \\\n"
         "+    --gpu-memory-utilization 0.95 \\\n+    --kv-cache-dtype fp8 \\\n")


def _cs(*items, image="vllm/vllm-openai:v0.21.0"):
    script = FileChange(SCRIPT, "modified", base=b"x\n", head=b"y\n", patch=PATCH)
    return pr([row(KEY)], [row(KEY, image=image)], entry([KEY], *items), scripts=(script,))


def test_unmentioned_image_and_flags_are_one_nit():
    [f] = review(_cs("Update vllm image"), rr256).findings
    assert not f.blocking
    assert "the image of `minimaxm3-fp4-b300-vllm` (`vllm/vllm-openai:v0.20.1` → `vllm/vllm-openai:v0.21.0`)" in f.message
    assert "`--gpu-memory-utilization` 0.90 → 0.95" in f.message and "new `--kv-cache-dtype fp8`" in f.message


def test_a_complete_description_passes():
    r = review(_cs("Bump vLLM to v0.21.0", "gpu-memory-utilization 0.90 -> 0.95, kv-cache-dtype fp8"), rr256)
    assert r.findings == [] and r.checks[0].status == "passed"
