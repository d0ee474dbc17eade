"""rules.master.matrix: the generator's expansion, counted without running it."""
import pytest

from rules.master.matrix import conc_values, expand_key, row_topology

SN = {"multinode": False, "runner": "b200", "scenarios": {"fixed-seq-len": [
    {"isl": 1024, "osl": 1024, "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 64},
                                                {"tp": 4, "conc-list": [1, 2]}]},
    {"isl": 8192, "osl": 1024, "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 64}]}]}}
MN = {"multinode": True, "scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [
    {"prefill": {"num-worker": 1, "tp": 4}, "decode": {"num-worker": 1, "tp": 8}, "conc-list": [8, 64, 256]},
    {"prefill": {"num-worker": 2, "tp": 4}, "decode": {"num-worker": 1, "tp": 8}, "conc-list": [512]}]}]}}


@pytest.mark.parametrize("row, concs", [
    ({"conc-start": 4, "conc-end": 48}, [4, 8, 16, 32, 48]),
    ({"conc-start": 2, "conc-end": 2}, [2]),
    ({"conc-list": [3, 1, 2]}, [3, 1, 2]),
    ({"conc-start": 0, "conc-end": 8}, []),
    ({"conc-start": 1, "conc-end": 10**9}, [2**k for k in range(30)] + [10**9]),
], ids=["clamped-doubling", "one-point", "list-as-written", "zero-start", "huge-range-bounded"])
def test_conc_values_follow_the_generator(row, concs):
    assert conc_values(row) == concs


def test_single_node_jobs_and_evals():
    k = expand_key("k", SN)
    assert (k.rows, k.throughput) == (3, 5 + 2 + 5)
    assert k.evals == 2  # 8k1k only: highest (64) and median (16) concurrency
    assert k.arithmetic() == "`k`: 3 rows, 12 concurrency points = 12 jobs + 2 eval jobs"


def test_multi_node_rows_are_one_job_each():
    k = expand_key("m", MN)
    assert (k.rows, k.throughput, k.evals) == (2, 2, 2)
    assert k.arithmetic().startswith("`m`: 2 rows (one job each, 4 concurrencies) = 2 jobs")


def test_scenario_filter_and_old_layout():
    assert expand_key("k", SN, scenarios=("agentic-coding",)).jobs == 0
    old = {"multinode": False, "seq-len-configs": SN["scenarios"]["fixed-seq-len"]}
    assert expand_key("k", old).throughput == 12


def test_topology_applies_defaults():
    assert row_topology({"tp": 8, "conc-list": [1]}) == row_topology({"tp": 8, "ep": 1, "pp": 1, "conc-start": 4})
    assert row_topology({"tp": 8}) != row_topology({"tp": 8, "dp-attn": True})
