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
