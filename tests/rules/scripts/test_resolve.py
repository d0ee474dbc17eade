"""Per-point resolution: key → runner → launcher → script → engine command line."""
from rules import run
from rules.config import EngineConfig
from rules.context import ReviewContext
from rules.registry import ALL_RULES
from rules.scripts.parse import MAX_SCRIPT_BYTES
from rules.scripts.resolve import key_points, layout_root, needed_paths, resolutions, review_points, script_dirs
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"
SCRIPTS = [r for r in ALL_RULES if r.__name__.startswith("rules.scripts.")]


def ctx_of(cs):
    return ReviewContext(cs, EngineConfig())


def test_point_environment_from_the_key_and_entry():
    ctx = ctx_of(repo({CFG: master(key("glm5-fp8-b200-sglang", concs="[4, 8, 16, 32]"))}))
    pts = key_points(ctx, "glm5-fp8-b200-sglang")
    assert {p.node for p in pts} == {"b200-nb_0", "b200-dgxc-slurm_0"}
    assert sorted({p.values["conc"] for p in pts}) == [4, 32]  # each entry's lowest and highest
    env = pts[0].env
    assert {k: env[k] for k in ("EXP_NAME", "MODEL_PREFIX", "PRECISION", "FRAMEWORK", "TP", "EP_SIZE", "SPEC_DECODING",
                                "SCENARIO_SUBDIR", "MAX_MODEL_LEN", "DP_ATTENTION")} == {
        "EXP_NAME": "glm5_1k1k", "MODEL_PREFIX": "glm5", "PRECISION": "fp8", "FRAMEWORK": "sglang", "TP": "8",
        "EP_SIZE": "1", "SPEC_DECODING": "none", "SCENARIO_SUBDIR": "fixed_seq_len/", "MAX_MODEL_LEN": "2304",
        "DP_ATTENTION": "false"}
    assert "IS_MULTINODE" not in env


def test_engine_command_with_lines_flags_and_environment():
    p = script_path("glm5_fp8_b200.sh")
    text = sglang_script(env="export SGLANG_X=1\nEXTRA=(--chunked-prefill-size 8192)", extra_flags='"${EXTRA[@]}"')
    ctx = ctx_of(repo({p: text}, extra={CFG: master(key("glm5-fp8-b200-sglang"))}))
    full = [r for r in resolutions(ctx) if r.engine is not None]
    assert full, [r.unknown for r in resolutions(ctx)]
    r = full[0]
    assert r.script == p and r.script_exists is True
    eng = r.engine
    assert eng.engine == "sglang" and eng.path == p and eng.line == 6
    flags = eng.flags()
    assert flags["--tp"][0].text == "8" and flags["--port"][0].text == "8888"  # srun --export=ALL,PORT=8888
    assert flags["--chunked-prefill-size"][0].text == "8192" and flags["--chunked-prefill-size"][0].line == 5
    assert eng.env["SGLANG_X"].value == "1" and eng.env["SGLANG_X"].line == 4
    assert eng.env["MODEL"].value == "org/glm5"
    assert not eng.unknown_words()
    assert r.chain().startswith("key `glm5-fp8-b200-sglang` → runner `")


def test_shared_launcher_change_resolves_keys_through_it_up_to_the_cap():
    keys = [key(f"k{i}-fp8-b200-sglang", model=f"k{i}") for i in range(5)]
    cs = repo({"runners/launch_b200-nb.sh": ("modified", open_launcher() + "# tweak\n", open_launcher())},
              extra={CFG: master(*keys)})
    cfg = EngineConfig()
    cfg.repo = cfg.repo.model_copy(update={"scripts": cfg.repo.scripts.model_copy(update={"max_keys": 3})})
    ctx = ReviewContext(cs, cfg)
    rp = review_points(ctx)
    assert len(rp.keys) == 3 and rp.skipped_keys == ["k3-fp8-b200-sglang", "k4-fp8-b200-sglang"]
    report = run(cs, cfg, rules=SCRIPTS, ctx=ReviewContext(cs, cfg))
    assert any("2 more keys were not resolved" in c.detail for c in report.checks)


def open_launcher() -> str:
    from tests.rules.scripts_helpers import LAUNCHER
    return LAUNCHER


def test_needed_paths_name_exactly_what_the_rules_read():
    p = script_path("glm5_fp8_b200.sh")
    sib = script_path("glm5_fp4_b200.sh")
    cs = repo({p: sglang_script()}, extra={CFG: master(key("glm5-fp8-b200-sglang")), sib: sglang_script()})
    # As the App sees it before the second read: listing and launchers, no script contents.
    bare = cs.__class__(
        files=cs.files,
        context={k: v for k, v in cs.context.items() if not k.startswith("benchmarks/")},
        tree=cs.tree,
        listed=cs.listed,
    )
    assert needed_paths(ctx_of(bare)) == {"benchmarks/benchmark_lib.sh", sib}
    assert needed_paths(ctx_of(cs)) == set()


