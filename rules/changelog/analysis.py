"""The perf-changelog analysis shared by the changelog rules and the master-config rules.

`changelog_diffs(ctx)` answers, once per review (memoized), for every changed changelog file:
which entries the PR adds and where they sit, whether the existing bytes survived, and what
changed in history if they did not.

Speed matters (the real file is ~6,400 lines and growing; a full ruamel round-trip parse costs
~0.8 s), so nothing here parses a whole file:

* fast path: `head.startswith(base)` (trailing whitespace at the very end of base aside) means
  history is intact; only the appended tail is split into entries;
* otherwise both files are split into entry blocks by scanning for top-level `- ` lines at
  column 0, common leading/trailing blocks are skipped by byte comparison, and only the
  differing middle is aligned (difflib on block contents);
* only entries the PR adds are YAML-parsed, one small entry at a time (ruamel safe loader,
  which rejects duplicate keys); line numbers come from the text itself.
"""
from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from rules.changeset import FileChange
from rules.document import MAX_YAML_BYTES, expanded_size
from rules.finding import Skipped

ENTRY_START = b"- config-keys:"
# Past this size a changelog is not analysed (the real one is ~0.4-0.7 MB).
MAX_CHANGELOG_BYTES = MAX_YAML_BYTES
# At most this many added entries are YAML-parsed (a real PR adds a handful).
MAX_PARSED_ENTRIES = 2000

_ITEM_START = re.compile(rb"^-(?=[ \n]|$)", re.M)  # `- ` or a bare `-` at column 0
_PR_NUMBER = re.compile(r"/pull/(\d+)\b")
_TOP_KEY = re.compile(r"^(?:- |  )([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s|$)")
_REVERT = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*revert", re.I)
_PR_LINK_LINE = re.compile(r"^\s*(?:- )?pr-link\s*:\s*(.*?)\s*$")
_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def count_word(n: int) -> str:
    """`five` for 5 (up to ten), `1,234` beyond."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else f"{n:,}"


def show_bytes(raw: bytes) -> str:
    """Whitespace bytes as a quoted string with escapes, e.g. `"\\n  \\n"`."""
    return json.dumps(raw.decode("utf-8", "replace"))


def short(value: str, limit: int = 80) -> str:
    """One-line excerpt of `value` for a message (backtick-safe, truncated with …)."""
    value = value.replace("`", "'").replace("\n", "⏎")
    return value if len(value) <= limit else value[: limit - 1] + "…"


@dataclass(frozen=True, eq=False)
class Entry:
    """One top-level item of the changelog, located in the head file (or base, for deletions)."""

    index: int  # 0-based position in its file
    start_line: int  # 1-based line of its `- config-keys:` line
    end_line: int  # 1-based last non-blank line of the entry
    data: dict | None  # parsed mapping (plain Python types); None if not parsed or unparsable
    text: str  # the entry's raw text, lines start_line..end_line
    error: str | None = None  # why `data` is None for an entry that was meant to be parsed
    key_lines: Mapping[str, int] = field(default_factory=dict)  # top-level key -> 1-based line
    sep: str = ""  # the bytes after end_line up to the next entry or EOF (normally "\n\n")
    span: tuple[int, int] = (0, 0)  # byte offsets [start, end) of the entry's text in its file

    @property
    def well_formed_start(self) -> bool:
        """The first line is `- config-keys:` at column 0 (every real entry starts so)."""
        return self.text.startswith("- config-keys:")

    @property
    def line_count(self) -> int:
        return self.end_line - self.start_line + 1

    @property
    def config_keys(self) -> list[str]:
        """The entry's config keys; [] when absent or of the wrong type."""
        keys = self.data.get("config-keys") if isinstance(self.data, dict) else None
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            return list(keys)
        return []

    @property
    def pr_link(self) -> str | None:
        """The `pr-link` string (from the parsed data, else read from the text); None if absent."""
        if isinstance(self.data, dict):
            link = self.data.get("pr-link")
            return link if isinstance(link, str) else None
        for line in self.text.splitlines():
            m = _PR_LINK_LINE.match(line)
            if m and (line.startswith("  ") or line.startswith("- ")):
                return m.group(1).strip("'\"") or None
        return None

    @property
    def pr_number(self) -> int | None:
        m = _PR_NUMBER.search(self.pr_link or "")
        return int(m.group(1)) if m else None

    @property
    def label(self) -> str:
        """How messages name this entry: `#2707`, or `line 123` without a PR number."""
        n = self.pr_number
        return f"#{n}" if n is not None else f"line {self.start_line:,}"

    @property
    def summary(self) -> str:
        """A short name for messages: the first config key (from the data or the text)."""
        keys = self.config_keys
        if keys:
            return keys[0]
        lines = self.text.split("\n")
        first = lines[0].split(":", 1)[1].strip() if ":" in lines[0] else ""
        if first:
            return first
        for line in lines[1:]:
            if line.lstrip().startswith("- "):
                return line.strip()[2:].strip("'\"")
            break
        return lines[0]


@dataclass(frozen=True)
class HistoryChange:
    """One way the PR changed bytes that existed at base (an RR002 finding)."""

    kind: str  # edited | deleted | moved | separator | header | extended | removed | renamed | correction-mixed
    line: int | None  # 1-based head line (None: file-level)
    message: str
    end_line: int | None = None
    suggestion: str | None = None
    fix: str | None = None
    evidence: tuple[str, ...] = ()
    texts: tuple[str, str] | None = None  # (base entry text, head entry text) of an edited entry


@dataclass(frozen=True)
class SeparatorCheck:
    """The blank lines between a new entry and the entry above it, as written and as wanted.

    Lines `first_line..anchor_line - 1` of head are the separator (`actual`, possibly none);
    `anchor_line` is the next entry's first line. `allowed` lists acceptable separators, the
    first being the one to suggest; historical whitespace kept in place is always allowed.
    """

    entry: Entry  # the new entry the separator belongs to (above or below it)
    first_line: int
    anchor_line: int
    anchor_text: str
    actual: tuple[str, ...]
    allowed: tuple[tuple[str, ...], ...]
    history: tuple[str, ...] = ()  # leading separator lines that are base bytes (never changed)
    history_changed: bool = False  # the PR rewrote those base bytes (a history change: RR002's)
    # New entries were spliced between two existing entries and this separator's lines are the
    # base bytes that separated those two: they are part of the misplacement (RR001's finding,
    # fixed by moving the entries), not a separator the PR wrote.
    spliced: bool = False

    @property
    def ok(self) -> bool:
        return self.actual in self.allowed


