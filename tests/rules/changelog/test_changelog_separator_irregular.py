"""RR007 changelog-separator-irregular: one empty line around new entries (blocking); history untouched."""
import pytest

from rules.changelog.checks import changelog_separator_irregular as rr007
from tests.rules.changelog_helpers import BASE, NEW, apply_suggestion, entry, insert_before, review

SECOND = entry("dsv4-fp4-b300-vllm", 4867)


@pytest.mark.parametrize("head", [
    BASE + "\n" + NEW,
    BASE + "\n" + NEW + "\n" + SECOND,
    insert_before(BASE, 1),      # spliced right below the historical "  " separator line
    insert_before(BASE, 2),      # below the historical "  \n\n"
], ids=["append", "two-appends", "splice-below-ws-line", "splice-below-ws-and-empty"])
def test_regular_separators_and_untouched_history_pass(head):
    r = review(BASE, head, rr007)
    assert r.findings == [] and r.checks[0].status == "passed"


GOOD = BASE + "\n" + NEW + "\n" + SECOND
CASES = [
    ("no-empty-line-above", BASE + NEW, "has no empty line above it"),
    ("two-empty-lines-above", BASE + "\n\n" + NEW, 'is `"\\n\\n"`, not one empty line'),
    ("ws-line-above", BASE + "  \n" + NEW, 'is `"  \\n"`, not one empty line'),
    ("no-empty-line-between-new", BASE + "\n" + NEW + SECOND, "has no empty line below it"),
    ("ws-line-between-new", BASE + "\n" + NEW + "  \n" + SECOND, 'is `"  \\n"`, not one empty line'),
    ("two-lines-between-new", BASE + "\n" + NEW + "\n\n" + SECOND, 'is `"\\n\\n"`, not one empty line'),
]


MERGE_REJECTS = " The PR-run check passes this; the merge path rejects it at merge."


@pytest.mark.parametrize("head, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_irregular_new_separators_are_blocking_with_the_gate_and_an_exact_suggestion(head, message):
    r = review(BASE, head, rr007)
    assert len(r.findings) == 1
    f = r.findings[0]
    assert f.code == "RR007" and f.blocking and message in f.message
    assert f.message.endswith(MERGE_REJECTS)  # the PR-run check passes every one of these (real: #1994, #2184)
    assert any(e.startswith("merge path (today's tooling): `") for e in f.evidence)
    fixed = apply_suggestion(head, f)
    assert fixed in (GOOD, BASE + "\n" + NEW)


def test_whitespace_only_line_inside_a_new_entry_is_not_a_separator():
    new = NEW.replace("  description:", "  \n  description:")
    assert review(BASE, BASE + "\n" + new, rr007).findings == []  # RR016's nit


def test_base_ending_with_a_whitespace_line_keeps_it_and_wants_one_empty_line_more():
    base = BASE + "  \n"
    ok = review(base, base + "\n" + NEW, rr007)
    assert ok.findings == []
    head = base + NEW
    f = review(base, head, rr007).findings[0]
    assert "directly follows the historical whitespace-only separator" in f.message
    assert apply_suggestion(head, f) == base + "\n" + NEW  # the historical "  " line stays


def test_base_ending_with_an_empty_line_needs_nothing_more():
    base = BASE + "\n"
    assert review(base, base + NEW, rr007).findings == []
    f = review(base, base + "\n" + NEW, rr007).findings[0]
    assert apply_suggestion(base + "\n" + NEW, f) == base + NEW


def test_misplaced_entry_without_empty_line_below():
    from tests.rules.changelog_helpers import starts
    at = starts(BASE)[4]
    head = BASE[:at] + NEW + BASE[at:]
    f = review(BASE, head, rr007).findings[0]
    assert "has no empty line below it" in f.message
    # below a misplaced entry the merge path never gets to the separator (RR001's "entry N changed")
    assert f.message.endswith("Both gates accept this; only the documented contract (entries separated by exactly "
                              "one empty line) forbids it.")
    assert apply_suggestion(head, f) == insert_before(BASE, 4)


def test_a_rewritten_historical_separator_is_rr002s_not_rr007s():
    base = BASE + "  \n"
    r = review(base, BASE + "\n" + NEW, rr007)  # "  \n" at the end of base became "\n"
    assert r.findings == []


def test_passed_check_names_the_expected_separator():
    r = review(BASE, BASE + "\n" + NEW, rr007)
    assert r.checks[0].detail.endswith('(expected "\\n" after the base bytes)')


# Issue 21: an entry spliced between two existing entries is RR001's finding; when the separator
# next to it is irregular only because of the bytes the base already had between those entries
# (and what the PR wrote itself is one empty line), moving the entry fixes both.
def _splice_after(text: str, index: int, new: str, above: str, below: str) -> str:
    """Insert `above` + `new` + `below` right after entry `index`'s last line (before the base's separator)."""
    from tests.rules.changelog_helpers import starts
    at = text.index("\n", text.index("pr-link:", starts(text)[index])) + 1
    return text[:at] + above + new + below + text[at:]


def test_historical_whitespace_line_below_a_misplaced_entry_is_rr001s():
    from rules.changelog.checks import changelog_entry_misplaced as rr001
    # BASE has a historical "  " line between its first two entries; the PR put its entry, with one
    # empty line above and one below, above that line.
    head = _splice_after(BASE, 0, NEW, "\n", "\n")
    r = review(BASE, head, rr007, rr001)
    assert [f.code for f in r.findings] == ["RR001"]
    assert r.in_base == []


def test_historical_ws_and_empty_line_below_a_misplaced_entry_is_rr001s():
    head = _splice_after(BASE, 1, NEW, "\n", "\n")  # "  \n\n" after the second entry now sits below NEW
    assert review(BASE, head, rr007).findings == []


def test_a_whitespace_line_the_pr_wrote_next_to_a_misplaced_entry_still_fires():
    head = _splice_after(BASE, 0, NEW, "\n", "  \n")  # the PR's own "  " line, then the base's
    r = review(BASE, head, rr007)
    assert len(r.findings) == 1 and r.findings[0].blocking
    assert 'The separator below new entry' in r.findings[0].message


def test_a_separator_the_pr_wrote_between_regular_base_bytes_still_fires():
    from tests.rules.changelog_helpers import starts
    at = starts(BASE)[4]  # one empty line between entries 3 and 4 at base
    head = BASE[:at] + NEW + "  \n" + BASE[at:]
    r = review(BASE, head, rr007)
    assert len(r.findings) == 1 and '`"  \\n"`' in r.findings[0].message


def test_an_appended_entry_with_a_bad_separator_still_fires():
    r = review(BASE, BASE + "  \n" + NEW, rr007)
    assert len(r.findings) == 1 and r.findings[0].blocking


def test_a_splice_that_also_drops_a_historical_line_is_not_clean():
    # The PR inserts its entry above the historical "  \n\n" and drops the "  " line: the separator
    # below it is irregular through the PR's edit of base bytes, not the splice alone.
    from tests.rules.changelog_helpers import starts
    at = starts(BASE)[2]
    cut = BASE[:at].rstrip(" \n") + "\n"  # "...pull/4710\n" without the "  \n\n" that followed it
    head = cut + "\n" + NEW + "\n\n" + BASE[at:]
    r = review(BASE, head, rr007)
    assert len(r.findings) == 1 and 'is `"\\n\\n"`, not one empty line' in r.findings[0].message
