"""RR256 changelog-description-incomplete: image and engine-setting changes the description leaves out (#1991, #2124).

The fixture is a small repository (tests/rules/scripts_helpers.py): the b200 launcher picks
`<model>_<precision>_b200[_<framework>][_mtp].sh` by FRAMEWORK and SPEC_DECODING, so the entry's
keys reach their scripts the way a sweep does.
"""
import pytest

from rules import run
from rules.claims.checks import changelog_description_incomplete as rr256
from tests.rules.mc_helpers import CL_BASE
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"
LOG = "perf-changelog.yaml"
STP, MTP = "glm5-fp8-b200-sglang", "glm5-fp8-b200-sglang-mtp"
PLAIN = script_path("glm5_fp8_b200.sh")  # what the launcher runs for STP (no `_sglang` script exists)
SPEC = script_path("glm5_fp8_b200_mtp.sh")  # what it runs for MTP (SPEC_DECODING=mtp)
TUNED = sglang_script().replace("--mem-fraction-static 0.85 ", "--mem-fraction-static 0.9 --chunked-prefill-size 8192 ")


def _config(image: str = "lmsysorg/sglang:v0.5.9") -> str:
    return master(key(STP), key(MTP, spec="mtp")).replace("lmsysorg/sglang:v0.5.9", image)