@dataclass(frozen=True)
class ChangelogDiff:
    """What one PR did to one changelog file."""

    path: str
    status: str  # FileChange status
    base_count: int  # entries at base
    new_entries: list[Entry]  # entries the PR adds (wherever they sit), in head order
    misplaced: list[tuple[Entry, list[Entry]]]  # added entry sitting above base entries, + those entries
    history_ok: bool  # head bytes begin with the base bytes, byte for byte
    history_changes: list[HistoryChange] = field(default_factory=list)  # RR002 material
    corrections: list[Entry] = field(default_factory=list)  # isolated canonical pr-link corrections
    head_line_count: int = 0
    base_line_count: int = 0
    first_changed_line: int | None = None  # first head line that differs from base
    base_end_line: int = 0  # last head line that is base bytes on the fast path (0 otherwise)
    prefix_len: int = 0  # leading bytes head shares with base (history at least up to here)
    separators: list[SeparatorCheck] = field(default_factory=list)  # around new entries (RR007)
    patch: str | None = None
    head: bytes | None = None
    base: bytes | None = None
    skip_reason: str | None = None  # set when the file could not be analysed (size, content missing)
    oversize: int = 0  # the size in bytes of a file skipped for being over MAX_CHANGELOG_BYTES
    previous_path: str | None = None  # the path before a rename

    @property
    def base_unterminated(self) -> bool:
        """The base file exists, is not empty and does not end with a newline."""
        return self.status not in ("added",) and bool(self.base) and not self.base.endswith(b"\n")

    @property
    def expected_separator(self) -> bytes:
        """The bytes the validator wants between the base bytes and the first appended entry.

        `b""` when base already ends with an empty line (`\n\n`), else `b"\n"`: head must read
        `base + expected_separator + b"- config-keys:…"`. Between appended entries: exactly one
        empty line (`\n\n` before each `- config-keys:`).
        """
        return b"" if (self.base or b"").endswith(b"\n\n") else b"\n"

    @property
    def appends_entry(self) -> bool:
        """True iff the PR adds at least one entry and changes no existing entry or byte.

        A misplaced (mid-file) entry still counts as added: that is a placement problem (RR001),
        not a history problem. The sweep gate uses this to decide whether a sweep will run.
        """
        return self.skip_reason is None and bool(self.new_entries) and not self.history_changes

    @cached_property
    def _head_lines(self) -> list[str]:
        return (self.head or b"").decode("utf-8", "replace").split("\n")

    def head_lines(self) -> list[str]:
        """The head file as text lines (decoded leniently, computed once); for suggestions only."""
        return self._head_lines


def anchored(head_lines: list[str], line: int, end_line: int, replacement: list[str]) -> tuple[int, int, str]:
    """A suggestion that renders exactly: (line, end_line, text) replacing head lines line..end_line.

    Suggestion blocks lose trailing empty lines (and an empty block reads as one empty line), so
    while the replacement ends with an empty line, the range is extended by the next head line.
    """
    repl = list(replacement)
    while (not repl or repl[-1] == "") and end_line < len(head_lines):
        end_line += 1
        repl.append(head_lines[end_line - 1])
    return line, end_line, "\n".join(repl)


# --------------------------------------------------------------------------------------------
# Splitting into blocks


@dataclass(frozen=True)
class _Block:
    start: int  # byte offset of the item's first line
    content_end: int  # byte offset just past the last non-whitespace byte
    end: int  # byte offset of the next item (or EOF)
    start_line: int
    end_line: int

    def content(self, data: bytes) -> bytes:
        return data[self.start:self.content_end]

    def sep(self, data: bytes) -> bytes:
        return data[self.content_end:self.end]


def _split(data: bytes, offset: int = 0, line0: int = 1, end: int | None = None) -> tuple[int, list[_Block]]:
    """Top-level items of `data[offset:end]`: (offset of the first item, blocks). `line0` = line at offset.

    `offset` must be 0 or a line start, and `end` the end of data or an item start.
    """
    end = len(data) if end is None else end
    starts = [m.start() for m in _ITEM_START.finditer(data, offset, end)]
    blocks = []
    line = line0
    prev = offset
    for i, st in enumerate(starts):
        line += data.count(b"\n", prev, st)
        prev = st
        e = starts[i + 1] if i + 1 < len(starts) else end
        ce = st + len(data[st:e].rstrip())
        blocks.append(_Block(st, ce, e, line, line + data.count(b"\n", st, ce)))
    return (starts[0] if starts else end), blocks


def _is_item_at(data: bytes, pos: int) -> bool:
    return (data[pos:pos + 1] == b"-" and (pos == 0 or data[pos - 1] == 10)
            and (pos + 1 == len(data) or data[pos + 1] in b" \n"))


def _count_items(data: bytes, start: int = 0, end: int | None = None) -> int:
    """Number of top-level items (lines starting `- ` or a bare `-`) in data[start:end], fast."""
    end = len(data) if end is None else end
    n = data.count(b"\n- ", start, end) + data.count(b"\n-\n", start, end)
    if end == len(data) and data.endswith(b"\n-") and end - start >= 2:
        n += 1
    if start == 0 and _is_item_at(data, 0):
        n += 1
    return n


def _prev_item(data: bytes, pos: int) -> int:
    """The largest item start < pos, or 0."""
    end = pos
    while end > 1:
        i = data.rfind(b"\n-", 0, end)
        if i < 0:
            break
        if _is_item_at(data, i + 1):
            return i + 1
        end = i + 1
    return 0


