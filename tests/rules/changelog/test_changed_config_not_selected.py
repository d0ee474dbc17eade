"""RR011 changed-config-not-selected: every added or changed key is selected by a new entry."""
import pytest

from rules import run
from rules.changeset import ChangeSet
from rules.changelog.checks import changed_config_not_selected as rule
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, entry, master, modified, patch_for, row

B300_TP4 = row("dsv4-fp4-b300-vllm", tp=4)
GB200 = row("dsv4-fp4-gb200-vllm")


def _run(head_rows, *entries, title=None):
    files = [modified(NV, BASE, master(*head_rows), patch_for([29]))]
    if entries:
        files.append(changelog(*entries))
    return run(ChangeSet(files=tuple(files), title=title), rules=[rule])


@pytest.mark.parametrize("head_rows, entries, unselected", [
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsv4-fp4-b300-vllm")], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"dsv4-*"')], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"*"')], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsr1-fp8-h200-sglang"), entry("dsv4-fp4-b300-vllm")], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsv4-fp4-b200-vllm")], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsv4-fp4-b?00-vllm")], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"dsv4-fp4-b300"')], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"*-b300"')], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((*ROWS, GB200), [entry("dsv4-fp4-b200-vllm")], [("dsv4-fp4-gb200-vllm", 46, "added")]),
    ((ROWS[0], ROWS[2]), [entry("dsv4-fp4-b200-vllm")], []),
    ((ROWS[0], ROWS[1].replace("org/model\n", "org/model  # why\n"), ROWS[2]), [entry("dsv4-fp4-b200-vllm")], []),
], ids=["exact", "wildcard", "bare star", "second entry selects it", "other key selected", "? is literal",
        "exact item is not a prefix", "wildcard must match the whole key", "added key not selected",
        "removed key needs no selection", "comment-only edit is no change"])
def test_selection(head_rows, entries, unselected):
    r = _run(head_rows, *entries)
    assert [(f.message.split("`")[1], f.line, f.message.split(" is ")[1].split()[0]) for f in r.findings] == unselected
    for f in r.findings:
        assert (f.code, f.path, f.blocking) == ("RR011", NV, True) and "no new changelog entry selects it" in f.message
    if not unselected and r.checks:
        assert r.checks[0].status == "passed"


def test_passed_names_the_pattern_that_covered_each_key():
    r = _run((ROWS[0], B300_TP4, ROWS[2], GB200), entry('"dsv4-fp4-b3*"', "dsv4-fp4-gb200-vllm"))
    [c] = r.checks
    assert c.detail == ("2 changed key(s) are selected by new changelog entries: "
                        "dsv4-fp4-b300-vllm (by `dsv4-fp4-b3*`), dsv4-fp4-gb200-vllm")


def test_fix_points_at_the_new_entry():
    [f] = _run((ROWS[0], B300_TP4, ROWS[2]), entry("dsv4-fp4-b200-vllm")).findings
    assert f.fix.startswith("Add `dsv4-fp4-b300-vllm` to `config-keys` of the new entry (perf-changelog.yaml line 13)")
    assert "new entries select: `dsv4-fp4-b200-vllm`" in f.evidence


def test_no_new_entry_is_skipped_for_rr009():
    r = _run((ROWS[0], B300_TP4, ROWS[2]))
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_unparsable_new_entry_skips_instead_of_blocking():
    r = _run((ROWS[0], B300_TP4, ROWS[2]), "- config-keys:\n    - [broken\n")
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_nothing_changed_nothing_reported():
    r = _run(ROWS, entry("dsv4-fp4-b200-vllm"))
    assert r.findings == [] and r.checks == []
