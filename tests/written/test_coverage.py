"""Coverage of the written rules (rules/written.py) as data: each declared ID has fixtures that prove it.

For every ID some rule declares in `ENFORCES`: each `violation…` case of the ID makes at least one
of the declaring rules fire, each `control…` case makes none of them fire, and every declaring rule
fires on at least one violation case of that ID. A fixture directory whose ID no rule declares, or
that is not a known ID, is an error too (a fixture that tests nothing).
"""
import pytest

from rules.registry import ALL_RULES
from rules.runner import CRASH_CODE
from rules.written import WRITTEN
from tests.written.harness import CASE_KINDS, cases, declarations, enforcing, fired, fixture_ids, review

DECLARED = sorted({rid for _, rid in declarations()}, key=lambda i: (i[0], int(i[1:])))
CASES = cases()


def _codes(rid):
    return {r.CODE for r in enforcing(rid)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_case(case):
    assert case.rid in WRITTEN, f"fixtures/{case.rid}: not an ID of rules/written.py"
    assert case.kind, f"fixtures/{case.label}: a case name starts with one of {CASE_KINDS}"
    assert (case.path / "head").is_dir() or (case.path / "base").is_dir(), f"fixtures/{case.label}: no base/ or head/"
    codes = _codes(case.rid)
    assert codes, f"fixtures/{case.label}: no rule declares ENFORCES = ({case.rid!r},)"
    report = review(case)
    crashed = fired(report).get(CRASH_CODE)
    assert not crashed, f"{case.label}: a rule crashed: {crashed}"
    got = {c: v for c, v in fired(report).items() if c in codes}
    if case.kind == "violation":
        assert got, (f"{case.label}: a violation case, but none of {sorted(codes)} fired "
                     f"(checks: {[(c.name, c.status, c.detail) for c in report.checks]})")
    else:
        assert not got, f"{case.label}: a control case, but {got} fired"


@pytest.mark.parametrize("rid", DECLARED)
def test_every_declaration_is_proven(rid):
    """Each (rule, ID): a violation case where that rule fires, and a control case of the ID."""
    mine = cases(rid)
    assert any(c.kind == "control" for c in mine), f"{rid}: no control case under tests/written/fixtures/{rid}/"
    violations = [c for c in mine if c.kind == "violation"]
    assert violations, f"{rid}: no violation case under tests/written/fixtures/{rid}/"
    fires = set()
    for c in violations:
        fires |= set(fired(review(c)))
    for rule in enforcing(rid):
        assert rule.CODE in fires, f"{rid}: {rule.CODE} declares it but fires on none of its violation cases"


def test_no_orphan_fixtures():
    orphans = sorted(fixture_ids() - set(DECLARED))
    assert not orphans, f"fixtures for IDs no rule declares: {orphans}"


def test_declarations_name_written_ids():
    for rule in ALL_RULES:
        for rid in getattr(rule, "ENFORCES", ()):
            assert rid in WRITTEN, f"{rule.CODE}: ENFORCES names {rid!r}, not an ID of rules/written.py"
