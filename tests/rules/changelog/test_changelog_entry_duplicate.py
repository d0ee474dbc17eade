"""RR020 changelog-entry-duplicate: same keys twice in one PR, or a copy of an existing entry (#327)."""
from rules.changelog.checks import changelog_entry_duplicate as rr020
from tests.rules.changelog_helpers import BASE, NEW, entry, review

SAME_KEYS = entry("dsv4-fp4-b200-vllm", 4867, "Second description of the same change")


def test_second_new_entry_with_the_same_keys_is_a_nit():
    head = BASE + "\n" + NEW + "\n" + SAME_KEYS
    [f] = review(BASE, head, rr020).findings
    assert (f.code, f.blocking) == ("RR020", False)
    assert "selects the same keys as the new entry at line" in f.message and "runs no additional sweep jobs" in f.message


def test_same_keys_for_different_scenarios_are_distinct():
    agentic = SAME_KEYS.replace("  description:", "  scenario-type:\n    - agentic-coding\n  description:")
    r = review(BASE, BASE + "\n" + NEW + "\n" + agentic, rr020)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_copy_of_an_existing_entry_apart_from_its_link():
    copy = entry("dsv4-fp8-h200-vllm", 4867)  # BASE's last entry (#4720) with this PR's link
    [f] = review(BASE, BASE + "\n" + copy, rr020).findings
    assert "is a copy of existing entry #4720" in f.message


def test_distinct_entries_pass():
    other = entry("dsv4-fp4-b300-vllm", 4867, "Enable the FP4 MoE kernels")
    r = review(BASE, BASE + "\n" + NEW + "\n" + other, rr020)
    assert r.findings == [] and "distinct" in r.checks[0].detail


def test_copy_found_when_only_trailing_whitespace_differs():
    copy = entry("dsv4-fp8-h200-vllm", 4867).replace("Bump the image\"", "Bump the image\"  ")
    [f] = review(BASE, BASE + "\n" + copy, rr020).findings
    assert "is a copy of existing entry #4720" in f.message
