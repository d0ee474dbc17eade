"""`recipe-review new-rule DOMAIN NAME`, run on a temporary copy of the source tree (never on this one)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.new_rule import NewRuleError, add_to_registry, new_rule, next_code, used_codes

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tree(tmp_path) -> Path:
    """rules/ and the package files of tests/rules/, copied: enough to import and test a new rule."""
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "rules", root / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    for d in ("tests", "tests/rules"):
        (root / d).mkdir(parents=True, exist_ok=True)
        (root / d / "__init__.py").write_text("")
    (root / "pytest.ini").write_text("[pytest]\n")  # the copy's own (empty) pytest configuration
    return root


def _highest(root: Path, digit: int) -> int:
    return max(c for c in used_codes(root) if digit * 100 <= c <= digit * 100 + 99)


def test_writes_the_module_the_registry_line_and_a_failing_test_stub(tree, capsys):
    code = f"RR{_highest(tree, 2) + 1:03d}"
    assert main(["new-rule", "recipe", "capture-list-gapped", "--root", str(tree)]) == 0
    assert code in capsys.readouterr().out
    module = (tree / "rules/recipe/checks/capture_list_gapped.py").read_text()
    for section in ("## Why it matters", "## When it fires", "## Example", "## Fix"):
        assert section in module
    assert module.startswith('"""Flags ') and f'CODE = "{code}"' in module and "Severity.NIT" in module
    registry = (tree / "rules/registry.py").read_text()
    assert "    capture_list_gapped,\n)" in registry  # last in ALL_RULES
    assert registry.count("capture_list_gapped,") == 2  # imported and registered

    # In the copy: the registry imports it, the engine runs it, the meta-test contract holds, and
    # the stub's tests fail saying what to write.
    probe = f"""
import sys
from rules.registry import ALL_RULES, by_code
from rules.runner import doc_sections
from rules import ChangeSet, FileChange, run
rule = by_code("{code}")
assert rule in ALL_RULES and rule.NAME == "capture-list-gapped"
s = doc_sections(rule)
assert s["summary"].startswith("Flags ") and all(s.get(k, "").strip() for k in ("Why it matters", "Example", "Fix"))
r = run(ChangeSet(files=(FileChange("benchmarks/x.yaml", "added", head=b"a: 1\\n"),)), rules=[rule])
assert not [f for f in r.findings if f.code == "RR000"], r.findings
"""
    done = subprocess.run([sys.executable, "-c", probe], cwd=tree, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    stub = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/rules/recipe/test_capture_list_gapped.py"],
                          cwd=tree, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    assert stub.returncode == 1, stub.stdout + stub.stderr
    assert "2 failed" in stub.stdout and "write VIOLATION" in stub.stdout and "write CONTROL" in stub.stdout


def test_codes_follow_the_highest_in_the_range_and_are_never_reused(tree):
    assert next_code(tree, "scripts") == f"RR{_highest(tree, 4) + 1:03d}"
    # general and claims share RR3xx
    assert next_code(tree, "general") == next_code(tree, "claims")
    first = new_rule(tree, "scripts", "flag-spelled-twice")["code"]
    assert new_rule(tree, "scripts", "flag-spelled-thrice")["code"] == f"RR{int(first[2:]) + 1:03d}"


@pytest.mark.parametrize("domain,name,why", [
    ("nowhere", "some-problem", "unknown domain"),
    ("recipe", "Capture", "kebab-case"),
    ("recipe", "capture-list-unsorted", "exists already"),
])
def test_what_cannot_be_added_is_refused_and_nothing_is_written(tree, domain, name, why):
    before = {p: p.read_bytes() for p in tree.rglob("*.py")}
    with pytest.raises(NewRuleError, match=why):
        new_rule(tree, domain, name)
    assert {p: p.read_bytes() for p in tree.rglob("*.py")} == before


def test_a_refusal_is_exit_2_on_the_cli(tree, capsys):
    assert main(["new-rule", "recipe", "capture-list-unsorted", "--root", str(tree)]) == 2
    assert "exists already" in capsys.readouterr().err


def test_the_import_keeps_its_block_sorted():
    text = "from rules.master.checks import (\n    alpha,\n    gamma,\n)\n\nALL_RULES = (\n    alpha,\n    gamma,\n)\n"
    out = add_to_registry(text, "master", "beta")
    assert re.search(r"import \(\n    alpha,\n    beta,\n    gamma,\n\)", out)
    assert out.endswith("    gamma,\n    beta,\n)\n")


def test_new_rule_is_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "new-rule" in capsys.readouterr().out
