"""The engine: identity and severity stamping, config overrides, crash containment, ordering."""
import types

import pytest

from rules import ChangeSet, FileChange, Passed, Problem, Severity, load_config, run
from rules.config import RuleOptions, path_matches
from rules.runner import CRASH_CODE, doc_sections


def fake_rule(code="RR990", name="thing-broken", severity=Severity.BLOCKING, problems=(), crash=False):
    doc = "Flags a thing.\n\n## Why it matters\nBecause.\n\nMore.\n\n## Example\n    x\n\n## Fix\nDo it.\n"

    def check(ctx, options):
        if crash:
            raise ZeroDivisionError("boom")
        yield from problems
        yield Passed("all good")

    return types.SimpleNamespace(CODE=code, NAME=name, SEVERITY=severity, check=check, __doc__=doc,
                                 __name__=f"rules.checks.{name.replace('-', '_')}", Options=RuleOptions)


CS = ChangeSet(files=(FileChange("a.yaml", "added", head=b"a: 1\n"), FileChange("b.yaml", "added", head=b"b: 1\n")))


def test_engine_stamps_identity_why_and_fix():
    r = run(CS, rules=[fake_rule(problems=[Problem("a.yaml", 1, "bad `x`")])])
    (f,) = r.findings
    assert (f.code, f.name, f.severity, f.why, f.fix) == (
        "RR990",
        "thing-broken",
        Severity.BLOCKING,
        "Because.",
        "Do it.",
    )
    assert r.checks[0].name == "thing-broken" and r.checks[0].status == "passed"


def test_a_crashing_rule_becomes_a_finding_and_others_still_run():
    r = run(CS, rules=[fake_rule(crash=True), fake_rule(code="RR991", name="other-broken",
                                                        problems=[Problem("a.yaml", 1, "m")])])
    assert {f.code for f in r.findings} == {CRASH_CODE, "RR991"}
    assert any(c.status == "error" for c in r.checks)


def test_findings_are_sorted_and_deduplicated():
    ps = [Problem("b.yaml", 3, "m"), Problem("a.yaml", 9, "m"), Problem("a.yaml", 2, "m"), Problem("a.yaml", 2, "m")]
    r = run(CS, rules=[fake_rule(problems=ps)])
    assert [(f.path, f.line) for f in r.findings] == [("a.yaml", 2), ("a.yaml", 9), ("b.yaml", 3)]


def test_config_demotes_and_disables_by_code_or_name():
    cfg, errors = load_config({"rules": {"RR012": {"severity": "nit"}}})
    assert errors == []
    bad = ChangeSet(files=(FileChange("configs/runners.yaml", "added", head=b"a: [\n"),))
    assert run(bad, cfg).findings[0].severity is Severity.NIT
    cfg, _ = load_config({"rules": {"yaml-invalid": {"enabled": False}}})
    assert all(f.code != "RR012" for f in run(bad, cfg).findings)


@pytest.mark.parametrize("data,needle", [
    ({"rules": {"RR999": {}}}, "rules.RR999: no rule"),
    ({"rules": {"RR012": {"severity": "fatal"}}}, "severity"),
    ({"rules": {"RR012": {"options": {"nope": 1}}}}, "rules.RR012.options.nope"),
    ({"paths": {"changelog": "x"}, "colour": "red"}, "config.colour"),
    (["a", "list"], "must hold a mapping"),
], ids=["unknown rule", "bad severity", "unknown option", "unknown top-level key", "not a mapping"])
def test_bad_config_names_the_key_and_falls_back_to_defaults(data, needle):
    cfg, errors = load_config(data)
    assert any(needle in e for e in errors), errors
    assert cfg.rule_config("RR012", "yaml-invalid").enabled is True


@pytest.mark.parametrize("path,globs,expected", [
    ("perf-changelog.yaml", ("**/perf-changelog.yaml",), True),
    ("inferencex-e2e/perf-changelog.yaml", ("**/perf-changelog.yaml",), True),
    ("configs/nvidia-master.yaml", ("**/configs/*-master.yaml",), True),
    ("configs/deprecated/old-master.yaml", ("**/configs/*-master.yaml",), False),
    ("benchmarks/a/b/c.yaml", ("**/benchmarks/**/*.yaml",), True),
    ("docs/perf-changelog.yaml.bak", ("**/perf-changelog.yaml",), False),
], ids=["root", "e2e layout", "master", "deprecated master", "deep recipe", "near miss suffix"])
def test_path_globs(path, globs, expected):
    assert path_matches(path, globs) is expected


def test_doc_sections_split():
    s = doc_sections(fake_rule())
    assert s["summary"] == "Flags a thing." and s["Fix"] == "Do it." and "More." in s["Why it matters"]
