"""Benchmark scripts as a source of the engine-settings model (rules/serving/script_points.py) and the
engine rules that read them: RR210, RR212, RR213, RR215, RR216 on a script's resolved command."""
from rules import run
from rules.config import EngineConfig, RepoConfig
from rules.context import ReviewContext
from rules.scripts.resolve import key_points, resolutions
from rules.serving.checks import capture_range_below_concurrency as rr212
from rules.serving.checks import concurrency_exceeds_engine_cap as rr210
from rules.serving.checks import dp_attention_not_passed as rr215
from rules.serving.checks import ep_mismatch as rr216
from rules.serving.script_points import script_points
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/nvidia-master.yaml"
ENGINE_RULES = [rr210, rr212, rr215, rr216]
SCRIPT = script_path("glm5_fp8_b200.sh")


def ctx_of(cs):
    return ReviewContext(cs, EngineConfig())


def settings(cs):
    return [(bp, bp.roles[0]) for _, bps in script_points(ctx_of(cs)) for bp in bps]


def two_block_key(name: str = "glm5-fp8-b200-sglang", first: str = "- { tp: 8, conc-list: [4, 8] }",
                  second: str = "- { tp: 8, conc-list: [4, 64] }") -> str:
    return f"""{name}:
  image: lmsysorg/sglang:v0.5.9
  model: org/glm5
  model-prefix: glm5
  runner: b200
  precision: fp8
  framework: sglang
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      {first}
    - isl: 8192
      osl: 1024
      search-space:
      {second}"""


def test_a_script_cap_below_the_concurrency_is_blocking_on_the_flag_line():
    text = sglang_script(extra_flags="--max-running-requests 32")
    cs = repo({SCRIPT: text, CFG: master(key("glm5-fp8-b200-sglang", concs="[4, 64]"))})
    r = run(cs, rules=ENGINE_RULES)
    (f,) = [x for x in r.findings if x.code == "RR210"]
    assert f.path == SCRIPT and f.blocking
    assert text.split("\n")[f.line - 1].lstrip().startswith("--speculative") is False
    assert "--max-running-requests 32" in text.split("\n")[f.line - 1]
    assert "concurrency `64`" in f.message and "2× what the server admits" in f.message
    assert "`max-running-requests` 32" in f.message


def test_a_cap_that_follows_conc_takes_each_points_own_value():
    # Two points of one key differ only in CONC: each resolution carries its own value, even though
    # the launcher interpretation is shared (the launcher never reads CONC).
    text = sglang_script(extra_flags='--max-running-requests "$CONC" --cuda-graph-max-bs "$CONC"')
    cs = repo({SCRIPT: text, CFG: master(key("glm5-fp8-b200-sglang", concs="[4, 64]"))})
    caps = sorted({(bp.concurrencies[0].value, es.max_seqs.value) for bp, es in settings(cs)})
    assert caps == [(4, 4), (64, 64)]
    assert all(es.max_seqs.line == next(i for i, ln in enumerate(text.split("\n"), 1) if "--max-running" in ln)
               for _, es in settings(cs))
    assert not [f for f in run(cs, rules=ENGINE_RULES).findings if f.code in ("RR210", "RR212")]


def test_an_unresolved_cap_is_skipped_with_its_reason_not_guessed():
    text = sglang_script(extra_flags='--max-running-requests "$SOMETHING_UNSET"')
    cs = repo({SCRIPT: text, CFG: master(key("glm5-fp8-b200-sglang", concs="[4, 64]"))})
    r = run(cs, rules=[rr210])
    assert r.findings == []
    skipped = [c.detail for c in r.checks if c.status == "skipped" and c.code == "RR210"]
    assert any("max-running-requests" in d and "not an integer" in d for d in skipped), skipped


def test_capture_cap_below_the_per_rank_batch():
    text = sglang_script(extra_flags="--max-running-requests 64 --cuda-graph-max-bs 16")
    cs = repo({SCRIPT: text, CFG: master(key("glm5-fp8-b200-sglang", concs="[4, 64]"))})
    (f,) = [x for x in run(cs, rules=ENGINE_RULES).findings if x.code == "RR212"]
    assert f.path == SCRIPT and "`cuda-graph-max-bs` 16" in f.message and "one rank runs 64 requests" in f.message


