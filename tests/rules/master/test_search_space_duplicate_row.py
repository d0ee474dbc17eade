"""RR106 search-space-duplicate-row: the same topology and concurrency benchmarked twice (#1584)."""
from rules import run
from rules.master.checks import search_space_duplicate_row as rr106
from tests.rules.mc_helpers import BASE, ROWS, change_one, master, row

ROW = row("dsv4-fp4-b300-vllm")


def _run(text: str, base: bytes = BASE):
    return run(change_one((ROWS[0], text, ROWS[2]), base=base).changeset, rules=[rr106])


def test_overlapping_rows_of_one_topology_are_a_nit():
    dup = ROW + "      - { tp: 8, ep: 1, conc-list: [32, 64, 128] }\n"
    [f] = _run(dup).findings
    assert (f.code, f.blocking) == ("RR106", False)
    assert "`fixed-seq-len[0].search-space[1]` repeats the topology of row `fixed-seq-len[0].search-space[0]`" in f.message
    assert "concurrencies 32, 64 run twice" in f.message  # ep: 1 is the default: same topology
    assert f.line == ROWS[0].count("\n") + 1 + dup.count("\n")  # the repeated row, after one blank line


def test_different_topologies_or_disjoint_concurrencies_pass():
    ok = ROW + "      - { tp: 4, conc-list: [32, 64] }\n      - { tp: 8, conc-list: [128, 256] }\n"
    r = _run(ok)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_duplicates_already_at_base_are_not_this_prs():
    dup = ROW + "      - { tp: 8, conc-list: [64] }\n"
    base = master(ROWS[0], dup, ROWS[2])
    assert _run(dup.replace("v0.20.1", "v0.21.0"), base=base).findings == []


def test_a_row_repeating_two_earlier_rows_names_both_in_one_finding():
    three = (ROW + "      - { tp: 8, conc-list: [512] }\n"
             "      - { tp: 8, conc-list: [64, 512] }\n")
    [f] = _run(three).findings
    assert ("row `fixed-seq-len[0].search-space[2]` repeats the topology of row `fixed-seq-len[0].search-space[0]` "
            "(concurrency 64) and row `fixed-seq-len[0].search-space[1]` (concurrency 512), so 2 concurrencies run twice"
            in f.message)
