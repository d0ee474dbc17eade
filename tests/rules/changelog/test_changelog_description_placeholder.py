"""RR017 changelog-description-placeholder: empty, placeholder and do-not-merge description items."""
import pytest

from rules.changelog.checks import changelog_description_placeholder as rr017
from tests.rules.changelog_helpers import BASE, REPO, append, review

LINK = f"https://github.com/{REPO}/pull/4867"


def _entry(*items: str) -> str:
    body = "".join(f"    - {i}\n" for i in items)
    return f"- config-keys:\n    - dsv4-fp4-b200-vllm\n  description:\n{body}  pr-link: {LINK}\n"


@pytest.mark.parametrize("item, why", [
    ('""', "is empty"),
    ('" "', "is empty"),
    ("test", "is the placeholder `test`"),
    ('"TBD"', "is the placeholder `TBD`"),
    ("xxx", "is the placeholder `xxx`"),
    ('"DO NOT MERGE"', "is a temporary note (`DO NOT MERGE`) that says nothing else"),
    ('"TEMP: test"', "is a temporary note (`TEMP:`) that says nothing else"),
    ('"[WIP] TBD"', "is a temporary note (`[WIP]`) that says nothing else"),
    ('"Testing, do not merge"', "is a temporary note (`do not merge`) that says nothing else"),
], ids=["empty", "blank", "test", "tbd", "xxx", "dnm-alone", "temp-test", "wip-tbd", "testing-dnm"])
def test_placeholder_items_are_nits(item, why):
    head = append(BASE, _entry('"Bump vLLM to v0.20.1"', item))
    [f] = review(BASE, head, rr017).findings
    assert (f.code, f.blocking) == ("RR017", False)  # no gate rejects it: a nit (notes/proof.md)
    assert f"Description item 2 of the entry for `dsv4-fp4-b200-vllm` {why}." in f.message
    assert f.line == head.count("\n") - 1  # the second item's line


def test_the_message_claims_no_contract():
    """Early commits had no written contract about descriptions; the message cites none (issue 21)."""
    [f] = review(BASE, append(BASE, _entry("test")), rr017).findings
    assert f.message.endswith("is the placeholder `test`. Both gates accept this.")
    assert "contract" not in f.message


@pytest.mark.parametrize("item", [
    '"[DO NOT MERGE — experimental] Smoke test of the fused all-reduce patch at conc 4 and 8, with one 8k1k row '
    'for an eval"',
    '"One-job power validation on the idle pool, trimmed to one concurrency. Run-only PR; do not merge."',
    '"TEMP redo of the TP4 points for the earlier image bump"',
    '"[WIP] power checks on the spare runner"',
], ids=["experimental-tag", "run-only-do-not-merge", "temp-with-content", "wip-with-content"])
def test_a_marker_on_a_description_that_says_something_is_not_a_placeholder(item):
    """#1770-#1773, #1791: a deliberate not-for-merge tag on a full description tells the reader what it is."""
    r = review(BASE, append(BASE, _entry(item)), rr017)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_another_prs_entry_is_not_judged():
    """#671: a squashed merge of main puts main's entries in the PR's diff; they are not its writing."""
    theirs = _entry("test").replace("pull/4867", "pull/4000")
    assert review(BASE, append(BASE, theirs), rr017).findings == []
    [f] = review(BASE, append(BASE, _entry("test")), rr017).findings  # control: this PR's own entry
    assert "is the placeholder `test`" in f.message


def test_an_existing_entry_moved_is_not_judged():
    """#1161: an existing entry re-linked or moved is history, not a new description."""
    old = _entry("test").replace("pull/4867", "pull/4690")
    base = old + "\n" + BASE
    head = append(BASE, _entry("test"))  # moved from the top to the end, and re-linked to this PR
    assert review(base, head, rr017).findings == []
    [f] = review(BASE, head, rr017).findings  # control: the same entry where the base never had it
    assert "is the placeholder `test`" in f.message


@pytest.mark.parametrize("item", ['"Bump vLLM image from v0.20.0 to v0.20.1"', '"Add tp4 rows for testing of MTP"',
                                  '"Temperature sweep at 0.6"'], ids=["bump", "testing-in-prose", "temperature"])
def test_descriptive_items_pass(item):
    r = review(BASE, append(BASE, _entry(item)), rr017)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_only_new_entries_are_read():
    base = append(BASE, _entry("test").replace("4867", "4000"))
    assert review(base, append(base, _entry('"real change"')), rr017).findings == []
