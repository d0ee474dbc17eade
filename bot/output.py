"""Renderings of a report for the CLI: plain text, GitHub Actions workflow commands, and SARIF 2.1.0
(GitHub code scanning; validated against the OASIS schema in tests/test_sarif.py)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rules import runner
from rules.finding import Finding
from rules.runner import Report

if TYPE_CHECKING:
    from rules.config import EngineConfig

MARK = {"blocking": "🔴 BLOCKING", "nit": "🟡 nit"}


# ANSI styles for a terminal (SGR codes); `plain` when colour is off.
_SGR = {"blocking": "1;31", "nit": "33", "path": "1", "passed": "32", "dim": "2"}


class Style:
    """Colour for the text report: on a terminal only, and never with NO_COLOR."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, kind: str, text: str) -> str:
        return f"\x1b[{_SGR[kind]}m{text}\x1b[0m" if self.enabled and text else text


def use_color(stream: object, environ: Mapping[str, str]) -> bool:
    """no-color.org and force-color.org, in the order CPython's own colour support reads them:
    a non-empty NO_COLOR turns colour off, else a non-empty FORCE_COLOR turns it on, else
    TERM=dumb turns it off, else colour is on exactly when the stream is a terminal."""
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def as_text(report: Report, config_errors: Sequence[str] = (), quiet: bool = False, color: bool = False) -> str:
    """The human report: findings (with why, fix and evidence), then the checks that passed or did
    not run, then one count line. `quiet`: the findings and the count line only."""
    st = Style(color)
    out = []
    for err in config_errors:
        out.append(f"config: {err} (defaults used)")
    for f in report.findings:
        where = f"{f.path}:{f.line}" if f.line else (f.path or "(changeset)")
        out.append(
            f"{st('path', where)}: {st(f.severity.value, MARK[f.severity.value])} {f.code} {f.name}: {f.message}"
        )
        if f.why:
            out.append(st("dim", f"    why it matters: {f.why}"))
        if f.fix:
            out.append(f"    fix: {f.fix}")
        for e in f.evidence:
            out.append(st("dim", f"    evidence: {e}"))
    if report.in_base and not quiet:
        out.append("already in the base (lines this PR does not touch; not counted):")
        out.extend(f"  - {f.path}:{f.line or ''} {f.code} {f.name}: {f.message}" for f in report.in_base)
    passed = [c for c in report.checks if c.status == "passed"]
    other = [c for c in report.checks if c.status != "passed"]
    if passed and not quiet:
        out.append("checks passed:")
        out.extend(f"  {st('passed', '✓')} {c.name}: {c.detail}" for c in passed)
    if other and not quiet:
        out.append("checks not run:")
        out.extend(f"  - {c.name} ({c.status}): {c.detail}" for c in other)
    counts = f"{len(report.blocking)} blocking, {len(report.nits)} nit(s), {len(passed)} check(s) passed"
    out.append(st("blocking" if report.blocking else ("nit" if report.nits else "passed"), counts))
    return "\n".join(out) + "\n"


def _esc_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _esc_prop(s: str) -> str:
    return _esc_data(s).replace(":", "%3A").replace(",", "%2C")


# GitHub shows at most 10 annotations of each level (error, warning, notice) per step, 50 per job;
# past that they are dropped silently. One notice says how many were left out.
ANNOTATIONS_PER_LEVEL = 10


def _annotation(f: Finding) -> str:
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
    return f"::{level} {','.join(props)}::{_esc_data(body)}"


def as_github(report: Report, config_errors: Sequence[str] = (), summary: bool = False,
              limit: int = ANNOTATIONS_PER_LEVEL) -> str:
    """GitHub Actions workflow commands: an ::error per blocking finding and a ::warning per nit
    (config errors first among the warnings), at most `limit` of each level, and one ::notice
    counting the findings left out. Passed checks are not annotated: they go to the job summary
    (`summary`: GITHUB_STEP_SUMMARY is set, see `step_summary`)."""
    out = [f"::warning title=recipe-review config::{_esc_data(e)} (defaults used)" for e in config_errors[:limit]]
    room = {"error": limit, "warning": max(0, limit - len(out))}
    left = {"error": 0, "warning": 0}
    for f in report.findings:
        level = "error" if f.blocking else "warning"
        if room[level] > 0:
            room[level] -= 1
            out.append(_annotation(f))
        else:
            left[level] += 1
    if left["error"] or left["warning"]:
        n = left["error"] + left["warning"]
        where = "the job summary lists every finding" if summary else \
            "`recipe-review check --format text` lists every finding"
        text = (f"{n} more finding{'s' if n != 1 else ''} not annotated ({left['error']} blocking, "
                f"{left['warning']} nit(s)): GitHub shows {limit} annotations of each level per step; {where}")
        out.append(f"::notice title=recipe-review::{_esc_data(text)}")
    return "\n".join(out) + ("\n" if out else "")


