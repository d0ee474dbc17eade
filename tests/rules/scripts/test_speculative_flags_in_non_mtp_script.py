"""RR410: speculative flags reaching a point without spec-decoding."""
from rules import run
from rules.scripts.checks import speculative_flags_in_non_mtp_script as rule
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"
P = script_path("dsv4_fp4_b200.sh")


def test_resolved_non_mtp_point_with_eagle_flags():
    cs = repo(
        {P: sglang_script(mtp=True)}, extra={CFG: master(key("dsv4-fp4-b200-sglang", model="dsv4", precision="fp4"))}
    )
    (f,) = run(cs, rules=[rule]).findings
    assert (f.path, f.line, f.blocking) == (P, 6, True)
    assert (
        f.message
        == "`--speculative-algorithm` is passed to key `dsv4-fp4-b200-sglang`, which asks for no speculative decoding"
    )


def test_flags_under_a_spec_decoding_branch_are_not_passed():
    text = sglang_script(
        env='SPEC=""\nif [[ "$SPEC_DECODING" == "mtp" ]]; then SPEC="--speculative-algorithm EAGLE"; fi',
        extra_flags="$SPEC",
    )
    cs = repo({P: text}, extra={CFG: master(key("dsv4-fp4-b200-sglang", model="dsv4", precision="fp4"))})
    r = run(cs, rules=[rule])
    assert r.findings == [] and any(c.status == "passed" and "no speculative flags" in c.detail for c in r.checks)


def test_mtp_points_may_pass_them():
    cs = repo({script_path("dsv4_fp4_b200_mtp.sh"): sglang_script(mtp=True)},
              extra={CFG: master(key("dsv4-fp4-b200-sglang-mtp", model="dsv4", precision="fp4", spec="mtp"))})
    assert run(cs, rules=[rule]).findings == []


def test_a_script_no_point_reaches_is_not_judged_here():
    # read from the file name only: speculative-flags-in-plain-named-script (a nit) reports it
    assert run(repo({P: sglang_script(mtp=True)}), rules=[rule]).findings == []


def test_mtp_routing_follows_the_launcher_not_the_file_name():
    # The AMD launcher adds no `_mtp` suffix: an MTP key runs the plain-named script.
    amd = script_path("dsv4_fp4_mi355x.sh")
    mtp_key = master(key("dsv4-fp4-mi355x-sglang-mtp", model="dsv4", precision="fp4", runner="mi355x", spec="mtp"))
    assert run(repo({amd: sglang_script(mtp=True)}, extra={CFG: mtp_key}), rules=[rule]).findings == []
    # control: a plain key reaching the same script
    plain_key = master(key("dsv4-fp4-mi355x-sglang", model="dsv4", precision="fp4", runner="mi355x"))
    (f,) = run(repo({amd: sglang_script(mtp=True)}, extra={CFG: plain_key}), rules=[rule]).findings
    assert f.message == ("`--speculative-algorithm` is passed to key `dsv4-fp4-mi355x-sglang`, which asks for no "
                         "speculative decoding")
    # and a plain key that a launcher routes to an `_mtp.sh` script is still a plain point
    always_mtp = ('#!/usr/bin/bash\nbash benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}'
                  '_mi355x_mtp.sh\n')
    mtp_named = script_path("dsv4_fp4_mi355x_mtp.sh")
    cs = repo({mtp_named: sglang_script(mtp=True)}, extra={CFG: plain_key, "runners/launch_mi355x-amds.sh": always_mtp})
    (g,) = run(cs, rules=[rule]).findings
    assert g.path == mtp_named and "key `dsv4-fp4-mi355x-sglang`" in g.message


def test_speedbench_collectors_are_not_throughput_scripts():
    sb = "benchmarks/single_node/speedbench/dsv4_fp4_b200_vllm.sh"
    always = '#!/usr/bin/bash\nbash benchmarks/single_node/speedbench/${EXP_NAME%%_*}_${PRECISION}_b200_vllm.sh\n'
    cs = repo({sb: sglang_script(mtp=True)},
              extra={CFG: master(key("dsv4-fp4-b200-sglang", model="dsv4", precision="fp4")),
                     "runners/launch_b200-nb.sh": always, "runners/launch_b200-dgxc-slurm.sh": always})
    assert run(cs, rules=[rule]).findings == []
