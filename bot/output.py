"""Plain-text and GitHub Actions renderings of a report, for the CLI."""
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
