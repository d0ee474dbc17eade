"""Where the claims of a changeset sit: in the comments of changed files and in new changelog descriptions.

`changeset_claims(ctx)` (shared by RR250 and RR251 through ctx.memo) reads the comment blocks the
PR wrote or whose annotated line it changed, and the description items of the changelog entries it
adds, parses each with `find_claims` and locates every claim at a head line, with a GitHub
suggestion where the stated result can be corrected in place.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rules.changelog.analysis import changelog_diffs
from rules.claims.parse import Claim, find_claims
from rules.comments import MAX_SCAN_CHARS, blocks, comments_of, touched_lines

CLAIM_KINDS = ("recipes", "master_configs", "scripts")


@dataclass(frozen=True)
class LocatedClaim:
    """A claim found in a changed file: where it is, whether the PR wrote it, and what it annotates."""

    path: str
    line: int  # head line of the relation sign (or of "across")
    claim: Claim
    source: str  # "comment" | "description"
    text: str  # the whole comment block / description item the claim was read from
    fresh: bool  # the PR wrote (part of) the block or description
    suggestion_line: int | None = None  # head line a GitHub suggestion would replace
    suggestion: str | None = None  # that line with the stated result corrected
    annotated_line: int | None = None  # the code line the comment sits on or above
    annotated_text: str | None = None
    annotated_fresh: bool = False
    config_keys: tuple[str, ...] = ()  # for descriptions: the entry's config keys


def _suggest(raw: str | None, claim: Claim) -> str | None:
    if raw is None or claim.fixed is None or claim.stated is None:
        return None
    if raw.count(claim.stated.text) != 1:
        return None
    return raw.replace(claim.stated.text, claim.fixed, 1)


def _comment_claims(ctx, f, text: str) -> list[LocatedClaim]:
    touched = touched_lines(f)
    lines: list[str] = []  # split only when a claim is found (most files hold none)
    out: list[LocatedClaim] = []
    for b in blocks(text, comments_of(f.path, text)):
        fresh = touched is None or any(c.line in touched for c in b.lines)
        ann = b.annotates
        ann_fresh = ann is not None and (touched is None or ann in touched)
        if not (fresh or ann_fresh):
            continue  # neither the comment nor the value it annotates changed: the rules skip it
        joined, spans = b.joined()
        claims = find_claims(joined)
        if not claims:
            continue
        if not lines:
            lines = text.split("\n")
        ann_text = lines[ann - 1] if ann else None
        if ann_text is not None and b.trailing:
            ann_text = ann_text[: b.lines[0].col]
        for c in claims:
            cl, _ = b.locate(spans, c.rel_at)
            sline = None
            suggestion = None
            if c.fixed is not None and c.stated is not None:
                sl, _ = b.locate(spans, c.stated.start)
                suggestion = _suggest(lines[sl.line - 1], c)
                sline = sl.line if suggestion is not None else None
            out.append(LocatedClaim(f.path, cl.line, c, "comment", joined, fresh, sline, suggestion,
                                    ann, ann_text, ann_fresh))
    return out


def _description_lines(entry) -> list[int]:
    """Head line of each `description` item of a changelog entry (1-based), in order."""
    start = entry.key_lines.get("description") if entry.key_lines else None
    if not start:
        return []
    rows = entry.text.split("\n")
    first = start - entry.start_line
    if not 0 <= first < len(rows):
        return []
    head = rows[first]
    m = re.match(r"^(\s*(?:-\s+)?)description:\s*(\S?)", head)
    if m is None or m.group(2):
        return [start]  # inline form: `description: [..]` or a scalar
    key_indent = len(m.group(1))
    out = []
    item_indent = None
    for i in range(first + 1, len(rows)):
        raw = rows[i]
        stripped = raw.lstrip(" ")
        if not stripped.strip():
            continue
        indent = len(raw) - len(stripped)
        is_item = stripped.startswith("- ") or stripped == "-"
        if indent < key_indent or (indent == key_indent and not is_item):
            break
        if is_item and (not out or indent == item_indent):
            item_indent = indent
            out.append(entry.start_line + i)
    return out


def _description_claims(ctx) -> list[LocatedClaim]:
    out: list[LocatedClaim] = []
    for d in changelog_diffs(ctx):
        head_lines: list[str] | None = None  # decoded only when a description states a claim
        for entry in d.new_entries:
            data = entry.data if isinstance(entry.data, dict) else {}
            items = data.get("description")
            if isinstance(items, str):
                items = [items]
            if not isinstance(items, list):
                continue
            lines = _description_lines(entry)
            for i, item in enumerate(items):
                if not isinstance(item, str):
                    continue
                line = lines[i] if i < len(lines) else entry.key_lines.get("description", entry.start_line)
                claims = find_claims(item)
                if claims and head_lines is None:
                    head_lines = (d.head.decode("utf-8", "replace") if d.head else "").split("\n")
                raw = head_lines[line - 1] if claims and 0 < line <= len(head_lines) else None
                for c in claims:
                    suggestion = _suggest(raw, c)
                    out.append(LocatedClaim(d.path, line, c, "description", item, True,
                                            line if suggestion else None, suggestion,
                                            config_keys=tuple(entry.config_keys)))
    return out


def changeset_claims(ctx) -> tuple[list[LocatedClaim], list[str]]:
    """Every claim in the changed comments and new changelog descriptions, plus what was skipped."""

    def compute() -> tuple[list[LocatedClaim], list[str]]:
        out: list[LocatedClaim] = []
        skipped: list[str] = []
        for f in ctx.changeset.files:
            if f.status == "removed" or ctx.kind(f.path) not in CLAIM_KINDS:
                continue
            text = f.head_text
            if text is None:
                skipped.append(f"{f.path}: content not available, comments not read")
                continue
            if len(text) > MAX_SCAN_CHARS:
                skipped.append(f"{f.path}: {len(text):,} characters; files over {MAX_SCAN_CHARS:,} are not scanned")
                continue
            out += _comment_claims(ctx, f, text)
        out += _description_claims(ctx)
        return out, skipped

    return ctx.memo(("claims", "changeset"), compute)
