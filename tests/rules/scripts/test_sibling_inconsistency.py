"""RR412: a flag or variable nearly every sibling sets."""
from rules import run
from rules.scripts.checks import sibling_inconsistency as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

# Four FP8 Blackwell siblings of the new script's family.
SIBS = {script_path(f"{m}_fp8_{g}.sh"): sglang_script(env="export SGLANG_X=1")
        for m, g in (("glm5", "b300"), ("glm5", "gb200"), ("glm5", "gb300"), ("glm5.1", "b300"))}
NEW = script_path("glm5.1_fp8_b200.sh")


def test_added_script_lacking_kv_cache_dtype():
    r = run(repo({NEW: sglang_script(kv="", env="export SGLANG_X=1")}, extra=SIBS), rules=[rule])
    (f,) = r.findings
    assert (f.line, f.end_line, f.blocking) == (5, 6, False)
    assert f.message == "script lacks what nearly all of its 4 siblings set: flag `--kv-cache-dtype` (4/4)"
    assert f.evidence[0] == "siblings: glm5 sglang scripts on blackwell"


def test_modified_scripts_are_not_compared():
    # an edit that removes a flag is deliberate (the sampled reverts and rewrites all were)
    old = sglang_script(env="export SGLANG_X=1")
    new = sglang_script(kv="", env="export SGLANG_X=1")
    assert run(repo({NEW: ("modified", new, old)}, extra=SIBS), rules=[rule]).findings == []


def test_variables_first_and_too_few_siblings():
    (f,) = run(repo({NEW: sglang_script(kv="")}, extra=SIBS), rules=[rule]).findings
    assert f.message == ("script lacks what nearly all of its 4 siblings set: variable `SGLANG_X` (4/4), "
                         "flag `--kv-cache-dtype` (4/4)")
    few = dict(list(SIBS.items())[:3])
    assert run(repo({NEW: sglang_script(kv="")}, extra=few), rules=[rule]).findings == []


def test_prefix_cache_flags_compare_within_the_scenario():
    sibs = {k: sglang_script(extra_flags="--disable-radix-cache") for k in SIBS}
    agentic = script_path("glm5.2_fp8_b200.sh", "agentic")
    assert run(repo({agentic: sglang_script()}, extra=sibs), rules=[rule]).findings == []


def test_siblings_on_the_same_vendor_come_first():
    # Four ROCm siblings set a ROCm-only variable that four CUDA siblings do not: a new ROCm script
    # without it is compared with the ROCm ones (4/4), a new CUDA script with the CUDA ones.
    rocm = {script_path(f"{m}_fp8_mi355x.sh"): sglang_script(env="export SGLANG_ROCM_X=1")
            for m in ("glm5", "glm5.1", "glm5.2", "glm5.3")}
    both = {**SIBS, **rocm}
    (f,) = run(repo({script_path("glm5.4_fp8_mi355x.sh"): sglang_script()}, extra=both), rules=[rule]).findings
    assert "variable `SGLANG_ROCM_X` (4/4)" in f.message and f.evidence[0] == "siblings: glm5 sglang scripts on cdna4"
    assert run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=both), rules=[rule]).findings == []


def test_a_modified_command_is_not_compared():
    # the PR edits the engine command; what it lacked before stays out of the review
    old = sglang_script(kv="", env="export SGLANG_X=1")
    new = old.replace("--tp \"$TP\"", "--tp \"$TP\" --max-running-requests \"$CONC\"")
    assert new != old
    assert run(repo({NEW: ("modified", new, old)}, extra=SIBS), rules=[rule]).findings == []


def test_sizing_flags_are_listed_before_other_flags():
    sibs = {k: sglang_script(extra_flags="--cuda-graph-max-bs 64 --aaa-tuning 1", env="export SGLANG_X=1")
            for k in SIBS}
    (f,) = run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=sibs), rules=[rule]).findings
    assert f.message.index("--cuda-graph-max-bs") < f.message.index("--aaa-tuning")


def test_archived_scripts_are_not_siblings():
    archived = {p.replace("fixed_seq_len/", "fixed_seq_len/deprecated/"): t for p, t in SIBS.items()}
    assert run(repo({NEW: sglang_script(kv="", env="export SGLANG_X=1")}, extra=archived), rules=[rule]).findings == []
    moved = NEW.replace("fixed_seq_len/", "fixed_seq_len/deprecated/")
    assert run(repo({moved: sglang_script(kv="", env="export SGLANG_X=1")}, extra=SIBS), rules=[rule]).findings == []


