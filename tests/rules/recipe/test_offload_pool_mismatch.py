import pytest

from rules.recipe.checks import offload_pool_mismatch as rule
from tests.rules.recipe_helpers import SCHEMA2, SCHEMA2_PATH, codes, line_of, review, srt_recipe, vllm_role

SIMPLE = "SimpleCPUOffloadConnector"


def kv(**extra):
    return {"kv_connector": SIMPLE, "kv_role": "kv_both", "kv_connector_extra_config": extra}


CASES = [
    # id, kv config, tp, dp, gpus_per_node, TOTAL_CPU_DRAM_GB, expected fragment (None passes)
    ("per-rank x 8 = budget", kv(cpu_bytes_to_use_per_rank=112_251_571_200), 8, 1, 8, 898, None),
    ("per-rank sized for another budget", kv(cpu_bytes_to_use_per_rank=224_875_000_000), 8, 1, 8, 898, "TOTAL_CPU_DRAM_GB is `898`"),
    ("floor, not round: 898.99 GB is 898", kv(cpu_bytes_to_use_per_rank=112_374_999_999), 8, 1, 8, 898, None),
    ("one byte short of the budget GB", kv(cpu_bytes_to_use_per_rank=112_249_999_999), 8, 1, 8, 898, "898"),
    ("per-rank and total agree", kv(cpu_bytes_to_use_per_rank=100, cpu_bytes_to_use=800), 8, 1, 8, None, None),
    ("per-rank and total disagree", kv(cpu_bytes_to_use_per_rank=100, cpu_bytes_to_use=400), 8, 1, 8, None, "cpu_bytes_to_use is `400`"),
    ("ranks capped at the node (DEP16 on 4-GPU nodes)",
     kv(cpu_bytes_to_use_per_rank=137_438_953_472, cpu_bytes_to_use=549_755_813_888), 4, 4, 4, None, None),
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


def test_unknown_rank_count_is_skipped():
    text = srt_recipe(vllm_role(kv_transfer_config=kv(cpu_bytes_to_use_per_rank=5)))
    r = review(text, [rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
