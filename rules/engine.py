"""Run the registered rules over a changeset and stamp identity and severity on what they report."""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from rules.changeset import ChangeSet
from rules.config import EngineConfig
from rules.context import ReviewContext
from rules.comments import clear_caches as _clear_comment_caches
from rules.document import clear_caches as _clear_document_caches
from rules.finding import Check, Finding, Passed, Problem, Severity, Skipped
from rules.registry import ALL_RULES

log = logging.getLogger(__name__)

CRASH_CODE = "RR000"
CRASH_NAME = "rule-crashed"


@dataclass
class Report:
    """Everything one review produced: findings (sorted) and checks (in rule order)."""

    findings: list[Finding] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.blocking]

    @property
    def nits(self) -> list[Finding]:
        return [f for f in self.findings if not f.blocking]

    def to_dict(self) -> dict:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "checks": [c.to_dict() for c in self.checks],
        }


_SECTION = re.compile(r"^## (.+?)\s*$", re.M)


def doc_sections(rule) -> dict[str, str]:
    """The rule docstring split into {"summary", "Why it matters", "Example", "Fix", ...}."""
    doc = (rule.__doc__ or "").strip()
    parts = _SECTION.split(doc)
    out = {"summary": parts[0].strip()}
    for i in range(1, len(parts) - 1, 2):
        out[parts[i].strip()] = parts[i + 1].strip("\n").rstrip()
    return out


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n")[0].split())


def run(changeset: ChangeSet, config: EngineConfig | None = None, rules=None,
        ctx: ReviewContext | None = None, force: frozenset[str] = frozenset()) -> Report:
    """Run every enabled rule; a rule that crashes becomes a finding, never an exception.

    Pass `ctx` to share its cached analyses with the caller (the bot reads the changelog facts).
    Codes in `force` run even where the config disables them (the CLI's `--select`); their
    severity and options still come from the config.
    """
    config = config or EngineConfig()
    ctx = ctx or ReviewContext(changeset, config)
    report = Report()
    for rule in rules if rules is not None else ALL_RULES:
        rc = config.rule_config(rule.CODE, rule.NAME)
        if not rc.enabled and rule.CODE not in force:
            continue
        severity = rc.severity or rule.SEVERITY
        sections = doc_sections(rule)
        why = _first_paragraph(sections.get("Why it matters", ""))
        fix = _first_paragraph(sections.get("Fix", ""))
        options = config.options_for(rule)
        try:
            for item in rule.check(ctx, options):
                if isinstance(item, Problem):
                    report.findings.append(Finding(
                        path=item.path, line=item.line or 0, code=rule.CODE, name=rule.NAME,
                        severity=Severity(severity), message=item.message, why=why,
                        fix=item.fix or fix, end_line=item.end_line, suggestion=item.suggestion,
                        evidence=tuple(item.evidence)))
                elif isinstance(item, Passed):
                    report.checks.append(Check(item.name or rule.NAME, "passed", item.detail,
                                               rule.CODE, item.path, item.line))
                elif isinstance(item, Skipped):
                    report.checks.append(Check(item.name or rule.NAME, "skipped", item.detail,
                                               rule.CODE, item.path))
        except Exception as err:  # a rule bug must not lose the rest of the review
            log.exception("rule %s crashed", rule.CODE)
            report.findings.append(Finding(
                path="", line=0, code=CRASH_CODE, name=CRASH_NAME, severity=Severity.NIT,
                message=f"rule {rule.CODE} ({rule.NAME}) crashed: {type(err).__name__}: {err}",
                why="A rule failed on this input, so what it checks was not verified.",
                fix="Report this to the recipe-review maintainers with the PR link."))
            report.checks.append(Check(rule.NAME, "error", f"{type(err).__name__}: {err}", rule.CODE))
    _clear_document_caches()
    _clear_comment_caches()
    # Deduplicate (same fingerprint and line) and sort by file, line, code.
    seen = set()
    unique = []
    for f in sorted(report.findings):
        key = (f.fingerprint, f.line)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    report.findings = unique
    return report
