"""RR014 changelog-append-only-mixed: append-only entries cannot share a PR with regular ones."""
import pytest

from rules.changelog.checks import changelog_append_only_mixed as rr014
from tests.rules.changelog_helpers import BASE, entry, line_of, review

AO = entry("dsv4-fp4-b300-vllm", 4867, "Append TP4 points", extra="  append-only: true\n")
REG = entry("dsv4-fp4-b200-vllm", 4867)
REG_FALSE = entry("dsv4-fp4-h200-vllm", 4867, extra="  append-only: false\n")


@pytest.mark.parametrize("new, flagged", [
    ([AO], []),
    ([AO, AO.replace("b300", "b200")], []),
    ([REG], []),
    ([AO, REG], ["dsv4-fp4-b200-vllm"]),
    ([REG, AO], ["dsv4-fp4-b200-vllm"]),
    ([AO, REG_FALSE], ["dsv4-fp4-h200-vllm"]),
    ([AO, entry("x", 4867, extra='  append-only: "true"\n')], ["x"]),
], ids=["one-append-only", "all-append-only", "regular-only", "mixed", "mixed-regular-first",
        "explicit-false", "string-true-is-not-true"])
def test_append_only_mix(new, flagged):
    head = BASE + "".join("\n" + e for e in new)
    r = review(BASE, head, rr014)
    assert [f.code for f in r.findings] == ["RR014"] * len(flagged)
    for f, key in zip(r.findings, flagged, strict=True):
        assert f"(`{key}`) is not `append-only: true`" in f.message and f.blocking


def test_line_is_the_append_only_key_when_present():
    head = BASE + "\n" + AO + "\n" + REG_FALSE
    f = review(BASE, head, rr014).findings[0]
    assert f.line == line_of(head, "  append-only: false")


def test_history_append_only_entries_do_not_count():
    base = BASE + "\n" + AO
    assert review(base, base + "\n" + REG, rr014).findings == []
