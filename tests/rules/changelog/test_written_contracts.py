"""Changelog problems that no gate rejects are blocking only where the base states the contract.

Before the merge path (2026-06-18) most changelog conventions were enforced by nothing; the
repository wrote them down one by one (append at the end: 2026-04-17). A review that read the
base's guidance and found no statement of the contract skips the problem (with the reason); one
that found it cites the statement; one that did not read guidance keeps the contract (no proof
either way is not evidence of absence: that is how the rule behaved before the guidance was read).
"""
import dataclasses
from datetime import UTC, datetime

from rules.changelog.checks import changelog_entry_misplaced as rr001
from rules.changelog.checks import changelog_format_broken as rr006
from rules.changelog.checks import changelog_pr_link_wrong as rr004
from rules.changelog.checks import changelog_separator_irregular as rr007
from rules.runner import run
from tests.rules.changelog_helpers import BASE, NEW, changeset, entry, insert_before

APRIL = int(datetime(2026, 4, 1, tzinfo=UTC).timestamp())
SILENT = b"# Contributing\n\nRun the sweep generator before you push.\n"
STATES = b"# Agents\n\nNew changelog entries must be appended at the end of the file, never inserted mid-file.\n"


def _review(base, head, rule, guidance: bytes | None):
    rules = rule if isinstance(rule, list) else [rule]
    cs = dataclasses.replace(changeset(base, head), base_time=APRIL, base_tip_time=APRIL)
    if guidance is not None:
        cs = dataclasses.replace(cs, base_context={"AGENTS.md": guidance}, base_probed=frozenset({"AGENTS.md"}))
    return run(cs, rules=rules)


def test_an_insertion_before_the_written_rule_is_skipped_with_the_reason():
    r = _review(BASE, insert_before(BASE, 3), rr001, SILENT)
    assert r.findings == []
    [s] = [c for c in r.checks if c.status == "skipped"]
    assert "neither gate rejects this" in s.detail and "does not state the contract" in s.detail


def test_an_insertion_after_the_written_rule_is_blocking_and_cites_it():
    [f] = _review(BASE, insert_before(BASE, 3), rr001, STATES).findings
    assert f.blocking and any(e.startswith("AGENTS.md:3: ") for e in f.evidence)


def test_without_the_guidance_read_the_contract_stands():
    [f] = _review(BASE, insert_before(BASE, 3), rr001, None).findings
    assert f.blocking


def test_trailing_blank_lines_separators_and_links_follow_the_same_proof():
    extra = BASE + "\n" + NEW + "\n\n"
    assert [f.code for f in _review(BASE, extra, rr006, SILENT).findings] == []
    assert [f.code for f in _review(BASE, extra, rr006, None).findings] == ["RR006"]
    glued = BASE + NEW  # no empty line before the new entry
    assert [f.code for f in _review(BASE, glued, rr007, SILENT).findings] == []
    assert [f.code for f in _review(BASE, glued, rr007, None).findings] == ["RR007"]
    other = BASE + "\n" + entry("dsv4-fp4-b200-vllm", 1234)
    assert [f.code for f in _review(BASE, other, rr004, SILENT).findings] == []
    assert [f.code for f in _review(BASE, other, rr004, None).findings] == ["RR004"]


def test_an_entry_of_the_pre_pr_link_shape_is_accepted_where_its_tooling_read_it():
    """Before 2025-12-17 an entry had a free-text description with a `PR:` line and no pr-link."""
    from rules.changelog.checks import changelog_entry_invalid as rr003

    old = "- config-keys:\n    - gptoss-fp4-b200-trt\n  description: |\n    - Add the script\n    PR: https://example.invalid/pull/1\n"
    dec = int(datetime(2025, 12, 10, tzinfo=UTC).timestamp())
    cs = dataclasses.replace(changeset(BASE, BASE + "\n" + old), base_time=dec, base_tip_time=dec)
    r = run(cs, rules=[rr003])
    assert r.findings == [] and any("entry shape of" in c.detail for c in r.checks if c.status == "skipped")
    # control: the same entry against today's tooling is invalid
    assert {f.code for f in run(changeset(BASE, BASE + "\n" + old), rules=[rr003]).findings} == {"RR003"}


def test_a_missing_final_newline_follows_the_same_proof():
    """At a revision whose gates do not check the last byte, the missing newline is blocking only
    where the base writes the one-newline contract down; else it is skipped with the reason."""
    head = (BASE + "\n" + NEW).rstrip("\n")
    r = _review(BASE, head, rr006, SILENT)
    assert r.findings == []
    assert any("missing final newline" in c.detail and "does not state the contract" in c.detail
               for c in r.checks if c.status == "skipped")
    states = b"# Agents\n\nperf-changelog.yaml must end with exactly one newline.\n"
    [f] = [f for f in _review(BASE, head, rr006, states).findings if "does not end with a newline" in f.message]
    assert f.blocking
