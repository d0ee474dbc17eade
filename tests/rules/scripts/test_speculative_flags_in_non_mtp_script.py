"""RR410: speculative flags reaching a point without spec-decoding."""
from rules import run
from rules.scripts.checks import speculative_flags_in_non_mtp_script as rule
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"
P = script_path("dsv4_fp4_b200.sh")


def test_resolved_non_mtp_point_with_eagle_flags():
    cs = repo({P: sglang_script(mtp=True)}, extra={CFG: master(key("dsv4-fp4-b200-sglang", model="dsv4", precision="fp4"))})
    (f,) = run(cs, rules=[rule]).findings
    assert (f.path, f.line, f.blocking) == (P, 6, True)
    assert f.message == "`--speculative-algorithm` is passed to key `dsv4-fp4-b200-sglang`, which asks for no speculative decoding"


def test_flags_under_a_spec_decoding_branch_are_not_passed():
    text = sglang_script(env='SPEC=""\nif [[ "$SPEC_DECODING" == "mtp" ]]; then SPEC="--speculative-algorithm EAGLE"; fi',
                         extra_flags="$SPEC")
    cs = repo({P: text}, extra={CFG: master(key("dsv4-fp4-b200-sglang", model="dsv4", precision="fp4"))})
    r = run(cs, rules=[rule])
    assert r.findings == [] and any(c.status == "passed" and "no speculative flags" in c.detail for c in r.checks)


def test_mtp_points_may_pass_them():
    cs = repo({script_path("dsv4_fp4_b200_mtp.sh"): sglang_script(mtp=True)},
              extra={CFG: master(key("dsv4-fp4-b200-sglang-mtp", model="dsv4", precision="fp4", spec="mtp"))})
    assert run(cs, rules=[rule]).findings == []


def test_non_mtp_name_no_point_reaches_is_read_as_written():
    (f,) = run(repo({P: sglang_script(mtp=True)}), rules=[rule]).findings
    assert f.message == "non-MTP script `dsv4_fp4_b200.sh` passes `--speculative-algorithm`"
