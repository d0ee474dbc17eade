from pathlib import Path

import pytest

from rules.serving.checks import offload_pool_mismatch as rule
from tests.rules.recipe_helpers import SCHEMA2, SCHEMA2_PATH, codes, line_of, review, srt_recipe, vllm_role

SIMPLE = "SimpleCPUOffloadConnector"


def kv(**extra):
    return {"kv_connector": SIMPLE, "kv_role": "kv_both", "kv_connector_extra_config": extra}


CASES = [
    # id, kv config, tp, dp, gpus_per_node, TOTAL_CPU_DRAM_GB, expected fragment (None passes)
    ("per-rank x 8 = budget", kv(cpu_bytes_to_use_per_rank=112_251_571_200), 8, 1, 8, 898, None),
    (
        "per-rank sized for another budget",
        kv(cpu_bytes_to_use_per_rank=224_875_000_000),
        8,
        1,
        8,
        898,
        "TOTAL_CPU_DRAM_GB is `898`",
    ),
    ("floor, not round: 898.99 GB is 898", kv(cpu_bytes_to_use_per_rank=112_374_999_999), 8, 1, 8, 898, None),
    ("one byte short of the budget GB", kv(cpu_bytes_to_use_per_rank=112_249_999_999), 8, 1, 8, 898, "898"),
    ("per-rank and total agree", kv(cpu_bytes_to_use_per_rank=100, cpu_bytes_to_use=800), 8, 1, 8, None, None),
    (
        "per-rank and total disagree",
        kv(cpu_bytes_to_use_per_rank=100, cpu_bytes_to_use=400),
        8,
        1,
        8,
        None,
        "cpu_bytes_to_use is `400`",
    ),
    (
        "ranks capped at the node (DEP16 on 4-GPU nodes)",
        kv(cpu_bytes_to_use_per_rank=137_438_953_472, cpu_bytes_to_use=549_755_813_888),
        4,
        4,
        4,
        None,
        None,
    ),
    ("@dram reference is bound at launch", kv(cpu_bytes_to_use_per_rank="@dram.per-gpu-bytes"), 8, 1, 8, 898, None),
    ("other connectors are not pools", {"kv_connector": "NixlConnector", "kv_role": "kv_both"}, 8, 1, 8, 898, None),
]


