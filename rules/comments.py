"""Comments in YAML and shell files, found by a line-exact scan, and the lines a PR added.

ruamel keeps comments, but attached to whichever node follows them and without a stable line for
each; a plain scan is simpler and exact. The scan knows where `#` is *not* a comment: inside
quotes, glued to a word (`a#b`, `$#`, `${#x}`), inside YAML block scalars (`key: |`) and shell
here-documents. Consecutive full-line comments form a block (a blank line ends it); a trailing
comment (`key: 1  # note`) is a block of its own that annotates its own line.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from rules.changeset import FileChange

MAX_SCAN_CHARS = 4 * 1024 * 1024  # larger files are not scanned (master configs are ~0.3 MB)


@dataclass(frozen=True)
class CommentLine:
    """One comment: 1-based line, column of `#`, and its text after the `#` marks and one space."""

    line: int
    col: int
    text: str
    text_col: int  # column in the raw line where `text` starts
    full: bool  # the line holds nothing but the comment


@dataclass(frozen=True)
class CommentBlock:
    """Consecutive full-line comments (or one trailing comment) and the line they annotate."""

    lines: tuple[CommentLine, ...]
    trailing: bool
    annotates: int | None  # the code line the block sits on (trailing) or above (next non-blank, non-comment)

    @property
    def start(self) -> int:
        return self.lines[0].line

    @property
    def end(self) -> int:
        return self.lines[-1].line

    @property
    def text_lines(self) -> int:
        """How many lines carry text (a bare `#` separator line does not)."""
        return sum(1 for c in self.lines if c.text.strip())

    def joined(self) -> tuple[str, list[tuple[int, int, CommentLine]]]:
        """The block's text joined with newlines, and (offset, end offset, comment) per line."""
        parts: list[str] = []
        spans: list[tuple[int, int, CommentLine]] = []
        pos = 0
        for c in self.lines:
            spans.append((pos, pos + len(c.text), c))
            parts.append(c.text)
            pos += len(c.text) + 1
        return "\n".join(parts), spans

    @staticmethod
    def locate(spans: list[tuple[int, int, CommentLine]], offset: int) -> tuple[CommentLine, int]:
        """The comment line holding joined-text `offset`, and the offset's column in the raw line."""
        for s, e, c in spans:
            if s <= offset <= e:
                return c, c.text_col + (offset - s)
        s, e, c = spans[-1]
        return c, c.text_col + max(0, min(offset - s, e - s))


_BLOCK_SCALAR = re.compile(r"(?:^|[:\-?]\s|^\s*-\s)\s*[|>][-+0-9]*\s*(?:#.*)?$")
_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def _comment_text(raw: str, col: int) -> tuple[str, int]:
    j = col
    while j < len(raw) and raw[j] == "#":
        j += 1
    if j < len(raw) and raw[j] == " ":
        j += 1
    return raw[j:].rstrip("\r\n"), j


_OUTSIDE = re.compile(r"[#'\"]")  # the characters that matter outside quotes
_IN_DOUBLE = re.compile(r'[\\"]')  # ... and inside a double-quoted scalar


def _yaml_comment_col(raw: str, quote: str | None) -> tuple[int | None, str | None]:
    """Column of a YAML comment in `raw` (or None), and the quote still open at line end.

    The scan jumps from one character that matters to the next (`str.find` / a regex): the runs
    between them cannot open a quote or start a comment."""
    if quote is None and "#" not in raw and "'" not in raw and '"' not in raw:
        return None, None  # the common line: no comment, no quote to track
    i, n = 0, len(raw)
    prev: str | None = None  # last non-blank character outside quotes
    while i < n:
        if quote == "'":
            j = raw.find("'", i)
            if j < 0:
                return None, quote
            if j + 1 < n and raw[j + 1] == "'":
                i = j + 2  # '' is an escaped quote
                continue
            quote, prev, i = None, "'", j + 1
            continue
        if quote == '"':
            m = _IN_DOUBLE.search(raw, i)
            if m is None:
                return None, quote
            j = m.start()
            if raw[j] == "\\":
                i = j + 2
                continue
            quote, prev, i = None, '"', j + 1
            continue
        m = _OUTSIDE.search(raw, i)
        if m is None:
            return None, None
        j = m.start()
        run = raw[i:j].rstrip(" \t")
        if run:
            prev = run[-1]
        c = raw[j]
        if c == "#" and (j == 0 or raw[j - 1] in " \t"):
            return j, None
        # A quote opens a scalar only at its start: line start, after `[`, `{`, `,` or `: `, `- `, `? `.
        if c in "'\"" and (prev is None or prev in "[{," or (prev in ":-?" and raw[j - 1] in " \t")):
            quote = c
        else:
            prev = c
        i = j + 1
    return None, quote


def clear_caches() -> None:
    """Drop the comment-scan cache (the engine calls this after each review)."""
    _yaml_comments.cache_clear()


def yaml_comments(text: str) -> list[CommentLine]:
    """Every YAML comment in `text`, in line order."""
    return list(_yaml_comments(text))


