"""Pure: fix what the review found, where the right bytes are known; say what needs a person.

`plan_fix(changeset, config)` runs the rules, then repairs the head files:

* each changed changelog with a placement, history, format or separator finding (RR001, RR002,
  RR006, RR007) is rebuilt by `rules.changelog.fix` (base bytes + the PR's entries appended, with
  the canonical pr-link when the PR number is known);
* every other finding whose rule computes a `suggestion` that replaces its own lines, and whose
  rule is listed in `SAFE_SUGGESTIONS` (the suggestion is the one right text, not a guess), has
  that suggestion applied;

and runs the rules again on the result, repeating while something changes (a later pass can apply
a suggestion whose lines an earlier pass moved). A file whose repair would add a finding the PR
did not have is left as it was. A finding counts as fixed only when its rule reports nothing more
on that file afterwards; everything the last run still reports is `remaining` ("not fixable
automatically"). Running `plan_fix` on its own result changes nothing.
"""
from __future__ import annotations

import dataclasses
import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from rules.changelog.analysis import changelog_diffs
from rules.changelog.fix import fix_changelog, history_repo, raw_change_error
from rules.changeset import ChangeSet
from rules.config import EngineConfig
from rules.context import ReviewContext
from rules.finding import Finding
from rules.runner import Report, run

# Codes the changelog rebuild repairs, and what each selects inside it.
REBUILD_CODES = frozenset({"RR001", "RR002", "RR006", "RR007"})
LINK_CODES = frozenset({"RR004", "RR005"})
TIDY_CODES = frozenset({"RR006", "RR007"})
CHANGELOG_CODES = REBUILD_CODES | LINK_CODES
# Rules whose `suggestion` is the one right replacement of the flagged lines. Left out on purpose:
# RR008 (suggests the closest existing config key: a guess) and RR304 (sets the recipe's container
# to the master config's image, but either side may be the stale one).
SAFE_SUGGESTIONS = frozenset({
    "RR002",  # restores base bytes of an edited historical entry or separator
    "RR004", "RR005",  # this PR's canonical pr-link
    "RR006",  # exactly one final newline
    "RR007",  # exactly one empty separator line
    "RR224",  # a capture list sorted, deduplicated and written as integers (the list vLLM uses)
    "RR250",  # the stated result of a comment's arithmetic, recomputed
    "RR302",  # `--use-chat-template` added to the MTP benchmark call
})
FIXABLE_CODES = CHANGELOG_CODES | SAFE_SUGGESTIONS


def has_fix(f: Finding) -> bool:
    """Whether `plan_fix` would try to repair this finding (it may still refuse a changelog it cannot rebuild)."""
    return f.code in CHANGELOG_CODES or (f.code in SAFE_SUGGESTIONS and f.suggestion is not None and bool(f.line))
MAX_PASSES = 4


@dataclass
class FileFix:
    """One file the fix rewrites: its head bytes before and after, and what changed."""

    path: str
    old: bytes
    new: bytes
    changes: list[str] = field(default_factory=list)

    def diff(self) -> str:
        return unified_diff(self.path, self.old, self.new)


@dataclass
class FixResult:
    files: list[FileFix]  # files whose bytes change, in changeset order
    fixed: list[Finding]  # findings of the first review that the last review no longer has
    remaining: list[Finding]  # what the last review still reports: needs a person
    refused: list[tuple[str, str]]  # (path, why the file was not repaired automatically)
    before: Report
    after: Report

    @property
    def changed(self) -> bool:
        return bool(self.files)

    @property
    def blocking_left(self) -> list[Finding]:
        return [f for f in self.remaining if f.blocking]

    def fixed_summary(self) -> list[str]:
        """`RR001 changelog-entry-misplaced ×1 (path)` lines, one per rule and file."""
        counts = Counter((f.code, f.name, f.path) for f in self.fixed)
        return [f"{code} {name} ×{n} ({path})" for (code, name, path), n in sorted(counts.items())]

    def diff(self) -> str:
        return "".join(f.diff() for f in self.files)


def parse_codes(text: str | None, rules) -> set[str] | None:
    """`RR001,changelog-pr-link-wrong` → {"RR001", "RR004"}; None for no selection. Raises ValueError."""
    if text is None:
        return None
    by_key = {}
    for r in rules:
        by_key[r.CODE.upper()] = r.CODE
        by_key[r.NAME] = r.CODE
    out = set()
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        code = by_key.get(item) or by_key.get(item.upper())
        if code is None:
            raise ValueError(f"no rule has the code or name `{item}`")
        out.add(code)
    if not out:
        raise ValueError("--only needs at least one rule code")
    return out


def _selected(code: str, only: set[str] | None) -> bool:
    return only is None or code in only


