"""Meta-tests: every rule module is registered, documented, and has a test file."""
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import rules.checks
from rules.config import RuleOptions
from rules.engine import doc_sections
from rules.finding import Severity
from rules.registry import ALL_RULES, by_code

MODULES = sorted(m.name for m in pkgutil.iter_modules(rules.checks.__path__))
TESTS = Path(__file__).parent


def test_every_module_is_registered():
    registered = {r.__name__.rsplit(".", 1)[1] for r in ALL_RULES}
    assert set(MODULES) == registered


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


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.CODE)
def test_rule_has_tests(rule):
    module = rule.__name__.rsplit(".", 1)[1]
    assert (TESTS / f"test_{module}.py").exists(), f"tests/rules/test_{module}.py is missing"


def test_codes_and_names_unique():
    codes = [r.CODE for r in ALL_RULES]
    names = [r.NAME for r in ALL_RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
