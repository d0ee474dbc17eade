import pytest

from rules.serving.checks import dram_budget_mismatch as rule
from tests.rules.recipe_helpers import MASTER_PATH, SCHEMA2, SCHEMA2_PATH, codes, line_of, master, review

pytest.importorskip("rules.master.analysis")
RUNNERS = "inferencex-e2e/configs/runners.yaml"

CASES = [
    # id, dram-utilization, runner, runners.yaml text or None, expected (None passes)
    ("0.2994 of mi355x resolves to 898", 0.2994, "cluster:mi355x-amds", None, None),
    ("0.6 resolves to 1799, not 898", 0.6, "cluster:mi355x-amds", None, "resolves to 1799"),
    (
        "runners.yaml wins over the option",
        0.2994,
        "cluster:mi355x-amds",
        "hardware:\n  cluster:mi355x-amds:\n    available-cpu-dram-mib: 1_000_000\n    gpus-per-node: 8\n",
        "resolves to 313",
    ),
    (
        "cap applies to large hosts",
        0.2994,
        "cluster:mi355x-amds",
        "hardware:\n  cluster:mi355x-amds:\n    available-cpu-dram-mib: 9_000_000\n    gpus-per-node: 8\n",
        None,
    ),
]


@pytest.mark.parametrize("util,runner,runners,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_budget(util, runner, runners, expect):
    context = {MASTER_PATH: master(util, runner)}
    if runners:
        context[RUNNERS] = runners.encode()
    r = review(SCHEMA2, [rule], path=SCHEMA2_PATH, context=context)
    if expect is None:
        assert r.findings == [] and {c.status for c in r.checks} == {"passed"}
    else:
        assert {c for c, _ in codes(r)} == {"RR206"} and expect in r.findings[0].message
        assert r.findings[0].line == line_of(SCHEMA2, "TOTAL_CPU_DRAM_GB")


def test_unknown_runner_and_gpu_type_is_skipped():
    text = SCHEMA2.replace("gpu_type: mi355x", "gpu_type: xpu9")
    r = review(text, [rule], path=SCHEMA2_PATH, context={MASTER_PATH: master(0.3, "cluster:unknown")})
    assert r.findings == [] and {c.status for c in r.checks} == {"skipped"}


def test_without_a_master_row_is_skipped():
    r = review(SCHEMA2, [rule], path=SCHEMA2_PATH)
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_options_override_host_dram():
    opts = rule.Options(host_dram_gb={"cluster:mi355x-amds": 2000.0})
    assert opts.host_dram_gb["cluster:mi355x-amds"] == 2000.0
    assert rule.Options().host_dram_gb["mi355x"] == pytest.approx(3246.16, abs=0.01)  # capped when used


@pytest.mark.parametrize("c1_budget", ["'0'", "'1799'"], ids=["zero budget at conc 1", "stale budget at conc 1"])
def test_gpu_resident_point_outside_the_master_concurrencies_is_not_judged(c1_budget):
    text = SCHEMA2.replace("      CONC: '1'\n", f"      CONC: '1'\n      TOTAL_CPU_DRAM_GB: {c1_budget}\n", 1)
    r = review(text, [rule], path=SCHEMA2_PATH, context={MASTER_PATH: master(0.2994)})
    assert r.findings == []
    assert any("CONC 1 is not a concurrency" in c.detail and c.status == "skipped" for c in r.checks)


def test_point_inside_the_master_concurrencies_is_still_judged():
    text = SCHEMA2.replace("      CONC: '4'\n      KV_OFFLOADING: 'dram'\n      TOTAL_CPU_DRAM_GB: '898'",
                           "      CONC: '4'\n      KV_OFFLOADING: 'dram'\n      TOTAL_CPU_DRAM_GB: '897'", 1)
    assert text != SCHEMA2
    r = review(text, [rule], path=SCHEMA2_PATH, context={MASTER_PATH: master(0.2994)})
    assert [f.code for f in r.findings] == ["RR206"] and "`897`" in r.findings[0].message


def _c4_budget(text: str, value: str, comment: bool = True) -> str:
    """Point override_c4 with its TOTAL_CPU_DRAM_GB set to `value` (and an `898 GB` comment on its pool)."""
    head, tail = text.split("override_c4:", 1)
    if comment:
        tail = tail.replace('"lazy_offload":false}}\'', '"lazy_offload":false}}\'  # 898 GB pool', 1)
    tail = tail.replace("TOTAL_CPU_DRAM_GB: '898'", f"TOTAL_CPU_DRAM_GB: '{value}'", 1)
    return head + "override_c4:" + tail


def test_the_value_out_of_line_carries_the_finding_and_its_fix():
    # Pool 898 GB, its comment 898 GB, dram-utilization 0.2994 × 3,000 GB → 898, but TOTAL_CPU_DRAM_GB '989'.
    from rules.serving.checks import offload_pool_mismatch as pool_rule

    text = _c4_budget(SCHEMA2, "989")
    r = review(text, [rule, pool_rule], path=SCHEMA2_PATH, base=_c4_budget(SCHEMA2, "898"),
               context={MASTER_PATH: master(0.2994)})
    line = line_of(text, "TOTAL_CPU_DRAM_GB: '989'")
    assert codes(r) == [("RR206", line)]
    f = r.findings[0]
    assert "TOTAL_CPU_DRAM_GB is the value out of line" in f.message
    assert f.suggestion.strip() == "TOTAL_CPU_DRAM_GB: '898'"
    assert any("agrees with" in c.detail and c.code == "RR205" for c in r.checks)


def test_a_pool_out_of_line_is_the_pool_rules():
    from rules.serving.checks import offload_pool_mismatch as pool_rule

    text = SCHEMA2.replace("112251571200", "224503142400", 1)
    r = review(text, [rule, pool_rule], path=SCHEMA2_PATH, base=SCHEMA2, context={MASTER_PATH: master(0.2994)})
    assert {f.code for f in r.findings} == {"RR205"}
    f = r.findings[0]
    assert "the pool is the value out of line" in f.message
    assert '"cpu_bytes_to_use_per_rank":112250000000' in f.suggestion  # 898 × 10^9 / 8 ranks


def test_dram_utilization_out_of_line_goes_on_the_master_row_when_the_pr_changes_it():
    from rules.changeset import ChangeSet, FileChange
    from rules.runner import run

    old, new = master(0.2994), master(0.6)
    cs = ChangeSet(files=(FileChange(SCHEMA2_PATH, "added", head=SCHEMA2.encode()),
                          FileChange(MASTER_PATH, "modified", base=old, head=new)))
    r = run(cs, rules=[rule])
    assert {(f.code, f.path) for f in r.findings} == {("RR206", MASTER_PATH)}
    assert "dram-utilization is the value out of line" in r.findings[0].message
