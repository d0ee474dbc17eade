"""Pure: the bytes a PR's changelog should have, as the repository's strict validator specifies them.

`fix_changelog(diff, repo, number)` rebuilds one changelog file from its `ChangelogDiff`:

1. every base byte, exactly: history, historical separators (`"  \\n"` ones included) and the
   base's trailing bytes;
2. then the PR's entries, in their head order, at the physical end, each preceded by exactly the
   separator the validator expects: nothing when the base already ends with an empty line, one
   `\\n` otherwise, and `\\n\\n` between appended entries; one final newline;
3. inside each appended entry (each change kept only when the entry's parsed data stays the same):
   the `pr-link` rewritten to this PR's canonical link when the PR number is known (`links`), and
   CRLF line ends made LF and whitespace-only lines emptied (`tidy`).

Without a known repository (the CLI), `owner/name` is taken from the newest canonical `pr-link`
of the history. The result satisfies `validate_raw_change` of the repository's `utils/validate_perf_changelog.py`
for appended entries by construction, and `fix_changelog` checks that before answering.

It refuses, saying why and changing nothing, where a repair would lose or guess something:

* the base does not parse the way the validator reads it (no final newline, CR, tab, NUL, not
  UTF-8, a column-0 line outside a list item, an item that does not start with `- config-keys:`):
  history cannot be made valid by restoring it;
* the PR deletes or renames the changelog (undoing that is a decision, not a slip);
* the PR edits the text of existing entries (not only whitespace, order or deletions) next to its
  own new entries, so which bytes are "the PR's entry" would be a guess; or edits existing entries
  without adding one, so restoring would silently drop the PR's only changelog change;
* the PR only corrects existing pr-links (nothing else): the merge path accepts that, the
  PR-run check rejects every link edit, and restoring the base would drop the PR's only change;
* the file was not analysed (over the size limit, content missing).

Edits of existing entries elsewhere in the file (away from the PR's entries) are restored, and
each restoration is listed in `changes`: that is the documented merge-path rule (restore main's
bytes, re-append only the PR's entries), and the PR's own commits keep the edited text.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from rules.changelog.analysis import (
    ChangelogDiff,
    Entry,
    canonical_link,
    parse_entry,
    pr_link_line,
    pr_link_suggestion,
    short,
    show_bytes,
)
from rules.document import load_values

# A line starting at column 0 with anything but an indented continuation, a comment, a list item or
# a blank: YAML rejects it inside a top-level list (document markers `---`/`...` aside).
_COLUMN0 = re.compile(rb"\n(?:[^ #\n-]|-[^ \n])")
_MARKERS = (b"---", b"...")
MAX_LISTED = 8


@dataclass(frozen=True)
class ChangelogFix:
    """What `fix_changelog` decided for one file: new bytes (or why not) and what changed."""

    path: str
    content: bytes | None  # the repaired file; None when nothing changes or the fix is refused
    changes: tuple[str, ...] = ()  # one sentence per thing the repair did
    refused: str | None = None  # why the file is not repaired automatically

    @property
    def changed(self) -> bool:
        return self.content is not None


def base_problem(base: bytes) -> str | None:
    """Why the validator cannot parse `base` (checked by bytes, without a YAML parse), or None."""
    if not base:
        return None
    if not base.endswith(b"\n"):
        return "it does not end with a newline"
    for byte, what in ((b"\r", "CR characters"), (b"\t", "tabs"), (b"\0", "NUL bytes")):
        if byte in base:
            line = base.count(b"\n", 0, base.index(byte)) + 1
            return f"it contains {what} (line {line:,})"
    try:
        base.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"it is not UTF-8 (byte {err.start:,})"
    # Scan "\n" + base so that the first line is checked like every other (all by bytes: fast).
    data = b"\n" + base
    for m in _COLUMN0.finditer(data):
        start = m.start() + 1
        text = data[start:data.find(b"\n", start)]
        if text.rstrip() in _MARKERS or text.startswith((b"--- ", b"... ")):
            continue
        line = data.count(b"\n", 0, start)
        return (f"line {line:,} (`{short(text.decode('utf-8', 'replace'), 60)}`) is outside every list item, "
                "so YAML rejects it")
    items = data.count(b"\n- ") + data.count(b"\n-\n")
    keyed = data.count(b"\n- config-keys:")
    if items != keyed:
        return f"it has {items:,} top-level items but {keyed:,} `- config-keys:` lines"
    return None


_YAML_CHECKED: dict[bytes, str | None] = {}  # sha256 of a base → its YAML problem (bases repeat across PRs)
_YAML_CHECKED_MAX = 16


def base_yaml_problem(base: bytes) -> str | None:
    """The YAML error of the whole base (duplicate keys included), as the validator would hit it.

    A full parse of a 12,000-line changelog costs a few hundred milliseconds, so the verdict is
    kept per base content: every PR on the same main shares it.
    """
    key = hashlib.sha256(base).digest()
    if key in _YAML_CHECKED:
        return _YAML_CHECKED[key]
    data, error = load_values("perf-changelog.yaml", base)  # bounded: sizes, aliases, duplicate keys
    problem = None
    if error is not None:
        where = f" at line {error.line:,}" if error.line else ""
        problem = f"YAML rejects it{where}: {error.message}"
    elif base.strip() and not isinstance(data, list):
        problem = "its root is not a YAML list"
    if len(_YAML_CHECKED) >= _YAML_CHECKED_MAX:
        _YAML_CHECKED.pop(next(iter(_YAML_CHECKED)))
    _YAML_CHECKED[key] = problem
    return problem


class _Lines:
    """The lines of one file as bytes (split once)."""

    def __init__(self, data: bytes):
        self.data = data
        self.rows = data.split(b"\n")

    def __len__(self) -> int:
        return len(self.rows)

    def span(self, first: int, last: int) -> bytes:
        """Bytes of lines first..last (1-based), joined, without a final newline."""
        return b"\n".join(self.rows[first - 1:last])


def _same_data(text: str, want) -> bool:
    data, error = parse_entry(text)
    return error is None and data == want


def _entry_bytes(e: Entry, raw: bytes, canonical: str | None, links: bool, tidy: bool) -> tuple[bytes, list[str]]:
    """One appended entry's bytes (content only, no trailing newline) and what was changed in it."""
    raw = raw.rstrip()
    if e.data is None or e.error is not None:
        return raw, []  # unparsed or broken: moved verbatim, never rewritten
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw, []
    done: list[str] = []
    want = dict(e.data)
    if tidy and "\r" in text:
        candidate = text.replace("\r\n", "\n")
        if _same_data(candidate, want):
            text = candidate
            done.append(f"made the CRLF line ends of entry `{short(e.summary)}` LF")
    if tidy:
        lines = text.split("\n")
        blank = [k for k, s in enumerate(lines) if s and not s.strip()]
        if blank:
            candidate = "\n".join("" if k in blank else s for k, s in enumerate(lines))
            if _same_data(candidate, want):
                text = candidate
                done.append(f"emptied {len(blank)} whitespace-only line(s) in entry `{short(e.summary)}`")
    link = want.get("pr-link")
    if links and canonical and isinstance(link, str) and link != canonical:
        line, line_text = pr_link_line(e)
        k = line - e.start_line
        lines = text.split("\n")
        replacement = pr_link_suggestion(line_text, canonical)
        if line_text is not None and replacement is not None and 0 <= k < len(lines):
            candidate = "\n".join(lines[:k] + [replacement] + lines[k + 1:])
            if _same_data(candidate, {**want, "pr-link": canonical}):
                text = candidate
                done.append(f"set the pr-link of entry `{short(e.summary)}` to {canonical} (was `{short(link)}`)")
    return text.encode("utf-8"), done


