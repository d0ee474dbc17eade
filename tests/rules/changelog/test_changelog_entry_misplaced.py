"""RR001 changelog-entry-misplaced: new entries must sit below every existing entry."""
import pytest

from rules.changelog.checks import changelog_entry_misplaced as rr001
from rules.changelog.checks import changelog_history_changed as rr002
from rules.changelog.checks import changelog_separator_irregular as rr007
from tests.rules.changelog_helpers import BASE, NEW, append, entry, insert_before, line_of, review


def test_4867_style_insertion_five_from_the_end():
    head = insert_before(BASE, 3)  # five existing entries stay below it
    r = review(BASE, head, rr001, rr002, rr007)
    assert [(f.code, f.line) for f in r.findings] == [("RR001", line_of(head, NEW))]
    f = r.findings[0]
    total = head.count("\n")
    assert f.blocking and f.end_line == f.line + NEW.count("\n") - 1
    assert f.message == (f"This entry (`dsv4-fp4-b200-vllm`) is at line {f.line:,} of {total:,}; five existing "
                         f"entries (#4833, #4852, #4857, #4799, #4720) sit below it. The PR-run check passes "
                         f"this; the merge path rejects it at merge.")
    assert any(e.startswith("merge path (today's tooling): `entry ") for e in f.evidence)
    assert "physical end of the file, after the #4720 entry" in f.fix
    assert "5-line block (`- config-keys: dsv4-fp4-b200-vllm` … `pr-link: …/pull/4867`)" in f.fix
    assert any(e.startswith("patch hunk `@@ -") for e in f.evidence)
    assert any(f"head has {total:,} lines" in e for e in f.evidence)
    # history intact around the splice: RR002 and RR007 pass (historical "  " separators untouched)
    assert {c.code for c in r.checks if c.status == "passed"} >= {"RR002", "RR007"}


@pytest.mark.parametrize("make_head, expected", [
    (lambda b: append(b), []),
    (lambda b: append(append(b), entry("x-key", 4867)), []),
    (lambda b: insert_before(b, 0), [("RR001", 1)]),
    (lambda b: insert_before(b, 7), [("RR001", None)]),
    (lambda b: append(insert_before(b, 6), entry("tail-key", 4867)), [("RR001", None)]),
    (lambda b: b, []),
], ids=["appended", "two-appended", "prepended", "above-last-entry", "one-misplaced-one-appended", "unchanged"])
def test_placement_table(make_head, expected):
    head = make_head(BASE)
    r = review(BASE, head, rr001)
    got = [(f.code, f.line if e[1] is not None else None) for f, e in zip(r.findings, expected, strict=False)]
    assert got == expected and len(r.findings) == len(expected)


def test_names_only_the_first_entries_below_when_many():
    head = insert_before(BASE, 0)
    f = review(BASE, head, rr001).findings[0]
    assert "eight existing entries (#4700, #4710, #4715, #4833, #4852, #4857, #4799, #4720)" in f.message


def test_added_changelog_has_no_placement_problem():
    r = review(None, BASE, rr001, status="added")
    assert r.findings == [] and r.checks[0].status == "passed"


def test_missing_content_is_skipped_out_loud():
    r = review(BASE, None, rr001)
    assert r.findings == [] and r.checks[0].status == "skipped"