@functools.lru_cache(maxsize=16)  # several rules read the comments of the same (large) file
def _yaml_comments(text: str) -> tuple[CommentLine, ...]:
    if len(text) > MAX_SCAN_CHARS:
        return ()
    out: list[CommentLine] = []
    quote: str | None = None
    block_indent: int | None = None  # inside a block scalar whose parent sits at this indent
    lines = text.split("\n")
    # Outside quotes and block scalars, a line without `#`, a quote, `|` or `>` can neither hold a
    # comment nor change the scan state: the loop jumps over such lines (most of a large file).
    candidates = _state_lines(text)
    k, n, i = 0, len(lines), 0
    while i < n:
        if quote is None and block_indent is None:
            while k < len(candidates) and candidates[k] < i:
                k += 1
            if k == len(candidates):
                break
            i = candidates[k]
        raw = lines[i]
        i += 1
        no = i
        stripped = raw.lstrip(" ")
        indent = len(raw) - len(stripped)
        if block_indent is not None:
            if not stripped.strip() or indent > block_indent:
                continue
            block_indent = None
        if quote is None and stripped.startswith("#"):
            body, tcol = _comment_text(raw, indent)
            out.append(CommentLine(no, indent, body, tcol, True))
            continue
        col, quote = _yaml_comment_col(raw, quote)
        code = raw[:col] if col is not None else raw
        if col is not None:
            body, tcol = _comment_text(raw, col)
            out.append(CommentLine(no, col, body, tcol, False))
        if quote is None and ("|" in code or ">" in code) and _BLOCK_SCALAR.search(code.rstrip()):
            block_indent = indent
    return tuple(out)


_STATE_CHAR = re.compile(r"[#'\"|>]")


def _state_lines(text: str) -> list[int]:
    """0-based indices of the lines holding `#`, `'`, `"`, `|` or `>`, in order."""
    out: list[int] = []
    line, last, search = 0, 0, _STATE_CHAR.search
    m = search(text)
    while m is not None:
        pos = m.start()
        line += text.count("\n", last, pos)
        out.append(line)
        nl = text.find("\n", pos)
        if nl < 0:
            break
        last = nl
        m = search(text, nl)
    return out


def shell_comments(text: str) -> list[CommentLine]:  # noqa: C901 (a character scanner: heredocs, quotes, escapes and comment starts)
    """Every shell comment in `text` (the `#!` line excluded), in line order."""
    if len(text) > MAX_SCAN_CHARS:
        return []
    out: list[CommentLine] = []
    quote: str | None = None
    heredoc: tuple[str, bool] | None = None  # (terminator, strip leading tabs)
    for no, raw in enumerate(text.split("\n"), start=1):
        if heredoc is not None:
            word, dash = heredoc
            if (raw.lstrip("\t") if dash else raw).rstrip("\r") == word:
                heredoc = None
            continue
        if no == 1 and raw.startswith("#!"):
            continue
        i, n = 0, len(raw)
        col = None
        while i < n:
            c = raw[i]
            if quote == "'":
                if c == "'":
                    quote = None
                i += 1
                continue
            if quote == '"':
                if c == "\\":
                    i += 2
                    continue
                if c == '"':
                    quote = None
                i += 1
                continue
            if c == "\\":
                i += 2
                continue
            if c in "'\"":
                quote = c
            elif c == "#" and (i == 0 or raw[i - 1] in " \t;&|()"):
                col = i
                break
            i += 1
        code = raw[:col] if col is not None else raw
        if col is not None:
            body, tcol = _comment_text(raw, col)
            out.append(CommentLine(no, col, body, tcol, not raw[:col].strip()))
        m = _HEREDOC.search(code) if quote is None else None
        if m:
            heredoc = (m.group(3), m.group(1) == "-")
    return out


def blocks(text: str, comments: list[CommentLine]) -> list[CommentBlock]:
    """Group comments into blocks and find the line each block annotates."""
    lines = text.split("\n")
    out: list[CommentBlock] = []
    run: list[CommentLine] = []

    def next_code(after: int) -> int | None:
        # The line right after the block; a blank line (or the end) means it annotates nothing specific.
        if after < len(lines) and lines[after].strip():
            return after + 1
        return None

    def flush() -> None:
        if run:
            out.append(CommentBlock(tuple(run), False, next_code(run[-1].line)))
            run.clear()

    for c in comments:
        if not c.full:
            flush()
            out.append(CommentBlock((c,), True, c.line))
            continue
        if run and c.line != run[-1].line + 1:
            flush()
        run.append(c)
    flush()
    out.sort(key=lambda b: b.start)
    return out


def comments_of(path: str, text: str) -> list[CommentLine]:
    """YAML or shell comments, by file name."""
    if path.endswith((".sh", ".bash")):
        return shell_comments(text)
    return yaml_comments(text)


def _patchset(patch: str | None) -> PatchSet | None:
    """GitHub's `patch` (hunks only) as a unidiff PatchSet; None when absent or unparsable."""
    if not patch:
        return None
    try:
        return PatchSet("--- a/f\n+++ b/f\n" + patch.rstrip("\n") + "\n")
    except UnidiffParseError:
        return None


def added_lines(patch: str | None) -> frozenset[int] | None:
    """Head line numbers of `+` lines in a unified-diff patch; None when there is no usable patch."""
    ps = _patchset(patch)
    if ps is None:
        return None
    return frozenset(ln.target_line_no for pf in ps for h in pf for ln in h if ln.is_added)


def edited_lines(patch: str | None) -> frozenset[int]:
    """Head lines a patch adds, plus the head lines on either side of each place it deletes lines
    (a deletion has no head line of its own); empty when there is no usable patch."""
    out: set[int] = set()
    for pf in _patchset(patch) or ():
        for h in pf:
            nxt = h.target_start
            for ln in h:
                if ln.is_added:
                    out.add(ln.target_line_no)
                    nxt = ln.target_line_no + 1
                elif ln.is_removed:
                    out.update((nxt - 1, nxt))
                else:
                    nxt = (ln.target_line_no or nxt) + 1
    return frozenset(x for x in out if x > 0)


def touched_lines(f: FileChange) -> frozenset[int] | None:
    """Lines the PR wrote: every line of an added file, the `+` lines otherwise; None when unknown."""
    text = f.head_text
    if f.status == "added" and text is not None:
        return frozenset(range(1, text.count("\n") + 2))
    return added_lines(f.patch)
