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
    assert (
        "`fixed-seq-len[0].search-space[1]` repeats the topology of row `fixed-seq-len[0].search-space[0]`" in f.message
    )
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
    assert (
        "row `fixed-seq-len[0].search-space[2]` repeats the topology of row `fixed-seq-len[0].search-space[0]` "
        "(concurrency 64) and row `fixed-seq-len[0].search-space[1]` (concurrency 512), so 2 concurrencies run twice"
        in f.message
    )


# --- Precision (issue 21) -----------------------------------------------------------------------
# Rows that differ in the workers' additional-settings are different deployments (#274: DEP48 and
# DEP32 decode at one concurrency; #1217: another recipe file), not a benchmark run twice.

def _disagg(decode_nodes: str, recipe: str, concs: str) -> str:
    return (f"      - conc-list: {concs}\n"
            "        prefill:\n"
            "          num-worker: 1\n          tp: 4\n          ep: 4\n          dp-attn: true\n"
            "          additional-settings:\n"
            f"          - \"CONFIG_FILE=recipes/{recipe}\"\n"
            "        decode:\n"
            "          num-worker: 1\n          tp: 8\n          ep: 8\n          dp-attn: true\n"
            "          additional-settings:\n"
            f"          - \"DECODE_NODES={decode_nodes}\"\n")


MN = row("dsr1-fp4-gb200-dynamo-sglang").replace("      - { tp: 8, conc-start: 4, conc-end: 64 }\n", "")


def test_rows_with_other_node_counts_or_recipes_are_different_deployments():
    nodes = MN + _disagg("12", "mid.yaml", "[1024, 8192]") + _disagg("8", "mid.yaml", "[8192, 12000]")
    recipe = MN + _disagg("8", "max-tpt.yaml", "[4096]") + _disagg("8", "max-tpt-megamoe.yaml", "[4096]")
    for text in (nodes, recipe):
        r = _run(text)
        assert r.findings == [], r.findings


def test_rows_equal_in_everything_but_concurrency_still_run_twice():
    # control (#1584): a row edited into a copy of its neighbour, settings included
    same = MN + _disagg("2", "tp8.yaml", "[2, 4, 8, 16, 32]") + _disagg("2", "tp8.yaml", "[32, 64]")
    [f] = _run(same).findings
    assert "concurrency 32 run twice" in f.message, f.message
