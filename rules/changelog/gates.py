"""Which of the repository's two changelog gates rejects a PR, and why, in the tool's own words.

The repository judges a `perf-changelog.yaml` change twice, and the two gates disagree:

* **the PR-run check** (`check-changelog`: `validate_perf_changelog.py` → `process_changelog.py`)
  on every push: the head must end with a newline; `git diff base head` may delete no line that
  has content (since 2026-02-03 whitespace-only deletions are tolerated); the *added lines* are
  YAML-loaded (duplicate keys silently accepted) and each item validated as a `ChangelogEntry`
  (lax pydantic); every master config at head must pass the master-config schema; every
  `config-keys` item must resolve; the sweep generator must expand every selected key.
* **the merge path** (`prepare_perf_changelog_merge.py canonicalize`, run by `merge_with_reuse.sh`
  since 2026-06-18): both files parsed strictly (`parse_changelog`: final newline, no CR/tab/NUL,
  UTF-8, YAML with duplicate keys rejected, one `- config-keys:` line per entry, each entry a valid
  `ChangelogEntry`), entries compared index by index (`compare_entries`: nothing deleted or
  changed except canonical pr-link-only corrections, not mixed with additions; an added entry's
  link is this PR's or a placeholder), then the raw bytes (`validate_raw_change`: head begins
  with base byte for byte; one empty line before the first appended entry (none if base already
  ends with one) and exactly `\\n\\n` before each later one; no extra empty line at the end).

`changelog_gates(ctx)` reproduces both, purely, per changed changelog file, and records *every*
reason each gate has to reject (the tools stop at the first; a reviewer wants them all, each one
independently true). Every changelog rule names the gate of its own problem with `gate_note`:
rejected on this push, rejected at merge, or accepted by both (then only the documented
contract — RULES.md §2, the repository's review prompt — forbids it).

What is approximated, for speed (the real tools parse the whole ~0.5 MB file): the history
above the first changed byte is taken to parse as it did on `main`; only new and changed
entries are YAML-parsed (YAML 1.1, as PyYAML reads it; with duplicate keys the PR-run reading
keeps the first value where PyYAML keeps the last). The line diff is computed on the region
between the common prefix and suffix (difflib below 4,000 lines a side, else an in-order match),
which can differ from `git diff`'s alignment on pathological rewrites.
"""
from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from rules.changelog.analysis import ChangelogDiff, Entry, _common_prefix, _common_suffix, changelog_diffs, short
from rules.conventions import ALL_EVALS, APPEND_ONLY, CURRENT_REPO, DESCRIPTION_LIST, Conventions, conventions
from rules.document import expanded_size

PR_RUN = "pr-run"
MERGE = "merge"
GATE_NAMES = {PR_RUN: "the PR-run `check-changelog`", MERGE: "the merge path (`prepare_perf_changelog_merge.py`)"}

_ENTRY_LINE = re.compile(rb"(?m)^- config-keys:[^\r\n]*\n")
_YAML11 = re.compile(r"(?i)(?::|-)\s+(?:yes|no|on|off|y|n|0\d+|\d+:\d+(?::\d+)*|0o\d+|=|<<)\s*$", re.M)
_MAX_DIFFLIB_LINES = 4000
_MAX_ADDED_BYTES = 2_000_000


@dataclass(frozen=True)
class GateFailure:
    """One reason one gate rejects the change (independently of the others)."""

    gate: str  # PR_RUN | MERGE
    stage: str  # see STAGES
    message: str  # what the tool says (its words, values filled in)
    line: int | None = None  # head line it concerns, when known


# stage -> what it checks (documentation; rules select stages by these names)
STAGES = {
    "final-newline": "the head file ends with a newline",
    "append-only": "append-only entries are mixed with regular ones",
    "deleted-line": "`git diff` deletes a line with content",
    "no-additions": "the diff adds no line with content",
    "added-yaml": "the added lines do not load as YAML / hold no entries",
    "entry-schema": "an entry fails `ChangelogEntry` validation",
    "master-schema": "a master config fails the master-config schema",
    "config-key": "a `config-keys` item resolves to no master-config key",
    "generator": "the sweep generator fails for a selected key",
    "file-format": "the file has no final newline, or has CR, tab, NUL or invalid UTF-8 (base or head)",
    "file-yaml": "the file does not load as YAML with unique keys",
    "entry-count": "the number of `- config-keys:` lines differs from the number of entries",
    "entries-deleted": "head has fewer entries than base",
    "entry-changed": "an existing entry (by index) changed other than its pr-link",
    "correction-invalid": "a pr-link correction is not canonical, or is mixed with new entries",
    "added-pr-link": "an appended entry's pr-link is not this PR's link or a placeholder",
    "raw-prefix": "head does not begin with the base bytes",
    "separator-history": "the first appended entry is not separated from history by exactly one empty line",
    "separator-between": "appended entries are not separated by exactly one empty line",
    "trailing-empty-line": "head ends with an empty line",
    "corrections-raw": "a pr-link correction changes other bytes or lines",
    "no-change": "bytes changed with no appended entry and no pr-link correction",
    "file-missing": "the changelog is not at its path at head (renamed)",
}


