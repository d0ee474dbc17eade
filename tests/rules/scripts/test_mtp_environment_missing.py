"""RR411: an MTP script without the speculative-decoding environment its MTP siblings set."""
from rules import run
from rules.scripts.checks import mtp_environment_missing as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

SIBS = {script_path(f"glm5_{p}_b200_mtp.sh"): sglang_script(mtp=True, env="export SGLANG_ENABLE_SPEC_V2=1")
        for p in ("fp4", "bf16")}
NEW = script_path("glm5_fp8_b200_mtp.sh")


def test_missing_when_siblings_set_it():
    (f,) = run(repo({NEW: sglang_script(mtp=True)}, extra=SIBS), rules=[rule]).findings
    assert (f.line, f.blocking) == (5, True)
    assert f.message == "MTP script does not set `SGLANG_ENABLE_SPEC_V2` for sglang; 2 of 2 MTP siblings do"


def test_prefix_or_export_counts():
    for env in ("export SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2=1"):
        assert run(repo({NEW: sglang_script(mtp=True, env=env)}, extra=SIBS), rules=[rule]).findings == [], env


def test_families_that_do_not_use_it_are_left_alone():
    sibs = {script_path(f"glm5_{p}_b200_mtp.sh"): sglang_script(mtp=True) for p in ("fp4", "bf16")}
    assert run(repo({NEW: sglang_script(mtp=True)}, extra=sibs), rules=[rule]).findings == []
    assert run(repo({script_path("glm5_fp8_b200.sh"): sglang_script()}, extra=SIBS), rules=[rule]).findings == []