def _lost_lines(d: ChangelogDiff, lines: _Lines) -> list[int]:
    """Head lines outside the PR's entries whose text (stripped) appears nowhere in base."""
    base_text = set(ln.strip() for ln in (d.base or b"").split(b"\n"))
    inside = set()
    for e in d.new_entries:
        inside.update(range(e.start_line, e.end_line + 1))
    out = []
    for i, row in enumerate(lines.rows, start=1):
        text = row.strip()
        if text and i not in inside and text not in base_text:
            out.append(i)
    return out


def _interleaved(d: ChangelogDiff, lines: _Lines, lost: list[int]) -> list[int]:
    """Lost lines that sit in an existing entry directly above or below one of the PR's entries."""
    starts = [i for i, row in enumerate(lines.rows, start=1) if row == b"-" or row.startswith(b"- ")]
    new_starts = {e.start_line for e in d.new_entries}
    bounds = []  # (first, last) line of each item
    for k, s in enumerate(starts):
        bounds.append((s, (starts[k + 1] - 1) if k + 1 < len(starts) else len(lines)))
    neighbours: set[int] = set()
    for k, (s, _) in enumerate(bounds):
        if s not in new_starts:
            continue
        for j in (k - 1, k + 1):
            if 0 <= j < len(bounds) and bounds[j][0] not in new_starts:
                neighbours.add(j)
    near = set()
    for j in neighbours:
        near.update(range(bounds[j][0], bounds[j][1] + 1))
    # A changed `pr-link:` line of a neighbour is a historical link correction, never part of the
    # PR's entry: restoring it is unambiguous (the validator forbids mixing corrections with entries).
    return [n for n in lost if n in near and not lines.rows[n - 1].startswith(b"  pr-link:")]