def test_passed_checks_carry_the_arithmetic():
    text = sglang_script(extra_flags="--max-running-requests 128")
    cs = repo({SCRIPT: text, CFG: master(key("glm5-fp8-b200-sglang", concs="[4, 64]"))})
    passed = [c.detail for c in run(cs, rules=[rr210]).checks if c.status == "passed"]
    assert any(SCRIPT in d and "concurrency 64 vs capacity server `max-running-requests` 128 ✓" in d for d in passed), (
        passed
    )


DP_SCRIPT = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC ISL OSL EP_SIZE DP_ATTENTION
if [ "$DP_ATTENTION" = "true" ]; then
  PARALLEL_ARGS="--tensor-parallel-size=1 --data-parallel-size=$TP --enable-expert-parallel"
elif [ "$EP_SIZE" -gt 1 ]; then
  PARALLEL_ARGS="--tensor-parallel-size=$TP --enable-expert-parallel"
else
  PARALLEL_ARGS="--tensor-parallel-size=$TP"
fi
vllm serve "$MODEL" --port "$PORT" $PARALLEL_ARGS --max-num-seqs 512 > server.log 2>&1 &
wait_for_server_ready
run_benchmark_serving --model "$MODEL" --port "$PORT" --max-concurrency "$CONC"
"""


def vllm_key(entries: list[str]) -> str:
    body = "\n".join(f"      {e}" for e in entries)
    return f"""glm5-fp8-b200-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: org/glm5
  model-prefix: glm5
  runner: b200
  precision: fp8
  framework: vllm
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
{body}"""


def test_an_ep_label_the_script_does_not_run_is_blamed_on_the_new_master_line():
    vp = script_path("glm5_fp8_b200_vllm.sh")
    base = vllm_key(["- { tp: 2, ep: 2, dp-attn: true, conc-list: [64] }"])
    head = vllm_key(["- { tp: 2, ep: 2, dp-attn: true, conc-list: [64] }",
                     "- { tp: 2, ep: 4, dp-attn: true, conc-list: [64] }"])
    cs = repo({CFG: ("modified", master(head), master(base))}, extra={vp: DP_SCRIPT})
    (f,) = [x for x in run(cs, rules=ENGINE_RULES).findings if x.code == "RR216"]
    assert (f.path, f.line) == (
        CFG,
        head.split("\n").index("      - { tp: 2, ep: 4, dp-attn: true, conc-list: [64] }") + 1,
    )
    assert "`ep: 4`" in f.message and "expert parallelism 2" in f.message
    assert "tensor-parallel-size 1 × data-parallel-size 2 = 2" in f.message


def test_the_same_mismatch_in_a_script_the_pr_edits_goes_on_the_script():
    vp = script_path("glm5_fp8_b200_vllm.sh")
    # The PR edits the line this point's command takes its parallelism from (the EP branch).
    head_script = DP_SCRIPT.replace('PARALLEL_ARGS="--tensor-parallel-size=$TP --enable-expert-parallel"',
                                    'PARALLEL_ARGS="--tensor-parallel-size=1 --enable-expert-parallel"')
    assert head_script != DP_SCRIPT
    cfg = master(vllm_key(["- { tp: 2, ep: 2, conc-list: [64] }"]))
    cs = repo({vp: ("modified", head_script, DP_SCRIPT)}, extra={CFG: cfg})
    (f,) = [x for x in run(cs, rules=ENGINE_RULES).findings if x.code == "RR216"]
    assert f.path == vp and "--tensor-parallel-size=1 --enable-expert-parallel" in head_script.split("\n")[f.line - 1]
    # An edit on another branch of the script leaves this point's command as the base ran it.
    other = DP_SCRIPT.replace("--data-parallel-size=$TP", "--data-parallel-size=$((TP * 2))")
    cs = repo(
        {vp: ("modified", other, DP_SCRIPT)}, extra={CFG: master(vllm_key(["- { tp: 2, ep: 4, conc-list: [64] }"]))}
    )
    assert [x for x in run(cs, rules=ENGINE_RULES).findings if x.code == "RR216"] == []


def test_dp_attention_label_that_the_script_never_passes():
    text = sglang_script(extra_flags="--max-running-requests 256")
    head = master(two_block_key(second="- { tp: 8, dp-attn: true, conc-list: [64, 256] }"))
    cs = repo({SCRIPT: text, CFG: head})
    (f,) = [x for x in run(cs, rules=ENGINE_RULES).findings if x.code == "RR215"]
    assert "`dp-attn: true`" in f.message and "does not enable DP attention" in f.message
    assert f.path == SCRIPT  # the PR adds the script: the engine's side carries it


def test_entry_lines_count_across_blocks():
    cfg = master(two_block_key())
    ctx = ctx_of(repo({CFG: cfg}))
    lines = cfg.split("\n")
    by_conc = {p.values["conc"]: p.line for p in key_points(ctx, "glm5-fp8-b200-sglang") if p.values["isl"] == 8192}
    assert lines[by_conc[64] - 1].strip() == "- { tp: 8, conc-list: [4, 64] }"


def test_new_entries_are_interpreted_first_one_per_parallelism():
    entries = [f"- {{ tp: {tp}, conc-list: [4, 8] }}" for tp in (1, 2, 4)]
    base = vllm_key(entries)
    head = vllm_key(entries + ["- { tp: 8, ep: 8, conc-list: [4, 512] }"])
    cfg_ = EngineConfig(RepoConfig.model_validate({"scripts": {"points_per_script": 1, "new_entry_points": 1}}))
    cs = repo({CFG: ("modified", master(head), master(base))}, extra={script_path("glm5_fp8_b200_vllm.sh"): DP_SCRIPT})
    full = [r for r in resolutions(ReviewContext(cs, cfg_)) if r.engine is not None]
    # Per launcher (two machines here): the new entry at its highest concurrency (the allowance),
    # then the cap's one point: the new entry's other point comes before the old entries.
    for node in {r.point.node for r in full}:
        got = [(r.point.values["tp"], r.point.values["conc"]) for r in full if r.point.node == node]
        assert got == [(8, 512), (8, 4)], (node, got)


def test_trtllm_serve_spellings_and_atom_cap():
    trt = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
trtllm-serve "$MODEL" --port "$PORT" --tp_size "$TP" --ep_size 4 --max_batch_size 16 --max_num_tokens 8192 &
wait_for_server_ready
"""
    atom = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
