import pytest

from rules.serving.checks import ep_mismatch as rule
from tests.rules.recipe_helpers import MN_PATH, NV_MASTER, mc_row, review, srt

RECIPE_REF = "sglang/model/8k1k/disagg-1p1d.yaml"


def recipe(engine, decode):
    pre = {"sglang": {"tp-size": 4}, "vllm": {"tensor-parallel-size": 4}, "trtllm": {"tensor_parallel_size": 4}}[engine]
    return srt(engine, {"prefill": pre, "decode": decode}, None, {"type": "sa-bench", "concurrencies": "64"})


@pytest.mark.parametrize(
    "engine,decode,ep,expect",
    [
        # #1978 as a recipe: labelled tp 2 / ep 4, launched TP1 DP2 with expert parallelism: EP 2.
        (
            "vllm",
            {"tensor-parallel-size": 1, "data-parallel-size": 2, "enable-expert-parallel": True},
            4,
            "expert parallelism 2",
        ),
        ("vllm", {"tensor-parallel-size": 1, "data-parallel-size": 8, "enable-expert-parallel": True}, 8, None),
        ("vllm", {"tensor-parallel-size": 8}, 8, "expert parallelism 1 (no `enable-expert-parallel`)"),
        ("sglang", {"tp-size": 8, "ep-size": 8}, 8, None),
        ("sglang", {"tp-size": 8}, 8, "no `expert-parallel-size`"),
        ("trtllm", {"tensor_parallel_size": 16, "moe_expert_parallel_size": 16}, 16, None),
        ("trtllm", {"tensor_parallel_size": 16, "moe_expert_parallel_size": 8}, 16, "`moe_expert_parallel_size` 8"),
    ],
    ids=[
        "vLLM DP2 with EP is EP 2, labelled 4",
        "vLLM DEP8",
        "vLLM TP8 without EP",
        "SGLang ep-size 8",
        "SGLang no ep-size",
        "TRT EP16",
        "TRT EP8 labelled 16",
    ],
)
def test_ep(engine, decode, ep, expect):
    ctx = {NV_MASTER: mc_row("k", RECIPE_REF, decode={"num-worker": 1, "tp": 8, "ep": ep, "dp-attn": False})}
    r = review(recipe(engine, decode), [rule], path=MN_PATH, context=ctx)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR216"] and expect in r.findings[0].message, r.findings


def test_placeholder_parallelism_is_skipped():
    ctx = {NV_MASTER: mc_row("k", RECIPE_REF, decode={"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": False})}
    r = review(recipe("sglang", {"tp-size": "${TP}", "ep-size": 8}), [rule], path=MN_PATH, context=ctx)
    assert r.findings == [] and any("${TP}" in c.detail for c in r.checks if c.status == "skipped")


# --- Precision (issue 21) -----------------------------------------------------------------------

from rules.runner import run  # noqa: E402
from tests.rules.scripts_helpers import key, master, repo, script_path  # noqa: E402

SCRIPT = script_path("glm5_fp8_b200_vllm.sh")
VLLM = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC ISL OSL
vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" \\
    --max-num-seqs 256 > server.log 2>&1 &
wait_for_server_ready
"""
CFG = "configs/nvidia-master.yaml"
EP4 = master(key("glm5-fp8-b200-vllm", framework="vllm").replace("      - tp: 8", "      - tp: 8\n        ep: 4"))


def test_a_command_edit_that_keeps_the_ep_is_already_in_the_base():
    # #1179, #1539: the PR edits the command, the label and the EP stay what the base ran
    head = VLLM.replace("--max-num-seqs 256", "--max-num-seqs 256 --no-enable-prefix-caching")
    r = run(repo({SCRIPT: ("modified", head, VLLM)}, extra={CFG: EP4}), rules=[rule])
    assert r.findings == [] and [f.code for f in r.in_base] == ["RR216"], (r.findings, r.in_base)


def test_an_edit_that_changes_the_ep_is_the_prs():
    # control: the PR removes expert parallelism from a command that had it
    base = VLLM.replace('--tensor-parallel-size "$TP"', '--tensor-parallel-size "$TP" --enable-expert-parallel')
    ep8 = EP4.replace("ep: 4", "ep: 8")
    r = run(repo({SCRIPT: ("modified", VLLM, base)}, extra={CFG: ep8}), rules=[rule])
    assert [f.code for f in r.findings] == ["RR216"] and "runs expert parallelism 1" in r.findings[0].message


def test_an_unresolved_word_may_be_the_expert_parallel_flag():
    opaque = VLLM.replace("check_env_vars MODEL TP CONC ISL OSL\n",
                          "check_env_vars MODEL TP CONC ISL OSL\nEP=$(python3 pick_ep.py)\n").replace(
        '--tensor-parallel-size "$TP"', '--tensor-parallel-size "$TP" $EP')
    r = run(repo({SCRIPT: opaque, CFG: EP4}), rules=[rule])
    assert r.findings == []
    assert any("`$EP` is not resolved and may be any flag" in c.detail for c in r.checks if c.status == "skipped")
