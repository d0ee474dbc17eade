"""RR411: an MTP script without the speculative-decoding environment its MTP siblings set."""
from rules import run
from rules.scripts.checks import mtp_environment_missing as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

SIBS = {script_path(f"glm5_{p}_b200_mtp.sh"): sglang_script(mtp=True, env="export SGLANG_ENABLE_SPEC_V2=1")
        for p in ("fp4", "bf16")}
NEW = script_path("glm5_fp8_b200_mtp.sh")


def test_missing_when_siblings_set_it():
    (f,) = run(repo({NEW: sglang_script(mtp=True)}, extra=SIBS), rules=[rule]).findings
    assert (f.line, f.blocking) == (5, False)
    assert f.message == "MTP script does not set `SGLANG_ENABLE_SPEC_V2` for sglang; 2 of 2 MTP siblings set it"


def test_export_or_prefix_counts_a_plain_assignment_does_not():
    assert run(repo({NEW: sglang_script(mtp=True, env="export SGLANG_ENABLE_SPEC_V2=1")}, extra=SIBS),
               rules=[rule]).findings == []
    prefixed = sglang_script(mtp=True).replace("python3 -m sglang", "SGLANG_ENABLE_SPEC_V2=1 python3 -m sglang")
    assert run(repo({NEW: prefixed}, extra=SIBS), rules=[rule]).findings == []
    (f,) = run(repo({NEW: sglang_script(mtp=True, env="SGLANG_ENABLE_SPEC_V2=1")}, extra=SIBS), rules=[rule]).findings
    assert f.message.startswith("MTP script sets `SGLANG_ENABLE_SPEC_V2` without `export`: the sglang process")


def test_resolved_points_decide_from_the_engine_environment():
    from tests.rules.scripts_helpers import key, master
    cfg = {"configs/nvidia-master.yaml": master(key("glm5-fp8-b200-sglang-mtp", spec="mtp"))}
    (f,) = run(repo({NEW: sglang_script(mtp=True, env="SGLANG_ENABLE_SPEC_V2=1")}, extra={**SIBS, **cfg}),
               rules=[rule]).findings
    assert "without `export`" in f.message and "resolved points" in f.evidence[1]
    assert run(repo({NEW: sglang_script(mtp=True, env="set -a\nSGLANG_ENABLE_SPEC_V2=1")},
                    extra={**SIBS, **cfg}), rules=[rule]).findings == []


def test_modified_scripts_only_when_the_pr_drops_it():
    old = sglang_script(mtp=True, env="export SGLANG_ENABLE_SPEC_V2=1")
    (f,) = run(repo({NEW: ("modified", sglang_script(mtp=True), old)}, extra=SIBS), rules=[rule]).findings
    assert f.message.startswith("MTP script drops `SGLANG_ENABLE_SPEC_V2`")
    unexported = sglang_script(mtp=True, env="SGLANG_ENABLE_SPEC_V2=1")
    assert run(repo({NEW: ("modified", unexported + "echo x\n", unexported)}, extra=SIBS), rules=[rule]).findings == []


def test_families_that_do_not_use_it_are_left_alone():
    sibs = {script_path(f"glm5_{p}_b200_mtp.sh"): sglang_script(mtp=True) for p in ("fp4", "bf16")}
    assert run(repo({NEW: sglang_script(mtp=True)}, extra=sibs), rules=[rule]).findings == []
    assert run(repo({script_path("glm5_fp8_b200.sh"): sglang_script()}, extra=SIBS), rules=[rule]).findings == []


def _mtp_key(image: str) -> dict:
    from tests.rules.scripts_helpers import key, master
    return {"configs/nvidia-master.yaml": master(key("glm5-fp8-b200-sglang-mtp", spec="mtp").replace(
        "lmsysorg/sglang:v0.5.9", image))}


def test_not_missing_where_the_engine_version_defaults_to_it():
    # SGLang 0.5.11 and later run spec V2 by default (environ.py): the variable the siblings set
    # for older images is not missing on a 0.5.12 image.
    r = run(repo({NEW: sglang_script(mtp=True)}, extra={**SIBS, **_mtp_key("lmsysorg/sglang:v0.5.12-cu130")}),
            rules=[rule])
    assert r.findings == []
    assert any(c.status == "passed" and "SGLang 0.5.12: spec V2 on by default" in c.detail for c in r.checks)
    # control: the 0.5.10 image still runs the V1 worker without it
    (f,) = run(repo({NEW: sglang_script(mtp=True)}, extra={**SIBS, **_mtp_key("lmsysorg/sglang:v0.5.10-cu130")}),
               rules=[rule]).findings
    assert f.message == "MTP script does not set `SGLANG_ENABLE_SPEC_V2` for sglang; 2 of 2 MTP siblings set it"
    # an image that names no version: the sibling comparison stands
    nightly = _mtp_key("lmsysorg/sglang:nightly-dev-cu13-20260520-425dffbd")
    assert len(run(repo({NEW: sglang_script(mtp=True)}, extra={**SIBS, **nightly}), rules=[rule]).findings) == 1


def test_archived_scripts_are_not_siblings():
    archived = {p.replace("fixed_seq_len/", "fixed_seq_len/deprecated/"): t for p, t in SIBS.items()}
    assert run(repo({NEW: sglang_script(mtp=True)}, extra=archived), rules=[rule]).findings == []
    # nor is an archived script compared with the live ones
    moved = NEW.replace("fixed_seq_len/", "fixed_seq_len/deprecated/")
    assert run(repo({moved: sglang_script(mtp=True)}, extra=SIBS), rules=[rule]).findings == []
