import pytest

from rules.serving.checks import dp_attention_not_passed as rule
from tests.rules.recipe_helpers import MN_PATH, NV_MASTER, codes, line_of, mc_row, review, srt

RECIPE_REF = "sglang/model/8k1k/disagg-1p1d.yaml"
DEC_DPA = {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True}


def recipe(engine="sglang", decode=None):
    pre = {"sglang": {"tp-size": 4}, "vllm": {"tensor-parallel-size": 4}, "trtllm": {"tensor_parallel_size": 4}}[engine]
    return srt(engine, {"prefill": pre, "decode": decode}, None, {"type": "sa-bench", "concurrencies": "64"})


@pytest.mark.parametrize("engine,decode,expect", [
    ("sglang", {"tp-size": 8, "ep-size": 8}, "does not enable DP attention (enable-dp-attention: true; here not set)"),
    ("sglang", {"tp-size": 8, "dp-size": 8, "enable-dp-attention": True}, None),
    ("sglang", {"tp-size": 8, "enable-dp-attention": False}, "here `enable-dp-attention` False"),
    ("trtllm", {"tensor_parallel_size": 8, "enable_attention_dp": True}, None),
    ("trtllm", {"tensor_parallel_size": 8}, "enable_attention_dp: true"),
    ("vllm", {"tensor-parallel-size": 1, "data-parallel-size": 8}, None),
    ("vllm", {"tensor-parallel-size": 8}, "data-parallel-size above 1"),
], ids=["SGLang flag missing", "SGLang enabled", "SGLang set false", "TRT enabled", "TRT missing", "vLLM DP8",
        "vLLM TP8 runs no attention DP"])
def test_label(engine, decode, expect):
    ctx = {NV_MASTER: mc_row("k-sglang", RECIPE_REF, decode=DEC_DPA)}
    r = review(recipe(engine, decode), [rule], path=MN_PATH, context=ctx)
    if expect is None:
        assert r.findings == [] and any(c.status == "passed" for c in r.checks)
    else:
        assert [f.code for f in r.findings] == ["RR215"] and expect in r.findings[0].message, r.findings


def test_false_flag_gets_a_suggestion_on_its_line():
    text = recipe("sglang", {"tp-size": 8, "enable-dp-attention": False})
    r = review(text, [rule], path=MN_PATH, context={NV_MASTER: mc_row("k", RECIPE_REF, decode=DEC_DPA)})
    assert codes(r) == [("RR215", line_of(text, "enable-dp-attention"))]
    assert r.findings[0].suggestion.strip() == "enable-dp-attention: true"


def test_without_a_master_row_nothing_is_compared():
    assert review(recipe("sglang", {"tp-size": 8}), [rule], path=MN_PATH).findings == []


def test_label_false_is_not_this_rule():
    ctx = {NV_MASTER: mc_row("k", RECIPE_REF, decode={"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False})}
    assert review(recipe("sglang", {"tp-size": 8}), [rule], path=MN_PATH, context=ctx).findings == []


# --- Precision (issue 21) -----------------------------------------------------------------------
# Single-node scripts: whose problem it is (a re-indented row, an edit that keeps the gap), and
# what an unresolved word hides.

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


def _cfg(old_layout: bool = False, extra_row: str = "") -> str:
    text = key("glm5-fp8-b200-vllm", framework="vllm").replace("      - tp: 8", "      - tp: 8\n        dp-attn: true")
    text += extra_row
    if old_layout:  # the layout before scenarios: the same rows, two spaces less
        text = text.replace("  scenarios:\n    fixed-seq-len:\n", "  seq-len-configs:\n")
        text = "\n".join(line[2:] if line.startswith("    ") else line for line in text.split("\n"))
    return master(text)


def test_a_command_edit_that_keeps_the_gap_is_already_in_the_base():
    # #1539: the PR edits the serve command (a flag) and leaves the point's DP attention as it was.
    head = VLLM.replace("--max-num-seqs 256", "--max-num-seqs 256 --no-enable-prefix-caching")
    r = run(repo({SCRIPT: ("modified", head, VLLM)}, extra={CFG: _cfg()}), rules=[rule])
    assert r.findings == [] and [f.code for f in r.in_base] == ["RR215"], (r.findings, r.in_base)


def test_a_row_a_layout_migration_reindents_is_not_a_new_entry():
    # #1201, #1214, #1215: seq-len-configs -> scenarios; the row and the script are unchanged
    r = run(repo({CFG: ("modified", _cfg(), _cfg(old_layout=True))}, extra={SCRIPT: VLLM}), rules=[rule])
    assert r.findings == [], r.findings


def test_a_new_row_is_the_prs_and_names_the_script_that_runs_it():
    # control: the PR adds a dp-attn row for 8k1k; the finding goes on it and names the script
    row = ("\n    - isl: 8192\n      osl: 1024\n      search-space:\n"
           "      - tp: 8\n        dp-attn: true\n        conc-list: [4]")
    r = run(repo({CFG: ("modified", _cfg(extra_row=row), _cfg())}, extra={SCRIPT: VLLM}), rules=[rule])
    [f] = r.findings
    assert f.path == CFG and f"the server role (`{SCRIPT}`) does not enable DP attention" in f.message, f.message
    assert any(e.startswith(f"master entry: {CFG}:") for e in f.evidence)


def test_an_unresolved_word_may_be_the_flag():
    # #965: `$EP` from a condition on a variable the launcher does not pass may expand to any flag
    opaque = VLLM.replace("check_env_vars MODEL TP CONC ISL OSL\n",
                          "check_env_vars MODEL TP CONC ISL OSL\nEXTRA=$(python3 pick_args.py)\n").replace(
        '--tensor-parallel-size "$TP"', '--tensor-parallel-size "$TP" $EXTRA')
    r = run(repo({SCRIPT: opaque, CFG: _cfg()}), rules=[rule])
    assert r.findings == []
    assert any("`$EXTRA` is not resolved and may be any flag" in c.detail for c in r.checks if c.status == "skipped")
    # control: without the word, the same new script is flagged
    assert [f.code for f in run(repo({SCRIPT: VLLM, CFG: _cfg()}), rules=[rule]).findings] == ["RR215"]
