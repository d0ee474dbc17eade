"""RR421: a comment that states a flag value the PR's edited command no longer passes."""
from rules import run
from rules.scripts.checks import comment_contradicts_flag as rule
from tests.rules.scripts_helpers import key, master, repo, script_path

P = script_path("glm5_fp8_b200.sh")
CFG = "configs/nvidia-master.yaml"
CONFIG = master(key("glm5-fp8-b200-sglang", concs="[4, 32]"))

OLD = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
# max-running-requests=4 keeps the running batch small
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port "$PORT" \\
    --max-running-requests 4 > server.log 2>&1 &
wait_for_server_ready
"""


def _run(new: str, old: str = OLD):
    return run(repo({P: ("modified", new, old), CFG: CONFIG}), rules=[rule]).findings


def test_a_flag_the_pr_changes_away_from_its_comment_is_a_nit_on_the_edited_line():
    new = OLD.replace("    --max-running-requests 4 >", "    --max-running-requests $CONC >")
    (f,) = _run(new)
    assert f.blocking is False and f.line == 5
    assert f.message == ("`--max-running-requests` is 32 here for `glm5-fp8-b200-sglang` at conc 32, but the comment "
                         "at line 3 still says `max-running-requests` 4")


def test_a_value_from_an_edited_assignment_is_reported_there():
    new = OLD.replace("batch small\n", "batch small\nMRR=$(( CONC < 4 ? 4 : CONC ))\n").replace(
        "--max-running-requests 4 >", "--max-running-requests $MRR >")
    (f,) = _run(new)
    assert new.split("\n")[f.line - 1].startswith("MRR=")


def test_agreeing_history_or_edited_comments_pass():
    same = OLD.replace("    --max-running-requests 4 >", "    --max-running-requests 4 --stream-interval 5 >")
    assert _run(same) == []  # the value still agrees
    history = OLD.replace("# max-running-requests=4 keeps", "# max-running-requests=4 was the old cap; it keeps")
    assert _run(history.replace("running-requests 4 >", "running-requests $CONC >"), old=history) == []
    both = OLD.replace("=4 keeps", "=CONC keeps").replace("running-requests 4 >", "running-requests $CONC >")
    assert _run(both) == []  # the comment is edited with the flag
