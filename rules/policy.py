"""The repository's written policy, read at the base revision (a PR cannot rewrite its own rules).

The repository changes its guidance every few weeks (AGENTS.md, CONTRIBUTING.md, the review
checklist, later MODELS.md and the golden curves), so rules that follow a written convention read
it from the revision under review instead of hard-coding it. What the readers fetch:
`policy_paths(changed_paths, config)`: each `Paths.policy` file at the repository root and at the
root of each layout the PR touches (the Nov-2026 tree sits under `inferencex-e2e/`). They put
what exists into `ChangeSet.base_context` and name every path they looked for in
`ChangeSet.base_probed`, so a rule can tell "absent at the base" from "nobody looked" (then it
says Skipped).
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rules.changeset import ChangeSet, decode
from rules.config import EngineConfig

# A top-level directory that holds a benchmark layout of its own (its benchmarks/ or configs/ or
# changelog): `inferencex-e2e/benchmarks/…` → `inferencex-e2e`.
_LAYOUT = re.compile(r"^([^/]+)/(?:benchmarks/|configs/|runners/|perf-changelog\.yaml$)")


def layout_roots(paths: Iterable[str]) -> list[str]:
    """"" (the repository root) and every layout root the paths sit under."""
    roots = {""}
    for p in paths:
        m = _LAYOUT.match(p or "")
        if m:
            roots.add(m.group(1))
    return sorted(roots)


def policy_paths(changed_paths: Iterable[str], config: EngineConfig) -> list[str]:
    """The base-revision policy files a review reads (existing or not)."""
    names = config.paths.policy
    return sorted({posixpath.join(root, name) if root else name
                   for root in layout_roots(changed_paths) for name in names})


@dataclass(frozen=True)
class Statement:
    """One line of written policy: where it is, and its text."""

    path: str
    line: int
    text: str


def policy_texts(cs: ChangeSet, names: Iterable[str] | None = None) -> dict[str, str] | None:
    """Base text of every probed policy file that exists (optionally only those named `names`,
    matched by file name); None when nobody looked for policy files (the reader did not fetch them)."""
    if not cs.base_probed:
        return None
    want = set(names) if names is not None else None
    out = {}
    for path in sorted(cs.base_probed):
        if want is not None and posixpath.basename(path) not in want:
            continue
        text = decode(cs.base_bytes(path))
        if text is not None:
            out[path] = text
    return out


def find_statement(texts: dict[str, str], pattern: re.Pattern[str]) -> Statement | None:
    """The first line (in path order) whose sentence matches `pattern`."""
    for path, text in sorted(texts.items()):
        for i, line in enumerate(text.split("\n"), 1):
            for sentence in re.split(r"(?<=[.!?])\s+", line):
                if pattern.search(sentence):
                    return Statement(path, i, " ".join(sentence.split())[:200])
    return None


def written_statement(cs: ChangeSet, pattern: re.Pattern[str],
                      first_in: str | None = None) -> Statement | None | Literal[False]:
    """The base's written statement of a rule: the first sentence of its guidance matching `pattern`
    (in the files whose path ends with `first_in` first, when given); False when the guidance has
    none; None when the guidance was not read."""
    texts = policy_texts(cs)
    if texts is None:
        return None
    if first_in is not None:
        hit = find_statement({p: t for p, t in texts.items() if p.endswith(first_in)}, pattern)
        if hit is not None:
            return hit
    found = find_statement(texts, pattern)
    return found if found is not None else False


# "No header comments …", "Do not add header comments …", "avoid header comments", "header
# comments are not allowed / forbidden": a prohibition and "header comment" in one sentence.
_NO_HEADER = re.compile(
    r"(?i)(?:\b(?:no|never|avoid|don'?t|do\s+not|must\s+not|should\s+not)\b[^.;:]{0,60}\bheader[- ]comments?\b"
    r"|\bheader[- ]comments?\b[^.;:]{0,60}\b(?:not\s+allowed|forbidden|prohibited|disallowed|banned)\b)")


def header_comments_forbidden(cs: ChangeSet) -> Statement | None | Literal[False]:
    """The base's written statement that forbids header comments; False when the base's guidance
    has none; None when the guidance was not read."""
    return written_statement(cs, _NO_HEADER)
