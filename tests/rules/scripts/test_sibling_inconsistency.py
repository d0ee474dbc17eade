"""RR412: a flag or variable nearly every sibling sets."""
from rules import run
from rules.scripts.checks import sibling_inconsistency as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

SIBS = {script_path(f"glm5_{p}_{g}.sh"): sglang_script(env="export SGLANG_X=1")
        for p, g in (("fp4", "b200"), ("fp8", "b300"), ("fp4", "b300"), ("fp8", "h200"))}
NEW = script_path("glm5.1_fp8_b200.sh")


def test_added_script_lacking_kv_cache_dtype():
    r = run(repo({NEW: sglang_script(kv="", env="export SGLANG_X=1")}, extra=SIBS), rules=[rule])
    (f,) = r.findings
    assert (f.line, f.end_line, f.blocking) == (5, 6, False)
    assert f.message == "script lacks what nearly all of its 4 siblings set: flag `--kv-cache-dtype` (4/4)"
    assert f.evidence[0] == "siblings: glm5 sglang scripts on nvidia"


def test_modified_script_only_for_what_it_drops():
    old = sglang_script(kv="", env="export SGLANG_X=1")
    new = old + "echo done\n"
    assert run(repo({NEW: ("modified", new, old)}, extra=SIBS), rules=[rule]).findings == []
    old2 = sglang_script(env="export SGLANG_X=1")
    (f,) = run(repo({NEW: ("modified", new, old2)}, extra=SIBS), rules=[rule]).findings
    assert f.message == "script drops what nearly all of its 4 siblings set: flag `--kv-cache-dtype` (4/4)"


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
    rocm = {script_path(f"glm5_{p}_{g}.sh"): sglang_script(env="export SGLANG_ROCM_X=1")
            for p, g in (("fp4", "mi355x"), ("fp8", "mi355x"), ("fp8", "mi300x"), ("fp8", "mi325x"))}
    both = {**SIBS, **rocm}
    (f,) = run(repo({script_path("glm5.1_fp8_mi355x.sh"): sglang_script()}, extra=both), rules=[rule]).findings
    assert "variable `SGLANG_ROCM_X` (4/4)" in f.message and f.evidence[0] == "siblings: glm5 sglang scripts on amd"
    assert run(repo({NEW: sglang_script(env="export SGLANG_X=1")}, extra=both), rules=[rule]).findings == []


def test_a_modified_command_is_not_compared_as_a_whole():
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
            for p, g in (("fp4", "b200"), ("fp8", "b300"), ("fp4", "b300"), ("fp8", "h200"))}
    new = script_path("qwen3_fp8_b200.sh")
    assert run(repo({new: vllm('-tp "$TP"')}, extra=sibs), rules=[rule]).findings == []
    (f,) = run(repo({new: vllm("")}, extra=sibs), rules=[rule]).findings
    assert "flag `--tensor-parallel-size` (4/4)" in f.message