python3 -m atom.entrypoints.openai_server --model "$MODEL" -tp "$TP" --max-num-seqs 32 &
wait_for_server_ready
"""
    out = {}
    for fw, text in (("trt", trt), ("atom", atom)):
        p = script_path(f"glm5_fp8_b200_{fw}.sh")
        cfg = master(key(f"glm5-fp8-b200-{fw}", framework=fw, concs="[4, 64]"))
        cs = repo({p: text, CFG: cfg})
        engines = {es.engine for _, es in settings(cs)}
        assert len(engines) == 1, engines
        out[fw] = settings(cs)[-1][1]
        (f,) = run(cs, rules=[rr210]).findings
        assert f.path == p and "concurrency `64`" in f.message
    assert out["trt"].engine == "trtllm" and out["trt"].max_seqs.value == 16 and out["trt"].ep.value == 4
    assert out["trt"].tp.value == 8 and out["trt"].max_batched_tokens.value == 8192
    assert out["atom"].engine == "atom" and out["atom"].max_seqs.value == 32


def test_atom_cap_under_dp_attention_is_not_judged():
    atom = """#!/usr/bin/env bash
python3 -m atom.entrypoints.openai_server --model "$MODEL" --enable-dp-attention --max-num-seqs 32 &
"""
    p = script_path("glm5_fp8_b200_atom.sh")
    cs = repo({p: atom, CFG: master(key("glm5-fp8-b200-atom", framework="atom", concs="[4, 64]"))})
    r = run(cs, rules=[rr210])
    assert r.findings == []
    assert any("ATOM DP attention" in c.detail for c in r.checks if c.status == "skipped")


def test_recipe_only_rules_do_not_read_scripts():
    # The MTP recipe conventions (RR220/RR221) and the pool rules keep to recipes: a script point
    # has no `benchmark.use_chat_template` to miss.
    from rules.serving.checks import mtp_recipe_chat_template_missing as rr220

    text = sglang_script(mtp=True, extra_flags="--max-running-requests 64")
    p = script_path("glm5_fp8_b200_mtp.sh")
    cs = repo({p: text, CFG: master(key("glm5-fp8-b200-sglang-mtp", spec="mtp", concs="[4, 64]"))})
    assert settings(cs), "the MTP script resolves"
    assert run(cs, rules=[rr220]).findings == []



def test_points_the_pr_does_not_change_are_not_judged():
    # The PR bumps the key's image: its points are resolved (for the script rules), but neither the
    # script nor the point's search-space entry changes, so the engine settings are the base's.
    text = sglang_script(extra_flags="--max-running-requests 32")
    head = key("glm5-fp8-b200-sglang", concs="[4, 64]")
    base = head.replace("v0.5.9", "v0.5.8")
    cs = repo({CFG: ("modified", master(head), master(base))}, extra={SCRIPT: text})
    assert any(r.engine is not None for r in resolutions(ctx_of(cs)))
    assert settings(cs) == []
    assert run(cs, rules=ENGINE_RULES).findings == []
    # The same cap in a script the PR edits is judged.
    cs = repo({SCRIPT: ("modified", text, text.replace("32", "64")), CFG: master(head)})
    assert [f.code for f in run(cs, rules=ENGINE_RULES).findings] == ["RR210"]


TRT_WITH_OPTIONS = """#!/usr/bin/env bash
OPTS=extra.yml
cat > $OPTS << EOF
enable_attention_dp: $DP_ATTENTION
max_batch_size: 32
cuda_graph_config:
    enable_padding: true
    max_batch_size: 16