@pytest.mark.parametrize("cfg,tp,dp,gpn,budget,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pool(cfg, tp, dp, gpn, budget, expect):
    text = srt_recipe(vllm_role(kv_transfer_config=cfg, tensor_parallel_size=tp, data_parallel_size=dp), gpn=gpn,
                      env={"TOTAL_CPU_DRAM_GB": budget} if budget is not None else None)
    r = review(text, [rule])
    if expect is None:
        assert r.findings == []
    else:
        assert [c for c, _ in codes(r)] == ["RR205"] and expect in r.findings[0].message


def test_schema2_bundle_passes_with_the_issue_arithmetic():
    r = review(SCHEMA2, [rule], path=SCHEMA2_PATH)
    assert r.findings == []
    assert any("112,251,571,200 B/rank × 8" in c.detail and "= TOTAL_CPU_DRAM_GB 898" in c.detail for c in r.checks)


def test_budget_edit_is_reported_on_the_budget_line():
    new = SCHEMA2.replace("TOTAL_CPU_DRAM_GB: '898'", "TOTAL_CPU_DRAM_GB: '1799'", 1)
    r = review(new, [rule], path=SCHEMA2_PATH, base=SCHEMA2)
    assert codes(r) == [("RR205", line_of(new, "'1799'"))]


def test_unset_tp_is_vllms_default_of_one_rank():
    text = srt_recipe(vllm_role(kv_transfer_config=kv(cpu_bytes_to_use_per_rank=5)))
    r = review(text, [rule])
    assert r.findings == [] and any("5 B/rank × 1 ranks on a node" in c.detail for c in r.checks)


def test_unresolvable_rank_count_is_skipped_naming_it():
    text = srt_recipe(vllm_role(kv_transfer_config=kv(cpu_bytes_to_use_per_rank=5), tensor_parallel_size="${TP}"))
    r = review(text, [rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
    assert "tensor-parallel-size" in r.checks[0].detail and "${TP}" in r.checks[0].detail


TIB = 1_099_511_627_776
PER_RANK_128G = 137_438_953_472


def dp8_two_nodes(total=TIB, per=PER_RANK_128G, budget=None) -> str:
    """DP8 attention over two 4-GPU GB200 nodes: one vLLM instance of 8 ranks, 4 per node."""
    return srt_recipe(vllm_role(kv_transfer_config=kv(cpu_bytes_to_use_per_rank=per, cpu_bytes_to_use=total),
                                tensor_parallel_size=1, data_parallel_size=8),
                      gpus={"agg": 8}, gpn=4, env={"TOTAL_CPU_DRAM_GB": budget} if budget is not None else None)


def test_dp8_over_two_nodes_counts_the_instance_ranks():
    # 137,438,953,472 B × 8 ranks = 1 TiB exactly; the old per-node count (4) flagged it.
    r = review(dp8_two_nodes(), [rule])
    assert r.findings == []
    assert any("137,438,953,472 B/rank × 8 ranks (tensor-parallel-size 1 × data-parallel-size 8 = 8) = "
               "1,099,511,627,776 = cpu_bytes_to_use" in c.detail for c in r.checks)


def test_dp8_budget_is_the_node_share():
    # 4 ranks on a node × 128 GiB = 549.76 GB: the per-node TOTAL_CPU_DRAM_GB is 549, not 1,099.
    assert review(dp8_two_nodes(budget=549), [rule]).findings == []
    r = review(dp8_two_nodes(budget=1099), [rule])
    assert [f.code for f in r.findings] == ["RR205"]
    assert "on a node is 549,755,813,888 B" in r.findings[0].message


def test_dp8_total_off_by_the_node_count_is_flagged():
    r = review(dp8_two_nodes(total=3 * PER_RANK_128G), [rule])
    assert [f.code for f in r.findings] == ["RR205"] and "× 8 ranks" in r.findings[0].message
    # The suggestion rewrites the total to per-rank × 8 ranks (1 TiB).
    assert '"cpu_bytes_to_use":1099511627776' in r.findings[0].suggestion


MERGE_KEYS = """name: merge-keys
resources:
  gpu_type: gb200
  gpus_per_node: 4
  gpus_per_prefill: 4
  gpus_per_decode: 4
dep4: &dep4_config
  tensor-parallel-size: 1
  data-parallel-size: 4
  kv-transfer-config: '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":100,"cpu_bytes_to_use":300}}'
backend:
  type: vllm
  vllm_config:
    prefill:
      <<: *dep4_config
      max-num-seqs: 16
    decode:
      <<: *dep4_config
"""  # noqa: E501 (a recipe line with a JSON value that cannot be wrapped)


def test_merge_keys_resolve_and_keep_the_anchor_line():
    r = review(MERGE_KEYS, [rule])
    assert not [f for f in r.findings if f.code == "RR000"]
    # One problem, written once in the anchored mapping, reported once on its line.
    assert codes(r) == [("RR205", line_of(MERGE_KEYS, "kv-transfer-config"))]
    assert "(the same in" not in r.findings[0].message


# Blame the odd value (issue 21). A schema-2 recipe of our own: TP4 on one node, 250 GB per rank
# (cpu_bytes_to_use is the instance total), a note above the pool and the budget that agree.
BLAME = """schema: 2
name: blame-test
base:
  engine:
    type: vllm
  benchmark:
    env:
      TOTAL_CPU_DRAM_GB: '1000'
  roles:
    agg:
      gpus: 4
      args:
        tensor-parallel-size: 4
        # 4 ranks x 250,000,000,000 B = 1000 GB on the node
        kv-transfer-config: '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":250000000000,"cpu_bytes_to_use":1000000000000}}'
override_c8:
  benchmark:
    env:
      CONC: '8'
"""  # noqa: E501 (a recipe line with a JSON value that cannot be wrapped)
BLAME_PATH = SCHEMA2_PATH.replace("agentic.yaml", "blame.yaml")


def test_blame_recipe_is_clean():
    assert review(BLAME, [rule], path=BLAME_PATH).findings == []


@pytest.mark.parametrize("modified", [False, True], ids=["added file", "budget edited"])
def test_only_the_budget_changed_blames_the_budget_line(modified):
    # Pool and the note above it agree (1000 GB); the budget is the odd value: its line, with a fix.
    new = BLAME.replace("TOTAL_CPU_DRAM_GB: '1000'", "TOTAL_CPU_DRAM_GB: '2000'")
    r = review(new, [rule], path=BLAME_PATH, base=BLAME if modified else None)
    assert codes(r) == [("RR205", line_of(new, "TOTAL_CPU_DRAM_GB"))]
    f = r.findings[0]
    assert "TOTAL_CPU_DRAM_GB is the value out of line" in f.message
    assert f.suggestion.strip() == "TOTAL_CPU_DRAM_GB: '1000'"


def test_only_the_budget_changed_without_a_note_blames_the_edit():
    # Two values, no majority: the one the PR changed is blamed.
    base = BLAME.replace("        # 4 ranks x 250,000,000,000 B = 1000 GB on the node\n", "")
    new = base.replace("TOTAL_CPU_DRAM_GB: '1000'", "TOTAL_CPU_DRAM_GB: '2000'")
    r = review(new, [rule], path=BLAME_PATH, base=base)
    assert codes(r) == [("RR205", line_of(new, "TOTAL_CPU_DRAM_GB"))]
    assert r.findings[0].suggestion.strip() == "TOTAL_CPU_DRAM_GB: '1000'"


def test_only_the_pool_changed_without_a_note_blames_the_pool():
    # Control: the same tie, but the PR edited the pool (per-rank and total together).
    base = BLAME.replace("        # 4 ranks x 250,000,000,000 B = 1000 GB on the node\n", "")
    new = base.replace("250000000000", "500000000000").replace("1000000000000", "2000000000000")
    r = review(new, [rule], path=BLAME_PATH, base=base)
    assert codes(r) == [("RR205", line_of(new, "kv-transfer-config"))]
    assert "the pool is the value out of line" in r.findings[0].message
    assert '"cpu_bytes_to_use_per_rank":250000000000' in r.findings[0].suggestion


def test_pool_out_of_line_with_note_and_budget_is_still_the_pool():
    # Control: the odd value is the pool, whichever line the PR touched.
    new = BLAME.replace("250000000000", "125000000000").replace("1000000000000", "500000000000")
    for base in (None, BLAME):
        r = review(new, [rule], path=BLAME_PATH, base=base)
        assert codes(r) == [("RR205", line_of(new, "kv-transfer-config"))]


def test_a_per_rank_note_does_not_vote():
    base = BLAME.replace("4 ranks x 250,000,000,000 B = 1000 GB on the node", "250 GB per rank")
    new = base.replace("TOTAL_CPU_DRAM_GB: '1000'", "TOTAL_CPU_DRAM_GB: '2000'")
    r = review(new, [rule], path=BLAME_PATH)  # added: no edit to break the tie, so both are named
    assert [f.code for f in r.findings] == ["RR205"] and "the comment" not in r.findings[0].message


SEED = (Path(__file__).resolve().parents[3] / "bot" / "demo_data" / "agentic.head.yaml").read_text()


@pytest.mark.parametrize("budget", ["'1799'", "'449'"])
@pytest.mark.parametrize("modified", [False, True], ids=["added", "modified"])
def test_seed_recipe_with_only_the_budget_changed(budget, modified):
    # The demo's seed: pool bytes × 8 ranks and the note above them both say 898 GB.
    new = SEED.replace("TOTAL_CPU_DRAM_GB: '898'", f"TOTAL_CPU_DRAM_GB: {budget}", 1)
    r = review(new, [rule], path=SCHEMA2_PATH, base=SEED if modified else None)
    assert codes(r) == [("RR205", line_of(new, f"TOTAL_CPU_DRAM_GB: {budget}"))]
