"""The values of the shell interpreter (`rules.scripts.interpret`) and what it reads and finds.

A value is a string, an array of `Arg`s, or `Unknown(why)`; a variable is a `Var`. `Files` is all
an interpretation may read (file bytes and the tree listing, both pure data); `Result` is what it
found: the commands the script would launch (`Launch`), what it sources (`SourceEvent`), the
files its here-documents write (`WrittenFile`). Also here: the interpreter's bounds and the
signals (`exit`, `return`, `break`, the step budget) its statements and builtins raise.
"""
from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rules.scripts.parse import Node, Script, SharedParses, Unreadable, parse, text_of

MAX_STEPS = 200_000  # nodes evaluated per interpretation
MAX_DEPTH = 16  # function calls / eval / bash -c nesting
MAX_SOURCE_DEPTH = 8
MAX_LOOP = 64  # iterations of a `for` over a known list
MAX_VALUE = 64 * 1024  # characters of one value (a runaway `X="$X$X"` stays bounded)


class Unknown:
    """A value the interpreter cannot know, and why."""

    __slots__ = ("why",)

    def __init__(self, why: str):
        self.why = why

    def __repr__(self) -> str:
        return f"Unknown({self.why!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Unknown) and other.why == self.why

    def __hash__(self) -> int:
        return hash(self.why)


@dataclass(frozen=True)
class Arg:
    """One word of a command line: its value (None when unknown), where it came from, how it reads."""

    text: str | None
    path: str
    line: int
    shape: str  # the value, or the source text when the value is unknown
    why: str | None = None  # why the value is unknown

    @property
    def known(self) -> bool:
        return self.text is not None

    def __str__(self) -> str:
        return self.text if self.text is not None else self.shape


@dataclass(frozen=True)
class Var:
    """A variable's value (a string, an array of Args, or Unknown) and where it was last set."""

    value: str | Unknown | None = None
    items: tuple[Arg, ...] | None = None  # array value
    path: str = ""
    line: int = 0
    exported: bool = False

    def scalar(self) -> str | Unknown:
        if self.items is not None:
            if not self.items:
                return ""
            first = self.items[0]
            return first.text if first.text is not None else Unknown(first.why or "unknown array element")
        return self.value if self.value is not None else ""


@dataclass(frozen=True)
class WrittenFile:
    """A file the script writes from here-documents (`cat > F <<EOF … EOF`, `cat <<EOF >> F`).

    `text` is the document as the shell would write it, with every expansion the interpretation
    cannot resolve replaced by a placeholder word (`unknowns`: placeholder → the expansion as
    written); `lines` gives the script line of each text line; `guarded` says a part was written
    under a condition the interpretation does not know (the text may differ at run time)."""

    target: str
    text: str
    lines: tuple[int, ...]
    path: str
    unknowns: Mapping[str, str] = field(default_factory=dict)
    guarded: bool = False


PLACEHOLDER = "__rr_unknown_{}__"


@dataclass(frozen=True)
class Launch:
    """A command the script would run: argv, its environment, where, and under which unknown condition."""

    argv: tuple[Arg, ...]
    env: Mapping[str, Var]  # exported variables plus the command's own prefix assignments
    path: str
    line: int
    end_line: int
    guard: str | None = None  # an unknown condition (or loop) it runs under
    function: str | None = None  # function whose body it is in
    captured: bool = False  # inside `$(…)`: its output is a value, not a launch of its own
    call: bool = False  # a call of a shell function (its body's launches follow as launches of their own)
    files: Mapping[str, WrittenFile] = field(default_factory=dict)  # here-document files written so far

    def words(self) -> list[str]:
        return [str(a) for a in self.argv]


@dataclass(frozen=True)
class SourceEvent:
    """A `source`/`.` the script runs: the path it resolves to (or why not) and whether it exists."""

    path: str  # file holding the `source` command
    line: int
    target: str | None  # repo-relative path, or None when unknown / outside the repository
    shape: str
    exists: bool | None  # None: the listing does not say
    read: bool  # its text was available and interpreted
    why: str | None = None


@dataclass
class Result:
    """What one interpretation found."""

    launches: list[Launch] = field(default_factory=list)
    sources: list[SourceEvent] = field(default_factory=list)
    vars: dict[str, Var] = field(default_factory=dict)
    reads: dict[str, str | Unknown | None] = field(default_factory=dict)  # inputs read: name → value seen
    notes: list[str] = field(default_factory=list)  # budget, depth, loops: why a result may be partial
    exited: bool = False
    questions: dict = field(default_factory=dict)  # (kind, path) → answer: what the listing and files said
    written: dict[str, WrittenFile] = field(default_factory=dict)  # here-document files, by target as expanded


class Files:
    """What the interpreter may read: file bytes and the tree listing (both pure data).

    Every question asked is remembered in `seen` (path → the answer, and for a file read, its
    content digest), so an interpretation can be reused only where the same questions get the same
    answers."""

    def __init__(self, read: Callable[[str], bytes | None], exists: Callable[[str], bool | None],
                 is_dir: Callable[[str], bool | None], parse_cache: dict | None = None,
                 shared: SharedParses | None = None):
        self._read = read
        self._exists = exists
        self._is_dir = is_dir
        self._cache = parse_cache if parse_cache is not None else {}
        self._shared = shared
        self._digests: dict[str, str | None] = {}

    def exists(self, path: str) -> bool | None:
        """True/False when the listing says (file or directory), None when it does not cover `path`."""
        return self._exists(path)

    def is_dir(self, path: str) -> bool | None:
        return self._is_dir(path)

    def digest(self, path: str) -> str | None:
        if path not in self._digests:
            raw = self._read(path)
            self._digests[path] = None if raw is None else hashlib.sha1(raw).hexdigest()
        return self._digests[path]

    def answers(self, questions: Mapping[tuple[str, str], object]) -> bool:
        """Whether every recorded question (kind, path) still gets its recorded answer."""
        for (kind, path), answer in questions.items():
            now = (
                self.exists(path) if kind == "exists" else self.is_dir(path) if kind == "is_dir" else self.digest(path)
            )
            if now != answer:
                return False
        return True

    def script(self, path: str) -> Script | Unreadable:
        if path not in self._cache:
            raw = self._read(path)
            self._cache[path] = self._shared.parse(path, raw) if self._shared is not None else parse(path, raw)
        return self._cache[path]


def arg_of(value, path: str, line: int, node: Node | None) -> Arg:
    """An `Arg` of a value set at `path:line`; an unknown value reads as the node's text."""
    if isinstance(value, Unknown):
        return Arg(None, path, line, text_of(node) if node is not None else "?", value.why)
    return Arg(value, path, line, value)


def normalize(base_dir: str, path: str) -> str | None:
    """A repo-relative path for `path` seen from `base_dir`; None when absolute or outside the repository."""
    if path.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(base_dir, path)) if base_dir else posixpath.normpath(path)
    if joined == ".":
        return ""
    if joined.startswith("../") or joined == "..":
        return None
    return joined


# -- control flow: raised by statements and builtins, caught by the interpreter --------------------


class ScriptExit(Exception):
    """`exit`: the script stops here."""


class FunctionReturn(Exception):
    """`return`: the function stops here."""


class OutOfSteps(Exception):
    """The step budget ran out."""


class LoopBreak(Exception):
    """`break` / `continue`: leaves the innermost loop being run."""
