"""RR016 changelog-whitespace-only-line: lines of spaces inside or after new entries are a nit."""
import pytest

from rules.changelog.checks import changelog_whitespace_only_line as rr016
from tests.rules.changelog_helpers import BASE, NEW, apply_suggestion, review


def test_whitespace_only_line_inside_a_new_entry_is_a_nit_with_a_suggestion():
    new = NEW.replace("  description:", "  \n  description:")
    head = BASE + "\n" + new
    [f] = review(BASE, head, rr016).findings
    assert (f.code, f.blocking) == ("RR016", False)
    assert 'is whitespace-only (`"  "`)' in f.message
    # No written rule forbids such lines at any commit: the message cites no contract (issue 21).
    assert f.message.endswith('(`"  "`). Both gates accept this.') and "contract" not in f.message
    assert apply_suggestion(head, f) == BASE + "\n" + NEW.replace("  description:", "\n  description:")


def test_whitespace_only_line_after_the_last_entry():
    head = BASE + "\n" + NEW + "   \n"
    [f] = review(BASE, head, rr016).findings
    assert "after the last new entry" in f.message and f.line == head.count("\n")
    assert f.suggestion is None and "Remove the line" in f.fix


@pytest.mark.parametrize("head", [BASE + "\n" + NEW, BASE + "\n" + NEW.replace("  description:", "\n  description:")],
                         ids=["clean", "empty-line-inside"])
def test_clean_new_text_passes(head):
    r = review(BASE, head, rr016)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_historical_whitespace_lines_are_not_flagged():
    assert "  \n" in BASE  # the helper's base has two historical "  " separators
    assert review(BASE, BASE + "\n" + NEW, rr016).findings == []
