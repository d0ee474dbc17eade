import pytest

from rules.runner import run
from rules.serving.checks import trt_capture_exceeds_max_batch as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt
from tests.rules.scripts_helpers import key, master, repo, script_path


@pytest.mark.parametrize(
    "args,expect",
    [
        (
            {"max_batch_size": 1, "cuda_graph_config": {"batch_sizes": [1, 2, 4]}},
            "TensorRT-LLM drops sizes 2, 4 (dead config)",
        ),
        ({"max_batch_size": 4, "cuda_graph_config": {"batch_sizes": [1, 2, 4]}}, None),
        ({"max_batch_size": 2, "cuda_graph_config": {"max_batch_size": 4}}, "TensorRT-LLM drops size 4 (dead config)"),
        (
            {
                "max_batch_size": 64,
                "max_num_tokens": 128,
                "speculative_config": {"decoding_type": "MTP", "num_nextn_predict_layers": 3},
                "cuda_graph_config": {"batch_sizes": [1, 32, 64]},
            },
            "`max_num_tokens` 128 / (1 + 3 draft tokens) = 32",
        ),
        ({"max_batch_size": 1, "cuda_graph_config": None}, None),
        ({"cuda_graph_config": {"batch_sizes": [1, 2, 4]}}, None),  # default max_batch_size: not an explicit conflict
    ],
    ids=[
        "#2596 list above max_batch_size 1",
        "list ends at the cap",
        "cuda-graph max above the cap",
        "token budget limits graphs under MTP",
        "graphs off",
        "no explicit max_batch_size",
    ],
)
def test_trt(args, expect):
    text = srt(
        "trtllm", {"decode": {"tensor_parallel_size": 8, **args}}, None, {"type": "sa-bench", "concurrencies": "4"}
    )
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR214"] and expect in r.findings[0].message, r.findings


def test_edit_of_max_batch_size_is_reported_on_it():
    base = srt(
        "trtllm",
        {"decode": {"tensor_parallel_size": 8, "max_batch_size": 4, "cuda_graph_config": {"batch_sizes": [1, 2, 4]}}},
    )
    head = base.replace("max_batch_size: 4", "max_batch_size: 1")
    r = review(head, [rule], path=MN_PATH, base=base)
    assert codes(r) == [("RR214", line_of(head, "max_batch_size: 1"))]


# --- Precision (issue 21) -----------------------------------------------------------------------
# TensorRT-LLM filters the graph sizes per point: one list serves every point that reads it, and
# a size is dead config only when no such point can run it.

TRT_SCRIPT = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC ISL OSL
cat > extra.yml << EOF
cuda_graph_config:
    enable_padding: true
    batch_sizes: [1, 2, 4, 8, 16, 32]
EOF
trtllm-serve "$MODEL" --port "$PORT" --tp_size "$TP" --max_batch_size "$CONC" --extra_llm_api_options extra.yml > server.log 2>&1 &
wait_for_server_ready
run_benchmark_serving --model "$MODEL" --port "$PORT" --input-len "$ISL" --output-len "$OSL" \\
    --max-concurrency "$CONC" --num-prompts $((CONC * 10))
"""  # noqa: E501 (a script line that must stay one command)


def _script_review(concs: str):
    p = script_path("glm5_fp8_b200_trt.sh")
    cfg = master(key("glm5-fp8-b200-trt", framework="trt", concs=concs))
    return p, run(repo({p: TRT_SCRIPT, "configs/nvidia-master.yaml": cfg}), rules=[rule])


def test_a_shared_list_whose_large_sizes_run_at_the_large_points_is_not_dead():
    # #1712/#1722/#1894: one list over every point, --max_batch_size $CONC; CONC 4 drops 8-32, CONC 32 runs them.
    _, r = _script_review("[4, 32]")
    assert r.findings == [], r.findings
    assert any(c.code == "RR214" and c.status == "passed" for c in r.checks)


def test_sizes_above_every_points_limit_are_dead_config():
    # control: the largest point runs 8, so 16 and 32 are captured by no point
    p, r = _script_review("[4, 8]")
    assert [(f.code, f.path) for f in r.findings] == [("RR214", p)]
    msg = r.findings[0].message
    assert "drops sizes 16, 32 at every point (dead config)" in msg and "`max_batch_size` 8" in msg, msg


def test_a_fixed_point_recipe_keeps_its_message():
    text = srt("trtllm", {"decode": {"tensor_parallel_size": 8, "max_batch_size": 1,
                                     "cuda_graph_config": {"batch_sizes": [1, 2, 4]}}}, None,
               {"type": "sa-bench", "concurrencies": "4"})
    r = review(text, [rule], path=MN_PATH)
    assert [f.message.split(": ", 1)[1] for f in r.findings] == [
        "cuda_graph_config.batch_sizes goes up to `4`, above `max_batch_size` 1: TensorRT-LLM drops sizes 2, 4 "
        "(dead config)."
    ]


def test_a_point_whose_list_is_not_known_may_run_the_sizes_the_others_drop():
    # #1712/#1722: [1, 2, 4, 8, 12] extended by `$(seq 16 8 $CONC)` at CONC >= 16; the review cannot
    # run seq, so the large points' lists are unknown and 12 is not proven dead.
    seq = TRT_SCRIPT.replace(
        "cat > extra.yml << EOF",
        "SIZES=(1 2 4 8 12)\nif [[ $CONC -ge 16 ]]; then\n    SIZES+=( $(seq 16 8 $CONC) )\nfi\n"
        "SIZES=$(printf \"%s, \" \"${SIZES[@]}\")\ncat > extra.yml << EOF").replace(
        "batch_sizes: [1, 2, 4, 8, 16, 32]", "batch_sizes: [${SIZES%, }]")
    p = script_path("glm5_fp8_b200_trt.sh")
    small = run(
        repo({p: seq, "configs/nvidia-master.yaml": master(key("glm5-fp8-b200-trt", framework="trt", concs="[4, 8]"))}),
        rules=[rule],
    )
    assert [f.code for f in small.findings] == ["RR214"] and "drops size 12" in small.findings[0].message
    mixed = run(
        repo(
            {
                p: seq,
                "configs/nvidia-master.yaml": master(key("glm5-fp8-b200-trt", framework="trt", concs="[4, 8, 64]")),
            }
        ),
        rules=[rule],
    )
    assert mixed.findings == [], mixed.findings
