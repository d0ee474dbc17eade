import pytest

from rules.recipe.checks import dram_budget_mismatch as rule
from tests.rules.recipe_helpers import MASTER_PATH, SCHEMA2, SCHEMA2_PATH, codes, line_of, master, review

pytest.importorskip("rules.master.analysis")
RUNNERS = "inferencex-e2e/configs/runners.yaml"

CASES = [
    # id, dram-utilization, runner, runners.yaml text or None, expected (None passes)
    ("0.2994 of mi355x resolves to 898", 0.2994, "cluster:mi355x-amds", None, None),
    ("0.6 resolves to 1799, not 898", 0.6, "cluster:mi355x-amds", None, "resolves to 1799"),
    ("runners.yaml wins over the option", 0.2994, "cluster:mi355x-amds",
     "hardware:\n  cluster:mi355x-amds:\n    available-cpu-dram-mib: 1_000_000\n    gpus-per-node: 8\n", "resolves to 313"),
    ("cap applies to large hosts", 0.2994, "cluster:mi355x-amds",
     "hardware:\n  cluster:mi355x-amds:\n    available-cpu-dram-mib: 9_000_000\n    gpus-per-node: 8\n", None),
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