MATRIX_STAGES = frozenset({"master-schema", "config-key", "generator"})


@dataclass
class GateReport:
    """Both gates' verdicts on one changelog file.

    The PR-run check's matrix stages (master-config schema, key resolution, generator) read the
    master configs; they are computed on first use (`matrix`), so a review that never asks for
    them (no rule names a matrix stage) does not pay for them.
    """

    path: str
    conventions: Conventions
    changelog_pr_run: tuple[GateFailure, ...] = ()  # the PR-run check's changelog stages
    merge: tuple[GateFailure, ...] = ()
    merge_exists: bool = True  # the merge helper existed at the base revision
    skipped: str | None = None  # not evaluated (file too large, content missing)
    matrix: Callable[[], tuple[GateFailure, ...]] | None = None
    _matrix: tuple[GateFailure, ...] | None = None

    def matrix_failures(self) -> tuple[GateFailure, ...]:
        if self._matrix is None:
            self._matrix = self.matrix() if self.matrix is not None else ()
        return self._matrix

    @property
    def pr_run(self) -> tuple[GateFailure, ...]:
        return (*self.changelog_pr_run, *self.matrix_failures())

    @property
    def pr_run_ok(self) -> bool:
        return not self.pr_run

    @property
    def merge_ok(self) -> bool:
        return not self.merge

    _index: dict | None = None

    def _indexed(self, gate: str, stage: str) -> tuple[list[GateFailure], list[int], list[GateFailure]]:
        """(failures on no line, their sorted lines, failures sorted by line) of one gate and stage."""
        if self._index is None:
            self._index = {}
        key = (gate, stage, stage in MATRIX_STAGES)
        if key not in self._index:
            pool = ((*self.changelog_pr_run, *(self.matrix_failures() if stage in MATRIX_STAGES else ()))
                    if gate == PR_RUN else self.merge)
            mine = [f for f in pool if f.stage == stage]
            lined = sorted((f for f in mine if f.line is not None), key=lambda f: f.line)
            self._index[key] = ([f for f in mine if f.line is None], [f.line for f in lined], lined)
        return self._index[key]

    def failures(self, gate: str, stages: set[str] | frozenset[str] | tuple[str, ...],
                 lines: tuple[int, int] | None = None) -> list[GateFailure]:
        """This gate's failures of these stages; with `lines`, only those on lines lo..hi (or on no line)."""
        out: list[GateFailure] = []
        for stage in sorted(set(stages)):
            free, keys, lined = self._indexed(gate, stage)
            out += free
            if lines is None:
                out += lined
            else:
                lo, hi = bisect.bisect_left(keys, lines[0]), bisect.bisect_right(keys, lines[1])
                out += lined[lo:hi]
        return out


@dataclass(frozen=True)
class GateNote:
    """Which gate rejects one problem: a sentence for the message and the tool's words as evidence."""

    sentence: str
    evidence: tuple[str, ...] = ()
    gate: str | None = None  # PR_RUN, MERGE or None (only the documented contract)
    # Set when no gate rejects and the base's written guidance was read and holds no statement of
    # the contract: the problem is then proven by nothing at that revision (the rule skips it).
    unproven: str | None = None

    def on(self, message: str) -> str:
        return f"{message} {self.sentence}"


# The written statements of each changelog contract, as the repository's guidance (AGENTS.md,
# CLAUDE.md, CONTRIBUTING.md at the merge base) phrases them: a prohibition or a must, in one
# sentence. A rule that only a contract forbids is blocking where the base says so in writing.
CONTRACTS = {
    "append-at-end": re.compile(
        r"(?i)\bappend\w*\b[^.]{0,60}\b(?:end|tail|bottom)\b|\bnever\b[^.]{0,40}\b(?:insert|prepend)\w*"),
    "one-final-newline": re.compile(
        r"(?i)\b(?:exactly|only|a single)\s+one\b[^.]{0,30}\b(?:final\s+|trailing\s+)?newline|"
        r"\bno\b[^.]{0,20}\b(?:trailing|extra)\s+(?:empty|blank)\s+lines?\b[^.]{0,40}\bend\b"),
    "one-empty-line": re.compile(
        r"(?i)\b(?:exactly\s+)?one\s+(?:empty|blank)\s+line\b[^.]{0,60}\b(?:between|before|after|separat)\w*|"
        r"\bseparat\w+\b[^.]{0,60}\bone\s+(?:empty|blank)\s+line"),
    "append-only": re.compile(
        r"(?i)\bappend-only\b|\bnever\b[^.]{0,30}\b(?:delete|modify|edit|rewrite)\w*\b[^.]{0,60}"
        r"\b(?:entr\w*|whitespace|lines?|history)\b|\bpreserve\s+(?:the\s+)?(?:existing\s+)?(?:whitespace|bytes)\b"),
    "own-pr-link": re.compile(
        r"(?i)\bpr-link\b[^.]{0,80}\b(?:this|the|its\s+own|your)\s+PR(?:'s)?\b|"
        r"\bpr-link\b[^.]{0,60}\b(?:must|should)\b"),
}