def _md_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def step_summary(report: Report, config_errors: Sequence[str] = (), quiet: bool = False) -> str:
    """The job summary (GITHUB_STEP_SUMMARY, Markdown) of `check --format github`: every finding,
    then the checks that passed and those that did not run (`quiet`: the findings only)."""
    passed = [c for c in report.checks if c.status == "passed"]
    other = [c for c in report.checks if c.status != "passed"]
    lines = [
        "## recipe-review",
        "",
        f"🔴 {len(report.blocking)} blocking · 🟡 {len(report.nits)} nit(s) · ✅ {len(passed)} check(s) passed",
        "",
    ]
    if config_errors:
        lines += ["⚠️ The repository config is invalid; the defaults were used:", ""]
        lines += [f"- {_md_cell(e)}" for e in config_errors] + [""]
    if report.findings:
        lines += ["| | Rule | Where | What | Fix |", "|---|---|---|---|---|"]
        for f in report.findings:
            where = f"`{f.path}:{f.line}`" if f.line else (f"`{f.path}`" if f.path else "(whole PR)")
            lines.append(f"| {'🔴' if f.blocking else '🟡'} | `{f.code}` {f.name} | {where} | {_md_cell(f.message)} | "
                         f"{_md_cell(f.fix or '')} |")
        lines.append("")
    else:
        lines += ["No findings.", ""]
    if passed and not quiet:
        lines += [f"<details><summary>{len(passed)} check(s) passed</summary>", ""]
        lines += [f"- ✅ **{_md_cell(c.name)}**: {_md_cell(c.detail)}" for c in passed] + ["", "</details>", ""]
    if other and not quiet:
        lines += [f"<details><summary>{len(other)} check(s) not run</summary>", ""]
        lines += [f"- ⚪ **{_md_cell(c.name)}** ({c.status}): {_md_cell(c.detail)}" for c in other] + [
            "",
            "</details>",
            "",
        ]
    return "\n".join(lines) + "\n"


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_LEVEL = {"blocking": "error", "nit": "note"}
FINGERPRINT_KEY = "recipeReviewFinding/v1"  # code + path + message: survives edits that move the line


def _rule_descriptor(rule: ModuleType, severity: str, help_uri: str | None) -> dict[str, Any]:
    from rules.runner import doc_sections

    s = doc_sections(rule)
    summary = " ".join(s["summary"].split("\n\n")[0].split())
    why = " ".join(s.get("Why it matters", "").split())
    parts = [f"**{rule.CODE} {rule.NAME}** — {s['summary']}"]
    for name in ("Why it matters", "When it fires", "Example", "Fix", "Options"):
        if s.get(name):
            parts.append(f"## {name}\n\n{s[name]}")
    d: dict[str, Any] = {"id": rule.CODE, "name": rule.NAME,
         "shortDescription": {"text": summary},
         "fullDescription": {"text": why or summary},
         "help": {"text": "\n\n".join(p.replace("**", "") for p in parts), "markdown": "\n\n".join(parts)},
         "defaultConfiguration": {"level": SARIF_LEVEL[severity]},
         "properties": {"tags": [rule.__name__.split(".")[1]], "severity": severity}}
    from bot.docs import rule_help_uri

    uri = rule_help_uri(rule, help_uri)
    if uri:
        d["helpUri"] = uri
    return d


def as_sarif(report: Report, config: EngineConfig | None = None, config_errors: Sequence[str] = (),
             ran: Iterable[ModuleType] | None = None, force: frozenset[str] = frozenset()) -> dict[str, Any]:
    """SARIF 2.1.0 for code scanning: every rule that ran (`ran`, default all; enabled by the config
    or forced by --select) with its documentation, every finding as a result (blocking = error,
    nit = note) with its region and its fingerprint as a partialFingerprint."""
    from bot import __version__
    from rules.config import EngineConfig
    from rules.registry import ALL_RULES

    config = config or EngineConfig()
    help_uri = config.repo.rule_help_uri
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for rule in ALL_RULES if ran is None else ran:
        rc = config.rule_config(rule.CODE, rule.NAME, runner.enabled_by_default(rule))
        if not rc.enabled and rule.CODE not in force:
            continue
        index[rule.CODE] = len(rules)
        rules.append(_rule_descriptor(rule, (rc.severity or rule.SEVERITY).value, help_uri))
    results: list[dict[str, Any]] = []
    for f in report.findings:
        text = f.message + (f"\n\nFix: {f.fix}" if f.fix else "")
        r: dict[str, Any] = {"ruleId": f.code, "level": SARIF_LEVEL[f.severity.value], "message": {"text": text},
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
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if config_errors:
        invocation["toolConfigurationNotifications"] = [
            {"level": "warning", "message": {"text": f"{e} (defaults used)"}} for e in config_errors]
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "recipe-review", "version": __version__, "rules": rules}},
        "invocations": [invocation], "columnKind": "unicodeCodePoints",
        "results": results}]}