EOF
if [[ "$DP_ATTENTION" == "true" ]]; then
    cat << EOF >> $OPTS
attention_dp_config:
    enable_balance: true
EOF
fi
trtllm-serve "$MODEL" --port "$PORT" --tp_size "$TP" --max_batch_size 8 --extra_llm_api_options $OPTS &
"""


def _trt_options_repo(text: str, dp_attn: bool = True, concs: str = "[4, 64]"):
    p = script_path("glm5_fp8_b200_trt.sh")
    cfg = master(key("glm5-fp8-b200-trt", framework="trt", concs=concs).replace(
        "      - tp: 8", "      - tp: 8\n        dp-attn: true" if dp_attn else "      - tp: 8"))
    return p, repo({p: text, CFG: cfg})


def test_trtllm_options_file_the_script_writes_is_read_on_its_own_lines():
    p, cs = _trt_options_repo(TRT_WITH_OPTIONS)
    (_, es), *_ = settings(cs)
    assert es.dp_attention.value is True and es.dp_attention.line == 4  # `$DP_ATTENTION` of the point
    assert (es.max_seqs.value, es.max_seqs.line) == (32, 5)  # the file wins over `--max_batch_size 8`
    assert (es.capture_cap.value, es.capture_cap.line) == (16, 8)
    r = run(cs, rules=ENGINE_RULES)
    assert r.findings == []  # 64 / 8 ranks = 8 per rank, under both caps
    assert any("16" in c.detail for c in r.checks if c.status == "passed" and c.code == "RR212")


def test_trtllm_options_cap_below_the_concurrency_is_reported_on_the_file_line():
    p, cs = _trt_options_repo(TRT_WITH_OPTIONS, dp_attn=False, concs="[4, 32]")
    findings = [f for f in run(cs, rules=ENGINE_RULES).findings if f.code == "RR212"]
    assert [(f.path, f.line) for f in findings] == [(p, 8)]
    assert "`cuda_graph_config.max_batch_size` 16" in findings[0].message


def test_trtllm_options_file_not_known_leaves_dp_attention_unknown():
    guarded = TRT_WITH_OPTIONS.replace("cat > $OPTS << EOF", "[[ -n $WANT ]] && cat > $OPTS << EOF")
    not_written = TRT_WITH_OPTIONS.replace("--extra_llm_api_options $OPTS", "--extra_llm_api_options other.yml")
    for text, why in ((guarded, "is written under a condition that is not known"),
                      (not_written, "`other.yml` is not written by the script before the launch")):
        _, cs = _trt_options_repo(text)
        r = run(cs, rules=ENGINE_RULES)
        assert r.findings == []
        skipped = [c.detail for c in r.checks if c.status == "skipped"]
        assert any("`enable_attention_dp` (in the `--extra_llm_api_options` file: " in d and why in d
                   for d in skipped), skipped


def test_sglang_all_to_all_backend_runs_expert_parallel_over_tp():
    text = sglang_script(extra_flags="--moe-a2a-backend deepep --max-running-requests 64")
    cfg = master(key("glm5-fp8-b200-sglang", concs="[4, 64]").replace("      - tp: 8", "      - tp: 8\n        ep: 8"))
    r = run(repo({SCRIPT: text, CFG: cfg}), rules=[rr216])
    assert r.findings == []
    passed = [c.detail for c in r.checks if c.status == "passed"]
    assert any("EP 8" in d and "moe-a2a-backend deepep (ep = tp)" in d for d in passed), passed
