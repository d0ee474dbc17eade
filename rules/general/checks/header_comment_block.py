"""Flags a new multi-line comment block that heads a file, a top-level section or the overrides.

## Why it matters
Where the repository's written guidance forbids header comments (its AGENTS.md does from late
2026, as the review of InferenceX PR #4867 cites), a comment describing a file, topology, config,
recipe, override or section repeats what the YAML says, goes stale when a value changes, and
holds rationale that belongs in the PR description and the changelog entry. A short note next
to the specific value it explains is fine.

The convention is read from the base revision's guidance (`AGENTS.md`, `CLAUDE.md`,
`CONTRIBUTING.md` at the root and at the root of the PR's layout, `rules/policy.py`): a sentence
that forbids header comments. Where the base has no such sentence the rule does not fire; where
the guidance was not read it is skipped. The finding quotes the sentence it enforces.

## When it fires
Only blocks the PR writes or edits are flagged (never untouched history). A block counts when
it has at least `min_lines` lines of text and sits at the top of the file, directly above (blank
lines aside) a top-level key, or above the first `override_*` / `zip_override_*` key. Applies to
YAML recipes and master configs.

## Example
    # Overrides: max-num-seqs tracks CONC, capture lists are built from
    # the decode batch sizes, and the golden AL replaces the measured one
    # for every variant below.
    override_c64:
      ...

## Fix
Move the rationale into the PR description or the changelog entry; keep at most a one- or
two-line note directly above the value it explains.

## Options
`min_lines` (default 3): how many lines of text make a header block.
"""
import re
from collections.abc import Iterator

from pydantic import Field

from rules.comments import MAX_SCAN_CHARS, blocks, touched_lines, yaml_comments
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.policy import header_comments_forbidden

CODE = "RR301"
NAME = "header-comment-block"
SEVERITY = Severity.NIT
PLURAL = "comment blocks head a key or the file"  # the App's grouped comment: "7 comment blocks …"
KINDS = ("recipes", "master_configs")
_KEY = re.compile(r"""^(?P<indent>\s*)(?:-\s+)?["']?(?P<key>[^\s:#"'][^:#"']*?)["']?\s*:(?:\s|$)""")
_OVERRIDE = re.compile(r"^(?:zip_)?override_")
# Commented-out YAML (`- { tp: 4 }`, `conc-end: 64`) is disabled config, not a header.
_CODE_LINE = re.compile(r"^\s*(?:-\s|-$|[\w.-]+:(?:\s|$)|[{\[])")


class Options(RuleOptions):
    # Lines of comment text (bare `#` separators not counted) that make a block a header.
    min_lines: int = Field(default=3, ge=2)


def _position(lines: list[str], start: int, end: int, first_override: int | None) -> str | None:
    """What the block at lines start..end heads (for the message), or None."""
    if all(not lines[i].strip() or lines[i].strip() == "---" for i in range(start - 1)):
        return "the file"
    nxt = next((i for i in range(end, len(lines)) if lines[i].strip()), None)
    if nxt is None:
        return None
    m = _KEY.match(lines[nxt])
    if m is None:
        return None
    if first_override is not None and nxt + 1 == first_override:
        return f"the overrides (`{m.group('key')}`)"
    if not m.group("indent") and not lines[nxt].startswith("-"):
        return f"top-level key `{m.group('key')}`"
    return None


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    files = [f for f in ctx.changeset.files if f.status != "removed" and ctx.kind(f.path) in KINDS]
    if not files:
        return
    rule = header_comments_forbidden(ctx.changeset)
    if rule is None:
        yield Skipped("header comments: the base's written guidance (AGENTS.md, CONTRIBUTING.md) was not read, so "
                      "whether the repository forbids them is unknown")
        return
    if rule is False:
        return  # the base's guidance has no such convention: nothing to hold the PR to
    said = f"{rule.path}:{rule.line} at the base: \"{rule.text}\""
    for f in files:
        text = f.head_text
        if text is None:
            yield Skipped(f"{f.path}: content not available, header comments not checked", path=f.path)
            continue
        if len(text) > MAX_SCAN_CHARS:
            yield Skipped(f"{f.path}: {len(text):,} characters; files over {MAX_SCAN_CHARS:,} are not scanned",
                          path=f.path)
            continue
        touched = touched_lines(f)
        if touched is None:
            yield Skipped(f"{f.path}: no patch, so new comment blocks cannot be told from old ones", path=f.path)
            continue
        lines = text.split("\n")
        first_override = next((i + 1 for i, raw in enumerate(lines)
                               if (m := _KEY.match(raw)) and _OVERRIDE.match(m.group("key"))), None)
        flagged = 0
        for b in blocks(text, yaml_comments(text)):
            if b.trailing or b.text_lines < options.min_lines:
                continue
            if not any(c.line in touched for c in b.lines):
                continue
            texts = [c.text for c in b.lines if c.text.strip()]
            if sum(1 for t in texts if _CODE_LINE.match(t)) * 2 >= len(texts):
                continue
            where = _position(lines, b.start, b.end, first_override)
            if where is None:
                continue
            flagged += 1
            first = next(c.text.strip() for c in b.lines if c.text.strip())
            yield Problem(
                f.path, b.start,
                f"{b.text_lines}-line comment block heads {where}: `{first[:80]}`",
                end_line=b.end,
                evidence=(f"lines {b.start}-{b.end}: {b.text_lines} lines of comment text",
                          f"position: heads {where}", "the block has lines this PR wrote", f"the convention: {said}"))
        if not flagged:
            yield Passed(f"{f.path}: no new header comment block", path=f.path)
