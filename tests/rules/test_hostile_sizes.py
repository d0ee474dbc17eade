"""Oversized and generated inputs stay bounded: a clear Skipped or finding, not minutes of work."""
from rules import ChangeSet, FileChange, run
from rules.context import ReviewContext
from rules.master.analysis import WHOLE_FILE_KEYS, master_keys
from rules.scripts.checks import expert_parallel_unconditional, mtp_script_missing_chat_template
from rules.scripts.parse import MAX_SCRIPT_BYTES


def test_oversized_script_is_skipped_with_its_size():
    body = b"#!/bin/bash\nrun_benchmark_serving --model x\n" + b"# filler\n" * (MAX_SCRIPT_BYTES // 9 + 1)
    cs = ChangeSet(files=(FileChange("benchmarks/single_node/x_mtp.sh", "added", head=body,
                                     patch="@@ -0,0 +1,2 @@\n+#!/bin/bash\n+run_benchmark_serving --model x"),))
    r = run(cs, rules=[mtp_script_missing_chat_template, expert_parallel_unconditional])
    assert r.findings == []
    assert any(c.status == "skipped" and "not parsed" in c.detail for c in r.checks)


def test_generated_master_config_with_thousands_of_keys_is_read_in_one_load():
    n = WHOLE_FILE_KEYS + 500
    raw = "".join(f"k{i}-fp4-b200-vllm:\n  image: vllm/vllm-openai:v{i}\n  model-prefix: k{i}\n" for i in range(n))
    ctx = ReviewContext(ChangeSet(files=(FileChange("configs/nvidia-master.yaml", "added", head=raw.encode()),)))
    keys = master_keys(ctx)
    assert len(keys) == n and keys[f"k{n - 1}-fp4-b200-vllm"].value["image"] == f"vllm/vllm-openai:v{n - 1}"
