"""RR302: changed *_mtp.sh scripts must pass --use-chat-template (or --dsv4) to run_benchmark_serving.

The replay data lists .sh files without content, so these fixtures are hand-written.
"""
import pytest

from rules import ChangeSet, FileChange, run
from rules.scripts.checks import mtp_script_missing_chat_template as rule

MTP = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x_mtp.sh"


def script(*call_args: str, before: str = "") -> str:
    args = "".join(f" \\\n    {a}" for a in call_args)
    return f"#!/bin/bash\nsource benchmark_lib.sh\n{before}run_benchmark_serving{args}\n"


CASES = [
    ("missing flag", MTP, script('--model "$MODEL"', "--num-prompts 10"), [3]),
    ("flag present", MTP, script('--model "$MODEL"', "--use-chat-template"), []),
    ("--dsv4 implies the template", MTP, script('--model "$MODEL"', "--dsv4"), []),
    ("flag only in a comment", MTP, script('--model "$MODEL"', before="# --use-chat-template\n"), [4]),
    ("flag only in another command", MTP, script('--model "$MODEL"', before='echo "--use-chat-template"\n'), [4]),
    (
        "flag passed through a variable",
        MTP,
        script('"${BENCH_ARGS[@]}"', before="BENCH_ARGS=(--use-chat-template --num-prompts 10)\n"),
        [],
    ),
    ("variable but no flag anywhere", MTP, script('"${BENCH_ARGS[@]}"', before="BENCH_ARGS=(--num-prompts 10)\n"), [4]),
    (
        "two calls, one missing",
        MTP,
        script("--use-chat-template") + "run_benchmark_serving \\\n    --num-prompts 2\n",
        [5],
    ),
    ("single-line call", MTP, "run_benchmark_serving --model m\n", [1]),
    ("call word inside a longer name", MTP, "my_run_benchmark_serving_v2 --model m\n", []),
    ("function definition is not a call", MTP, "run_benchmark_serving() {\n  echo\n}\n", []),
    (
        "agentic trace replay has no call",
        "benchmarks/single_node/agentic/dsv4_fp4_b200_mtp.sh",
        "python replay.py\n",
        [],
    ),
    ("not an mtp script", "benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x.sh", script("--model m"), []),
    ("deprecated", "benchmarks/single_node/fixed_seq_len/deprecated/x_mtp.sh", script("--model m"), []),
    ("speedbench", "benchmarks/single_node/speedbench/x_mtp.sh", script("--model m"), []),
    ("outside benchmarks", "runners/x_mtp.sh", script("--model m"), []),
]


@pytest.mark.parametrize("name,path,text,lines", CASES, ids=[c[0] for c in CASES])
def test_cases(name, path, text, lines):
    r = run(ChangeSet(files=(FileChange(path, "added", head=text.encode()),)), rules=[rule])
    assert [f.line for f in r.findings] == lines
    assert all(f.code == "RR302" and f.blocking for f in r.findings)


def test_message_and_suggestion():
    text = script('--model "$MODEL"', "--num-prompts 10")
    r = run(ChangeSet(files=(FileChange(MTP, "modified", base=b"", head=text.encode()),)), rules=[rule])
    (f,) = r.findings
    assert f.message == ("`run_benchmark_serving` in MTP script `qwen3.5_fp4_mi355x_mtp.sh` does not pass "
                         "`--use-chat-template`")
    assert (f.line, f.end_line) == (3, 5)
    assert f.suggestion == ("run_benchmark_serving \\\n    --use-chat-template \\\n    --model \"$MODEL\" \\\n"
                            "    --num-prompts 10")


def test_removed_and_missing_content():
    r = run(ChangeSet(files=(FileChange(MTP, "removed", base=b"run_benchmark_serving\n"),
                             FileChange(MTP.replace("qwen", "glm"), "modified", head=None))), rules=[rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
