"""Lines a pull request adds to a file, and where a finding about several values goes.

- `added_lines(patch)`: the new-file line numbers a unified-diff patch adds (`+` lines);
- `added_in(ctx, path)`: the head lines the PR adds to `path`, memoized per review;
- `anchor(ctx, path, line, *others)`: the first of the lines that the PR added, else `line`.
"""
from __future__ import annotations

import re

from rules.context import ReviewContext

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def added_lines(patch: str | None) -> set[int]:
    """New-file line numbers that a unified-diff patch adds ('+' lines)."""
    out: set[int] = set()
    if not patch:
        return out
    line = 0
    for raw in patch.split("\n"):
        m = _HUNK.match(raw)
        if m:
            line = int(m.group(1))
            continue
        if not line:
            continue
        if raw.startswith("+"):
            out.add(line)
            line += 1
        elif raw.startswith("-") or raw.startswith("\\"):
            continue
        else:
            line += 1
    return out


def anchor(ctx: ReviewContext, path: str, line: int | None, *others: int | None) -> int | None:
    """The line a finding about several values goes on: the first one the PR added, else `line`."""
    added = added_in(ctx, path)
    for cand in (line, *others):
        if cand is not None and cand in added:
            return cand
    return line if line is not None else next((o for o in others if o is not None), None)


def added_in(ctx: ReviewContext, path: str) -> set[int]:
    """Head lines the PR adds to `path` (memoized per review; none for a file it does not change)."""
    return ctx.memo(("recipe", "added", path), lambda: _added_for(ctx, path))


def _added_for(ctx: ReviewContext, path: str) -> set[int]:
    f = ctx.changeset.file(path)
    return added_lines(f.patch) if f is not None else set()
