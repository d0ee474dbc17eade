"""Flags a comment above a master-config key that calls its metadata identical to another key's when it is not.

## Why it matters
Keys split off for one scenario (an `…-agentic` sibling) often carry a comment saying their
metadata is identical to the key they came from, so a reader can skip comparing them. When the
PR bumps the image (or model, runner, precision, framework) of one of the two, the comment now
tells the reader something false, and the next change to the original key is made without
noticing that the sibling no longer follows it (#1442: only the agentic sibling's image moved,
under a comment calling it identical to `origin/main`'s entry).

## When it fires
The comment block directly above the key is read; "identical to K" / "same metadata as K" names
the other key, compared at the base when the comment says `origin/main's K`, else at the head.
The metadata fields are `image`, `model`, `model-prefix`, `runner`, `precision`, `framework`
and `multinode`. Reported when the PR changes either key or the comment.

## Example
    # Diverged from glm5.1-fp4-mi355x-sglang. Metadata is identical to origin/main's
    # glm5.1-fp4-mi355x-sglang; only the agentic-coding scenario differs.
    glm5.1-fp4-mi355x-sglang-agentic:
      image: lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260517   # the other key is on v0.5.11

## Fix
Update the comment (say which field differs), or align the field.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from rules.added import added_in
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.master.analysis import changed_keys, master_keys

CODE = "RR108"
NAME = "master-identity-claim-stale"
SEVERITY = Severity.NIT
FIELDS = ("image", "model", "model-prefix", "runner", "precision", "framework", "multinode")
_CLAIM = re.compile(r"(?:identical to|same metadata as|the same as)\s+(origin/main's\s+)?`?([A-Za-z0-9][\w.\-]*[\w])`?",
                    re.I)


def _comment_above(lines: list[str], line: int) -> list[tuple[int, str]]:
    out = []
    n = line - 1
    while n >= 1 and lines[n - 1].lstrip().startswith("#"):
        out.insert(0, (n, lines[n - 1].lstrip("# ").rstrip()))
        n -= 1
    return out


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    changed = {c.key for c in changed_keys(ctx)}
    head, base = master_keys(ctx, "head"), master_keys(ctx, "base")
    texts: dict[str, list[str]] = {}
    agree = 0
    for key, ki in head.items():
        if ctx.changeset.file(ki.path) is None:
            continue  # a master file the PR does not change
        if ki.path not in texts:
            raw = ctx.changeset.head_bytes(ki.path) or b""
            texts[ki.path] = raw.decode("utf-8", "replace").split("\n")
        block = _comment_above(texts[ki.path], ki.line)
        if not block:
            continue
        joined = " ".join(t for _, t in block)
        m = _CLAIM.search(joined)
        if not m:
            continue
        other, at_base = m.group(2).rstrip("."), bool(m.group(1))
        comment_edited = any(n in added_in(ctx, ki.path) for n, _ in block)
        if not (key in changed or other in changed or comment_edited):
            continue
        them = (base if at_base else head).get(other)
        mine, theirs = ki.value, them.value if them is not None else None
        if not isinstance(mine, dict) or not isinstance(theirs, dict):
            continue
        diff = [f for f in FIELDS if mine.get(f) != theirs.get(f)]
        where = f"`{other}`" + (" at the base" if at_base else "")
        if not diff:
            agree += 1
            continue
        line = next((n for n, t in block if m.group(2) in t), block[0][0])
        shown = "; ".join(f"`{f}` `{mine.get(f)}` vs `{theirs.get(f)}`" for f in diff[:3])
        yield Problem(ki.path, line,
                      f"the comment above `{key}` calls its metadata identical to {where}, but {shown}",
                      fix="Say in the comment which fields differ, or align them.",
                      evidence=(f"`{key}` at {ki.path}:{ki.line}",
                                f"{where} in {them.path}:{them.line}"))
    if agree:
        yield Passed(f"{agree} comment(s) calling a key's metadata identical to another's hold "
                     f"({', '.join(FIELDS)} compared)")