_HISTORY_LINK = re.compile(rb"(?m)^  pr-link: *https://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pull/\d+ *$")
# The last entries of a real changelog are a few KB; reading this much finds the newest link.
_TAIL_BYTES = 16_384


def history_repo(base: bytes | None) -> str | None:
    """`owner/name` of the newest canonical pr-link in the history (the repository the file is in)."""
    if not base:
        return None
    found = _HISTORY_LINK.findall(base[-_TAIL_BYTES:]) or _HISTORY_LINK.findall(base)
    return found[-1].decode() if found else None


_DROPS = ("deleted", "removed")
_ITEM_START = re.compile(rb"(?m)^-(?: |$)")


def _base_blocks(base: bytes) -> set[bytes]:
    """The content (trailing whitespace stripped) of every top-level item of the base."""
    starts = [m.start() for m in _ITEM_START.finditer(base)]
    return {base[s:(starts[k + 1] if k + 1 < len(starts) else len(base))].rstrip() for k, s in enumerate(starts)}


def _squeeze(block: bytes) -> list[bytes]:
    return [b" ".join(row.split()) for row in block.split(b"\n") if row.strip()]


def _rewritten_history(raw: bytes, base: bytes) -> str | None:
    """`#N` when the entry is a base entry with only its whitespace changed (found by its pr-link line)."""
    m = re.search(rb"(?m)^  pr-link:[^\n]*", raw)
    if m is None or not base:
        return None
    needle = m.group(0).rstrip()
    want = _squeeze(raw)
    at = base.find(needle)
    while at >= 0:
        start = base.rfind(b"\n- ", 0, at) + 1
        end = base.find(b"\n- ", at)
        block = base[start:end if end >= 0 else len(base)]
        if _squeeze(block) == want:
            number = re.search(rb"/pull/(\w+)", needle)
            return f"#{number.group(1).decode()}" if number else f"at base offset {start:,}"
        at = base.find(needle, at + 1)
    return None


def _refuse(d: ChangelogDiff, why: str) -> ChangelogFix:
    return ChangelogFix(d.path, None, (), why)


