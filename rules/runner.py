"""Run the registered rules over a changeset and stamp identity and severity on what they report."""
from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rules.changeset import ChangeSet
from rules.comments import clear_caches as _clear_comment_caches
from rules.config import EngineConfig, path_matches
from rules.context import ReviewContext
from rules.document import clear_caches as _clear_document_caches
from rules.finding import Check, Finding, Passed, Problem, Severity, Skipped
from rules.registry import ALL_RULES
from rules.scope import any_touched, base_replay
from rules.written import proof_line

log = logging.getLogger(__name__)

CRASH_CODE = "RR000"
CRASH_NAME = "rule-crashed"


@dataclass
class Report:
    """Everything one review produced: findings (sorted) and checks (in rule order)."""

    findings: list[Finding] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    # Problems on lines the PR does not touch (`rules.scope`): already in the base, not this PR's.
    in_base: list[Finding] = field(default_factory=list)

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.blocking]

    @property
    def nits(self) -> list[Finding]:
        return [f for f in self.findings if not f.blocking]

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {
            "findings": [f.to_dict() for f in self.findings],
            "checks": [c.to_dict() for c in self.checks],
        }
        if self.in_base:
            out["in_base"] = [f.to_dict() for f in self.in_base]
        return out


_SECTION = re.compile(r"^## (.+?)\s*$", re.M)


def doc_sections(rule: ModuleType) -> dict[str, str]:
    """The rule docstring split into {"summary", "Why it matters", "Example", "Fix", ...}."""
    return dict(_sections(rule.__doc__ or ""))


@functools.lru_cache(maxsize=512)
def _sections(doc: str) -> tuple[tuple[str, str], ...]:
    """Split once per docstring (every review reads every rule's sections)."""
    parts = _SECTION.split(doc.strip())
    out = {"summary": parts[0].strip()}
    for i in range(1, len(parts) - 1, 2):
        out[parts[i].strip()] = parts[i + 1].strip("\n").rstrip()
    return tuple(out.items())


def gate_tooling_changed(changeset: ChangeSet, config: EngineConfig) -> list[str]:
    """The gate tooling files (`Paths.gate_tooling`, tests left out) this PR changes."""
    pats = config.paths.gate_tooling
    return sorted({p for f in changeset.files for p in (f.path, f.base_path)
                   if path_matches(p, pats) and not p.rsplit("/", 1)[-1].startswith("test_")})


@functools.lru_cache(maxsize=1024)
def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n")[0].split())


def enabled_by_default(rule: ModuleType) -> bool:
    """False for a rule module with `DEFAULT_ENABLED = False` (below its precision bar)."""
    return getattr(rule, "DEFAULT_ENABLED", True) is not False