def test_layout_roots_and_script_dirs():
    assert layout_root("inferencex-e2e/benchmarks/single_node/x.sh") == "inferencex-e2e/"
    assert layout_root(".github/configs/nvidia-master.yaml") == "" and layout_root("configs/x.yaml") == ""
    cfg = EngineConfig()
    assert script_dirs(["inferencex-e2e/configs/amd-master.yaml"], cfg) == {"inferencex-e2e/runners",
                                                                              "inferencex-e2e/benchmarks"}
    assert script_dirs(["docs/x.md", "utils/a.py"], cfg) == set()


def test_docker_launcher_passes_only_its_e_variables():
    launcher = ("#!/bin/bash\ndocker run --rm -e MODEL -e TP -e PORT=8000 --entrypoint=/bin/bash img \\\n"
                "  benchmarks/single_node/fixed_seq_len/${EXP_NAME%%_*}_${PRECISION}_b200.sh\n")
    p = script_path("glm5_fp8_b200.sh")
    cs = repo({p: sglang_script()}, extra={CFG: master(key("glm5-fp8-b200-sglang")),
                                           "runners/launch_b200-nb.sh": launcher})
    r = next(x for x in resolutions(ctx_of(cs)) if x.engine is not None and x.point.node == "b200-nb_0")
    assert r.engine.flags()["--port"][0].text == "8000"
    assert set(r.script_result.vars) >= {"MODEL", "TP", "PORT"} and "CONC" not in {
        k for k, v in r.script_result.vars.items() if v.path == "<environment>"}


def test_every_script_rule_survives_bad_input_with_a_reason():
    bad = {
        script_path("a_fp8_b200.sh"): b"\x00\x01\x02binary",
        script_path("b_fp8_b200.sh"): b"echo \xff\xfe not utf-8\n",
        script_path("c_fp8_b200_mtp.sh"): b"#!/bin/bash\n" + b"# pad\n" * (5 * 1024 * 1024 // 6),
        script_path("d_fp8_b200.sh"): b"if then ( fi }} $((\n",
        "runners/launch_b200-nb.sh": b"#!/bin/bash\nsource runners/launch_b200-nb.sh\nf() { f; }\nf\n",
    }
    from rules.changeset import ChangeSet, FileChange
    files = tuple(FileChange(p, "added", head=raw, patch="@@ -0,0 +1,1 @@\n+x") for p, raw in bad.items())
    cs = ChangeSet(files=files, context={CFG: master(key("a-fp8-b200-sglang", model="a")).encode()},
                   tree={p: "100644" for p in bad}, listed=frozenset({"", "benchmarks", "runners"}))
    assert len(bad[script_path("c_fp8_b200_mtp.sh")]) > MAX_SCRIPT_BYTES
    report = run(cs, rules=SCRIPTS)
    assert not [c for c in report.checks if c.status == "error"]
    assert not [f for f in report.findings if f.code == "RR000"]
    skipped = " ".join(c.detail for c in report.checks if c.status == "skipped")
    for why in ("binary", "UTF-8", "not parsed"):
        assert why in skipped, why


def test_canaries_in_a_reviewed_script_never_run(tmp_path):
    paths = [tmp_path / f"canary{i}" for i in range(6)]
    text = sglang_script(env="\n".join([
        f"X=$(touch {paths[0]})", f"Y=`touch {paths[1]}`", f'eval "touch {paths[2]}"',
        f"cat > {paths[3]} <<EOF\nhi\nEOF", f'bash -c "touch {paths[4]}"', f"source <(touch {paths[5]})"]))
    p = script_path("glm5_fp8_b200.sh")
    cs = repo({p: text, CFG: master(key("glm5-fp8-b200-sglang"))})
    report = run(cs)  # every rule, ShellCheck included (it reads the script on stdin)
    assert not [x for x in paths if x.exists()]
    assert not [f for f in report.findings if f.code == "RR000"]


def test_reuse_across_reviews_respects_absent_inputs():
    """An interpretation is reused only when the inputs it read agree, an unset one included
    (a flat tree gets no SCENARIO_SUBDIR; the launcher's path then differs)."""
    nested = repo({CFG: master(key("glm5-fp8-b200-sglang"))}, extra={script_path("glm5_fp8_b200.sh"): sglang_script()})
    flat_files = {CFG: master(key("glm5-fp8-b200-sglang")), "benchmarks/single_node/glm5_fp8_b200.sh": sglang_script()}
    flat = repo({}, extra=flat_files)
    flat = flat.__class__(files=nested.files, context={**{k: v for k, v in flat.context.items()}},
                          tree={k: v for k, v in flat.tree.items() if "fixed_seq_len" not in k and "agentic" not in k},
                          listed=frozenset(d for d in flat.listed if "fixed_seq_len" not in d and "agentic" not in d))
    a = {r.script for r in resolutions(ctx_of(nested))}
    b = {r.script for r in resolutions(ctx_of(flat))}
    assert a == {"benchmarks/single_node/fixed_seq_len/glm5_fp8_b200.sh"}
    assert b == {"benchmarks/single_node/glm5_fp8_b200.sh"}