def fix_changelog(d: ChangelogDiff, repo: str | None, number: int | None, *, links: bool = True,  # noqa: C901 (one early return per diff that cannot be rebuilt, then the rebuild steps)
                  tidy: bool = True) -> ChangelogFix:
    """Rebuild one changelog as base + the PR's entries appended (see the module docstring)."""
    if d.skip_reason:
        return _refuse(d, f"the changelog was not analysed: {d.skip_reason}")
    if d.status == "removed":
        return _refuse(d, f"the PR deletes `{d.path}`; restoring a deleted changelog is a decision for a "
                          f"person (`git checkout <base> -- {d.path}`)")
    if d.status == "renamed":
        return _refuse(d, f"the PR renames the changelog to `{d.path}`; undoing a rename is a decision for a person")
    head = d.head or b""
    base = d.base or b""
    problem = base_problem(base)
    if problem:
        return _refuse(d, f"the base version of `{d.path}` does not parse as the validator reads it: {problem}; "
                          "history cannot be repaired by restoring it")
    if d.corrections and not d.new_entries and not d.history_changes:
        return _refuse(
            d,
            f"the PR only corrects the pr-link of {len(d.corrections)} existing entr"
            f"{'y' if len(d.corrections) == 1 else 'ies'} ({', '.join(e.label for e in d.corrections[:4])}); "
            "the merge path accepts that, the PR-run check rejects every link edit, and restoring "
            "the base would drop the PR's only changelog change: a decision for a person",
        )
    lines = _Lines(head)
    changes: list[str] = []
    if d.history_changes:
        lost = _lost_lines(d, lines)
        if lost:
            near = _interleaved(d, lines, lost)
            if near:
                return _refuse(d, f"the PR edits existing entries right next to its own new entries (head line(s) "
                                  f"{_line_list(near)}), so which lines are the PR's entry would be a guess; move the "
                                  "entry and restore the edited lines by hand")
            if not d.new_entries:
                first = head.count(b"\n", 0, d.prefix_len) + 1
                indented = [n for n, row in enumerate(lines.rows[first - 1:], start=first)
                            if row.startswith(b" ") and row.lstrip().startswith(b"- config-keys:")]
                if indented:
                    return _refuse(
                        d,
                        f"head line {indented[0]:,} starts an entry with an indented `- config-keys:`, so "
                        "YAML reads it as part of the entry above and the PR adds no entry of its own; "
                        "start it at column 0 (then `/fix` can place it)",
                    )
                return _refuse(d, f"the PR edits existing entries (head line(s) {_line_list(lost)}) and adds no entry; "
                                  "restoring them would drop the PR's only changelog change (a correction belongs in "
                                  "a new entry, a pr-link correction in a PR of its own)")
        if not d.new_entries and any(c.kind in _DROPS for c in d.history_changes):
            return _refuse(d, "the PR deletes existing entries and adds none (a revert?); restoring them would "
                              "undo the PR's only changelog change, which is a decision for a person")
        shown = d.history_changes[:MAX_LISTED]
        changes += [f"restored the base bytes: {c.message}" for c in shown]
        if len(d.history_changes) > MAX_LISTED:
            changes.append(f"restored {len(d.history_changes) - MAX_LISTED} more history change(s)")
    repo = repo or history_repo(base)
    canonical = canonical_link(repo, number) if repo and number is not None else None
    blocks: list[bytes] = []
    appended: set[int] = set()
    history = _base_blocks(base) if d.new_entries and base else set()
    for e in d.new_entries:
        raw = lines.span(e.start_line, e.end_line)
        copied = _rewritten_history(raw, base) if raw.rstrip() not in history else None
        if copied:
            return _refuse(d, f"the entry at head line {e.start_line:,} (`{short(e.summary)}`) is existing entry "
                              f"{copied} rewritten (same text and pr-link, other whitespace), not an entry of this "
                              "PR; restore the history by hand (`git checkout <base> -- <changelog>`, then re-append "
                              "only this PR's entries)")
        if raw.rstrip() in history:
            # Byte for byte an entry of the history (a moved or duplicated historical entry, or this
            # PR's entry already on main): the restored base holds it; appending it would duplicate it.
            changes.append(f"kept `{short(e.summary)}` ({e.label}) once, in its place in the history "
                           f"(head line {e.start_line:,} repeated it)")
            continue
        block, done = _entry_bytes(e, raw, canonical, links, tidy)
        blocks.append(block)
        appended.add(e.start_line)
        changes += done
    moved = [e for e, _ in d.misplaced if e.start_line in appended]
    if moved:
        changes.insert(
            0,
            f"moved {len(moved)} new entr{'y' if len(moved) == 1 else 'ies'} "
            f"({', '.join(f'`{short(e.summary, 50)}` from line {e.start_line:,}' for e in moved[:MAX_LISTED])}) "
            "to the physical end of the file",
        )
    if d.status == "added":
        first = d.new_entries[0].start_line if d.new_entries else len(lines) + 1
        prefix = lines.span(1, first - 1) + b"\n" if first > 1 else b""
        prefix = prefix if prefix.strip() else b""
        out = prefix + b"\n\n".join(blocks) + (b"\n" if blocks else b"")
    else:
        sep = b"" if base.endswith(b"\n\n") or not base else b"\n"
        out = base + (sep + b"\n\n".join(blocks) + b"\n" if blocks else b"")
    if out == head:
        return ChangelogFix(d.path, None)
    problem = base_yaml_problem(base) if base else None
    if problem:
        return _refuse(d, f"the base version of `{d.path}` does not parse as the validator reads it: {problem}; "
                          "history cannot be repaired by restoring it")
    for s in d.separators:
        if not s.ok:
            where = "above" if s.anchor_line == s.entry.start_line else "below"
            was = "".join(f"{ln}\n" for ln in s.actual).encode()
            changes.append(f"made the separator {where} new entry `{short(s.entry.summary)}` exactly one empty "
                           f"line (was `{show_bytes(was)}`)")
    if not head.endswith(b"\n") or head.endswith(b"\n\n"):
        changes.append("ended the file with exactly one newline")
    error = raw_change_error(base, out, len(blocks)) if d.status != "added" else None
    if error:  # never expected: the construction above is the validator's rule
        return _refuse(d, f"the rebuilt file would still fail the validator ({error}); nothing was changed")
    if not changes:
        changes.append("rewrote the bytes after the base to the validator's layout")
    return ChangelogFix(d.path, out, tuple(changes))


