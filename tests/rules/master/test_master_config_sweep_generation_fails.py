"""RR105 master-config-sweep-generation-fails: schema-valid keys the generator cannot expand."""
from rules import run
from rules.master.checks import master_config_sweep_generation_fails as rr105
from tests.rules.mc_helpers import NV, ROWS, change_one

RUNNERS = "configs/runners.yaml"
AGENTIC = (
    "dsv4-fp4-b300-vllm-agentic:\n  image: vllm/vllm-openai:v0.20.1\n  model: m\n  model-prefix: dsv4\n"
    "  runner: cluster:b300-nv\n  precision: fp4\n  framework: vllm\n  multinode: false\n  scenarios:\n"
    "    agentic-coding:\n    - dram-utilization: 0.5\n      search-space:\n"
    "      - { tp: TP, kv-offloading: dram, kv-offload-backend: {name: lmcache}, conc-list: [8, 16] }\n")


def _run(row: str, runners: str | None):
    ctx = change_one((ROWS[0], row, ROWS[2]), context={RUNNERS: runners.encode()} if runners else {})
    return run(ctx.changeset, rules=[rr105])


HW = ("labels:\n  cluster:b300-nv: [b300-nv_0]\nhardware:\n"
      "  cluster:b300-nv: {available-cpu-dram-mib: 2000000, gpus-per-node: 8}\n")


def test_dram_offload_without_runner_hardware_fails_the_generator():
    [f] = _run(AGENTIC.replace("TP", "8"), "labels:\n  cluster:b300-nv: [b300-nv_0]\n").findings
    assert f.blocking and f.path == NV
    assert "Runner 'cluster:b300-nv' requires 'available-cpu-dram-mib' in runner hardware metadata" in f.message
    assert "Rejected by the PR-run `check-changelog` when an entry selects this key." in f.message


def test_topology_larger_than_a_node_fails():
    [f] = _run(AGENTIC.replace("TP", "16"), HW).findings
    assert "requires 16 GPUs and exceeds gpus-per-node=8" in f.message


def test_expandable_key_passes_with_its_arithmetic():
    r = _run(AGENTIC.replace("TP", "8"), HW)
    assert r.findings == []
    [c] = r.checks
    assert "`dsv4-fp4-b300-vllm-agentic`: 1 row × 2 concurrencies = 2 jobs" in c.detail


def test_without_runners_yaml_the_generator_is_not_emulated():
    """The generator never runs without runners.yaml: a missing one is a skipped check, not a failure."""
    r = _run(AGENTIC.replace("TP", "16"), None)
    assert r.findings == []
    [c] = r.checks
    assert c.status == "skipped" and "`runners.yaml` was not read" in c.detail
