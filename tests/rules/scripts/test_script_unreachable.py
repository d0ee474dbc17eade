"""RR402: an added script no key reaches while a key meant for it runs another one."""
from rules import run
from rules.scripts.checks import script_unreachable as rule
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/amd-master.yaml"


def test_mtp_script_the_launcher_never_picks():
    # launch_mi355x-amds.sh adds no _mtp suffix: the MTP key runs the plain script.
    new = script_path("dsr1_fp8_mi355x_mtp.sh")
    cs = repo({new: sglang_script(mtp=True)},
              extra={script_path("dsr1_fp8_mi355x.sh"): sglang_script(),
                     CFG: master(key("dsr1-fp8-mi355x-sglang-mtp", model="dsr1", runner="mi355x", spec="mtp"))})
    (f,) = run(cs, rules=[rule]).findings
    assert (f.path, f.line, f.blocking) == (new, 2, False)  # a nit (notes/proof.md)
    assert f.message == ("no key runs `dsr1_fp8_mi355x_mtp.sh`: key `dsr1-fp8-mi355x-sglang-mtp` on runner "
                         "`mi355x-amds_0` runs `dsr1_fp8_mi355x.sh` instead")


def test_reachable_script_passes():
    new = script_path("dsr1_fp8_b200_mtp.sh")
    cs = repo({new: sglang_script(mtp=True)},
              extra={CFG: master(key("dsr1-fp8-b200-sglang-mtp", model="dsr1", runner="b200", spec="mtp"))})
    r = run(cs, rules=[rule])
    assert r.findings == [] and any(c.status == "passed" and new in c.detail for c in r.checks)


def test_no_key_for_the_model_at_all_is_not_a_finding():
    cs = repo({script_path("new_fp8_b200.sh"): sglang_script()})
    assert run(cs, rules=[rule]).findings == []


def test_a_framework_tagged_script_is_meant_only_for_that_framework():
    new = script_path("dsr1_fp8_mi355x_atom.sh")
    cs = repo({new: sglang_script()},
              extra={script_path("dsr1_fp8_mi355x.sh"): sglang_script(),
                     CFG: master(key("dsr1-fp8-mi355x-vllm", model="dsr1", runner="mi355x", framework="vllm"))})
    assert run(cs, rules=[rule]).findings == []


def test_the_key_named_is_one_that_serves_the_scripts_engine():
    """An SGLang script is meant for the sglang key of its model and SKU, not for the vllm one."""
    new = script_path("dsr1_fp8_mi355x_mtp.sh")
    keys = master(key("dsr1-fp8-mi355x-vllm-mtp", model="dsr1", runner="mi355x", framework="vllm", spec="mtp")
                  + "\n" + key("dsr1-fp8-mi355x-sglang-mtp", model="dsr1", runner="mi355x", spec="mtp"))
    cs = repo({new: sglang_script(mtp=True)}, extra={script_path("dsr1_fp8_mi355x.sh"): sglang_script(), CFG: keys})
    (f,) = run(cs, rules=[rule]).findings
    assert "key `dsr1-fp8-mi355x-sglang-mtp`" in f.message
    # control: only a vllm key is meant for it by name, and the script serves SGLang: nothing shows it is lost
    only_vllm = master(key("dsr1-fp8-mi355x-vllm-mtp", model="dsr1", runner="mi355x", framework="vllm", spec="mtp"))
    cs = repo(
        {new: sglang_script(mtp=True)}, extra={script_path("dsr1_fp8_mi355x.sh"): sglang_script(), CFG: only_vllm}
    )
    assert run(cs, rules=[rule]).findings == []
