"""Where a review comment may land: GitHub's rules for `line`/`side`/`start_line`/`position`
against one file's `patch` (hunks from the first `@@`).

RIGHT lines are new-file line numbers of added or context rows; LEFT lines are old-file line
numbers of deleted or context rows. `position` counts patch lines below the first `@@` header
(later `@@` headers count too), as GitHub's deprecated `position` does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Row:
    position: int  # index in the patch; the first header is 0
    kind: str  # " ", "+", "-", "\\" (no-newline marker) or "@" (a hunk header)
    old: int | None
    new: int | None


@dataclass(frozen=True)
class Hunk:
    header_position: int
    rows: tuple[Row, ...]

    def find(self, line: int, side: str) -> Row | None:
        for r in self.rows:
            if side == "LEFT" and r.kind in (" ", "-") and r.old == line:
                return r
            if side != "LEFT" and r.kind in (" ", "+") and r.new == line:
                return r
        return None


def parse(patch: str | None) -> list[Hunk]:
    if not patch:
        return []
    hunks: list[Hunk] = []
    rows: list[Row] = []
    header = -1
    old = new = 0
    for pos, text in enumerate(patch.split("\n")):
        m = _HEADER.match(text)
        if m:
            if header >= 0:
                hunks.append(Hunk(header, tuple(rows)))
            header, rows = pos, []
            old, new = int(m.group(1)), int(m.group(3))
            continue
        if header < 0:
            continue
        kind = text[:1] or " "
        if kind == "+":
            rows.append(Row(pos, "+", None, new))
            new += 1
        elif kind == "-":
            rows.append(Row(pos, "-", old, None))
            old += 1
        elif kind == "\\":
            rows.append(Row(pos, "\\", None, None))
        else:
            rows.append(Row(pos, " ", old, new))
            old += 1
            new += 1
    if header >= 0:
        hunks.append(Hunk(header, tuple(rows)))
    return hunks


def locate(hunks: list[Hunk], line: int, side: str) -> tuple[int, Row] | None:
    """(hunk index, row) of `line` on `side`, or None when the line is outside every hunk."""
    for i, h in enumerate(hunks):
        r = h.find(line, side)
        if r is not None:
            return i, r
    return None


def at_position(hunks: list[Hunk], position: int) -> tuple[int, Row] | None:
    for i, h in enumerate(hunks):
        for r in h.rows:
            if r.position == position and r.kind in (" ", "+", "-"):
                return i, r
    return None


def diff_hunk(patch: str, hunk: Hunk, row: Row) -> str:
    """GitHub's `diff_hunk` of a review comment: the hunk header through the commented row."""
    lines = patch.split("\n")
    return "\n".join(lines[hunk.header_position:row.position + 1])


def commentable(patch: str | None) -> dict[str, set[int]]:
    """{"RIGHT": new-file lines, "LEFT": old-file lines} a comment may target."""
    out: dict[str, set[int]] = {"RIGHT": set(), "LEFT": set()}
    for h in parse(patch):
        for r in h.rows:
            if r.kind in (" ", "+") and r.new is not None:
                out["RIGHT"].add(r.new)
            if r.kind in (" ", "-") and r.old is not None:
                out["LEFT"].add(r.old)
    return out
