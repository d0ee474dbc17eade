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
    ('"TEMP T3 redo for PR #1503 — DO NOT MERGE"', "is a temporary note"),
    ('"Run-only PR; do not merge"', "is a temporary note (`do not merge`)"),
    ('"[WIP] power checks"', "is a temporary note"),
], ids=["empty", "blank", "test", "tbd", "xxx", "temp-dnm", "do-not-merge", "wip"])
def test_placeholder_items_are_nits_and_contract_only(item, why):
    head = append(BASE, _entry('"Bump vLLM to v0.20.1"', item))
    [f] = review(BASE, head, rr017).findings
    assert (f.code, f.blocking) == ("RR017", False)  # no gate rejects it: a nit (notes/proof.md)
    assert f"Description item 2 of the entry for `dsv4-fp4-b200-vllm` {why}" in f.message
    assert f.line == head.count("\n") - 1  # the second item's line
    assert f.message.endswith("Both gates accept this; only the documented contract (the entry documents what "
                              "changed) forbids it.")


@pytest.mark.parametrize("item", ['"Bump vLLM image from v0.20.0 to v0.20.1"', '"Add tp4 rows for testing of MTP"',
                                  '"Temperature sweep at 0.6"'], ids=["bump", "testing-in-prose", "temperature"])
def test_descriptive_items_pass(item):
    r = review(BASE, append(BASE, _entry(item)), rr017)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_only_new_entries_are_read():
    base = append(BASE, _entry("test").replace("4867", "4000"))
    assert review(base, append(base, _entry('"real change"')), rr017).findings == []