def _next_item(data: bytes, pos: int) -> int:
    """The smallest item start >= pos, or len(data)."""
    if pos <= 0 and _is_item_at(data, 0):
        return 0
    i = max(pos - 1, 0)
    while True:
        i = data.find(b"\n-", i)
        if i < 0:
            return len(data)
        if _is_item_at(data, i + 1):
            return i + 1
        i += 1


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix (a binary search over slice comparisons)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo]; a[:hi] != b[:hi]
    while hi - lo > 64:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[lo] == b[lo]:
        lo += 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the longest common suffix, at most `limit`."""
    la, lb = len(a), len(b)
    if limit <= 0:
        return 0
    if a[la - limit:] == b[lb - limit:]:
        return limit
    lo, hi = 0, limit
    while hi - lo > 64:
        mid = (lo + hi) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[la - lo - 1] == b[lb - lo - 1]:
        lo += 1
    return lo


def _line_count(data: bytes) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# --------------------------------------------------------------------------------------------
# Parsing one entry


def _parse_entry(yaml: YAML, text: str) -> tuple[Any, str | None]:
    """(first item's mapping, error). The text holds exactly one top-level item."""
    try:
        loaded = yaml.load(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f" (entry line {mark.line + 1})" if mark is not None else ""
        problem = " ".join(str(p) for p in (err.context, err.problem) if p) or type(err).__name__
        return None, f"does not parse: {problem}{where}".replace("\n", " ")
    except RecursionError:
        return None, "does not parse: nesting too deep"
    except (YAMLError, ValueError, TypeError, OverflowError) as err:
        return None, f"does not parse: {type(err).__name__}"
    if expanded_size(loaded) is None:
        return None, "YAML aliases expand too far"
    if not isinstance(loaded, list) or not loaded:
        return None, "is not a list item"
    item = loaded[0]
    if not isinstance(item, dict):
        return None, f"is a {type(item).__name__}, not a mapping"
    if not all(isinstance(k, str) for k in item):
        return None, "has a non-string key"
    return item, None


def parse_entry(text: str) -> tuple[Any, str | None]:
    """(mapping, error) of one entry's text, parsed exactly as the rules parse a new entry."""
    return _parse_entry(YAML(typ="safe", pure=True), text if text.endswith("\n") else text + "\n")


def _key_lines(text: str, start_line: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, line in enumerate(text.split("\n")):
        m = _TOP_KEY.match(line)
        if m and m.group(1) not in out:
            out[m.group(1)] = start_line + i
    return out


class _Builder:
    """Makes Entry objects for one file, parsing only those asked to be parsed."""

    def __init__(self, data: bytes):
        self.data = data
        self.yaml: YAML | None = None
        self.parsed = 0

    def entry(self, index: int, block: _Block, parse: bool) -> Entry:
        raw = block.content(self.data)
        sep = block.sep(self.data).decode("utf-8", "replace")
        span = (block.start, block.content_end)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            return Entry(index, block.start_line, block.end_line, None, text,
                         "is not valid UTF-8" if parse else None, _key_lines(text, block.start_line), sep, span)
        keys = _key_lines(text, block.start_line)
        if not parse:
            return Entry(index, block.start_line, block.end_line, None, text, None, keys, sep, span)
        if "\0" in text:
            return Entry(index, block.start_line, block.end_line, None, text, "contains NUL bytes", keys, sep, span)
        if self.parsed >= MAX_PARSED_ENTRIES:
            return Entry(index, block.start_line, block.end_line, None, text,
                         f"was not parsed: more than {MAX_PARSED_ENTRIES:,} added entries", keys, sep, span)
        if self.yaml is None:
            self.yaml = YAML(typ="safe", pure=True)
        self.parsed += 1
        data, error = _parse_entry(self.yaml, text + "\n")
        return Entry(index, block.start_line, block.end_line, data, text, error, keys, sep, span)


# --------------------------------------------------------------------------------------------
# Comparing base and head


def _lines(b: bytes) -> list[str]:
    return b.decode("utf-8", "replace").split("\n")


def _sep_lines(sep: bytes) -> list[str]:
    """Separator bytes after a content line -> the whole lines they make (without the content line)."""
    parts = _lines(sep)
    return parts[1:-1] if len(parts) > 1 else []


def _trim(a: list[str], b: list[str]) -> tuple[int, int]:
    """(common prefix length, common suffix length) of two line lists, not overlapping."""
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, s


def _canonical_link(link: str, repo: str | None) -> bool:
    if repo:
        return re.fullmatch(rf"https://github\.com/{re.escape(repo)}/pull/\d+", link) is not None
    return re.fullmatch(r"https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/pull/\d+", link) is not None


def _similar(a: Entry, b: Entry) -> bool:
    """Is head entry `b` an edited version of base entry `a`? (same pr-link, or mostly the same lines)"""
    if a.pr_link and a.pr_link == b.pr_link:
        return True
    la, lb = set(a.text.split("\n")[1:]), set(b.text.split("\n")[1:])
    return bool(la | lb) and len(la & lb) * 2 >= max(len(la), len(lb))


def _labels(entries: list[Entry], limit: int = 8) -> str:
    names = [e.label for e in entries[:limit]]
    if len(entries) > limit:
        names.append(f"and {len(entries) - limit:,} more")
    return ", ".join(names)


def _hunk_of(patch: str | None, line: int) -> str | None:
    """The `@@ -a,b +c,d @@` header of the patch hunk whose new side contains `line`."""
    if not patch:
        return None
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", patch, re.M):
        c, d = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
        if c <= line < c + max(d, 1):
            return m.group(0)
    return None


def hunk_of(diff: ChangelogDiff, line: int) -> str | None:
    return _hunk_of(diff.patch, line)


def _tail_change(base: bytes, head: bytes, core: int, stop: int, line: int, entry: Entry | None,
                 head_core: int | None = None) -> HistoryChange:
    """The whitespace after base's last content byte was rewritten (head[head_core:stop] vs base[core:]).

    `line` = the head line after base's last content line; `entry` = the first appended entry;
    `head_core` = where that content ends in head (default: `core`, head and base aligned).
    """
    hc = core if head_core is None else head_core
    was, now = base[core:], head[hc:stop]
    start = _prev_item(base, core)
    last = _Builder(base).entry(0, _Block(start, core, len(base), base.count(b"\n", 0, start) + 1,
                                          base.count(b"\n", 0, core) + 1), False)
    name = last.label if last.pr_number is not None else f"`{short(last.summary)}`"
    head_lines = _lines(head)
    hist = _sep_lines(was)
    wanted = hist if hist and hist[-1] == "" else [*hist, ""]
    if entry is not None:
        s_line, s_end, sug = anchored(head_lines, line, entry.start_line, [*wanted, head_lines[entry.start_line - 1]])
        fix = (f"Restore the bytes after existing entry {name} exactly (`{show_bytes(was)}`), then "
               f"append the new entry after {'them' if wanted == [''] and not hist else 'one empty line'}: "
               f"head must begin with the base bytes byte for byte.")
    else:
        end = len(head_lines) - (1 if head.endswith(b"\n") else 0)
        repl = [head_lines[line - 2], *hist] if hist or was.endswith(b"\n") else [head_lines[line - 2]]
        s_line, s_end, sug = anchored(head_lines, line - 1, max(end, line - 1), repl)
        fix = f"Restore the bytes after existing entry {name} exactly (`{show_bytes(was)}`)."
    return HistoryChange(
        "tail", s_line,
        f"The bytes after the last existing entry {name} changed from `{show_bytes(was)}` to "
        f"`{show_bytes(now)}`.",
        end_line=s_end, suggestion=sug, fix=fix,
        evidence=(f"base ends at byte {len(base):,} with `{show_bytes(was)}` after its last non-blank line",
                  f"head has `{show_bytes(now)}` there" + (f", then new entry `{short(entry.summary)}` at line "
                                                            f"{entry.start_line:,}" if entry is not None else ""),
                  "the validator requires `head.startswith(base)` byte for byte (`validate_raw_change`)"))


def _deletion_points(patch: str | None, head_lines: int) -> list[int]:
    """Head lines a patch deletes next to: the line after each run of deleted lines, or the last
    line of the file for a run at its end."""
    out: list[int] = []
    line = 0
    run = False
    for raw in (patch or "").split("\n"):
        m = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", raw)
        if m:
            line, run = int(m.group(1)), False
            continue
        if not line or not raw or raw.startswith("\\"):
            continue
        if raw[0] == "-":
            if not run:
                out.append(min(max(line, 1), max(head_lines, 1)))
            run = True
            continue
        run = False
        line += 1
    return out


def _spliced_base_bytes(base: bytes, head: bytes, bblocks: list[_Block], hblocks: list[_Block], new_idx: list[int],
                        from_base: dict[int, int], moved: list[tuple[int, int]]) -> set[tuple[int, str]]:
    """The separators around runs of new entries spliced between two consecutive existing entries
    that hold base bytes and whose own lines (those the PR wrote) would be a regular separator:
    `(head block index, "above" | "below")`.

    Between existing entries A and B the base has bytes S (the end of A's last line, then the
    separator lines); the head has H = the separator above the run, the run, the separator below
    it. The base bytes kept in H are its common prefix with S and, after that, its common suffix
    with the rest of S: whole separator lines at the top of the separator above the run, or at the
    bottom of the one below it. Only a clean splice counts (all of S kept, prefix plus suffix): when
    the PR also dropped base bytes there, the separator stays this rule's. When at least one line is
    such base bytes and the lines the PR wrote are one empty line or none, the irregular separator is
    the splice's doing (moving the entries fixes it). A separator of no lines at all (a missing empty line) is the PR's.
    """
    out: set[tuple[int, str]] = set()
    moved_base = {i for i, _ in moved}
    runs: list[list[int]] = []
    for j in sorted(set(new_idx)):
        if runs and runs[-1][-1] == j - 1:
            runs[-1].append(j)
        else:
            runs.append([j])
    for run in runs:
        first, last = run[0], run[-1]
        if first == 0 or last + 1 >= len(hblocks):
            continue
        ia, ib = from_base.get(first - 1), from_base.get(last + 1)
        if ia is None or ib != ia + 1 or ia in moved_base or ib in moved_base:
            continue
        s = base[bblocks[ia].content_end:bblocks[ib].start]
        h = head[hblocks[first - 1].content_end:hblocks[last + 1].start]
        c1 = _common_prefix(s, h)
        c2 = _common_suffix(s[c1:], h[c1:], min(len(s), len(h)) - c1)
        if c1 + c2 < len(s):
            continue  # the PR also dropped or rewrote base bytes there: not a clean splice
        above = _sep_lines(hblocks[first - 1].sep(head))
        at, kept = 1, 0  # byte 0 ends A's last line
        for line in above:
            at += len(line.encode()) + 1
            if at > c1:
                break
            kept += 1
        if kept and tuple(above[kept:]) in ((), ("",)):
            out.add((first, "above"))
        below = _sep_lines(hblocks[last].sep(head))
        at, kept = 0, 0
        for line in reversed(below):
            at += len(line.encode()) + 1
            if at > c2:
                break
            kept += 1
        if kept and tuple(below[:len(below) - kept]) in ((), ("",)):
            out.add((last, "below"))
    return out


def _unanalysable(f: FileChange) -> ChangelogDiff | None:
    """The diff of a changelog that is not aligned at all: deleted, oversize, or content missing."""
    path, status = f.path, f.status
    base = None if status == "added" else f.base
    head = None if status == "removed" else f.head
    common = _common_fields(f)
    if status == "removed":
        n = _count_items(base) if base is not None else 0
        what = f"all {n:,} entries" if base is not None else "its history"
        change = HistoryChange(
            "removed", None, f"The changelog `{path}` is deleted, removing {what}.",
            fix="Restore the file from the base branch; the changelog is append-only and the sweep "
                "workflow triggers on it.",
            evidence=("file status `removed`", f"{n:,} entries at base"))
        return ChangelogDiff(base_count=n, new_entries=[], misplaced=[], history_ok=False,
                             history_changes=[change], base_line_count=_line_count(base or b""), **common)
    for side, raw in (("head", head), ("base", base)):
        if raw is not None and len(raw) > MAX_CHANGELOG_BYTES:
            return ChangelogDiff(base_count=0, new_entries=[], misplaced=[], history_ok=False,
                                 skip_reason=f"the {side} file is {len(raw):,} bytes, over the "
                                             f"{MAX_CHANGELOG_BYTES:,}-byte limit for a changelog",
                                 oversize=len(raw) if side == "head" else 0, **common)
    if head is None:
        return ChangelogDiff(base_count=0, new_entries=[], misplaced=[], history_ok=False,
                             skip_reason="the head content was not available to the review", **common)
    if base is None and status != "added":
        return ChangelogDiff(base_count=0, new_entries=[], misplaced=[], history_ok=False,
                             skip_reason="the base content was not available to the review", **common)
    return None


def _common_fields(f: FileChange) -> dict[str, Any]:
    """The ChangelogDiff fields every outcome shares: the file's identity and contents."""
    base = None if f.status == "added" else f.base
    head = None if f.status == "removed" else f.head
    return dict(path=f.path, status=f.status, patch=f.patch, head=head, base=base, previous_path=f.previous_path)


class _Alignment:
    """Base and head of one changelog file aligned entry by entry, and what the PR changed.

    Built for a file `_unanalysable` accepts; its phases run in order (see `_analyse`), each
    reading what the earlier ones found.
    """

    def __init__(self, f: FileChange, repo: str | None, title: str | None):
        self.f, self.repo, self.title = f, repo, title
        self.common = _common_fields(f)
        head = None if f.status == "removed" else f.head
        assert head is not None  # `_unanalysable` returned the diff of a file without a head
        self.head: bytes = head
        self.renamed: list[HistoryChange] = []
        if f.status == "renamed":
            self.renamed.append(HistoryChange(
                "renamed", None, f"The changelog `{f.previous_path}` is renamed to `{f.path}`.",
                fix=f"Keep the changelog at `{f.previous_path}`; the sweep workflow and its validator read that path.",
                evidence=(f"file status `renamed` from `{f.previous_path}`",)))
        base = self.base = (None if f.status == "added" else f.base) or b""
        self.builder = _Builder(head)
        self.core = len(base.rstrip())
        self.base_nl_core = base.count(b"\n", 0, self.core)
        self.base_lines = (self.base_nl_core + base.count(b"\n", self.core)
                           + (0 if not base or base.endswith(b"\n") else 1))
        self._all_lines: list[str] | None = None

    def fast_path(self) -> ChangelogDiff | None:
        """Fast path: history intact, entries appended at the tail (None: not this case)."""
        base, head, core, base_nl_core, builder = self.base, self.head, self.core, self.base_nl_core, self.builder
        if not head.startswith(base[:core]):
            return None
        head_lines = base_nl_core + head.count(b"\n", core) + (0 if not head or head.endswith(b"\n") else 1)
        nl = head.find(b"\n", core) if core else -1
        region = (nl + 1 if nl >= 0 else len(head)) if core else 0
        first, blocks = _split(head, region, base_nl_core + head.count(b"\n", core, region) + 1)
        if not (core == 0 or not head[core:first].strip()):
            return None
        base_count = _count_items(base)
        new = [builder.entry(base_count + k, b, True) for k, b in enumerate(blocks)]
        base_end = base_nl_core + 1 if core else 0
        seps: list[SeparatorCheck] = []
        intact = head.startswith(base)
        changes = list(self.renamed)
        if not intact:
            changes.append(_tail_change(base, head, core, first if new else len(head),
                                        base_nl_core + 2, new[0] if new else None))
        if new and core:
            hist = tuple(_sep_lines(base[core:]))
            wanted = hist if hist and hist[-1] == "" else hist + ("",)
            actual = tuple(_sep_lines(head[core:blocks[0].start]))
            seps.append(SeparatorCheck(new[0], base_end + 1, new[0].start_line, new[0].text.split("\n", 1)[0],
                                       actual, (wanted,), hist, history_changed=not intact))
        for k, b in enumerate(blocks[:-1]):
            nxt = blocks[k + 1]
            seps.append(SeparatorCheck(new[k], b.end_line + 1, nxt.start_line, new[k + 1].text.split("\n", 1)[0],
                                       tuple(_sep_lines(b.sep(head))), (("",),)))
        first_changed = None
        if head != base:
            first_changed = new[0].start_line if new else min(base_end + 1, max(head_lines, 1))
            if not intact:
                first_changed = changes[-1].line
        return ChangelogDiff(base_count=base_count, new_entries=new, misplaced=[], history_ok=intact,
                             history_changes=changes, head_line_count=head_lines,
                             base_line_count=self.base_lines, first_changed_line=first_changed,
                             base_end_line=base_end, prefix_len=core, separators=seps, **self.common)

    def all_lines(self) -> list[str]:
        if self._all_lines is None:
            self._all_lines = _lines(self.head)
        return self._all_lines

    def h_entry(self, j: int, parse: bool = False) -> Entry:
        head_entries = self.head_entries
        if j not in head_entries or (parse and head_entries[j].data is None and head_entries[j].error is None):
            head_entries[j] = self.builder.entry(self.before + j, self.hblocks[j], parse)
        return head_entries[j]

    def b_entry(self, i: int) -> Entry:
        if i not in self.base_entries:
            self.base_entries[i] = self.bbuilder.entry(self.before + i, self.bblocks[i], False)
        return self.base_entries[i]

    def align(self) -> None:
        """Slow path: split and align only the region between the common byte prefix and suffix,
        widened to entry boundaries plus one entry of context on each side."""
        base, head = self.base, self.head
        self.head_lines = _line_count(head)
        p = self.p = _common_prefix(base, head)
        q = _common_suffix(base, head, min(len(base), len(head)) - p)
        sb = _prev_item(base, p - 1) if p > 1 else 0
        sb = _prev_item(base, sb) if sb > 0 else 0
        be = _next_item(base, len(base) - q + 1)
        be = _next_item(base, be + 1) if be < len(base) else be
        self.he = be + len(head) - len(base)
        line_sb = base.count(b"\n", 0, sb) + 1
        hb_first, self.hblocks = _split(head, sb, line_sb, self.he)
        bb_first, self.bblocks = _split(base, sb, line_sb, be)
        self.before = _count_items(base, 0, sb)  # entries above the region (identical in base and head)
        self.base_tail = be == len(base)  # the region reaches the end of base
        self.bbuilder = _Builder(base)
        self.changes: list[HistoryChange] = list(self.renamed)

        if sb == 0 and head[:hb_first] != base[:bb_first]:
            hl, bl = _lines(head[:hb_first]), _lines(base[:bb_first])
            p0, _ = _trim(hl, bl)
            self.changes.append(HistoryChange(
                "header", p0 + 1, f"The text above the first entry was changed at line {p0 + 1:,}.",
                evidence=(f"base line: `{short(bl[p0]) if p0 < len(bl) else '(none)'}`",
                          f"head line: `{short(hl[p0]) if p0 < len(hl) else '(none)'}`")))

        self.bkeys = [b.content(base) for b in self.bblocks]
        self.hkeys = [b.content(head) for b in self.hblocks]
        self.head_entries: dict[int, Entry] = {}
        self.base_entries: dict[int, Entry] = {}
        self._pair(self._opcodes())

    def _opcodes(self) -> list[tuple[str, int, int, int, int]]:
        """Skip the common head and tail by content (cheap), align only the middle."""
        bkeys, hkeys = self.bkeys, self.hkeys
        lo = 0
        while lo < len(bkeys) and lo < len(hkeys) and bkeys[lo] == hkeys[lo]:
            lo += 1
        hi = 0
        while hi < len(bkeys) - lo and hi < len(hkeys) - lo and bkeys[-1 - hi] == hkeys[-1 - hi]:
            hi += 1
        ops: list[tuple[str, int, int, int, int]] = []
        if lo:
            ops.append(("equal", 0, lo, 0, lo))
        sm = difflib.SequenceMatcher(None, bkeys[lo:len(bkeys) - hi], hkeys[lo:len(hkeys) - hi], autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            ops.append((tag, i1 + lo, i2 + lo, j1 + lo, j2 + lo))
        if hi:
            ops.append(("equal", len(bkeys) - hi, len(bkeys), len(hkeys) - hi, len(hkeys)))
        return ops

    def _pair(self, ops: list[tuple[str, int, int, int, int]]) -> None:
        """Head blocks from base (equal or edited), inserted head blocks, runs of deleted base blocks."""
        self.from_base: dict[int, int] = {}  # head block index -> base block index (equal or edited)
        self.inserted: list[int] = []
        self.deleted_runs: list[tuple[list[int], int | None]] = []  # (base indices, head index that follows)
        self.edited: list[tuple[int, int]] = []
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                for k in range(i2 - i1):
                    self.from_base[j1 + k] = i1 + k
                continue
            if tag == "insert":
                self.inserted.extend(range(j1, j2))
                continue
            if tag == "delete":
                self.deleted_runs.append((list(range(i1, i2)), j1))
                continue
            # replace: pair edited versions, the rest are deletions / insertions
            unpaired = list(range(i1, i2))
            for j in range(j1, j2):
                hit = next((i for i in unpaired if _similar(self.b_entry(i), self.h_entry(j))), None)
                if hit is None:
                    self.inserted.append(j)
                else:
                    unpaired.remove(hit)
                    self.edited.append((hit, j))
                    self.from_base[j] = hit
            if unpaired:
                self.deleted_runs.append((unpaired, j2))

    def moves(self) -> None:
        """An inserted block identical to a deleted one is a move (reorder), not a new entry; the
        deleted entries left over and the moved ones are history changes."""
        deleted_by_content: dict[bytes, list[int]] = {}
        for run, _ in self.deleted_runs:
            for i in run:
                deleted_by_content.setdefault(self.bkeys[i], []).append(i)
        self.moved: list[tuple[int, int]] = []
        self.new_idx: list[int] = []
        for j in sorted(self.inserted):
            pool = deleted_by_content.get(self.hkeys[j])
            if pool:
                i = pool.pop(0)
                self.moved.append((i, j))
                self.from_base[j] = i
            else:
                self.new_idx.append(j)
        moved_base = {i for i, _ in self.moved}
        self.deletion_points = _deletion_points(self.f.patch, self.head_lines)
        bblocks, title = self.bblocks, self.title
        for run, j in self.deleted_runs:
            gone = [i for i in run if i not in moved_base]
            if not gone:
                continue
            ents = [self.b_entry(i) for i in gone]
            lines_gone = sum(bblocks[i].end_line - bblocks[i].start_line + 1 for i in gone)
            line = self.nearest_head_line(j, lines_gone)
            word = "entry" if len(gone) == 1 else "entries"
            self.changes.append(HistoryChange(
                "deleted", line,
                f"{count_word(len(gone)).capitalize()} existing {word} ({_labels(ents)}) "
                f"{'was' if len(gone) == 1 else 'were'} deleted here.",
                fix="Restore the deleted entries byte-for-byte from the base branch; existing changelog "
                    "entries are immutable (revert their effect with a new entry instead).",
                evidence=(f"base lines {bblocks[gone[0]].start_line:,}-{bblocks[gone[-1]].end_line:,} "
                          f"({lines_gone:,} entry lines) are missing at head",
                          *((f"PR title `{short(title)}`: a maintainer revert may be intentional",)
                            if title and _REVERT.match(title) else ()))))
        for i, j in self.moved:
            e = self.h_entry(j)
            self.changes.append(HistoryChange(
                "moved", e.start_line,
                f"Existing entry {e.label if e.pr_number is not None else 'at line ' + format(e.start_line, ',')} "
                f"(`{short(e.summary)}`) was moved from base line "
                f"{bblocks[i].start_line:,} to line {e.start_line:,}.",
                end_line=e.end_line,
                fix="Keep existing entries in their base order; reordering history is an edit.",
                evidence=(f"base entry index {i}, head entry index {j}",)))

    def nearest_head_line(self, j: int | None, span: int = 0) -> int | None:
        hblocks, head, he = self.hblocks, self.head, self.he
        if j is not None and j < len(hblocks):
            line = hblocks[j].start_line
        elif he < len(head):
            line = head.count(b"\n", 0, he) + 1
        elif hblocks:
            line = hblocks[-1].end_line
        else:
            return self.head_lines or None
        # Where the patch deletes lines nearby: the finding sits next to the deletion itself (the
        # patch may take the blank line above the entry or the one below it, or the file's end).
        # (within the deleted lines' own extent of it: another run of deletions is not this one's)
        near = [p for p in self.deletion_points if abs(p - line) <= span + 3]
        return min(near, key=lambda p: (abs(p - line), p)) if near else line

    def edits(self) -> None:
        """Edits: pr-link-only corrections are allowed alone (A10), everything else is a history change."""
        self.correction_entries: list[Entry] = []
        self.pending_corrections: list[HistoryChange] = []
        added_js = set(self.new_idx)
        for i, j in self.edited:
            change, corrected = self._edit(i, j, added_js)
            if corrected is not None:
                self.correction_entries.append(corrected)
                self.pending_corrections.append(change)
            else:
                self.changes.append(change)

    def _edit(self, i: int, j: int, added_js: set[int]) -> tuple[HistoryChange, Entry | None]:
        """The history change of base entry `i` edited into head entry `j`, and that entry if the
        edit is a pr-link correction."""
        head, bblocks, hblocks = self.head, self.bblocks, self.hblocks
        bl = _lines(self.bkeys[i])
        hl = _lines(self.hkeys[j])
        k, s = _trim(bl, hl)
        b_rng, h_rng = bl[k:len(bl) - s], hl[k:len(hl) - s]
        if b_rng and not h_rng and j + 1 in added_js:
            # The head entry is the base entry cut short and the next head item is "new": the PR
            # split one base item in two (a mis-indented `  - config-keys:` of the base moved to
            # column 0). The bytes differ where the base's remaining lines and the next item's
            # disagree; that is the line the PR edited, not the end of this entry.
            hl2 = _lines(head[hblocks[j].start:hblocks[j + 1].content_end])
            k2, s2 = _trim(bl, hl2)
            b2, h2 = bl[k2:len(bl) - s2], hl2[k2:len(hl2) - s2]
            if b2 and len(b2) == len(h2) and s2 and k2 >= len(hl):
                k, s, b_rng, h_rng, hl = k2, s2, b2, h2, hl2
        e = self.h_entry(j)
        start = hblocks[j].start_line
        link_only = (len(bl) == len(hl) and all(
            x.startswith("  pr-link:") and y.startswith("  pr-link:") for x, y in zip(b_rng, h_rng, strict=True)))
        line = start + k
        end_line = start + len(hl) - s - 1
        if h_rng and b_rng:
            repl = list(b_rng)
        elif b_rng:  # lines removed from the entry: re-insert them after the line above
            line = end_line = start + k - 1
            repl = [hl[k - 1], *b_rng]
        else:  # lines added to the entry: replace them and the line above with the line above
            line = start + k - 1
            repl = [hl[k - 1]]
        line, end_line, suggestion = anchored(self.all_lines(), line, end_line, repl)
        old = b_rng[0] if b_rng else "(nothing)"
        new = h_rng[0] if h_rng else "(line removed)"
        if old.strip() == new.strip():  # a whitespace-only edit: make the whitespace visible
            old, new = json.dumps(old), json.dumps(new)
        else:
            old, new = old.strip(), new.strip()
        be = self.b_entry(i)
        name = be.label if be.pr_number is not None else f"`{short(be.summary)}`"
        change = HistoryChange(
            "edited", line,
            f"Existing entry {name} was edited at line {start + k:,}: `{short(old)}` became `{short(new)}`.",
            end_line=end_line, suggestion=suggestion,
            fix="Restore the entry byte-for-byte from the base branch; existing changelog entries are "
                "immutable (describe corrections in a new entry).",
            evidence=(f"base entry at base line {bblocks[i].start_line:,} differs in {len(b_rng) or 1} "
                      f"line(s) from head line {start + k:,}",),
            texts=(be.text, e.text))
        link = _PR_LINK_LINE.match(h_rng[0]).group(1).strip("'\"") if link_only and h_rng else ""
        old_link = _PR_LINK_LINE.match(b_rng[0]).group(1).strip("'\"") if link_only and b_rng else ""
        # A correction replaces a placeholder or malformed link with a canonical one; re-pointing
        # a canonical link at another PR is an edit.
        if link_only and _canonical_link(link, self.repo) and not _canonical_link(old_link, self.repo):
            return change, e
        return change, None

    def history_separators(self) -> None:
        """Separators between surviving history entries are history too (never "fixed"), and so is
        the trailing whitespace of their last lines."""
        base, head, bblocks, hblocks, moved = self.base, self.head, self.bblocks, self.hblocks, self.moved
        from_base, all_lines = self.from_base, self.all_lines
        base_at = {j: i for j, i in from_base.items()}
        for j, i in sorted(base_at.items()):
            if i + 1 >= len(bblocks) or j + 1 >= len(hblocks) or (i, j) in moved:
                continue
            if base_at.get(j + 1) != i + 1:
                continue  # something was inserted or deleted after it: judged by the rules above
            bsep, hsep = bblocks[i].sep(base), hblocks[j].sep(head)
            if bsep != hsep:
                e = self.h_entry(j)
                sep_lines = _sep_lines(bsep)
                s_line, s_end, s_text = anchored(all_lines(), e.end_line, e.end_line + len(_sep_lines(hsep)),
                                                 [all_lines()[e.end_line - 1], *sep_lines])
                self.changes.append(HistoryChange(
                    "separator", s_line,
                    f"The separator after existing entry {e.label} changed from `{show_bytes(bsep)}` to "
                    f"`{show_bytes(hsep)}`.",
                    end_line=s_end, suggestion=s_text,
                    fix="Restore the historical separator bytes exactly (trailing spaces included); "
                        "historical whitespace is immutable.",
                    evidence=(f"base separator `{show_bytes(bsep)}` after base line {bblocks[i].end_line:,}",)))

        # Trailing whitespace on an existing entry's last line is not part of its content (blocks end
        # at the last non-blank byte) but it is history: compare it for every entry that survived.
        edited_js = {j for _, j in self.edited}
        for j, i in sorted(from_base.items()):
            if j in edited_js or (i, j) in moved:
                continue
            btail = bblocks[i].sep(base).split(b"\n", 1)[0]
            htail = hblocks[j].sep(head).split(b"\n", 1)[0]
            if btail == htail or (i == len(bblocks) - 1 and self.base_tail):
                continue  # the last entry of base: its tail bytes are judged with what follows it
            e = self.h_entry(j)
            text = all_lines()[e.end_line - 1]
            self.changes.append(HistoryChange(
                "separator", e.end_line,
                f"The trailing whitespace of existing entry {e.label}'s last line changed from "
                f"`{show_bytes(btail)}` to `{show_bytes(htail)}`.",
                end_line=e.end_line, suggestion=text + btail.decode("utf-8", "replace"),
                fix="Restore the line byte for byte (trailing spaces included); historical whitespace is immutable.",
                evidence=(f"base line {bblocks[i].end_line:,} ends with `{show_bytes(btail)}`",)))

    def added(self) -> None:
        """The new entries, parsed; pr-link corrections mixed with them (or with other line changes)
        are history changes."""
        self.new_entries = [self.h_entry(j, parse=True) for j in self.new_idx]
        pending = self.pending_corrections
        if pending:
            if self.new_entries:
                self.changes.extend(pending)
                self.changes.append(HistoryChange(
                    "correction-mixed", pending[0].line,
                    "A historical pr-link correction is mixed with new changelog entries in one PR.",
                    fix="Make the pr-link correction in its own PR, with no new entries.",
                    evidence=(f"{len(pending)} corrected link(s), {len(self.new_entries)} new entries",)))
                self.correction_entries = []
            elif self.head_lines != self.base_lines:
                self.changes.extend(pending)
                self.correction_entries = []

    def misplaced(self) -> None:
        """Misplaced: an added entry with base entries below it."""
        head, he = self.head, self.he
        self.misplaced_entries: list[tuple[Entry, list[Entry]]] = []
        base_js = sorted(self.from_base)
        suffix: list[Entry] = []
        if self.new_entries and he < len(head):  # entries below the region: all existing ones
            _, sblocks = _split(head, he, head.count(b"\n", 0, he) + 1)
            first_index = self.before + len(self.hblocks)
            suffix = [self.builder.entry(first_index + k, b, False) for k, b in enumerate(sblocks)]
        for j, e in zip(self.new_idx, self.new_entries, strict=False):
            below = [self.h_entry(k) for k in base_js if k > j] + suffix
            if below:
                self.misplaced_entries.append((e, below))

    def separators(self) -> None:
        """Separators around new entries: below each (unless last in the file), and above each whose
        upper neighbour is history (the tail of base, or the entry it was spliced after)."""
        base, head, bblocks, hblocks, from_base = self.base, self.head, self.bblocks, self.hblocks, self.from_base
        self.seps: list[SeparatorCheck] = []
        new_set = set(self.new_idx)
        last_base_i = len(bblocks) - 1 if self.base_tail else None
        spliced = _spliced_base_bytes(base, head, bblocks, hblocks, self.new_idx, from_base, self.moved)
        for j in self.new_idx:
            e = self.head_entries[j]
            if j > 0 and j - 1 not in new_set:
                prev = hblocks[j - 1]
                actual = tuple(_sep_lines(prev.sep(head)))
                i = from_base.get(j - 1)
                hist = tuple(_sep_lines(bblocks[i].sep(base))) if i is not None else ()
                changed = False
                if i is not None and i == last_base_i:
                    wanted = hist if hist and hist[-1] == "" else hist + ("",)
                    allowed = (wanted,)
                    bsep, hsep = bblocks[i].sep(base), prev.sep(head)
                    if not hsep.startswith(bsep):
                        changed = True
                        self.changes.append(_tail_change(base, head, bblocks[i].content_end, prev.end,
                                                         prev.end_line + 1, e, head_core=prev.content_end))
                else:
                    allowed = (("",), hist)
                    hist = ()
                self.seps.append(SeparatorCheck(e, prev.end_line + 1, e.start_line, e.text.split("\n", 1)[0],
                                                actual, allowed, hist, history_changed=changed,
                                                spliced=(j, "above") in spliced))
            if j + 1 < len(hblocks):
                nxt = hblocks[j + 1]
                self.seps.append(SeparatorCheck(e, hblocks[j].end_line + 1, nxt.start_line,
                                                self.h_entry(j + 1).text.split("\n", 1)[0],
                                                tuple(_sep_lines(hblocks[j].sep(head))), (("",),),
                                                spliced=(j, "below") in spliced))

        if self.base_tail and last_base_i is not None and self.he == len(head):
            j_last = next((j for j, i in from_base.items() if i == last_base_i), None)
            if j_last is not None and j_last == len(hblocks) - 1 and (last_base_i, j_last) not in self.moved:
                bsep, hsep = bblocks[last_base_i].sep(base), hblocks[j_last].sep(head)
                if not hsep.startswith(bsep):
                    self.changes.append(_tail_change(base, head, bblocks[last_base_i].content_end, len(head),
                                                     hblocks[j_last].end_line + 1, None,
                                                     head_core=hblocks[j_last].content_end))

    def result(self) -> ChangelogDiff:
        """The diff the phases found, history changes in line order (file-level ones first)."""
        changes, head, head_lines = self.changes, self.head, self.head_lines
        changes.sort(key=lambda c: (c.line is not None, c.line or 0))
        first_changed = min(head.count(b"\n", 0, self.p) + 1, max(head_lines, 1))
        return ChangelogDiff(base_count=_count_items(self.base), new_entries=self.new_entries,
                             misplaced=self.misplaced_entries, history_ok=False, history_changes=changes,
                             corrections=self.correction_entries, head_line_count=head_lines,
                             base_line_count=self.base_lines, first_changed_line=first_changed, prefix_len=self.p,
                             separators=self.seps, **self.common)


def _analyse(f: FileChange, repo: str | None, title: str | None) -> ChangelogDiff:
    diff = _unanalysable(f)
    if diff is not None:
        return diff
    a = _Alignment(f, repo, title)
    diff = a.fast_path()
    if diff is not None:
        return diff
    a.align()
    a.moves()
    a.edits()
    a.history_separators()
    a.added()
    a.misplaced()
    a.separators()
    return a.result()


def signature(text: str) -> str:
    """An entry's identity without its pr-link (the merge helper's `entry_signature`, on text)."""
    return "\n".join(line.rstrip() for line in text.split("\n") if not _PR_LINK_LINE.match(line)).strip()


def base_entries(diff: ChangelogDiff) -> list[Entry]:
    """Every entry of the base file, unparsed (text, lines, pr-link read from the text)."""
    if not diff.base:
        return []
    _, blocks = _split(diff.base)
    b = _Builder(diff.base)
    return [b.entry(k, blk, False) for k, blk in enumerate(blocks)]


def changelog_files(ctx) -> list[FileChange]:
    """Changed files that are (or were, before a rename) a changelog."""
    out = []
    for f in ctx.changeset.files:
        if ctx.kind(f.path) == "changelog" or (f.previous_path and ctx.kind(f.previous_path) == "changelog"):
            out.append(f)
    return out


def changelog_diffs(ctx) -> list[ChangelogDiff]:
    """One ChangelogDiff per changed changelog file, computed once per review."""
    cs = ctx.changeset
    return ctx.memo(("changelog_diffs",),
                    lambda: [_analyse(f, cs.repo, cs.title) for f in changelog_files(ctx)])


def new_entry_items(ctx, what: str):
    """(diff, entry) for each parsed new entry of each changed changelog, and a Skipped saying
    that `what` is not checked for a changelog that cannot be read (for the entry-content rules)."""
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: {what} not checked: {d.skip_reason}", path=d.path)
            continue
        for e in d.new_entries:
            if isinstance(e.data, dict):
                yield d, e


# --------------------------------------------------------------------------------------------
# pr-link values (RR004 / RR005)

OLD_REPOS = ("InferenceMAX/InferenceMAX",)
_LINK = re.compile(r"https://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pull/(\d+|XXX)")
_LOOSE_LINK = re.compile(r"(?:https?://)?(?:www\.)?github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pulls?/(\d+|XXX)",
                         re.I)


@dataclass(frozen=True)
class PrLinkVerdict:
    """How a new entry's pr-link compares with this PR's canonical link."""

    kind: str  # "ok" | "ok-number-unknown" | "placeholder" | "wrong"
    reason: str  # why it is wrong / what it is
    canonical: str | None  # this PR's canonical link, when owner/repo and number are known


def canonical_link(repo: str, number: int) -> str:
    return f"https://github.com/{repo}/pull/{number}"


def pr_link_verdict(link: str, repo: str | None, number: int | None,  # noqa: C901 (one verdict per link shape)
                    also: tuple[str, ...] = ()) -> PrLinkVerdict:
    """Judge `link` against this PR (owner/repo `repo`, number `number`, either may be unknown).

    `also` lists other owner/repo names under which this PR's link is canonical (the old org name
    for a PR branched before the rename, `rules.conventions.Conventions.canonical_repos`).
    """
    m_old = _LINK.fullmatch(link)
    if (
        m_old
        and m_old.group(1) in also
        and m_old.group(2) != "XXX"
        and (number is None or int(m_old.group(2)) == number)
    ):
        return PrLinkVerdict("ok" if number is not None else "ok-number-unknown",
                             f"canonical under {m_old.group(1)} (the repository's name at the base revision)",
                             canonical_link(m_old.group(1), number) if number is not None else None)
    link_repo = None
    loose = _LOOSE_LINK.search(link)
    if loose and loose.group(1) not in OLD_REPOS:
        link_repo = loose.group(1)
    target = repo or link_repo
    canonical = canonical_link(target, number) if target and number is not None else None
    m = _LINK.fullmatch(link)
    if link == "XXX" or (m and m.group(2) == "XXX" and (repo is None or m.group(1) == repo)
                         and m.group(1) not in OLD_REPOS):
        return PrLinkVerdict("placeholder", "a placeholder", canonical)
    if m:
        owner_repo, num = m.group(1), m.group(2)
        if owner_repo in OLD_REPOS:
            return PrLinkVerdict("wrong", f"it points at the old `{owner_repo}` repository", canonical)
        if repo is not None and owner_repo != repo:
            return PrLinkVerdict("wrong", f"it points at `{owner_repo}`, not `{repo}`", canonical)
        if num == "XXX":
            return PrLinkVerdict("wrong", "it is a placeholder for another repository", canonical)
        if number is None:
            return PrLinkVerdict("ok-number-unknown", f"links PR #{num}", canonical)
        if int(num) != number:
            return PrLinkVerdict("wrong", f"it links PR #{num}, not this PR #{number}", canonical)
        return PrLinkVerdict("ok", "canonical", canonical)
    stripped = link.strip()
    if stripped != link:
        reason = "it has surrounding whitespace"
    elif not loose:
        reason = "it is not a GitHub pull request link"
    elif link.lower().startswith("http://"):
        reason = "it uses `http://`"
    elif link.rstrip("/") != link and _LINK.fullmatch(link.rstrip("/")):
        reason = "it has a trailing slash"
    elif loose and link[loose.end():].startswith(("/changes", "/files", "/commits")):
        reason = f"it has a `{link[loose.end():].split('#')[0].split('?')[0]}` suffix"
    elif loose and loose.group(1) in OLD_REPOS:
        reason = f"it points at the old `{loose.group(1)}` repository"
    else:
        reason = "it is not of the form `https://github.com/<owner>/<repo>/pull/<number>`"
    return PrLinkVerdict("wrong", reason, canonical)


def pr_link_line(entry: Entry) -> tuple[int, str | None]:
    """(line of the entry's `pr-link`, that line's text) — the entry start when not found."""
    line = entry.key_lines.get("pr-link")
    if line is None:
        return entry.start_line, None
    return line, entry.text.split("\n")[line - entry.start_line]


def pr_link_suggestion(text: str | None, canonical: str | None) -> str | None:
    """The `pr-link:` line rewritten to the canonical link, keeping its indentation."""
    if not canonical or text is None:
        return None
    indent = text[: len(text) - len(text.lstrip())]
    return f"{indent}pr-link: {canonical}"
