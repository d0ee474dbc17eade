"""RR405: a value-taking flag followed by nothing, an empty value or another flag, per point."""
from rules import run
from rules.scripts.checks import flag_missing_value as rule
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"
P = script_path("glm5_fp8_b200.sh")


def _cs(script: str):
    return repo({P: script}, extra={CFG: master(key("glm5-fp8-b200-sglang"))})


def test_dropped_value_in_a_branch_the_point_takes():
    text = sglang_script(env='EVAL_ARGS=""\nif [ "${EVAL_ONLY}" = "true" ]; then EVAL_ARGS="--context-length 4096"\n'
                             'else EVAL_ARGS="--context-length"; fi', extra_flags="$EVAL_ARGS")
    (f,) = run(_cs(text), rules=[rule]).findings
    assert f.blocking and f.line == 6  # the `else` assignment the point takes
    assert f.message == "`--context-length` ends the command line (key `glm5-fp8-b200-sglang`, conc 4–8)"


def test_flag_followed_by_flag_and_empty_value():
    text = sglang_script(extra_flags='--max-running-requests --stream-interval 10 --chunked-prefill-size "$NOPE"')
    msgs = sorted(f.message for f in run(_cs(text), rules=[rule]).findings)
    assert msgs == ["`--chunked-prefill-size` is given an empty value (key `glm5-fp8-b200-sglang`, conc 4–8)",
                    "`--max-running-requests` is followed by `--stream-interval` instead of a value "
                    "(key `glm5-fp8-b200-sglang`, conc 4–8)"]


def test_boolean_flags_and_values_pass():
    text = sglang_script(extra_flags="--enable-dp-attention --trust-remote-code --cuda-graph-max-bs 256")
    r = run(_cs(text), rules=[rule])
    assert r.findings == [] and any(c.status == "passed" for c in r.checks)


def test_unchanged_lines_are_not_reported():
    text = sglang_script(extra_flags="--max-running-requests")
    cs = repo({P: ("modified", text + "echo done\n", text)}, extra={CFG: master(key("glm5-fp8-b200-sglang"))})
    assert run(cs, rules=[rule]).findings == []


def test_comments_and_expansions_teach_no_value_flags():
    text = sglang_script(env="# pass --dsv4 to the client\nX=(--trust-remote-code $EXTRA)",
                         extra_flags="--dsv4 --trust-remote-code")
    assert run(_cs(text), rules=[rule]).findings == []


def test_an_input_a_changed_launcher_never_sets_is_blamed_on_that_launcher():
    from tests.rules.scripts_helpers import LAUNCHER
    text = sglang_script(extra_flags='--num-prompts "$NUM_PROMPTS"')
    launcher = LAUNCHER.replace("srun --partition=main", "srun --partition=main2")
    cs = repo({P: text, "runners/launch_b200-nb.sh": ("modified", launcher, LAUNCHER)},
              extra={CFG: master(key("glm5-fp8-b200-sglang"))})
    (f,) = run(cs, rules=[rule]).findings
    assert f.path == "runners/launch_b200-nb.sh" and launcher.split("\n")[f.line - 1].startswith("srun ")
    assert f.message.startswith(
        "`runners/launch_b200-nb.sh` runs `benchmarks/single_node/fixed_seq_len/glm5_fp8_b200.sh` "
        "without setting `NUM_PROMPTS`, so `--num-prompts` at "
    )
    # the launcher untouched by the PR: the script's line, as before
    (g,) = run(_cs(text), rules=[rule]).findings
    assert g.path == P and g.message.startswith("`--num-prompts` is given an empty value")