def written_contract(ctx, name: str):
    """The base's written statement of contract `name` (a `rules.policy.Statement`); False when the
    base's guidance was read and has none; None when nobody read it."""
    from rules.policy import find_statement, policy_texts

    texts = policy_texts(ctx.changeset)
    if texts is None:
        return None
    return find_statement(texts, CONTRACTS[name]) or False


def gate_note(report: GateReport | None, pr_run: tuple[str, ...] = (), merge: tuple[str, ...] = (),
              contract: str = "the documented contract", lines: tuple[int, int] | None = None) -> GateNote:
    """Name the gate that rejects a problem whose checks are these stages of each gate.

    The sentence is stable for a given problem (it goes into the message, which fingerprints the
    finding); the tool's exact message goes into the evidence. With neither gate rejecting, it
    names `contract` as the only authority.
    """
    if report is None or report.skipped:
        return GateNote(f"(Gates not evaluated: {report.skipped if report else 'no changelog diff'}.)")
    pr = report.failures(PR_RUN, set(pr_run), lines)
    mg = report.failures(MERGE, set(merge), lines)
    ev = tuple(f"{'PR-run check' if f.gate == PR_RUN else 'merge path'} ({report.conventions.label}): "
               f"`{short(f.message, 240)}`" for f in (pr[:1] + mg[:1]))
    if pr:
        tail = " and by the merge path at merge" if mg else ""
        return GateNote(f"Rejected by {GATE_NAMES[PR_RUN]} on this push{tail}.", ev, PR_RUN)
    if mg:
        return GateNote("The PR-run check passes this; the merge path rejects it at merge.", ev, MERGE)
    if not report.merge_exists and merge:
        return GateNote(f"The PR-run check passes this and {report.conventions.label} had no merge-path check; "
                        f"only {contract} forbids it.", ev)
    return GateNote(f"Both gates accept this; only {contract} forbids it.", ev)


# --------------------------------------------------------------------------------------------
# The entry schema as the repository's tooling reads it (lax pydantic, keys by convention)


class _LaxEntry(BaseModel):
    """`ChangelogEntry` of `utils/matrix_logic/validation.py` (lax types, as the tool validates)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    config_keys: list[str] = Field(alias="config-keys", min_length=1)
    description: list[str] = Field(min_length=1)
    pr_link: str = Field(alias="pr-link")
    evals_only: bool = Field(alias="evals-only", default=False)
    all_evals: bool = Field(alias="all-evals", default=False)
    scenario_type: list[Literal["fixed-seq-len", "agentic-coding"]] | None = Field(
        alias="scenario-type", default=None, min_length=1)
    append_only: bool = Field(alias="append-only", default=False)
    eval_min_prefill_ep: int | None = Field(alias="eval-min-prefill-ep", default=None, ge=1)


class _Dec2025Entry(BaseModel):
    """`ChangelogEntry` before #343 (2025-12-17): a free-text `description`, no `pr-link` (the
    link was a `PR:` line inside the description)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    config_keys: list[str] = Field(alias="config-keys", min_length=1)
    description: str


def entry_schema_error(data: Any, conv: Conventions) -> str | None:
    """Why the repository's `ChangelogEntry` (at `conv`) rejects `data`, or None."""
    if not isinstance(data, dict):
        return f"entry is not a mapping ({type(data).__name__})"
    allowed = conv.entry_keys()
    extra = [k for k in data if k not in allowed]
    if extra:
        return f"{extra[0]}: Extra inputs are not permitted"
    if not conv.since(ALL_EVALS) and isinstance(data.get("scenario-type"), list):
        data = {**data, "scenario-type": None} if all(isinstance(x, str) for x in data["scenario-type"]) else data
    try:
        entry = _LaxEntry.model_validate(data)
    except ValidationError as err:
        if conv.admits(0, DESCRIPTION_LIST):
            try:
                _Dec2025Entry.model_validate(data)
                return None  # the tooling of the merge base or the tip still reads the old shape
            except ValidationError:
                pass
        e = err.errors(include_url=False)[0]
        loc = ".".join(str(x) for x in e["loc"])
        return f"{loc}: {e['msg']}"
    if entry.append_only and (entry.evals_only or entry.all_evals or entry.eval_min_prefill_ep is not None):
        return "append-only cannot be combined with evals-only, all-evals or eval-min-prefill-ep"
    return None


