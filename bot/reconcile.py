"""Pure: compare what the rules found with what the bot already wrote, and plan only the difference."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot import diff, render
from rules.finding import Finding


@dataclass(frozen=True)
class PostedComment:
    """A top-level inline comment the bot wrote earlier (found by its marker)."""

    comment_id: int
    fingerprint: str
    code: str
    path: str
    thread_id: str | None = None
    resolved: bool = False
    fixed_noted: bool = False  # a "fixed in <sha>" reply exists already


@dataclass(frozen=True)
class InlineComment:
    finding: Finding
    path: str
    line: int
    start_line: int | None
    body: str

    def to_api(self) -> dict:
        out = {"path": self.path, "line": self.line, "side": "RIGHT", "body": self.body}
        if self.start_line is not None:
            out.update(start_line=self.start_line, start_side="RIGHT")
        return out


@dataclass
class ReviewPlan:
    inline: list[InlineComment] = field(default_factory=list)  # new comments to post
    inline_fingerprints: set[str] = field(default_factory=set)  # findings visible inline (old + new)
    outside: list[Finding] = field(default_factory=list)  # not inline: out of diff or over the cap
    gone: list[PostedComment] = field(default_factory=list)  # bot threads whose finding disappeared

    @property
    def empty(self) -> bool:
        return not self.inline and not self.gone


def _priority(f: Finding):
    return (not f.blocking, f.path, f.line, f.code)


def plan_review(findings: Iterable[Finding], hunks_by_path: Mapping[str, list[diff.Hunk]],
                posted: Iterable[PostedComment], max_inline: int = 30, fix_offer: bool = False) -> ReviewPlan:
    """New inline comments (skipping live ones), findings for the summary, and threads to close.

    `fix_offer`: `/fix` is on for the repository (the misplaced-entry comment offers it).
    """
    plan = ReviewPlan()
    posted = list(posted)
    live = {p.fingerprint for p in posted if not p.resolved}
    findings = sorted(findings, key=_priority)
    current = {f.fingerprint for f in findings}
    budget = max_inline
    for f in findings:
        if f.fingerprint in live:
            plan.inline_fingerprints.add(f.fingerprint)
            continue
        a = diff.anchor(hunks_by_path.get(f.path, []), f.line, f.end_line) if f.path else None
        if a is None or budget <= 0:
            plan.outside.append(f)
            continue
        budget -= 1
        body = render.inline_comment(f, with_suggestion=a.exact, fix_offer=fix_offer)
        plan.inline.append(InlineComment(f, f.path, a.line, a.start_line, body))
        plan.inline_fingerprints.add(f.fingerprint)
    plan.gone = [p for p in posted if p.fingerprint not in current and not p.resolved and not p.fixed_noted]
    return plan


def plan_labels(current: Iterable[str], wanted: Iterable[str], owned: Iterable[str]) -> tuple[list[str], list[str]]:
    """(to_add, to_remove): only labels the bot owns are ever removed; empty when nothing differs."""
    current, wanted, owned = set(current), set(wanted), set(owned)
    add = sorted(wanted - current)
    remove = sorted((current - wanted) & owned)
    return add, remove