def test_a_renamed_or_short_spelling_is_the_same_flag():
    # The siblings write `--tp`, `--nsa-decode-backend`, `--cuda-graph-max-bs`; the new script the
    # spellings SGLang's parser stores in the same place (server_args.py aliases).
    extra = "--nsa-decode-backend fa3 --cuda-graph-max-bs 64"
    sibs = {k: sglang_script(extra_flags=extra, env="export SGLANG_X=1") for k in SIBS}
    new = sglang_script(extra_flags="--dsa-decode-backend fa3 --cuda-graph-max-bs-decode 64",
                        env="export SGL_X=1").replace('--tp "$TP"', '--tensor-parallel-size "$TP"')
    assert run(repo({NEW: new}, extra=sibs), rules=[rule]).findings == []
    # control: without any spelling of it the flag is missing, named as the siblings write it
    (f,) = run(repo({NEW: new.replace('--tensor-parallel-size "$TP"', "")}, extra=sibs), rules=[rule]).findings
    assert f.message == "script lacks what nearly all of its 4 siblings set: flag `--tp` (4/4)"


def test_vllm_short_spellings():
    def vllm(tp: str) -> str:
        return ('#!/usr/bin/env bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\n'
                f'vllm serve "$MODEL" {tp} --max-num-seqs 8 --block-size 64 > s.log 2>&1 &\n')
    sibs = {script_path(f"qwen3_{p}_{g}.sh"): vllm('--tensor-parallel-size "$TP"')
            for p, g in (("fp8", "gb200"), ("fp8", "b300"), ("fp8", "gb300"), ("fp4", "b300"))}
    new = script_path("qwen3_fp8_b200.sh")
    assert run(repo({new: vllm('-tp "$TP"')}, extra=sibs), rules=[rule]).findings == []
    (f,) = run(repo({new: vllm("")}, extra=sibs), rules=[rule]).findings
    assert "flag `--tensor-parallel-size` (4/4)" in f.message


def test_only_siblings_of_the_same_gpu_generation_and_family():
    # Hopper siblings of a Blackwell script (Marlin kernels, other attention backends) are not compared…
    hopper = {script_path(f"{m}_fp8_{g}.sh"): sglang_script(extra_flags="--hopper-only 1", env="export SGLANG_X=1")
              for m, g in (("glm5", "h200"), ("glm5", "h100"), ("glm5.1", "h200"), ("glm5.1", "h100"))}
    assert run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=hopper), rules=[rule]).findings == []
    # …nor other models of the engine in the directory (dsr1's attention backend is not glm5's)
    others = {script_path(f"dsr1_fp8_{g}.sh"): sglang_script(extra_flags="--attention-backend trtllm_mla",
                                                              env="export SGLANG_X=1")
              for g in ("b200", "b300", "gb200", "gb300")}
    assert run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=others), rules=[rule]).findings == []


def test_precision_flags_compare_within_the_precision():
    bf16 = script_path("glm5.1_bf16_b200.sh")
    assert run(repo({bf16: sglang_script(kv="", env="export SGLANG_X=1")}, extra=SIBS), rules=[rule]).findings == []


def test_flags_that_do_not_change_what_is_measured_are_left_alone():
    sibs = {k: sglang_script(extra_flags="--trust-remote-code --disable-log-requests --tool-call-parser glm45",
                             env="export SGLANG_X=1") for k in SIBS}
    assert run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=sibs), rules=[rule]).findings == []


def test_a_script_that_differs_in_many_things_is_another_recipe():
    sibs = {k: sglang_script(extra_flags="--a-x 1 --b-x 2 --c-x 3 --d-x 4", env="export SGLANG_X=1") for k in SIBS}
    r = run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=sibs), rules=[rule])
    assert r.findings == [] and any(c.status == "skipped" and "a different recipe" in c.detail for c in r.checks)


def test_what_siblings_set_only_under_a_condition_or_only_in_their_shell_is_not_theirs_always():
    # a flag a sibling passes on one branch depends on the point; a variable it never exports
    # (`CUDA_GRAPH_MAX_BATCH_SIZE=$CONC` feeding a flag) is a shell variable, not the engine's
    branch = 'if [ "$CONC" -gt 64 ]; then\n  MOE="--mega-moe 1"\nfi\nCUDA_X_LOCAL=$CONC'
    sibs = {k: sglang_script(env="export SGLANG_X=1\n" + branch, extra_flags="$MOE") for k in SIBS}
    assert run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=sibs), rules=[rule]).findings == []
    # control: set on every path and exported, they count
    always = {
        k: sglang_script(env="export SGLANG_X=1\nexport CUDA_X_LOCAL=1", extra_flags="--mega-moe 1") for k in SIBS
    }
    (f,) = run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=always), rules=[rule]).findings
    assert f.message == ("script lacks what nearly all of its 4 siblings set: variable `CUDA_X_LOCAL` (4/4), "
                         "flag `--mega-moe` (4/4)")


def test_siblings_of_another_scenario_are_not_compared():
    agentic = {k.replace("fixed_seq_len", "agentic"): v for k, v in SIBS.items()}
    assert run(repo({NEW: sglang_script(kv="", env="export SGLANG_X=1")}, extra=agentic), rules=[rule]).findings == []