def raw_change_error(base: bytes, head: bytes, additions: int) -> str | None:
    """The strict validator's byte rule for appended entries (`validate_raw_change`), as a check."""
    if not additions:
        return None if head == base else "bytes changed without an appended entry"
    if not head.startswith(base):
        return "historical bytes changed"
    expected = b"- config-keys:" if base.endswith(b"\n\n") else b"\n- config-keys:"
    if not head[len(base):].startswith(expected):
        return "new entries are not separated from history by one empty line"
    # The validator takes the last `additions` entry starts of the whole file; with history intact
    # they lie in the appended part (unless it holds fewer, which the count check reports).
    lead = max(0, len(base) - 1)  # an entry may start right after base's last newline
    starts = [lead + m.start() for m in re.finditer(rb"(?m)^- config-keys:[^\r\n]*\n", head[lead:])
              if lead + m.start() >= len(base) or (lead + m.start() == 0)]
    if len(starts) < additions:
        return f"{additions} entries were appended but the appended part starts {len(starts)}"
    for start in starts[-additions:][1:]:
        tail = head[max(0, start - 3):start]
        if not tail.endswith(b"\n\n") or tail.endswith(b"\n\n\n"):
            return "appended entries are not separated by exactly one empty line"
    if head.endswith(b"\n\n"):
        return "the final entry does not end with exactly one newline"
    return None


def _line_list(lines: list[int], limit: int = 6) -> str:
    out = ", ".join(f"{n:,}" for n in lines[:limit])
    return out + (f" and {len(lines) - limit:,} more" if len(lines) > limit else "")