def _entry(keys, *items) -> str:
    return ("- config-keys:\n" + "".join(f"    - {k}\n" for k in keys) + "  description:\n"
            + "".join(f'    - "{i}"\n' for i in items) + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867\n")


def _review(items, keys=(STP,), scripts=None, image="lmsysorg/sglang:v0.5.10", extra=None):
    changed = {CFG: ("modified", _config(image), _config()),
               LOG: ("modified", CL_BASE.decode() + "\n" + _entry(keys, *items), CL_BASE.decode())}
    changed.update(scripts if scripts is not None else {PLAIN: ("modified", TUNED, sglang_script())})
    return run(repo(changed, extra=extra), rules=[rr256])


def test_an_unmentioned_image_and_engine_flags_are_one_nit():
    [f] = _review(["Update the SGLang image"]).findings
    assert not f.blocking
    assert "the image of `glm5-fp8-b200-sglang` (`lmsysorg/sglang:v0.5.9` → `lmsysorg/sglang:v0.5.10`)" in f.message
    assert f"`--mem-fraction-static` 0.85 → 0.9 in `{PLAIN}`" in f.message
    assert f"new `--chunked-prefill-size 8192` in `{PLAIN}`" in f.message


def test_a_complete_description_passes():
    r = _review(["Bump SGLang to v0.5.10", "mem-fraction-static 0.85 -> 0.9, chunked-prefill-size 8192"])
    assert r.findings == [] and r.checks[0].status == "passed"


@pytest.mark.parametrize("prose", [
    "Bump SGLang to 0.5.10; raise the static memory fraction to 0.9 and cap chunked prefill at 8192 tokens",
    "SGLang v0.5.10 with a 0.9 memory fraction and chunked prefill of 8192",
], ids=["words-of-the-flag-and-value", "values-only"])
def test_prose_that_names_the_values_counts_as_mentioning_them(prose):
    assert _review([prose]).findings == []


def test_prose_about_something_else_still_leaves_them_out():
    [f] = _review(["Bump SGLang to 0.5.10 and retune the sweep"]).findings  # control
    assert "`--mem-fraction-static` 0.85 → 0.9" in f.message and "the image of" not in f.message


def test_the_settings_of_a_new_script_are_not_changes():
    [f] = _review(["Add the GLM-5 SGLang script"], scripts={PLAIN: ("added", TUNED)}).findings
    assert f.message.endswith("does not mention: the image of `glm5-fp8-b200-sglang` (`lmsysorg/sglang:v0.5.9` → "
                              "`lmsysorg/sglang:v0.5.10`).")  # and none of the new script's flags


def test_paths_ports_names_and_parallelism_are_plumbing():
    old = sglang_script(env="export SERVER_LOG=/var/log/a.log\nexport HIP_VISIBLE_DEVICES=0,1")
    new = sglang_script(env="export SERVER_LOG=/workspace/b.log\nexport HIP_VISIBLE_DEVICES=0,1,2,3").replace(
        '--model-path "$MODEL" --tp "$TP" --port "$PORT"', "--model-path /models/glm5 --tp 8 --port 8000 --host 0.0.0.0"
    )
    r = _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", new, old)})
    assert r.findings == []
    tuned = new.replace("--mem-fraction-static 0.85", "--mem-fraction-static 0.8")  # control
    [f] = _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", tuned, old)}).findings
    assert f.message.endswith(f"does not mention: `--mem-fraction-static` 0.85 → 0.8 in `{PLAIN}`.")


def test_an_engine_environment_variable_is_a_setting():
    old, new = sglang_script(env="export SGLANG_ENABLE_SPEC_V2=0"), sglang_script(env="export SGLANG_ENABLE_SPEC_V2=1")
    [f] = _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", new, old)}).findings
    assert "`SGLANG_ENABLE_SPEC_V2` 0 → 1" in f.message
    assert (
        _review(["Bump SGLang to v0.5.10 and enable spec v2"], scripts={PLAIN: ("modified", new, old)}).findings == []
    )


def test_a_script_the_launcher_does_not_route_the_keys_to_is_not_the_entrys():
    # The entry selects only the MTP key; the launcher runs SPEC for it (SPEC_DECODING=mtp), not PLAIN.
    scripts = {PLAIN: ("modified", TUNED, sglang_script()),
               SPEC: ("modified", sglang_script(mtp=True), sglang_script(mtp=True, kv="--kv-cache-dtype auto"))}
    [f] = _review(["Bump SGLang"], keys=(MTP,), scripts=scripts, image="lmsysorg/sglang:v0.5.9").findings
    assert f"`--kv-cache-dtype` auto → fp8_e4m3 in `{SPEC}`" in f.message and PLAIN not in f.message


def test_a_script_named_like_the_key_is_not_the_one_the_launcher_prefers():
    # With `glm5_fp8_b200_sglang_mtp.sh` present the launcher runs it for the MTP key: the changed
    # `glm5_fp8_b200_mtp.sh` (the key's name without the framework) runs for no selected key.
    routed = script_path("glm5_fp8_b200_sglang_mtp.sh")
    scripts = {SPEC: ("modified", sglang_script(mtp=True), sglang_script(mtp=True, kv="--kv-cache-dtype auto"))}
    r = _review(["Bump SGLang"], keys=(MTP,), scripts=scripts, image="lmsysorg/sglang:v0.5.9",
                extra={routed: sglang_script(mtp=True)})
    assert r.findings == []
    scripts = {routed: ("modified", sglang_script(mtp=True), sglang_script(mtp=True, kv="--kv-cache-dtype auto"))}
    [f] = _review(["Bump SGLang"], keys=(MTP,), scripts=scripts, image="lmsysorg/sglang:v0.5.9").findings  # control
    assert f"in `{routed}`" in f.message


def test_a_key_the_pr_adds_is_described_by_the_entry_that_adds_it():
    base = master(key(STP))
    head = master(key(STP), key(MTP, spec="mtp"))
    changed = {CFG: ("modified", head, base),
               LOG: ("modified", CL_BASE.decode() + "\n" + _entry((MTP,), "Add GLM-5 MTP"), CL_BASE.decode()),
               SPEC: ("modified", sglang_script(mtp=True), sglang_script(mtp=True, kv="--kv-cache-dtype auto"))}
    assert run(repo(changed), rules=[rr256]).findings == []


def test_a_setting_only_the_rows_the_pr_adds_take_belongs_to_the_new_arm():
    # The PR adds a DP-attention row; the script's new branch for it sets its own chunk size.
    dpa = "      - tp: 8\n        dp-attn: true\n        ep: 8\n        conc-list: [64]"
    branch = (
        'if [[ "$DP_ATTENTION" == "true" ]]; then\n    DPA_ARGS="--enable-dp-attention --chunked-prefill-size 4096"\n'
        'else\n    DPA_ARGS=""\nfi'
    )
    old = sglang_script()
    new = sglang_script(env=branch, extra_flags="$DPA_ARGS")
    changed = {
        CFG: ("modified", master(key(STP) + "\n" + dpa), master(key(STP))),
        LOG: ("modified", CL_BASE.decode() + "\n" + _entry((STP,), "Add a DEP8 arm at conc 64"), CL_BASE.decode()),
        PLAIN: ("modified", new, old),
    }
    assert run(repo(changed), rules=[rr256]).findings == []
    changed[PLAIN] = ("modified", new.replace("--mem-fraction-static 0.85", "--mem-fraction-static 0.8"), old)
    [f] = run(repo(changed), rules=[rr256]).findings  # control: a setting every row takes
    assert "`--mem-fraction-static` 0.85 → 0.8" in f.message and "chunked" not in f.message


def test_a_switch_named_in_prose_is_mentioned():
    old, new = sglang_script(), sglang_script(extra_flags="--disable-radix-cache")
    assert _review(["Bump SGLang to v0.5.10 and turn the radix cache off"], scripts={PLAIN: ("modified", new, old)}
                   ).findings == []
    [f] = _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", new, old)}).findings  # control
    assert f"new `--disable-radix-cache` in `{PLAIN}`" in f.message


@pytest.mark.parametrize("image, text", [
    ("lmsysorg/sglang:v0.5.10-rocm700-mi35x-20260603", "Move to the June 3 SGLang build"),
    ("rocm/atom:rocm7.9.1_ubuntu24.04_py3.12_atom20260603", "Move ATOM to rocm7.9.1_..._atom20260603"),
    ("lmsysorg/sglang:nightly-dev-20260603-1a2b3c4d", "Move to the 1a2b3c4d nightly"),
], ids=["date-in-words", "abbreviated-tag", "commit-hash"])
def test_an_image_named_in_another_form_is_mentioned(image, text):
    assert _review([text], image=image, scripts={}).findings == []
    assert len(_review(["Move to a newer build"], image=image, scripts={}).findings) == 1  # control


@pytest.mark.parametrize("old_env, new_env", [
    ("export FIX_SHA=1a2b3c4\n", "export FIX_SHA=5d6e7f8\n"),
    ('ARGS="--context-length 100"\n', 'ARGS="--context-length 200"\n'),
], ids=["source-revision", "a-variable-that-holds-flags"])
def test_source_revisions_and_flag_strings_are_not_settings(old_env, new_env):
    old, new = sglang_script(env=old_env), sglang_script(env=new_env)
    assert _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", new, old)}).findings == []


def test_a_value_written_differently_is_unchanged_and_a_computed_one_is_shown_as_such():
    same = sglang_script().replace("--mem-fraction-static 0.85", "--mem-fraction-static 0.850")
    assert _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", same, sglang_script())}).findings == []
    old = sglang_script(env="MEM=$(( TP * 10 ))").replace("--mem-fraction-static 0.85", "--mem-fraction-static $MEM")
    new = sglang_script(env="MEM=$(( TP * 10 ))").replace("--mem-fraction-static 0.85", "--mem-fraction-static 0.8")
    [f] = _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", new, old)}).findings
    assert f"`--mem-fraction-static` (computed) → 0.8 in `{PLAIN}`" in f.message


def test_a_switch_before_a_redirect_has_no_value():
    old = sglang_script()
    new = old.replace("> server.log", "--enable-mixed-chunk > server.log")
    [f] = _review(["Bump SGLang to v0.5.10"], scripts={PLAIN: ("modified", new, old)}).findings
    assert f"new `--enable-mixed-chunk` in `{PLAIN}`" in f.message
