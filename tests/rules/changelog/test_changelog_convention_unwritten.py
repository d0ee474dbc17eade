"""RR026 changelog-convention-unwritten: what the blocking changelog rules cannot prove, as a nit."""
from rules.changelog.checks import changelog_convention_unwritten as rr026
from rules.changelog.checks import changelog_entry_misplaced as rr001
from rules.changelog.checks import changelog_history_changed as rr002
from tests.rules.changelog.test_written_contracts import SILENT, STATES, _review
from tests.rules.changelog_helpers import BASE, NEW, insert_before


def test_what_the_blocking_rules_cannot_prove_is_a_convention_nit():
    head = insert_before(BASE, 3)
    [f] = _review(BASE, head, [rr001, rr026], SILENT).findings
    assert (f.code, f.blocking) == ("RR026", False)
    assert "Neither gate rejects this" in f.message and "does not write this convention down" in f.message
    # control: with the convention written at the base it is RR001's blocking finding, not a nit
    assert [x.code for x in _review(BASE, head, [rr001, rr026], STATES).findings] == ["RR001"]
    # it reports only what the rules it receives from find: alone it says nothing
    assert _review(BASE, head, [rr026], SILENT).findings == []
    # a re-spaced separator in the history, before the repository wrote "append-only" down
    respaced = BASE.replace("\n\n- config-keys:", "\n  \n- config-keys:", 1) + "\n" + NEW
    assert [x.code for x in _review(BASE, respaced, [rr002, rr026], SILENT).findings] == ["RR026"]
    assert [x.code for x in _review(BASE, respaced, [rr002], SILENT).findings] == []
