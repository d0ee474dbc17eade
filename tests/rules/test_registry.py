"""Meta-tests: every rule module is registered, documented, and has a test file."""
import pkgutil
import re
from pathlib import Path

import pytest

import rules
from rules.config import RuleOptions
from rules.finding import Severity
from rules.registry import ALL_RULES, by_code
from rules.runner import doc_sections
from rules.written import WRITTEN, proof_problem

ROOT = Path(rules.__file__).parent
# Every rule module of every domain: rules/<domain>/checks/<name>.py.
MODULES = sorted(f"rules.{d.parent.name}.checks.{m.name}" for d in ROOT.glob("*/checks")
                 for m in pkgutil.iter_modules([str(d)]))
TESTS = Path(__file__).parent


def test_every_module_is_registered():
    registered = {r.__name__ for r in ALL_RULES}
    assert MODULES and set(MODULES) == registered


def test_rules_live_in_a_domain_checks_package():
    for rule in ALL_RULES:
        assert re.fullmatch(r"rules\.[a-z_]+\.checks\.[a-z0-9_]+", rule.__name__), rule.__name__


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.CODE)
def test_rule_contract(rule):
    assert re.fullmatch(r"RR\d{3}", rule.CODE)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.NAME)
    assert rule.__name__.rsplit(".", 1)[1] == rule.NAME.replace("-", "_"), "module is named after NAME"
    assert isinstance(rule.SEVERITY, Severity)
    assert issubclass(getattr(rule, "Options", RuleOptions), RuleOptions)
    assert callable(rule.check)
    sections = doc_sections(rule)
    assert sections["summary"].startswith("Flags "), "summary line starts with 'Flags'"
    for name in ("Why it matters", "Example", "Fix"):
        assert sections.get(name, "").strip(), f"docstring lacks a '## {name}' section"
    assert by_code(rule.CODE) is rule and by_code(rule.NAME) is rule
    plural = getattr(rule, "PLURAL", None)  # optional: "<n> <PLURAL>: `a`, `b` …" heads a grouped comment
    if plural is not None:
        assert isinstance(plural, str) and plural[:1].islower() and not plural.endswith("."), plural


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.CODE)
def test_rule_has_tests(rule):
    _, domain, _, module = rule.__name__.split(".")
    assert (TESTS / domain / f"test_{module}.py").exists(), f"tests/rules/{domain}/test_{module}.py is missing"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.CODE)
def test_a_blocking_rule_declares_its_proof(rule):
    """The rule of proof (notes/proof.md): blocking only with a gate, the engine or a written rule behind it."""
    proof = getattr(rule, "PROOF", None)
    if rule.SEVERITY is Severity.BLOCKING:
        assert proof is not None, f"{rule.CODE} is blocking but declares no PROOF"
        assert proof_problem(proof) is None, proof_problem(proof)
    else:
        assert proof is None, f"{rule.CODE} is a nit: a PROOF would claim more than it reports"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.CODE)
def test_enforces_names_written_rules(rule):
    """`ENFORCES` (issue 22): a tuple of rules/written.py IDs; a `written:<ID>` PROOF is one of them."""
    enforces = getattr(rule, "ENFORCES", ())
    assert isinstance(enforces, tuple) and all(isinstance(i, str) for i in enforces), (
        f"{rule.CODE}: ENFORCES is a tuple of IDs"
    )
    assert len(set(enforces)) == len(enforces), f"{rule.CODE}: ENFORCES repeats an ID"
    for rid in enforces:
        assert rid in WRITTEN, f"{rule.CODE}: ENFORCES names {rid!r}, which rules/written.py does not list"
    proof = getattr(rule, "PROOF", None) or ""
    if proof.startswith("written:"):
        assert proof.split(":", 1)[1] in enforces, f"{rule.CODE}: PROOF {proof!r} is not in its ENFORCES {enforces}"


@pytest.mark.parametrize("proof,ok", [
    ("gate", True), ("engine", True), ("written:A2", True), ("written:F4", True),
    ("written:A15", False),  # a nit of the repository cannot make a finding blocking
    ("written:Z1", False), ("written:A99", False), ("sibling-majority", False), ("", False), (3, False),
])
def test_proof_values(proof, ok):
    assert (proof_problem(proof) is None) is ok


def test_codes_and_names_unique():
    codes = [r.CODE for r in ALL_RULES]
    names = [r.NAME for r in ALL_RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)


def test_no_rule_module_imports_another():
    """Rules share analyses (a domain's analysis module), never each other's code."""
    import ast

    bad = []
    for rule in ALL_RULES:
        tree = ast.parse(Path(rule.__file__).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and ".checks" in node.module:
                bad.append(f"{rule.__name__} imports {node.module}")
    assert not bad
