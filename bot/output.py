"""Renderings of a report for the CLI: plain text, GitHub Actions workflow commands, and SARIF 2.1.0
(GitHub code scanning; validated against the OASIS schema in tests/test_sarif.py)."""
from __future__ import annotations

from rules.engine import Report

MARK = {"blocking": "🔴 BLOCKING", "nit": "🟡 nit"}


def as_text(report: Report, config_errors: list[str] = ()) -> str:
    out = []
    for err in config_errors:
        out.append(f"config: {err} (defaults used)")
    for f in report.findings:
        where = f"{f.path}:{f.line}" if f.line else (f.path or "(changeset)")
        out.append(f"{where}: {MARK[f.severity.value]} {f.code} {f.name}: {f.message}")
        if f.why:
            out.append(f"    why it matters: {f.why}")
        if f.fix:
            out.append(f"    fix: {f.fix}")
        for e in f.evidence:
            out.append(f"    evidence: {e}")
    if report.in_base:
        out.append("already in the base (lines this PR does not touch; not counted):")
        out.extend(f"  - {f.path}:{f.line or ''} {f.code} {f.name}: {f.message}" for f in report.in_base)
    passed = [c for c in report.checks if c.status == "passed"]
    other = [c for c in report.checks if c.status != "passed"]
    if passed:
        out.append("checks passed:")
        out.extend(f"  ✓ {c.name}: {c.detail}" for c in passed)
    if other:
        out.append("checks not run:")
        out.extend(f"  - {c.name} ({c.status}): {c.detail}" for c in other)
    out.append(f"{len(report.blocking)} blocking, {len(report.nits)} nit(s), {len(passed)} check(s) passed")
    return "\n".join(out) + "\n"


def _esc_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _esc_prop(s: str) -> str:
    return _esc_data(s).replace(":", "%3A").replace(",", "%2C")


def as_github(report: Report, config_errors: list[str] = ()) -> str:
    """GitHub Actions workflow commands: one ::error / ::warning per finding."""
    out = [f"::warning title=recipe-review config::{_esc_data(e)} (defaults used)" for e in config_errors]
    for f in report.findings:
        level = "error" if f.blocking else "warning"
        props = []
        if f.path:
            props.append(f"file={_esc_prop(f.path)}")
        if f.line:
            props.append(f"line={f.line}")
            if f.end_line and f.end_line != f.line:
                props.append(f"endLine={f.end_line}")
        props.append(f"title={_esc_prop(f'{f.code} {f.name}')}")
        body = f.message + (f"\n\nWhy it matters: {f.why}" if f.why else "") + (f"\nFix: {f.fix}" if f.fix else "")
        out.append(f"::{level} {','.join(props)}::{_esc_data(body)}")
    for c in report.checks:
        if c.status == "passed":
            out.append(f"::notice title={_esc_prop(c.name)}::{_esc_data(c.detail)}")
    return "\n".join(out) + ("\n" if out else "")


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_LEVEL = {"blocking": "error", "nit": "note"}
FINGERPRINT_KEY = "recipeReviewFinding/v1"  # code + path + message: survives edits that move the line


def _rule_descriptor(rule, severity: str, help_uri: str | None) -> dict:
    from rules.engine import doc_sections

    s = doc_sections(rule)
    summary = " ".join(s["summary"].split("\n\n")[0].split())
    why = " ".join(s.get("Why it matters", "").split())
    parts = [f"**{rule.CODE} {rule.NAME}** — {s['summary']}"]
    for name in ("Why it matters", "Example", "Fix", "Options"):
        if s.get(name):
            parts.append(f"## {name}\n\n{s[name]}")
    d = {"id": rule.CODE, "name": rule.NAME,
         "shortDescription": {"text": summary},
         "fullDescription": {"text": why or summary},
         "help": {"text": "\n\n".join(p.replace("**", "") for p in parts), "markdown": "\n\n".join(parts)},
         "defaultConfiguration": {"level": SARIF_LEVEL[severity]},
         "properties": {"tags": [rule.__name__.split(".")[1]], "severity": severity}}
    if help_uri:
        d["helpUri"] = help_uri.format(code=rule.CODE, anchor=rule.CODE.lower(), name=rule.NAME)
    return d


def as_sarif(report: Report, config=None, config_errors: list[str] = ()) -> dict:
    """SARIF 2.1.0 for code scanning: every enabled rule with its documentation, every finding as a
    result (blocking = error, nit = note) with its region and its fingerprint as a partialFingerprint."""
    from bot import __version__
    from rules.config import EngineConfig
    from rules.registry import ALL_RULES

    config = config or EngineConfig()
    help_uri = config.repo.rule_help_uri
    rules, index = [], {}
    for rule in ALL_RULES:
        rc = config.rule_config(rule.CODE, rule.NAME)
        if not rc.enabled:
            continue
        index[rule.CODE] = len(rules)
        rules.append(_rule_descriptor(rule, (rc.severity or rule.SEVERITY).value, help_uri))
    results = []
    for f in report.findings:
        text = f.message + (f"\n\nFix: {f.fix}" if f.fix else "")
        r = {"ruleId": f.code, "level": SARIF_LEVEL[f.severity.value], "message": {"text": text},
             "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
             "properties": {"severity": f.severity.value, "name": f.name, "evidence": list(f.evidence)}}
        if f.code in index:
            r["ruleIndex"] = index[f.code]
        if f.path:
            region = {"startLine": f.line or 1}
            if f.line and f.end_line and f.end_line > f.line:
                region["endLine"] = f.end_line
            r["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                                                    "region": region}}]
        else:
            r["locations"] = []  # a finding about the whole PR: no file to point at
        results.append(r)
    invocation: dict = {"executionSuccessful": True}
    if config_errors:
        invocation["toolConfigurationNotifications"] = [
            {"level": "warning", "message": {"text": f"{e} (defaults used)"}} for e in config_errors]
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "recipe-review", "version": __version__, "rules": rules}},
        "invocations": [invocation], "columnKind": "unicodeCodePoints",
        "results": results}]}
