"""RR422: speculative flags added to a plain-named script that no point reaches (read from the name)."""
from rules import run
from rules.scripts.checks import speculative_flags_in_plain_named_script as rule
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"
P = script_path("dsv4_fp4_b200.sh")


def test_plain_named_script_no_point_reaches():
    (f,) = run(repo({P: sglang_script(mtp=True)}), rules=[rule]).findings
    assert (f.line, f.blocking) == (6, False)
    assert f.message == "non-MTP script `dsv4_fp4_b200.sh` passes `--speculative-algorithm`"


def test_speculative_names_and_guards_are_left_alone():
    assert run(repo({script_path("dsv4_fp4_b200_mtp.sh"): sglang_script(mtp=True)}), rules=[rule]).findings == []
    assert run(repo({script_path("dsv4_fp4_b200_eagle3.sh"): sglang_script(mtp=True)}), rules=[rule]).findings == []
    guarded = sglang_script(env='if [[ "$SPEC_DECODING" == "mtp" ]]; then\n  SPEC="--speculative-algorithm EAGLE"\nfi')
    assert run(repo({P: guarded}), rules=[rule]).findings == []


def test_speedbench_collectors_measure_acceptance_on_purpose():
    sb = "benchmarks/single_node/speedbench/dsv4_fp4_b300_vllm.sh"
    assert run(repo({sb: sglang_script(mtp=True)}), rules=[rule]).findings == []


def test_a_point_that_reaches_the_script_decides_instead():
    # An MTP key that the launcher routes to the plain-named script is an MTP point (RR410 judges it).
    amd = script_path("dsv4_fp4_mi355x.sh")
    cfg = {CFG: master(key("dsv4-fp4-mi355x-sglang-mtp", model="dsv4", precision="fp4", runner="mi355x", spec="mtp"))}
    assert run(repo({amd: sglang_script(mtp=True)}, extra=cfg), rules=[rule]).findings == []
    assert len(run(repo({amd: sglang_script(mtp=True)}), rules=[rule]).findings) == 1  # control: no key


def test_a_script_not_named_like_a_point_is_left_alone():
    smoke = script_path("zz_check1_smoke_test.sh", "agentic")
    assert run(repo({smoke: sglang_script(mtp=True)}), rules=[rule]).findings == []