def run(  # noqa: C901 (the engine loop: rule selection, crash capture, proof, dedup and scope)
    changeset: ChangeSet, config: EngineConfig | None = None, rules: Iterable[ModuleType] | None = None,
    ctx: ReviewContext | None = None, force: frozenset[str] = frozenset(),
) -> Report:
    """Run every enabled rule; a rule that crashes becomes a finding, never an exception.

    Pass `ctx` to share its cached analyses with the caller (the bot reads the changelog facts).
    Codes in `force` run even where the config disables them (the CLI's `--select`); their
    severity and options still come from the config.
    """
    config = config or EngineConfig()
    ctx = ctx or ReviewContext(changeset, config)
    report = Report()
    # id(finding) → the problem's own span and its causes
    causes: dict[int, tuple[tuple[str | None, int | None, int | None], ...]] = {}
    tooling = gate_tooling_changed(changeset, config)
    chosen = list(rules if rules is not None else ALL_RULES)
    # A problem a rule found but cannot prove here (`Skipped.unproven`) is reported by the rule that
    # declares it receives that rule's unproven problems (`REPORTS_UNPROVEN_OF`), a nit, when it runs.
    receivers: dict[str, ModuleType] = {}
    for r in chosen:
        if getattr(r, "REPORTS_UNPROVEN_OF", ()) and (config.rule_config(r.CODE, r.NAME, enabled_by_default(r)).enabled
                                                   or r.CODE in force):
            receivers.update({code: r for code in r.REPORTS_UNPROVEN_OF})
    for rule in chosen:
        rc = config.rule_config(rule.CODE, rule.NAME, enabled_by_default(rule))
        if not rc.enabled and rule.CODE not in force:
            continue
        severity = rc.severity or rule.SEVERITY
        sections = doc_sections(rule)
        why = _first_paragraph(sections.get("Why it matters", ""))
        fix = _first_paragraph(sections.get("Fix", ""))
        options = config.options_for(rule)
        # A blocking finding says what proves it (rules/written.py); a demoted one does not.
        proof = proof_line(getattr(rule, "PROOF", None)) if Severity(severity) is Severity.BLOCKING else None
        # A gate rule emulates the repository's tooling; a PR that changes that tooling is checked by its
        # own version, so what the emulation finds is not proven (notes/proof.md): said, not claimed.
        # So is a rule whose proof is that tooling's output (`EMULATES_TOOLING`: the jobs it generates).
        emulates = getattr(rule, "PROOF", None) == "gate" or getattr(rule, "EMULATES_TOOLING", False)
        unproven: list[Problem] | None = [] if tooling and emulates else None
        try:
            for item in rule.check(ctx, options):
                if isinstance(item, Problem) and unproven is not None:
                    unproven.append(item)
                elif isinstance(item, Problem):
                    found = Finding(
                        path=item.path, line=item.line or 0, code=rule.CODE, name=rule.NAME,
                        severity=Severity(severity), message=item.message, why=why,
                        fix=item.fix or fix, end_line=item.end_line, suggestion=item.suggestion,
                        evidence=tuple(item.evidence) + ((proof,) if proof else ()))
                    report.findings.append(found)
                    causes[id(found)] = ((item.path, item.line, item.end_line),
                                         *((p, ln, ln) for p, ln in item.cause))
                elif isinstance(item, Passed):
                    report.checks.append(Check(item.name or rule.NAME, "passed", item.detail,
                                               rule.CODE, item.path, item.line))
                elif isinstance(item, Skipped):
                    report.checks.append(Check(item.name or rule.NAME, "skipped", item.detail,
                                               rule.CODE, item.path))
                    to = receivers.get(rule.CODE) if item.unproven is not None else None
                    if to is not None and item.unproven is not None:
                        p, rsec = item.unproven, doc_sections(to)
                        rcfg = config.rule_config(to.CODE, to.NAME)
                        found = Finding(
                            path=p.path, line=p.line or 0, code=to.CODE, name=to.NAME,
                            severity=Severity(rcfg.severity or to.SEVERITY), message=p.message,
                            why=_first_paragraph(rsec.get("Why it matters", "")), fix=p.fix or fix,
                            end_line=p.end_line, suggestion=p.suggestion, evidence=tuple(p.evidence))
                        report.findings.append(found)
                        causes[id(found)] = ((p.path, p.line, p.end_line), *((q, ln, ln) for q, ln in p.cause))
            if unproven:
                first = unproven[0]
                report.checks.append(Check(
                    rule.NAME, "skipped",
                    f"this PR changes the gate's own tooling ({', '.join(f'`{t}`' for t in tooling[:3])}), and the "
                    f"gate runs that version, which is not emulated: {len(unproven)} problem(s) the emulation "
                    f"reports are not claimed (the first: {first.path}:{first.line or ''} {first.message})",
                    rule.CODE, first.path))
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
    # Deduplicate (same fingerprint and line) and sort by file, line, code; a problem on lines the
    # PR does not touch, or one the base already has, is already in the base (rules/scope.py), not
    # one of this PR's findings.
    seen: set[tuple[str, int]] = set()
    kept: list[Finding] = []
    in_base: list[Finding] = []
    memo: dict[Any, Any] = {}
    for f in sorted(report.findings):
        key = (f.fingerprint, f.line)
        if key in seen:
            continue
        seen.add(key)
        places = causes.get(id(f))
        if f.code != CRASH_CODE and places and not any_touched(changeset, places, memo):
            in_base.append(f)
        else:
            kept.append(f)
    old = _at_base(changeset, config, rules, {f.code for f in kept if f.code != CRASH_CODE})
    report.findings = [f for f in kept if f.fingerprint not in old]
    report.in_base = sorted(in_base + [f for f in kept if f.fingerprint in old])
    return report


# Domains whose rules judge the change itself (where an entry sits, what it selects, what its
# description says): on the base replay there is no change, so they have nothing to say about it.
_CHANGE_DOMAINS = ("changelog", "claims")


def replays(rule: ModuleType) -> bool:
    """Does the base replay judge this rule's findings? Rules about the state a PR leaves (its
    configs, recipes, scripts) do; rules about the change itself do not (`REPLAY = False`)."""
    parts = getattr(rule, "__name__", "").split(".")
    return getattr(rule, "REPLAY", True) and not (len(parts) > 1 and parts[1] in _CHANGE_DOMAINS)


def _at_base(changeset: ChangeSet, config: EngineConfig, rules: Iterable[ModuleType] | None,
             codes: set[str]) -> set[str]:
    """Fingerprints of the problems the rules `codes` find on the base revision (`base_replay`)."""
    if not codes or not changeset.files:
        return set()
    base_cs = base_replay(changeset)
    if not base_cs.files:
        return set()  # every file is new (or its base unknown): the base has none of them to complain about
    ctx = ReviewContext(base_cs, config)
    # A file the PR renames (a layout move such as `.github/configs/` → `configs/`) is replayed at
    # its base path: its problems are named as the head names them, so one the move only carried
    # is recognised as the base's.
    moved = {f.base_path: f.path for f in changeset.files if f.status == "renamed" and f.base_path != f.path}

    def as_head(text: str) -> str:
        for old_path, new_path in moved.items():
            text = text.replace(old_path, new_path)
        return text

    out: set[str] = set()
    for rule in rules if rules is not None else ALL_RULES:
        if rule.CODE not in codes or not replays(rule):
            continue
        try:
            for item in rule.check(ctx, config.options_for(rule)):
                if isinstance(item, Problem):
                    path = moved.get(item.path, item.path)
                    message = as_head(item.message) if moved else item.message
                    out.add(Finding(path=path, line=0, code=rule.CODE, name=rule.NAME, severity=Severity.NIT,
                                    message=message).fingerprint)
        except Exception:  # a rule that cannot read the base proves nothing about it
            log.exception("rule %s crashed on the base replay", rule.CODE)
    _clear_document_caches()
    _clear_comment_caches()
    return out