# --------------------------------------------------------------------------------------------
# YAML as PyYAML reads it


_LOADERS: dict[bool, YAML] = {}
MAX_EDITS_PARSED = 100  # edited history entries compared by value; past this an edit counts as a change


def _yaml(unique: bool) -> YAML:
    y = _LOADERS.get(unique)
    if y is None:
        y = YAML(typ="safe", pure=True)
        y.version = (1, 1)
        y.allow_duplicate_keys = not unique
        _LOADERS[unique] = y
    return y


def load11(text: str, unique: bool) -> tuple[Any, str | None]:
    """(data, error) of YAML 1.1 `text`; `unique`: duplicate keys are errors (the merge path)."""
    try:
        data = _yaml(unique).load(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = " ".join(str(p) for p in (err.context, err.problem) if p) or type(err).__name__
        return None, f"{problem}{where}".replace("\n", " ")
    except RecursionError:
        return None, "nesting too deep"
    except (YAMLError, ValueError, TypeError, OverflowError) as err:
        return None, type(err).__name__
    if expanded_size(data) is None:
        return None, "aliases expand too far"
    return data, None


def _entry_data11(e: Entry, unique: bool) -> tuple[Any, str | None]:
    """An entry's mapping as the tool's YAML 1.1 loader reads it (reusing the 1.2 parse when equal)."""
    if not unique and e.error is None and e.data is not None:
        unique = True  # no duplicate key (the 1.2 parse rejects them): both readings agree
    if e.data is not None and not _YAML11.search(e.text):
        return e.data, None
    if e.error and ("UTF-8" in e.error or "NUL" in e.error):
        return None, e.error
    data, err = load11(e.text + "\n", unique)
    if err is not None:
        return None, err
    if not isinstance(data, list) or not data:
        return None, "not a list item"
    return data[0], None


# --------------------------------------------------------------------------------------------
# The line diff `git diff base head` shows


@dataclass(frozen=True)
class LineDiff:
    deleted: tuple[tuple[int, int, bytes], ...]  # (base line, head line where it was, line without newline)
    added: tuple[tuple[int, bytes], ...]  # (head line number, line without newline)


def _slide(seq: list[bytes], p: int, n: int) -> int:
    """Where git puts a block of `n` inserted (or deleted) lines that could start anywhere in
    cmin..p of `seq`: at a line with no indentation right after an empty line (git's indent
    heuristic picks such boundaries), the latest one; else at `p`."""
    c = p
    while c > 0 and seq[c - 1] == seq[c - 1 + n]:
        c -= 1
    for at in range(p, c - 1, -1):
        if (at == 0 or not seq[at - 1].strip()) and seq[at][:1] not in (b" ", b"\t", b"\n"):
            return at
    return p


def line_diff(base: bytes, head: bytes) -> LineDiff:  # noqa: C901 (fast paths for appends and common ends, then difflib or an in-order match)
    """Deleted and added lines, aligned like `git diff` (common lines first, then the middle)."""
    if (not base or base.endswith(b"\n")) and head.startswith(base):  # an append: no need to split history
        first = base.count(b"\n") + 1
        tail = head[len(base):].splitlines()
        return LineDiff((), tuple((first + k, x) for k, x in enumerate(tail)))
    b = base.splitlines(keepends=True)
    h = head.splitlines(keepends=True)
    # Common leading and trailing lines, counted on bytes (a binary search), not line by line.
    cut = _common_prefix(base, head)
    p = base.count(b"\n", 0, cut) if cut < len(base) or cut < len(head) else len(b)
    p = min(p, len(b), len(h))
    tail = _common_suffix(base, head, min(len(base), len(head)) - cut)
    s = 0
    if tail == len(base):  # all of base ends head: its lines but the first are whole equal lines
        s = min(len(b), len(b) - p, len(h) - p)
    elif tail:  # whole lines after the first newline at or before the suffix's start (none: s = 0)
        first_nl = base.find(b"\n", len(base) - tail - 1)
        s = max(0, min(base.count(b"\n", first_nl + 1) if first_nl >= 0 else 0, len(b) - p, len(h) - p))
    while s and b[len(b) - s] != h[len(h) - s]:  # guard: only whole equal lines
        s -= 1
    while s < len(b) - p and s < len(h) - p and b[-1 - s] == h[-1 - s]:  # the byte suffix stops at the
        s += 1  # prefix's cut; whole equal lines may reach further back, as git's line diff sees them
    if (p == len(b) - s) != (p == len(h) - s):  # a pure insertion or deletion: place it like git does
        seq = h if p == len(b) - s else b
        c = _slide(seq, p, len(seq) - s - p)
        s += p - c
        p = c
    bm, hm = b[p:len(b) - s], h[p:len(h) - s]
    deleted: list[tuple[int, int, bytes]] = []
    added: list[tuple[int, bytes]] = []
    if not bm:
        added = [(p + 1 + k, x.rstrip(b"\n")) for k, x in enumerate(hm)]
    elif not hm:
        deleted = [(p + 1 + k, p + 1, x.rstrip(b"\n")) for k, x in enumerate(bm)]
    elif len(bm) <= _MAX_DIFFLIB_LINES and len(hm) <= _MAX_DIFFLIB_LINES:
        sm = difflib.SequenceMatcher(None, bm, hm, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag in ("delete", "replace"):
                deleted += [(p + 1 + k, p + 1 + j1, bm[k].rstrip(b"\n")) for k in range(i1, i2)]
            if tag in ("insert", "replace"):
                added += [(p + 1 + k, hm[k].rstrip(b"\n")) for k in range(j1, j2)]
    else:  # in-order match of base lines against head lines (n log n: next occurrence by bisection)
        where: dict[bytes, list[int]] = {}
        for t, line in enumerate(hm):
            where.setdefault(line, []).append(t)
        j = 0
        for k, line in enumerate(bm):
            pos = where.get(line)
            at = bisect.bisect_left(pos, j) if pos else 0
            if pos and at < len(pos):
                nxt = pos[at]
                added += [(p + 1 + t, hm[t].rstrip(b"\n")) for t in range(j, nxt)]
                j = nxt + 1
            else:
                deleted.append((p + 1 + k, p + 1 + j, line.rstrip(b"\n")))
        added += [(p + 1 + t, hm[t].rstrip(b"\n")) for t in range(j, len(hm))]
    return LineDiff(tuple(deleted), tuple(added))


# --------------------------------------------------------------------------------------------
# The gates


def _byte_format(raw: bytes, label: str) -> str | None:
    """`parse_changelog`'s byte checks, in its order and words."""
    if not raw.endswith(b"\n"):
        return f"{label} does not end with a newline"
    if b"\r" in raw:
        return f"{label} contains CR characters"
    if b"\t" in raw:
        return f"{label} contains tabs"
    if b"\0" in raw:
        return f"{label} contains NUL bytes"
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"{label} is not UTF-8: {exc}"
    return None


def _last_entry_starts(raw: bytes, n: int) -> list[int]:
    """Offsets of the last `n` lines `- config-keys:…\n` (the validator's appended entry starts), in order."""
    out: list[int] = []
    end = len(raw)
    while len(out) < n and end > 0:
        at = raw.rfind(b"- config-keys:", 0, end)
        if at < 0:
            break
        end = at
        if (at == 0 or raw[at - 1] == 10) and raw.find(b"\n", at) >= 0 and b"\r" not in raw[at:raw.find(b"\n", at)]:
            out.append(at)
    return out[::-1]


def _count_entries(raw: bytes, start: int = 0) -> int:
    """Lines `- config-keys:…\n` (the validator's count), in raw[start:] (start: 0 or after a newline)."""
    n = raw.count(b"\n- config-keys:", max(start - 1, 0)) + (1 if raw.startswith(b"- config-keys:", start) else 0)
    last = raw.rfind(b"\n", 0, len(raw) - 1) + 1 if raw.endswith(b"\n") else raw.rfind(b"\n") + 1
    if not raw.endswith(b"\n") and raw.startswith(b"- config-keys:", last) and last >= start:
        n -= 1  # the last line has no newline: `[^\r\n]*\n` does not match it
    return n


def _items(raw: bytes) -> int:
    return raw.count(b"\n- ") + raw.count(b"\n-\n") + (1 if raw.startswith((b"- ", b"-\n")) else 0)


def _canonical(link: str) -> bool:
    return re.fullmatch(rf"https://github\.com/{re.escape(CURRENT_REPO)}/pull/\d+", link) is not None


def _placeholder(link: str) -> bool:
    return link in ("XXX", f"https://github.com/{CURRENT_REPO}/pull/XXX")


def _edit_kind(texts: tuple[str, str] | None) -> str | None:
    """How `compare_entries` sees an edited entry: "entry" (changed), "link" (a canonical pr-link
    correction), "bad-link" (a non-canonical one) or None (equal values: a whitespace edit)."""
    if texts is None:
        return "entry"
    vals = []
    for t in texts:
        data, err = load11(t + "\n", unique=True)
        if err is not None or not isinstance(data, list) or not data or not isinstance(data[0], dict):
            return "entry"
        vals.append(data[0])
    old, new = vals
    if old == new:
        return None
    if {k: v for k, v in old.items() if k != "pr-link"} != {k: v for k, v in new.items() if k != "pr-link"}:
        return "entry"
    return "link" if _canonical(str(new.get("pr-link") or "")) else "bad-link"


def _merge_failures(d: ChangelogDiff, number: int | None, conv: Conventions) -> list[GateFailure]:  # noqa: C901 (one branch per check of the merge gate it emulates, in that tool's order)
    """`canonicalize_appended_links(base, head)`: parse both, compare entries, check raw bytes."""
    out: list[GateFailure] = []
    base, head = d.base or b"", d.head or b""

    def fail(stage: str, message: str, line: int | None = None) -> None:
        out.append(GateFailure(MERGE, stage, message, line))

    for raw, label in ((base, "base perf-changelog.yaml"), (head, "PR perf-changelog.yaml")):
        if raw is base and _whole_entries_only(d) and base.endswith(b"\n"):
            continue  # main's bytes, kept as they are: main's own check has read them
        why = _byte_format(raw, label)
        if why:
            fail("file-format", why, None if raw is base else max(d.head_line_count, 1))
    # History above the change is main's and parsed there; check the entries the PR wrote or edited.
    for c in d.history_changes:
        if c.kind == "edited" and c.texts is not None:
            _, err = load11(c.texts[1] + "\n", unique=True)
            if err is not None:
                fail("file-yaml", f"PR perf-changelog.yaml is not valid YAML: {err}", c.line)
    for e in d.new_entries:
        data, err = _entry_data11(e, unique=True)
        if err is not None:
            if "UTF-8" in err or "NUL" in err:
                continue  # file-format above
            fail("file-yaml", f"PR perf-changelog.yaml is not valid YAML: {err}", e.start_line)
            continue
        why = entry_schema_error(data, conv)
        if why:
            fail("entry-schema", f"PR perf-changelog.yaml entry {e.index + 1} fails ChangelogEntry validation: "
                                 f"{why}", e.start_line)
    if _whole_entries_only(d):
        # Whole entries added, every existing byte kept: history counts as it did on main; each new
        # item adds one to both counts unless it does not start with `- config-keys:`.
        base_items = base_count = d.base_count
        head_items = base_items + len(d.new_entries)
        head_count = base_count + sum(1 for e in d.new_entries if e.well_formed_start)
    else:
        head_count, base_count = _count_entries(head), _count_entries(base)
        head_items, base_items = _items(head), _items(base)
    if head_count != head_items:
        fail("entry-count", f"PR perf-changelog.yaml has {head_count} top-level config entries but YAML "
                            f"parsed {head_items} entries")
    if base_count != base_items:
        fail("entry-count", f"base perf-changelog.yaml has {base_count} top-level config entries but YAML "
                            f"parsed {base_items} entries")
    # compare_entries
    if head_items < base_items:
        fail("entries-deleted", "perf-changelog.yaml entries were deleted")
    corrections = len(d.corrections)
    additions = max(head_items - base_items, 0)
    if d.misplaced:
        e, _ = d.misplaced[0]
        fail("entry-changed", f"entry {e.index + 1} changed; existing entries are immutable except for "
                              "pr-link-only corrections", e.start_line)
    parsed = 0
    for c in d.history_changes:
        if c.kind == "edited":
            parsed += 1
        kind = ("entry" if c.kind == "moved" or (c.kind == "edited" and parsed > MAX_EDITS_PARSED) else
                _edit_kind(c.texts) if c.kind == "edited" else None)
        if kind == "entry":
            fail("entry-changed", "an existing entry changed; existing entries are immutable except for "
                                  "pr-link-only corrections", c.line)
        elif kind == "bad-link":
            fail("correction-invalid", "a pr-link correction is not canonical", c.line)
        elif kind == "link":
            corrections += 1
    if corrections and additions:
        fail("correction-invalid", "do not mix historical pr-link corrections with new changelog entries")
    if number is None:
        pass  # the merge helper always knows the PR number; without it the links are not compared
    else:
        expected = f"https://github.com/{CURRENT_REPO}/pull/{number}"
        for e in d.new_entries:
            link = e.pr_link if e.pr_link is not None else ""
            if link != expected and not _placeholder(link):
                fail("added-pr-link", f"new PR entry must use {expected!r} or an XXX placeholder; found {link!r}",
                     e.key_lines.get("pr-link", e.start_line))
    # validate_raw_change
    if additions:
        if not head.startswith(base):
            fail("raw-prefix", "appended entries changed historical perf-changelog.yaml bytes; restore the base "
                               "file byte-for-byte and append at the end")
        else:
            suffix = head[len(base):]
            expected_start = b"- config-keys:" if base.endswith(b"\n\n") else b"\n- config-keys:"
            if not suffix.startswith(expected_start):
                fail("separator-history", "new changelog entries must be separated from history by one empty line "
                                          "and appended at the end", base.count(b"\n") + 1)
        starts = _last_entry_starts(head, additions)
        for st in starts[1:] if len(starts) == additions else ():
            prefix = head[:st]
            if not prefix.endswith(b"\n\n") or prefix.endswith(b"\n\n\n"):
                fail("separator-between", "appended changelog entries must have exactly one empty separator line",
                     head.count(b"\n", 0, st) + 1)
                break
        if head.endswith(b"\n\n"):
            fail("trailing-empty-line", "the final appended changelog entry must end with one newline",
                 max(d.head_line_count, 1))
    elif corrections:
        bl, hl = base.splitlines(keepends=True), head.splitlines(keepends=True)
        if len(bl) != len(hl):
            fail("corrections-raw", "pr-link corrections may not add or delete lines")
        else:
            changed = 0
            for n, (x, y) in enumerate(zip(bl, hl, strict=True), start=1):
                if x == y:
                    continue
                changed += 1
                if not (x.startswith(b"  pr-link:") and y.startswith(b"  pr-link:") and x.endswith(b"\n")
                        and y.endswith(b"\n")):
                    fail("corrections-raw", f"historical bytes changed outside a pr-link line at line {n}", n)
                    break
    elif base != head:
        fail("no-change", "changelog diff has no appended entry or pr-link correction; historical whitespace "
                          "and formatting are immutable")
    return out


def _pr_run_failures(ctx, d: ChangelogDiff, conv: Conventions) -> list[GateFailure]:  # noqa: C901 (one branch per step of the PR-run gate it emulates, in that tool's order)
    """`validate_matrix_compatible_change` → `process_changelog.py` (+ the sweep generator)."""
    out: list[GateFailure] = []
    base, head = d.base or b"", d.head or b""

    def fail(stage: str, message: str, line: int | None = None) -> None:
        out.append(GateFailure(PR_RUN, stage, message, line))

    if conv.pr_run_final_newline and head and not head.endswith(b"\n"):
        fail("final-newline", f"{d.path} does not end with a newline", max(d.head_line_count, 1))
    if _whole_entries_only(d):
        # Whole new entries added at entry boundaries (an append or a clean splice), nothing else:
        # `git diff` shows exactly their lines added, so the history need not be split.
        lines = [(e.start_line + k, x.encode()) for e in d.new_entries for k, x in enumerate(e.text.split("\n"))]
        diff = LineDiff((), tuple(lines))
    else:
        diff = line_diff(base, head)
    found = 0
    for _, n, line in diff.deleted:
        if line.strip() or not conv.whitespace_deletions_ok:
            text = line.decode("utf-8", "replace")
            fail("deleted-line", f"Deletions are not allowed in {d.path}. Only additions to the changelog are "
                                 f"permitted. Found deleted line: {text}", _near(d, n))
            found += 1
            if found >= 50:
                break
    added = b"\n".join(x for _, x in diff.added)
    if not added.strip():
        fail("no-additions", "No additions found in the changelog file.")
        return out
    if len(added) > _MAX_ADDED_BYTES:
        return out
    if found:
        # The tool stops at the deletion; judge the PR's new entries on their own (each problem
        # independently), not the fragments the rejected edit leaves among the added lines.
        data, err = [e.data for e in d.new_entries if isinstance(e.data, dict)], None
        if not data:
            return out
    else:
        data, err = _added_yaml(d, added)
    if err is not None:
        fail("added-yaml", f"the added lines are not valid YAML: {err}", diff.added[0][0])
        return out
    if not data:
        fail("added-yaml", "No valid YAML entries found in the changelog additions.", diff.added[0][0])
        return out
    items = data if isinstance(data, list) else list(data) if isinstance(data, dict) else [data]
    flags = [bool(i.get("append-only")) for i in items if isinstance(i, dict)]
    if conv.since(APPEND_ONLY) and any(flags) and not all(flags):
        fail("append-only", "append-only entries cannot share a sweep with regular changelog entries",
             diff.added[0][0])
    for e in d.new_entries:  # a blank key never resolves, whatever the master configs hold
        keys = e.data.get("config-keys") if isinstance(e.data, dict) else None
        for key in keys if isinstance(keys, list) else ():
            if isinstance(key, str) and not key.strip():
                fail("config-key", f"Config key '{key}' not found in master configs.", e.start_line)
    for k, item in enumerate(items):
        why = entry_schema_error(item, conv)
        if why:
            e = d.new_entries[k] if k < len(d.new_entries) and isinstance(data, list) else None
            fail("entry-schema", f"ChangelogEntry validation failed for added entry {k + 1}: {why}",
                 e.start_line if e else diff.added[0][0])
    return out


def _whole_entries_only(d: ChangelogDiff) -> bool:
    """The PR only adds whole entries between (or after) existing ones, every existing byte kept."""
    if d.history_changes or d.corrections or not d.new_entries or d.base_unterminated:
        return False
    return d.history_ok or (bool(d.misplaced) and all(s.ok for s in d.separators))


def _near(d: ChangelogDiff, base_line: int) -> int:
    return min(max(base_line, 1), max(d.head_line_count, 1))


def _added_yaml(d: ChangelogDiff, added: bytes) -> tuple[Any, str | None]:
    """The added lines as `yaml.safe_load` reads them; entry by entry when the PR only appends."""
    if _whole_entries_only(d):
        out = []
        for e in d.new_entries:
            data, err = _entry_data11(e, unique=False)
            if err is not None:
                return None, err
            out.append(data)
        return out, None
    try:
        text = added.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 ({exc.reason})"
    return load11(text, unique=False)


def _evaluate(ctx, d: ChangelogDiff) -> GateReport:
    conv = conventions(ctx)
    if d.skip_reason:
        return GateReport(d.path, conv, skipped=d.skip_reason)
    if d.status == "renamed":
        old = d.previous_path or "perf-changelog.yaml"
        return GateReport(
            d.path,
            conv,
            changelog_pr_run=(GateFailure(PR_RUN, "file-missing", f"could not read {old} at the PR head"),),
            merge=(GateFailure(MERGE, "file-missing", f"[Errno 2] No such file or directory: '{old}'"),),
            merge_exists=conv.merge_path,
        )
    if d.status == "removed":
        return GateReport(
            d.path,
            conv,
            changelog_pr_run=(GateFailure(PR_RUN, "deleted-line", f"Deletions are not allowed in {d.path}."),),
            merge=(GateFailure(MERGE, "entries-deleted", "perf-changelog.yaml entries were deleted"),),
            merge_exists=conv.merge_path,
        )
    pr = _pr_run_failures(ctx, d, conv)
    mg = _merge_failures(d, ctx.changeset.pr_number, conv) if conv.merge_path or conv.pr_run_strict else []
    if conv.pr_run_strict:
        pr += [GateFailure(PR_RUN, f.stage, f.message, f.line) for f in mg]
    if not conv.merge_path:
        mg = []
    return GateReport(d.path, conv, tuple(pr), tuple(mg), merge_exists=conv.merge_path,
                      matrix=lambda: tuple(_matrix_failures(ctx, d, conv)))


def _matrix_failures(ctx, d: ChangelogDiff, conv: Conventions) -> list[GateFailure]:
    """The master-config schema, key resolution and the generator, as `process_changelog.py` runs them."""
    from rules.master.matrix import pr_run_matrix_failures  # the master domain's analysis

    return [GateFailure(PR_RUN, stage, message, line) for stage, message, line in pr_run_matrix_failures(ctx, d)]


def changelog_gates(ctx) -> dict[str, GateReport]:
    """path → both gates' verdicts, for every changed changelog file (computed once per review)."""
    return ctx.memo(("changelog_gates",), lambda: {d.path: _evaluate(ctx, d) for d in changelog_diffs(ctx)})


def gates_for(ctx, d: ChangelogDiff) -> GateReport | None:
    return changelog_gates(ctx).get(d.path)


def note(ctx, d: ChangelogDiff, pr_run: tuple[str, ...] = (), merge: tuple[str, ...] = (),
         contract: str = "the documented contract", lines: tuple[int, int] | None = None,
         written: str | None = None) -> GateNote:
    """`gate_note` for one changelog file of this review (`lines`: the problem's head lines).

    `written` names the contract (`CONTRACTS`) that forbids the problem where no gate does. When
    no gate rejects it and the base's guidance was read and does not state that contract (older
    revisions: the repository wrote most of its changelog conventions down in 2026-04..06), the
    note is `unproven` and the rule reports a Skipped check instead of a finding. With the
    statement, its path and line go into the evidence."""
    gn = gate_note(gates_for(ctx, d), pr_run, merge, contract, lines)
    if gn.gate is not None or written is None or gn.sentence.startswith("(Gates not evaluated"):
        return gn
    st = written_contract(ctx, written)
    if st is False:
        report = gates_for(ctx, d)
        label = report.conventions.label if report is not None else "this revision"
        return GateNote(
            f"Neither gate rejects this at {label}, and the base's guidance does not write this convention down.",
            gn.evidence,
            None,
            unproven=(
                f"neither gate rejects this at {label}, and the base's written guidance "
                "does not state the contract "
                f"({contract.removeprefix('the documented contract ').strip('()') or written})"
            ),
        )
    if st:
        return GateNote(gn.sentence, (*gn.evidence, f"{st.path}:{st.line}: `{short(st.text, 160)}`"), None)
    return gn


__all__ = [
    "GateFailure",
    "GateNote",
    "GateReport",
    "PR_RUN",
    "MERGE",
    "STAGES",
    "CONTRACTS",
    "changelog_gates",
    "gates_for",
    "gate_note",
    "note",
    "written_contract",
    "entry_schema_error",
    "line_diff",
    "load11",
]

