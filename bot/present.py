"""Pure: what the App shows for a review — one item per finding, or one item per rule and file when
a rule fires many times there — and which rules a maintainer ignored on the PR.

Grouping happens here, once, after the rules: rules keep yielding one problem per fact, and
`recipe-review check --format json` keeps one entry per problem. Only what the App posts (inline
comments, the summary, the check run) is grouped.

Identities (what lets a later run, or a later version, recognise what it wrote):
- *fingerprint* of a single finding: code + path + message (`Finding.fingerprint`); of a group:
  code + path (`group_fingerprint`), so one group comment per rule and file, edited in place.
- *problem key*: code + path + the finding's subject, the first value its message quotes in
  backticks (the house style: "one sentence stating what is wrong, with the offending value in
  backticks"); the line when the message quotes nothing. A new version that rewords a message
  changes the fingerprint but not the key, so the thread is kept and its body edited instead of
  being closed as fixed and posted anew. A group's key is its fingerprint.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rules.finding import Finding, Severity

# A rule with this many findings or more in one file gets one grouped item there. Five, not six:
# InferenceX #1709 has exactly five header-comment nits in one master config, and five comments of
# one rule in one file already bury the rest of the review.
GROUP_FROM = 5
_SUBJECT = re.compile(r"`([^`\n]+)`")


def _hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def subject_of(message: str) -> str | None:
    """The first value a message quotes in backticks, or None."""
    m = _SUBJECT.search(message or "")
    return m.group(1) if m else None


def problem_key(code: str, path: str, message: str, line: int | None = None) -> str | None:
    """The stable identity of a problem (see the module docstring); None when it has neither subject nor line."""
    subject = subject_of(message)
    if subject is not None:
        return _hash(code, path, f"`{subject}`")
    return _hash(code, path, f"line {line}") if line else None


def group_fingerprint(code: str, path: str) -> str:
    return _hash(code, path, "*")


@dataclass(frozen=True)
class Item:
    """One thing the App shows: a single finding, or every finding of one rule in one file."""

    members: tuple[Finding, ...]
    grouped: bool = False

    @property
    def first(self) -> Finding:
        return self.members[0]

    @property
    def code(self) -> str:
        return self.first.code

    @property
    def name(self) -> str:
        return self.first.name

    @property
    def path(self) -> str:
        return self.first.path

    @property
    def severity(self) -> Severity:
        return self.first.severity

    @property
    def blocking(self) -> bool:
        return self.first.blocking

    @property
    def fingerprint(self) -> str:
        return group_fingerprint(self.code, self.path) if self.grouped else self.first.fingerprint

    @property
    def key(self) -> str | None:
        if self.grouped:
            return self.fingerprint
        f = self.first
        return problem_key(f.code, f.path, f.message, f.line)

    def labels(self) -> list[str]:
        """What each member is about, in line order, without repeats: its subject, or `line N`."""
        out: list[str] = []
        for f in self.members:
            s = subject_of(f.message)
            label = f"`{s}`" if s is not None else (f"line {f.line}" if f.line else "the whole file")
            if label not in out:
                out.append(label)
        return out


def _priority(it: Item) -> tuple[bool, str, int, str]:
    return (not it.blocking, it.path, it.first.line, it.code)


def items_of(findings: Iterable[Finding], keep_grouped: Iterable[tuple[str, str]] = (),
             group_from: int = GROUP_FROM) -> list[Item]:
    """Items in posting order (blocking first, then by file and line).

    A rule's findings in one file become one item when there are `group_from` or more, or when a
    group comment for that rule and file is still open (`keep_grouped`, (code, path) pairs), so a
    group that shrinks to a few findings is edited rather than replaced by singles.
    """
    keep = set(keep_grouped)
    by_rule_file: dict[tuple[str, str], list[Finding]] = {}
    for f in sorted(findings):
        by_rule_file.setdefault((f.code, f.path), []).append(f)
    items = []
    for (code, path), fs in by_rule_file.items():
        if path and (len(fs) >= group_from or (code, path) in keep):
            items.append(Item(tuple(fs), grouped=True))
        else:
            items.extend(Item((f,)) for f in fs)
    return sorted(items, key=_priority)


@dataclass(frozen=True)
class Ignore:
    """`/ignore CODE reason` by a maintainer: the rule's findings on this PR are shown, not counted."""

    code: str
    by: str
    reason: str = ""


def split_ignored(findings: Iterable[Finding], ignores: Mapping[str, Ignore]) -> tuple[list[Finding], list[Finding]]:
    """(counted, ignored) findings."""
    counted: list[Finding] = []
    ignored: list[Finding] = []
    for f in findings:
        (ignored if f.code in ignores else counted).append(f)
    return counted, ignored


@dataclass
class View:
    """What the summary and the check run show: items, which are inline, and what was ignored."""

    items: list[Item]
    inline: set[str]  # fingerprints of items visible as inline comments (earlier or new)
    ignored: list[Finding]
    ignores: dict[str, Ignore]

    @classmethod
    def of(cls, findings: Iterable[Finding], ignores: Mapping[str, Ignore] | None = None) -> View:
        """Every finding grouped and shown in the summary, none inline (no posted comments to compare)."""
        counted, ignored = split_ignored(findings, ignores or {})
        return cls(items_of(counted), set(), ignored, dict(ignores or {}))

    @property
    def blocking(self) -> list[Finding]:
        return [f for it in self.items for f in it.members if f.blocking]

    @property
    def nits(self) -> list[Finding]:
        return [f for it in self.items for f in it.members if not f.blocking]

    @property
    def outside(self) -> list[Item]:
        return [it for it in self.items if it.fingerprint not in self.inline]
