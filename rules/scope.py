"""Whose problem is it: does a finding sit on something this PR changed?

A problem on lines the PR did not touch was there before the PR (or is caused by something the
rule does not name): it is not this PR's finding. The runner reports such problems as
"already in the base" instead of as findings (`Report.in_base`), whatever their severity.

What counts as touched, for a finding at `path:line..end_line` (and for each extra location the
rule names as its `cause`):

- a file the PR adds or removes, or a file-level finding (no line) on a file the PR changes;
- a line the PR writes, or a line next to where it deletes lines (`rules.comments.edited_lines`);
- in a YAML file, a mapping key or list item whose block (the lines indented below it) holds
  such a line: a finding on a master-config key is the PR's when the PR changed that key;
- in a shell script, a command continued over several lines (`\\` at the line end) that holds
  such a line: a finding on a flag is the PR's when the PR edited the command;
- unknown (a changed file whose patch GitHub did not send, or a finding with no path): touched,
  because nothing proves otherwise.

A finding on a file the PR does not change is not touched unless one of its causes is.

Touched is not caused: a PR that bumps a key's image touches the key, while its capture range,
its script or its link were as wrong before. So the runner also replays each rule that found
something on the base revision (`base_replay`: every changed file as it was at the merge base,
nothing touched, the tree as it was), and a problem the base already has (the same code, path
and message, i.e. the same fingerprint) is already in the base too.
"""
from __future__ import annotations

from collections.abc import Iterable

from rules.changeset import ChangeSet, FileChange
from rules.comments import edited_lines

_SHELL = (".sh", ".bash")
_YAML = (".yaml", ".yml")


def _file(cs: ChangeSet, path: str) -> FileChange | None:
    f = cs.file(path)
    if f is not None:
        return f
    return next((g for g in cs.files if g.status == "removed" and g.base_path == path), None)


def _indent(line: str) -> int | None:
    """Indentation of a line that holds YAML content (None for blank and comment-only lines).
    A list item's dash counts as indentation, as it does for the block under it."""
    body = line.lstrip(" ")
    if not body or body.startswith("#"):
        return None
    return len(line) - len(body)


def _yaml_block(lines: list[str], line: int) -> range:
    """Lines 1-based of the block headed by `line`: it and the lines below indented deeper."""
    if not 1 <= line <= len(lines):
        return range(line, line + 1)
    own = _indent(lines[line - 1])
    if own is None:
        return range(line, line + 1)
    end = line
    for i in range(line, len(lines)):
        ind = _indent(lines[i])
        if ind is None:
            continue
        if ind <= own and not (lines[i].lstrip().startswith("- ") and ind == own and
                               not lines[line - 1].lstrip().startswith("- ")):
            break
        end = i + 1
    return range(line, end + 1)


def _shell_command(lines: list[str], line: int) -> range:
    """The logical command around `line`: physical lines joined by a trailing backslash."""
    if not 1 <= line <= len(lines):
        return range(line, line + 1)
    start = line
    while start > 1 and lines[start - 2].rstrip().endswith("\\"):
        start -= 1
    end = line
    while end < len(lines) and lines[end - 1].rstrip().endswith("\\"):
        end += 1
    return range(start, end + 1)


def touched(cs: ChangeSet, path: str | None, line: int | None, end_line: int | None = None,
            _memo: dict | None = None) -> bool:
    """Does the PR touch `path` at `line..end_line` (see the module docstring)?"""
    if not path:
        return True
    f = _file(cs, path)
    if f is None:
        return False
    if f.status in ("added", "removed") or not line:
        return True
    if f.patch is None:
        return True  # GitHub sends no patch for large diffs: nothing proves the line untouched
    memo = _memo if _memo is not None else {}
    edited = memo.get(("edited", path))
    if edited is None:
        edited = memo[("edited", path)] = edited_lines(f.patch)
    lo, hi = sorted((line, end_line or line))
    if any(n in edited for n in range(lo, hi + 1)):
        return True
    lines = memo.get(("lines", path))
    if lines is None:
        text = f.head_text
        lines = memo[("lines", path)] = text.split("\n") if text is not None else []
    if path.endswith(_YAML):
        return any(n in edited for n in _yaml_block(lines, lo))
    if path.endswith(_SHELL):
        return any(n in edited for n in _shell_command(lines, lo)) or \
            any(n in edited for n in _shell_command(lines, hi))
    return False


def any_touched(cs: ChangeSet, places: Iterable[tuple[str | None, int | None, int | None]],
                memo: dict | None = None) -> bool:
    memo = {} if memo is None else memo
    return any(touched(cs, p, lo, hi, memo) for p, lo, hi in places)


def _quiet_patch(text: str | None) -> str | None:
    """A patch that touches nothing: one context line (a file's review then sees no added line)."""
    if not text:
        return None
    first = text.split("\n", 1)[0]
    return f"@@ -1,1 +1,1 @@\n {first}"


def base_replay(cs: ChangeSet) -> ChangeSet:
    """The PR's changeset as its base was: each changed file at the merge base, unchanged and
    untouched; files the PR adds do not exist, files it removes or renames are back."""
    import dataclasses

    files, tree = [], dict(cs.tree)
    for f in cs.files:
        if f.status == "added":
            tree.pop(f.path, None)
            continue
        if f.base is None:
            continue  # its base is unknown: the replay says nothing about it (nothing is suppressed there)
        if f.path != f.base_path:
            mode = tree.pop(f.path, None)
            tree[f.base_path] = mode or "100644"
        elif f.status == "removed":
            tree.setdefault(f.base_path, "100644")
        files.append(FileChange(f.base_path, "modified", base=f.base, head=f.base,
                                patch=_quiet_patch(f.base_text), binary=f.binary))
    return dataclasses.replace(cs, files=tuple(files), tree=tree, base_tip_time=cs.base_tip_time, replay=True)
