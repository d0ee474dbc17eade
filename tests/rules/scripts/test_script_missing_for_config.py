"""RR401: a key whose launcher runs a script that does not exist."""
from rules import run
from rules.scripts.checks import script_missing_for_config as rule
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"


def test_new_key_without_its_script_is_reported_on_the_key_line():
    cs = repo({CFG: master(key("glm5-fp8-b200-sglang"))})
    r = run(cs, rules=[rule])
    (f,) = {(x.path, x.line, x.message) for x in r.findings}
    assert f[0] == CFG and f[1] == 1
    assert f[2] == ("key `glm5-fp8-b200-sglang` on runner `b200-dgxc-slurm_0`: `runners/launch_b200-dgxc-slurm.sh` "
                    "runs `benchmarks/single_node/fixed_seq_len/glm5_fp8_b200.sh`, which does not exist")
    assert all(not x.blocking and x.code == "RR401" for x in r.findings)  # a nit (notes/proof.md)


def test_symlinked_launcher_is_followed_and_named_as_written():
    cs = repo({CFG: master(key("glm5-fp8-b200-sglang"))})
    msgs = [f.message for f in run(cs, rules=[rule]).findings]
    assert any("`runners/launch_b200-dgxc-slurm.sh` runs" in m for m in msgs)


def test_framework_tagged_script_or_fallback_satisfies_it():
    for name in ("glm5_fp8_b200_sglang.sh", "glm5_fp8_b200.sh"):
        cs = repo({CFG: master(key("glm5-fp8-b200-sglang"))}, extra={script_path(name): sglang_script()})
        r = run(cs, rules=[rule])
        assert r.findings == [], name
        passed = [c.detail for c in r.checks if c.status == "passed"]
        assert any(f"`benchmarks/single_node/fixed_seq_len/{name}`" in d and "conc 4–8" in d for d in passed)
        assert any("sglang: `--tp 8`, `--kv-cache-dtype fp8_e4m3` from line 6" in d for d in passed), passed


def test_mtp_key_needs_the_mtp_script():
    cs = repo({CFG: master(key("glm5-fp8-b200-sglang-mtp", spec="mtp"))},
              extra={script_path("glm5_fp8_b200.sh"): sglang_script()})
    (f, *_) = run(cs, rules=[rule]).findings
    assert "glm5_fp8_b200_mtp.sh`, which does not exist" in f.message


def test_unchanged_keys_missing_before_the_pr_are_not_reported():
    cs = repo({script_path("other_fp8_b200.sh"): sglang_script()},
              extra={CFG: master(key("glm5-fp8-b200-sglang"))})
    assert run(cs, rules=[rule]).findings == []


def test_removing_the_script_a_key_runs_is_reported():
    text = sglang_script()
    cs = repo({script_path("glm5_fp8_b200.sh"): ("removed", None, text),
               CFG: ("modified", master(key("glm5-fp8-b200-sglang", concs="[4]")),
                     master(key("glm5-fp8-b200-sglang")))})
    assert [f.code for f in run(cs, rules=[rule]).findings] == ["RR401"]  # once per key and script


def test_a_missing_launcher_is_skipped_not_guessed():
    cs = repo({CFG: master(key("x-fp8-h999-sglang", model="x", runner="h999"))})
    r = run(cs, rules=[rule])
    assert r.findings == [] and any("h999" in c.detail for c in r.checks if c.status == "skipped")


def test_an_image_bump_on_a_key_whose_script_was_already_missing_is_the_bases():
    old = master(key("glm5-fp8-b200-sglang"))
    new = old.replace("lmsysorg/sglang:v0.5.9", "lmsysorg/sglang:v0.5.10")
    assert run(repo({CFG: ("modified", new, old)}), rules=[rule]).findings == []
    # control: changing what the path is built from (the precision) makes the missing path this PR's
    changed = master(key("glm5-fp8-b200-sglang", precision="fp4"))
    assert [f.code for f in run(repo({CFG: ("modified", changed, old)}), rules=[rule]).findings] == ["RR401"]
