"""What rules report: problems (rule output), findings (engine output) and passed checks."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):  # noqa: UP042 (a StrEnum member's str() is its value, not `Severity.NIT`)
    """How a finding affects the PR: blocking fails the check run, nit is optional."""

    BLOCKING = "blocking"
    NIT = "nit"


@dataclass(frozen=True)
class Problem:
    """One fact a rule found: where, and one sentence saying what is wrong.

    `fix` overrides the rule docstring's generic fix with a computed one; `suggestion` is the exact
    replacement text for lines `line..end_line` of the head file (a GitHub suggestion block);
    `evidence` lists the facts that led to the finding ("why this was flagged"). `cause` names
    other places (path, line) whose change by the PR makes the problem, when the finding sits
    elsewhere (a flag line that ignores an assignment the PR wrote): the runner reports a problem
    as this PR's only when the PR touches its own lines or one of these (`rules.scope`).
    """

    path: str
    line: int | None
    message: str
    end_line: int | None = None
    fix: str | None = None
    suggestion: str | None = None
    evidence: tuple[str, ...] = ()
    cause: tuple[tuple[str, int | None], ...] = ()


@dataclass(frozen=True)
class Passed:
    """A check a rule verified and found right, with the arithmetic that shows it."""

    detail: str
    name: str | None = None  # defaults to the rule's NAME
    path: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class Skipped:
    """A check a rule could not run (an input was missing), said out loud rather than dropped."""

    detail: str
    name: str | None = None
    path: str | None = None
    # A problem the rule found but cannot prove at this revision (a convention no gate enforces and
    # the base has not written down): not this rule's finding; `changelog-convention-unwritten`
    # reports it as a nit.
    unproven: Problem | None = field(default=None, compare=False)


@dataclass(frozen=True, order=True)
class Finding:
    """A problem stamped by the engine with the rule's identity and effective severity."""

    path: str
    line: int
    code: str
    name: str = field(compare=False)
    severity: Severity = field(compare=False)
    message: str = field(compare=False)
    why: str = field(compare=False, default="")
    fix: str = field(compare=False, default="")
    end_line: int | None = field(compare=False, default=None)
    suggestion: str | None = field(compare=False, default=None)
    evidence: tuple[str, ...] = field(compare=False, default=())

    @property
    def blocking(self) -> bool:
        return self.severity is Severity.BLOCKING

    @property
    def fingerprint(self) -> str:
        """Stable identity: code, path and message (which quotes the value), not the line."""
        raw = f"{self.code}\0{self.path}\0{self.message}".encode()
        return hashlib.sha256(raw).hexdigest()[:16]

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line or None,
            "end_line": self.end_line,
            "message": self.message,
            "why": self.why,
            "fix": self.fix,
            "suggestion": self.suggestion,
            "evidence": list(self.evidence),
            "fingerprint": self.fingerprint,
        }


@dataclass(frozen=True)
class Check:
    """A verified (or skipped) check as the engine reports it."""

    name: str
    status: str  # "passed" | "skipped" | "error"
    detail: str
    code: str = ""
    path: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, str | int]:
        out: dict[str, str | int] = {"name": self.name, "status": self.status, "detail": self.detail}
        if self.code:
            out["code"] = self.code
        if self.path:
            out["path"] = self.path
        if self.line:
            out["line"] = self.line
        return out
