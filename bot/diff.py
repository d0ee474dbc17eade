"""Pure: which head-file lines a review comment may sit on, from GitHub's `patch` field."""
from __future__ import annotations

from dataclasses import dataclass

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet


@dataclass(frozen=True)
class Hunk:
    """One hunk's right-side (head) lines: added and context lines, in order."""

    header: str
    lines: frozenset[int]
    first: int
    last: int


def _patchset(patch: str | None) -> PatchSet | None:
    """GitHub's `patch` (hunks only) as a unidiff PatchSet, or None when absent or unparsable."""
    if not patch:
        return None
    try:
        return PatchSet("--- a/f\n+++ b/f\n" + patch.rstrip("\n") + "\n")
    except UnidiffParseError:
        return None


def hunks(patch: str | None) -> list[Hunk]:
    """Parse a file's hunks; an absent or unparsable patch has none (nothing is commentable)."""
    out = []
    for pf in _patchset(patch) or ():
        for h in pf:
            right = [ln.target_line_no for ln in h if ln.target_line_no is not None]
            if right:
                header = f"@@ -{h.source_start},{h.source_length} +{h.target_start},{h.target_length} @@"
                out.append(Hunk(header, frozenset(right), min(right), max(right)))
    return out


def added_lines(patch: str | None) -> list[int]:
    """Head line numbers of `+` lines."""
    return [ln.target_line_no for pf in _patchset(patch) or () for h in pf for ln in h
            if ln.is_added and ln.target_line_no is not None]


@dataclass(frozen=True)
class Anchor:
    """Where an inline comment goes: `line` (and `start_line` for a range) on the RIGHT side."""

    line: int
    start_line: int | None
    exact: bool  # True when the anchor covers exactly the finding's line..end_line


def anchor(file_hunks: list[Hunk], line: int, end_line: int | None = None) -> Anchor | None:
    """Place a finding spanning line..end_line inside one hunk, or None when no line of it is in the diff."""
    if not line:
        return None
    end = end_line if end_line and end_line >= line else line
    for h in file_hunks:
        inside = [n for n in range(line, end + 1) if n in h.lines]
        if not inside:
            continue
        first, last = inside[0], inside[-1]
        exact = first == line and last == end and len(inside) == end - line + 1
        return Anchor(line=last, start_line=first if last != first else None, exact=exact)
    return None
