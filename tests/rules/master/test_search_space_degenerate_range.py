"""RR107 search-space-degenerate-range: a range the PR narrows to one point (#1002)."""
from rules import run
from rules.master.checks import search_space_degenerate_range as rr107
from tests.rules.mc_helpers import ROWS, change_one, row

ROW = row("dsv4-fp4-b300-vllm")


def _run(text: str):
    return run(change_one((ROWS[0], text, ROWS[2])).changeset, rules=[rr107])


def test_range_narrowed_to_one_point_is_a_nit():
    [f] = _run(ROW.replace("conc-start: 4, conc-end: 64", "conc-start: 2, conc-end: 2")).findings
    assert (f.code, f.blocking) == ("RR107", False)
    assert "now has `conc-start` = `conc-end` = 2: a one-point range where the base swept 4–64 (5 points)" in f.message
    assert "conc-list: [2]" in f.fix


def test_new_one_point_rows_and_lists_pass():
    extra = ROW + "      - { tp: 4, conc-start: 32, conc-end: 32 }\n"  # a new row: deliberate, common
    assert _run(extra).findings == []
    assert _run(ROW.replace("conc-start: 4, conc-end: 64", "conc-list: [2]")).findings == []


# --- Precision (issue 21) -----------------------------------------------------------------------

def _rows(*lines: str) -> str:
    return ROW.replace("      - { tp: 8, conc-start: 4, conc-end: 64 }\n", "".join(f"      - {x}\n" for x in lines))


def _run_from(base_rows: tuple[str, ...], head_rows: tuple[str, ...]):
    from tests.rules.mc_helpers import master
    base = master(ROWS[0], _rows(*base_rows), ROWS[2])
    return run(change_one((ROWS[0], _rows(*head_rows), ROWS[2]), base=base).changeset, rules=[rr107])


def test_a_split_adds_a_one_point_row_it_does_not_narrow_one():
    # #1384: one range split into 256-1024 and a new one-point 4096 row (two rows of the topology now)
    r = _run_from(("{ tp: 8, conc-start: 256, conc-end: 4096 }",),
                  ("{ tp: 8, conc-start: 256, conc-end: 1024 }", "{ tp: 8, conc-start: 4096, conc-end: 4096 }"))
    assert r.findings == [], r.findings


def test_rows_are_paired_by_identity_not_by_the_first_row_of_a_topology():
    # #1214: two base rows of one topology, unchanged by a format migration: nothing was narrowed
    rows = ("{ tp: 1, conc-start: 4, conc-end: 32 }", "{ tp: 1, conc-start: 256, conc-end: 256 }")
    assert _run_from(rows, tuple(r.replace("tp: 1,", "tp: 1, ep: 1,") for r in rows)).findings == []


def test_points_moved_to_another_parallelism_are_not_a_lost_curve():
    # #632: the top point stays at TP8, the rest moves to a TP4 row
    r = _run_from(("{ tp: 8, conc-start: 4, conc-end: 64 }",),
                  ("{ tp: 8, conc-start: 64, conc-end: 64 }", "{ tp: 4, conc-start: 4, conc-end: 32 }"))
    assert r.findings == [], r.findings


def test_a_narrowing_that_drops_points_no_row_runs_is_still_flagged():
    # control (#411): TP8 4-64 becomes 4-4, the new TP4 row stops at 16: 32 and 64 are gone
    r = _run_from(("{ tp: 8, conc-start: 4, conc-end: 64 }",),
                  ("{ tp: 8, conc-start: 4, conc-end: 4 }", "{ tp: 4, conc-start: 4, conc-end: 16 }"))
    [f] = r.findings
    assert "a one-point range where the base swept 4–64 (5 points)" in f.message
    assert any("runs 32, 64 for these sequence lengths" in e for e in f.evidence), f.evidence