def _apply_suggestions(head: bytes, findings: Iterable[Finding]) -> tuple[bytes, list[str]]:
    """Replace lines line..end_line by each finding's suggestion, bottom up, skipping overlaps."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return head, []
    lines = text.split("\n")
    done, taken = [], []
    for f in sorted(findings, key=lambda f: (f.line, f.end_line or f.line), reverse=True):
        first, last = f.line, f.end_line or f.line
        if not 0 < first <= last <= len(lines) or any(first <= b and a <= last for a, b in taken):
            continue
        replacement = f.suggestion.split("\n")
        if lines[first - 1:last] == replacement:
            continue
        lines[first - 1:last] = replacement
        taken.append((first, last))
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        done.append(f"{f.code} {f.name}: applied the suggestion at {span}")
    return "\n".join(lines).encode("utf-8"), list(reversed(done))


def _edits(ctx: ReviewContext, report: Report, only: set[str] | None,
           refused: dict[str, str]) -> dict[str, tuple[bytes, list[str]]]:
    """path → (new head bytes, what changed) for one pass."""
    cs = ctx.changeset
    out: dict[str, tuple[bytes, list[str]]] = {}
    rebuilt: set[str] = set()  # changelogs the rebuild owns: their line suggestions do not apply
    by_path: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_path.setdefault(f.path, []).append(f)
    for d in changelog_diffs(ctx):
        codes = {f.code for f in by_path.get(d.path, ())}
        wanted = {c for c in codes & CHANGELOG_CODES if _selected(c, only)}
        # The validator's byte rule is stricter than the findings about the base's very end (its
        # trailing whitespace is not history to the rules, but the validator wants it kept).
        off_spec = (_selected("RR002", only) and d.new_entries and not d.skip_reason and d.status == "modified"
                    and raw_change_error(d.base or b"", d.head or b"", len(d.new_entries)) is not None)
        if not wanted & REBUILD_CODES and not off_spec:
            continue
        fix = fix_changelog(d, cs.repo, cs.pr_number,
                            links=only is None or bool(only & LINK_CODES), tidy=only is None or bool(only & TIDY_CODES))
        rebuilt.add(d.path)
        if fix.refused:
            refused.setdefault(d.path, fix.refused)
        if fix.changed:
            out[d.path] = (fix.content, list(fix.changes))
    for path, findings in by_path.items():
        if path in rebuilt or not path:
            continue
        f0 = cs.file(path)
        if f0 is None or f0.head is None or f0.status == "removed":
            continue
        usable = [f for f in findings if f.code in SAFE_SUGGESTIONS and _selected(f.code, only)
                  and f.suggestion is not None and f.line]
        if usable:
            new, done = _apply_suggestions(f0.head, usable)
            if new != f0.head:
                out[path] = (new, done)
    return {p: v for p, v in out.items() if v[0] != (cs.file(p).head if cs.file(p) else None)}


def with_heads(cs: ChangeSet, heads: dict[str, bytes]) -> ChangeSet:
    """The changeset with some head contents replaced (patches recomputed against base)."""
    files = []
    for f in cs.files:
        if f.path in heads:
            new = heads[f.path]
            files.append(dataclasses.replace(f, head=new, patch=hunks_patch(f.base or b"", new)))
        else:
            files.append(f)
    return dataclasses.replace(cs, files=tuple(files))


def _groups(report: Report) -> Counter:
    return Counter((f.code, f.path) for f in report.findings)


def with_repo(changeset: ChangeSet, config: EngineConfig | None = None) -> ChangeSet:
    """The changeset with `repo` set from the changelog history when unknown (a local checkout):
    the canonical pr-link needs `owner/name`."""
    if changeset.repo:
        return changeset
    ctx = ReviewContext(changeset, config or EngineConfig())
    for f in changeset.files:
        if ctx.kind(f.base_path) == "changelog" or ctx.kind(f.path) == "changelog":
            repo = history_repo(f.base)
            if repo:
                return dataclasses.replace(changeset, repo=repo)
    return changeset


def plan_fix(changeset: ChangeSet, config: EngineConfig | None = None, only: set[str] | None = None,
             rules=None, force: frozenset[str] = frozenset()) -> FixResult:
    """Compute the fix (see the module docstring); touches nothing. `only`: repair these rules'
    findings alone; `force`: codes that run although the config disables them (`--select`)."""
    config = config or EngineConfig()
    original = {f.path: f.head for f in changeset.files}
    ctx = ReviewContext(changeset, config)
    before = run(changeset, config, rules=rules, ctx=ctx, force=force)
    report, current = before, changeset
    changes: dict[str, list[str]] = {}
    refused: dict[str, str] = {}
    withdrawn: set[str] = set()
    for _ in range(MAX_PASSES):
        edits = {p: v for p, v in _edits(ctx, report, only, refused).items() if p not in withdrawn}
        if not edits:
            break
        candidate = with_heads(current, {p: new for p, (new, _) in edits.items()})
        cctx = ReviewContext(candidate, config)
        after = run(candidate, config, rules=rules, ctx=cctx, force=force)
        old, new = _groups(before), _groups(after)
        worse = {path for (code, path), n in new.items() if path in edits and n > old.get((code, path), 0)}
        if worse:  # a repair that adds a finding is no repair: keep that file as it was
            for path in worse:
                codes = sorted(c for (c, p), n in new.items() if p == path and n > old.get((c, p), 0))
                refused.setdefault(path, f"the automatic fix would add {', '.join(codes)}; the file was left as it is")
            withdrawn |= worse
            continue
        for p, (_, done) in edits.items():
            changes.setdefault(p, []).extend(done)
        current, ctx, report = candidate, cctx, after
    after = report
    remaining_groups = _groups(after)
    fixed = [f for f in before.findings if f.path in changes and (f.code, f.path) not in remaining_groups]
    files = []
    for f in current.files:
        if f.path in changes and f.head != original.get(f.path):
            files.append(FileFix(f.path, original.get(f.path) or b"", f.head or b"", changes[f.path]))
    remaining = sorted(after.findings, key=lambda f: (not f.blocking, f.path, f.line, f.code))
    return FixResult(files, fixed, remaining, sorted(refused.items()), before, after)


# ---------------------------------------------------------------------------------------------
# Diffs (pure, git-compatible)


def _split_keep(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) if data else []


def _line_start(data: bytes, pos: int) -> int:
    return data.rfind(b"\n", 0, pos) + 1


def _hunk_lines(old: bytes, new: bytes, context: int = 3) -> list[str]:
    """Unified-diff hunk lines (`@@ …`, ` `, `-`, `+`, `\\ No newline …`), git's layout."""
    if old == new:
        return []
    # Only the lines between the common byte prefix and suffix are split and compared: a fix
    # changes a few lines of a file that may have 12,000 (difflib is quadratic-ish). Context
    # lines come from the common parts, which are the same in both files.
    n = min(len(old), len(new))
    p = next((i for i in range(0, n, 4096) if old[i:i + 4096] != new[i:i + 4096]), n)
    while p < n and old[p] == new[p]:
        p += 1
    q = 0
    while q < n - p and old[len(old) - q - 1] == new[len(new) - q - 1]:
        q += 1
    lo = _line_start(old, p)  # the same offset in both: the prefix is common
    # End both regions just after the first newline inside the common suffix: the tails that
    # follow are then the same whole lines in both files.
    nl = old.find(b"\n", len(old) - q) if q else -1
    a_end = nl + 1 if nl >= 0 else len(old)
    b_end = len(new) - (len(old) - a_end)
    a, b = _split_keep(old[lo:a_end]), _split_keep(new[lo:b_end])
    pre = _split_keep(old[_nth_line_back(old, lo, context):lo])
    post = _split_keep(old[a_end:_nth_line_fwd(old, a_end, context)])
    k = len(pre)
    ops = [("equal", 0, k, 0, k)] if k else []
    ops += [(t, i1 + k, i2 + k, j1 + k, j2 + k)
            for t, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()]
    if post:
        ops.append(("equal", k + len(a), k + len(a) + len(post), k + len(b), k + len(b) + len(post)))
    a_all, b_all = pre + a + post, pre + b + post
    start = old.count(b"\n", 0, lo) - k
    out: list[str] = []
    for group in _hunk_groups(ops, context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(start + i1, i2 - i1)} +{_range(start + j1, j2 - j1)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [_line(" ", ln) for ln in a_all[x1:x2]]
                continue
            out += [_line("-", ln) for ln in a_all[x1:x2]]
            out += [_line("+", ln) for ln in b_all[y1:y2]]
    return out


def _hunk_groups(ops: list[tuple], n: int) -> list[list[tuple]]:
    """difflib's hunk grouping (`get_grouped_opcodes`) over a ready list of opcodes."""
    merged: list[list] = []
    for op in ops:
        if merged and op[0] == "equal" and merged[-1][0] == "equal":
            merged[-1][2], merged[-1][4] = op[2], op[4]
        else:
            merged.append(list(op))

    class _Ops(difflib.SequenceMatcher):
        def get_opcodes(self):
            return [tuple(op) for op in merged]

    return list(_Ops(None, [], []).get_grouped_opcodes(n))


def _nth_line_back(data: bytes, pos: int, n: int) -> int:
    """Offset of the start of the line `n` lines above the line starting at `pos`."""
    for _ in range(n):
        if pos == 0:
            break
        pos = data.rfind(b"\n", 0, pos - 1) + 1
    return pos


def _nth_line_fwd(data: bytes, pos: int, n: int) -> int:
    """Offset just past the `n` lines starting at `pos`."""
    for _ in range(n):
        if pos >= len(data):
            break
        nl = data.find(b"\n", pos)
        pos = len(data) if nl < 0 else nl + 1
    return pos


def _range(start: int, length: int) -> str:
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def _line(mark: str, raw: bytes) -> str:
    text = raw.decode("utf-8", "surrogateescape")
    if text.endswith("\n"):
        return mark + text
    return mark + text + "\n\\ No newline at end of file\n"


def hunks_patch(old: bytes, new: bytes) -> str | None:
    """GitHub's `patch` field for a file changed from `old` to `new` (hunks only; None if equal)."""
    lines = _hunk_lines(old, new)
    return "".join(lines).rstrip("\n") if lines else None


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    """A `git apply`-able diff of one file (text; undecodable bytes kept as surrogate escapes)."""
    lines = _hunk_lines(old, new)
    if not lines:
        return ""
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n" + "".join(lines)
