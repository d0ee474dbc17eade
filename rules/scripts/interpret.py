"""A small, pure interpreter of a safe subset of bash, over the tree-sitter parse tree.

**Nothing is ever executed.** The interpreter walks the parse tree of a script and keeps track
of what the script *would* do: variables (strings and arrays, `export`, `local`), `source`d
files (read from the review's files, never from disk), `if`/`case`/`&&`/`||` on values it knows,
function calls, and every command the script would launch, as an argv of `Arg`s, each with the
file and line its text came from. It understands:

- assignments, `export`/`local`/`declare`/`readonly`, arrays (`X=(…)`, `X+=(…)`, `"${X[@]}"`),
  `unset`, `shift`, `set -u`;
- parameter expansion: `${X:-d}` `${X-d}` `${X:=d}` `${X:?m}` `${X:+a}` `${#X}` `${X#p}` `${X##p}`
  `${X%p}` `${X%%p}` `${X/a/b}` `${X//a/b}` `${X:o:l}` `${X,,}` `${X^^}`, `$0`, `$1…`, `$@`,
  `${BASH_SOURCE[0]}`;
- `$(( … ))` / `(( … ))` integer arithmetic (a tiny evaluator over the tree, never Python's `eval`);
- tests: `[ … ]`, `[[ … ]]`, `test` with string, glob, integer and file operators; `-f`/`-d`/`-e`
  are answered from the review's tree listing (`Files.exists`), never from a disk;
- `$(…)` / backticks only for pure forms: `echo`, `printf`, `basename`, `dirname`, `pwd`, `cd`,
  `true`/`false` and tests; anything else in a substitution makes its value unknown;
- `eval` and `bash -c` of a *known* string are parsed and interpreted like the rest (data, never
  run); of an unknown string they are recorded as unknown;
- functions: the bodies of functions the interpreted file defines are followed; a function from a
  sourced file (the benchmark library's harness helpers) is recorded as a call and not followed
  (`follow_library=True` follows it), and every global it assigns becomes unknown.

Whatever it cannot know stays `Unknown` with the reason (`$(curl …)`, `read`, a branch on an
unknown value: both branches are interpreted and every variable they set differently becomes
unknown, and commands under it carry the condition as `guard`). Loops run at most
`MAX_LOOP` times over known lists; `while` bodies run once as "maybe". Time is bounded by a
step budget, call depth, and `source` depth (a `source` loop or a recursive function stops with
a note, never a hang).
"""
from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from rules.scripts.parse import Node, Script, SharedParses, Unreadable, end_line_of, line_of, literal, parse, text_of

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


class _Exit(Exception):
    """`exit`: the script stops here."""


class _Return(Exception):
    """`return`: the function stops here."""


class _Budget(Exception):
    """The step budget ran out."""


class _LoopBreak(Exception):
    """`break` / `continue`: leaves the innermost loop being run."""


_IFS = re.compile(r"[ \t\n]+")


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A bash glob (`*`, `?`, `[…]`, `\\x`) as a regex matching the whole string."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.S)


def glob_match(pattern: str, s: str) -> bool:
    return _glob_regex(pattern).fullmatch(s) is not None


def _strip(value: str, pattern: str, op: str) -> str:
    rx = _glob_regex(pattern)
    n = len(value)
    if op in ("#", "##"):
        rng = range(0, n + 1) if op == "#" else range(n, -1, -1)
        for i in rng:
            if rx.fullmatch(value[:i]):
                return value[i:]
        return value
    rng = range(n, -1, -1) if op == "%" else range(0, n + 1)
    for i in rng:
        if rx.fullmatch(value[i:]):
            return value[:i]
    return value


def _substitute(value: str, pattern: str, repl: str, op: str) -> str:
    rx = _glob_regex(pattern)
    if not pattern:
        return value
    if op == "/#":
        for i in range(len(value), -1, -1):
            if rx.fullmatch(value[:i]):
                return repl + value[i:]
        return value
    if op == "/%":
        for i in range(0, len(value) + 1):
            if rx.fullmatch(value[i:]):
                return value[:i] + repl
        return value
    out, i, done = [], 0, False
    while i <= len(value):
        if done:
            out.append(value[i:])
            break
        for j in range(len(value), i - 1, -1):  # longest match at i
            if j > i and rx.fullmatch(value[i:j]):
                out.append(repl)
                i = j
                done = op == "/"
                break
        else:
            if i < len(value):
                out.append(value[i])
            i += 1
    return "".join(out)


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


def _heredoc_literal(text: str) -> str:
    """Literal text of an unquoted here-document: `\\$`, `\\``, `\\\\` lose their backslash, `\\⏎` joins lines."""
    return re.sub(r"\\([$`\\])", r"\1", text.replace("\\\n", ""))


@dataclass
class _Seg:
    text: str | None  # None: unknown
    quoted: bool
    why: str | None = None
    shape: str = ""
    path: str = ""
    line: int = 0
    brk: bool = False  # starts a new field (array element boundary)


class Interpreter:
    """Interpret one script (and what it sources or calls) with a given environment."""

    def __init__(self, files: Files, env: Mapping[str, str | Unknown | Var] | None = None, cwd: str = "",
                 arg0: str | None = None, args: Iterable[str] = (), max_steps: int = MAX_STEPS,
                 follow_library: bool = False):
        self.files = files
        self.cwd = cwd  # repository-relative working directory ("" = repository root)
        self.vars: dict[str, Var] = {}
        for k, v in (env or {}).items():
            self.vars[k] = replace(v, exported=True) if isinstance(v, Var) else Var(
                value=v, path="<environment>", line=0, exported=True)
        # Names the interpretation has set itself; a read of any other name is an input read (present
        # or absent: an absent input read as unset matters as much for reuse as a value).
        self.assigned: set[str] = set()
        self.functions: dict[str, tuple[Node, str]] = {}
        self.positional: list[Arg] = [Arg(a, "<arguments>", 0, a) for a in args]
        self.arg0 = arg0
        self.result = Result()
        self.steps = 0
        self.max_steps = max_steps
        self.depth = 0
        self.source_stack: list[str] = []
        self.guards: list[str] = []
        self.fn_stack: list[str] = []
        self.locals: list[dict[str, Var | None]] = []
        self.capture: list[list[str | Unknown]] = []  # output buffers of `$(…)` being evaluated
        self.nounset = False
        self._cwd_unknown = False
        self.allexport = False  # `set -a`: every assignment is exported
        self.follow_library = follow_library  # interpret bodies of functions defined in sourced files
        self.main = ""  # the file `run` interprets

    # -- entry points ----------------------------------------------------------------------------
    def run(self, script: Script, stop_after: int | None = None) -> Result:
        """Interpret `script`; with `stop_after` (a byte offset), stop after the top-level statement
        that ends there or later."""
        self.source_stack.append(script.path)
        self.main = script.path
        self.result.questions[("digest", script.path)] = self.files.digest(script.path)
        if self.arg0 is None:
            self.arg0 = script.path
        try:
            if stop_after is None:
                self._block(script.root, script.path)
            else:
                for c in script.root.named_children:
                    if c.start_byte > stop_after:
                        break
                    self._stmt(c, script.path)
        except _Exit:
            self.result.exited = True
        except (_Return, _LoopBreak):
            pass
        except _Budget:
            self.result.notes.append(f"interpretation stopped after {self.max_steps:,} steps")
        except RecursionError:
            self.result.notes.append("interpretation stopped: nesting too deep")
        self.source_stack.pop()
        self.result.vars = dict(self.vars)
        return self.result

    # -- helpers ---------------------------------------------------------------------------------
    def _tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise _Budget()

    def _read(self, name: str) -> Var | None:
        v = self.vars.get(name)
        if name not in self.assigned and name not in self.result.reads:
            self.result.reads[name] = None if v is None else v.scalar()
        return v

    def _set(self, name: str, var: Var) -> None:
        if self.allexport and not var.exported:
            var = replace(var, exported=True)
        old = self.vars.get(name)
        if old is not None and old.exported and not var.exported:
            var = replace(var, exported=True)
        self.assigned.add(name)
        self.vars[name] = var

    def _ask(self, kind: str, path: str):
        answer = self.files.exists(path) if kind == "exists" else self.files.is_dir(path)
        self.result.questions[(kind, path)] = answer
        return answer

    def _guard(self) -> str | None:
        return "; ".join(self.guards) if self.guards else None

    # -- statements ------------------------------------------------------------------------------
    def _block(self, node: Node, path: str) -> None:
        for c in node.named_children:
            self._stmt(c, path)

    def _stmt(self, node: Node, path: str) -> bool | None:
        """Run one statement; returns its exit status when known (True = success)."""
        self._tick()
        t = node.type
        if t in ("comment", "heredoc_body"):
            return None
        if t == "command":
            return self._command(node, path)
        if t in ("variable_assignment",):
            self._assign(node, path, None)
            return True
        if t == "variable_assignments":
            for c in node.named_children:
                self._assign(c, path, None)
            return True
        if t == "declaration_command":
            return self._declare(node, path)
        if t == "unset_command":
            for c in node.named_children:
                name = literal(c) if c.type != "variable_name" else text_of(c)
                if name and not name.startswith("-"):
                    self.vars.pop(name, None)
                    self.assigned.add(name)
            return True
        if t == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                self.functions[text_of(name)] = (body, path)
            return True
        if t in ("program", "compound_statement", "do_group"):
            if t == "compound_statement" and node.children and node.children[0].type == "((":
                return self._arith_cmd(node)
            status = None
            for c in node.named_children:
                status = self._stmt(c, path)
            return status
        if t == "subshell":
            saved = dict(self.vars), self.cwd, self._cwd_unknown
            status = None
            try:
                for c in node.named_children:
                    status = self._stmt(c, path)
            except _Exit:
                status = None
            self.vars, self.cwd, self._cwd_unknown = saved
            return status
        if t == "redirected_statement":
            body = node.child_by_field_name("body")
            self._heredoc_file(node, body, path)
            for c in node.named_children:
                if c.type == "heredoc_redirect" or c.type.endswith("_redirect"):
                    self._redirect(c, path)
            return self._stmt(body, path) if body is not None else None
        if t == "pipeline":
            status = None
            kids = [c for c in node.named_children]
            saved = dict(self.vars)
            for c in kids:
                status = self._stmt(c, path)
            if len(kids) > 1:
                # Each part of a pipeline runs in a subshell: assignments there do not survive.
                self.vars = saved
            return status
        if t == "negated_command":
            inner = node.named_children[0] if node.named_children else None
            status = self._stmt(inner, path) if inner is not None else None
            return None if status is None else not status
        if t == "list":
            return self._list(node, path)
        if t == "test_command":
            return self._test(node)
        if t == "if_statement":
            return self._if(node, path)
        if t == "case_statement":
            return self._case(node, path)
        if t == "for_statement":
            return self._for(node, path)
        if t in ("while_statement", "c_style_for_statement"):
            return self._while(node, path)
        return None

    def _heredoc_file(self, node: Node, body: Node | None, path: str) -> None:
        """`cat > F <<EOF … EOF` / `cat <<EOF >> F`: record what F holds (data, never written).

        `A && cat > F <<EOF` parses with the redirects on the whole list: the write then depends
        on `A`, and counts as written under an unknown condition (so does an append to a file no
        here-document wrote before: its earlier content is not known)."""
        listed = False
        if body is not None and body.type == "list" and body.named_children:
            body, listed = body.named_children[-1], True
        if body is None or body.type != "command":
            return
        name = body.child_by_field_name("name")
        if name is None or text_of(name) != "cat" or any(
                c.is_named and c.type not in ("command_name",) and not c.type.endswith("_redirect")
                for c in body.children):
            return
        heredoc = next((c for c in node.named_children if c.type == "heredoc_redirect"), None)
        if heredoc is None:
            return
        redirects = [c for c in node.named_children if c.type == "file_redirect"]
        redirects += [c for c in heredoc.named_children if c.type == "file_redirect"]
        if len(redirects) != 1:
            return
        red = redirects[0]
        op = next((text_of(c) for c in red.children if not c.is_named), "")
        target_node = next((c for c in red.named_children), None)
        if op not in (">", ">>", ">|") or target_node is None:
            return
        target = self._string(target_node, path)
        body_node = next((c for c in heredoc.named_children if c.type == "heredoc_body"), None)
        start = next((c for c in heredoc.named_children if c.type == "heredoc_start"), None)
        if isinstance(target, Unknown) or body_node is None or start is None:
            return
        strip_tabs = any(not c.is_named and text_of(c) == "<<-" for c in heredoc.children)
        quoted = bool(re.search(r"[\'\"\\]", text_of(start)))
        old = self.result.written.get(target)
        first_ph = len(old.unknowns) if old is not None else 0  # placeholders stay unique across appends
        unknowns: dict[str, str] = {}
        raw = body_node.text or b""
        base = body_node.start_byte
        if quoted:
            text = raw.decode("utf-8", "replace")
        else:
            out, pos = [], 0
            for c in body_node.children:
                if c.type not in ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"):
                    continue
                out.append(_heredoc_literal(raw[pos:c.start_byte - base].decode("utf-8", "replace")))
                value = self._join(self._segs(c, path, quoted=True))
                if isinstance(value, Unknown):
                    ph = PLACEHOLDER.format(first_ph + len(unknowns))
                    unknowns[ph] = text_of(c)
                    value = ph
                out.append(value)
                pos = c.end_byte - base
            out.append(_heredoc_literal(raw[pos:].decode("utf-8", "replace")))
            text = "".join(out)
        if strip_tabs:
            text = "\n".join(ln.lstrip("\t") for ln in text.split("\n"))
        first = line_of(body_node)
        lines = tuple(first + i for i in range(text.count("\n") + (0 if text.endswith("\n") else 1)))
        guarded = self._guard() is not None or listed
        if op == ">>" and old is not None:
            self.result.written[target] = WrittenFile(target, old.text + text, old.lines + lines, path,
                                                      {**old.unknowns, **unknowns}, old.guarded or guarded)
        else:
            self.result.written[target] = WrittenFile(target, text, lines, path, unknowns, guarded or op == ">>")

    def _redirect(self, node: Node, path: str) -> None:
        # A here-document or redirect target is data: expand it (reads count) but never write.
        for c in node.named_children:
            if c.type in ("word", "string", "concatenation", "simple_expansion", "expansion"):
                self._string(c, path)

    def _list(self, node: Node, path: str) -> bool | None:
        kids = node.children
        status = self._stmt(kids[0], path)
        i = 1
        while i + 1 < len(kids):
            op, right = kids[i].type, kids[i + 1]
            i += 2
            if op == "&&":
                if status is False:
                    continue
                if status is True:
                    status = self._stmt(right, path)
                    continue
            elif op == "||":
                if status is True:
                    continue
                if status is False:
                    status = self._stmt(right, path)
                    continue
            else:
                status = self._stmt(right, path)
                continue
            status = self._maybe(lambda: self._stmt(right, path), f"`{_short(kids[0])}` {op} …")
        return status

    def _maybe(self, body: Callable[[], bool | None], guard: str) -> None:
        """Run `body` as a branch that may or may not run; merge its effects as unknown."""
        before = dict(self.vars)
        self.guards.append(guard)
        exited = False
        try:
            body()
        except (_Exit, _Return):
            exited = True
        except _LoopBreak:
            pass
        finally:
            self.guards.pop()
        after = self.vars
        if exited:
            self.vars = before
            return None
        self.vars = _merge(before, after, guard)
        return None

    def _branches(self, bodies: list[Callable[[], object]], guard: str) -> None:
        """Run several alternative branches (one of which runs) and merge their effects."""
        start = dict(self.vars)
        outcomes = []
        self.guards.append(guard)
        try:
            for body in bodies:
                self.vars = dict(start)
                try:
                    body()
                    outcomes.append(self.vars)
                except (_Exit, _Return):
                    pass
                except _LoopBreak:
                    outcomes.append(self.vars)
        finally:
            self.guards.pop()
        if not outcomes:
            self.vars = start
            raise _Exit()
        merged = outcomes[0]
        for o in outcomes[1:]:
            merged = _merge(merged, o, guard)
        self.vars = merged

    @staticmethod
    def _clauses(node: Node) -> list[tuple[list[Node], list[Node]]]:
        """(condition statements, body statements) of `if`, each `elif`, then `else` (empty condition)."""
        def split(children) -> tuple[list[Node], list[Node]]:
            cond: list[Node] = []
            body: list[Node] = []
            in_cond = True
            for c in children:
                if c.type == "then":
                    in_cond = False
                elif c.is_named and c.type not in ("elif_clause", "else_clause", "comment"):
                    (cond if in_cond else body).append(c)
            return cond, body

        clauses = [split(node.children)]
        for c in node.named_children:
            if c.type == "elif_clause":
                clauses.append(split(c.children))
            elif c.type == "else_clause":
                clauses.append(([], [cc for cc in c.named_children if cc.type != "comment"]))
        return clauses

    def _if(self, node: Node, path: str) -> bool | None:
        clauses = self._clauses(node)
        # Evaluate in order: known conditions pick; the first unknown one forks the rest.
        for idx, (cnd, stmts) in enumerate(clauses):
            if not cnd:  # else
                return self._run_all(stmts, path)
            status = None
            for c in cnd:
                status = self._stmt(c, path)
            if status is True:
                return self._run_all(stmts, path)
            if status is False:
                continue
            rest = clauses[idx + 1:]
            text = "; ".join(_short(c) for c in cnd)

            def taken(stmts=stmts):
                self._run_all(stmts, path)

            def not_taken(rest=rest):
                self._if_rest(rest, path)

            self._branches([taken, not_taken], f"`{text}` (line {line_of(cnd[0])})")
            return None
        return True

    def _if_rest(self, clauses, path: str) -> None:
        for idx, (cnd, stmts) in enumerate(clauses):
            if not cnd:
                self._run_all(stmts, path)
                return
            status = None
            for c in cnd:
                status = self._stmt(c, path)
            if status is True:
                self._run_all(stmts, path)
                return
            if status is False:
                continue
            rest = clauses[idx + 1:]
            text = "; ".join(_short(c) for c in cnd)
            self._branches([lambda s=stmts: self._run_all(s, path), lambda r=rest: self._if_rest(r, path)],
                           f"`{text}` (line {line_of(cnd[0])})")
            return

    def _run_all(self, stmts: list[Node], path: str) -> bool | None:
        status = None
        for s in stmts:
            status = self._stmt(s, path)
        return status

    def _case(self, node: Node, path: str) -> bool | None:
        value_node = node.child_by_field_name("value")
        value = self._string(value_node, path) if value_node is not None else Unknown("no case value")
        items = [c for c in node.named_children if c.type == "case_item"]
        candidates = []
        for item in items:
            pats, body = [], []
            for i, c in enumerate(item.children):
                if item.field_name_for_child(i) == "value":
                    pats.append(c)
                elif c.is_named:
                    body.append(c)
            verdicts = []
            for p in pats:
                pv = self._pattern(p, path)
                if isinstance(value, Unknown) or isinstance(pv, Unknown):
                    verdicts.append(None)
                else:
                    verdicts.append(glob_match(pv, value))
            if any(v is True for v in verdicts):
                candidates.append((True, body))
                break
            if any(v is None for v in verdicts):
                candidates.append((None, body))
        if not candidates:
            return True
        if len(candidates) == 1 and candidates[0][0] is True:
            return self._run_all(candidates[0][1], path)
        bodies = [lambda b=b: self._run_all(b, path) for _, b in candidates]
        if candidates[-1][0] is not True:
            bodies.append(lambda: None)  # no item matches
        shape = _short(value_node) if value_node is not None else "?"
        self._branches(bodies, f"`case {shape}` (line {line_of(node)})")
        return None

    def _for(self, node: Node, path: str) -> bool | None:
        var = node.child_by_field_name("variable")
        values: list[Node] = []
        body = node.child_by_field_name("body")
        for i, c in enumerate(node.children):
            if node.field_name_for_child(i) == "value" and c.is_named:
                values.append(c)
        if var is None or body is None:
            return None
        name = text_of(var)
        words: list[Arg] = []
        for v in values:
            words.extend(self._words(v, path))
        if not values:
            words = list(self.positional)
        if any(not w.known for w in words) or len(words) > MAX_LOOP:
            self._set(name, Var(Unknown(f"loop variable of line {line_of(node)}"), path=path, line=line_of(node)))
            self._maybe(lambda: self._stmt(body, path), f"loop at line {line_of(node)}")
            return None
        for w in words:
            self._set(name, Var(w.text, path=path, line=w.line))
            try:
                self._stmt(body, path)
            except _LoopBreak:
                break
        return True

    def _while(self, node: Node, path: str) -> bool | None:
        body = node.child_by_field_name("body")
        conds = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "condition" and c.is_named]
        until = node.children[0].type == "until" if node.children else False
        label = f"loop at line {line_of(node)}"
        if node.type == "while_statement" and conds and body is not None:
            # Iterate while the condition is known (e.g. `while (( X < CONC )); do X=$((X*2)); done`).
            for _ in range(MAX_LOOP):
                status = None
                for c in conds:
                    status = self._stmt(c, path)
                if status is not None and until:
                    status = not status
                if status is False:
                    return True
                if status is None:
                    break
                try:
                    self._stmt(body, path)
                except _LoopBreak:
                    return True
        for c in conds:
            self._maybe(lambda c=c: self._stmt(c, path), label)
        if body is not None:
            self._maybe(lambda: self._stmt(body, path), label)
        return None

    def _arith_cmd(self, node: Node) -> bool | None:
        expr = node.named_children[0] if node.named_children else None
        v = self._arith(expr, "") if expr is not None else Unknown("empty arithmetic")
        return None if isinstance(v, Unknown) else v != 0

    # -- assignments -----------------------------------------------------------------------------
    def _assign(self, node: Node, path: str, decl: str | None, local: bool = False, export: bool = False,
                array: bool = False) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        value_node = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        line = line_of(node)
        if name_node.type == "subscript":
            inner = name_node.child_by_field_name("name")
            name = text_of(inner) if inner is not None else text_of(name_node)
            old = self.vars.get(name)
            self._declare_local(name, local)
            self._set(name, Var(Unknown(f"`{name}[…]` assigned at line {line}"), path=path, line=line,
                                exported=export or bool(old and old.exported)))
            return
        name = text_of(name_node)
        self._declare_local(name, local)
        old = self._read(name) if append else self.vars.get(name)
        if value_node is not None and value_node.type == "array":
            items: list[Arg] = []
            for c in value_node.named_children:
                if c.type == "comment":
                    continue
                items.extend(self._words(c, path))  # (array literals: one element per node)
            if append and old is not None:
                prev = (
                    old.items
                    if old.items is not None
                    else (
                        (Arg(old.value, old.path, old.line, old.value),)
                        if isinstance(old.value, str) and old.value
                        else ()
                    )
                )
                items = [*prev, *items]
            self._set(name, Var(items=tuple(items), path=path, line=line, exported=export))
            return
        value = self._string(value_node, path) if value_node is not None else ""
        if append and old is not None:
            if old.items is not None:
                self._set(name, Var(items=(*old.items, _arg(value, path, line, value_node)), path=path, line=line,
                                    exported=export))
                return
            prev = old.scalar()
            value = _concat(prev, value)
        if array:
            self._set(name, Var(items=(_arg(value, path, line, value_node),), path=path, line=line, exported=export))
            return
        if isinstance(value, str) and len(value) > MAX_VALUE:
            value = Unknown(f"value of `{name}` longer than {MAX_VALUE:,} characters")
        self._set(name, Var(value, path=path, line=line, exported=export))

    def _declare_local(self, name: str, local: bool) -> None:
        if local and self.locals and name not in self.locals[-1]:
            self.locals[-1][name] = self.vars.get(name)

    def _declare(self, node: Node, path: str) -> bool | None:
        kw = node.children[0].type if node.children else ""
        flags = "".join(text_of(c)[1:] for c in node.named_children if c.type == "word" and text_of(c).startswith("-"))
        local = kw == "local" or (kw in ("declare", "typeset") and bool(self.fn_stack) and "g" not in flags)
        export = kw == "export" or "x" in flags
        array = "a" in flags or "A" in flags
        if kw == "export" and "n" in flags:
            export = False
        for c in node.named_children:
            if c.type == "variable_assignment":
                self._assign(c, path, kw, local=local, export=export, array=array)
            elif c.type == "variable_name":
                name = text_of(c)
                self._declare_local(name, local)
                old = self.vars.get(name)
                if old is None:
                    if local or array:
                        self._set(name, Var("" if not array else None, items=() if array else None, path=path,
                                            line=line_of(c), exported=export))
                    elif export:
                        # `export NAME` of an unset name marks it for export once set; nothing to record.
                        pass
                elif export:
                    self.vars[name] = replace(old, exported=True)
        return True

    # -- commands --------------------------------------------------------------------------------
    def _command(self, node: Node, path: str) -> bool | None:
        name_node = node.child_by_field_name("name")
        prefix: list[Node] = []
        args: list[Node] = []
        seen = False
        for i, c in enumerate(node.children):
            f = node.field_name_for_child(i)
            if f == "name":
                seen = True
                continue
            if not seen and c.type == "variable_assignment":
                prefix.append(c)
            elif seen and c.is_named and c.type not in ("comment", "file_redirect", "heredoc_redirect",
                                                        "herestring_redirect"):
                args.append(c)
            elif c.type.endswith("_redirect"):
                self._redirect(c, path)
        words: list[Arg] = []
        if name_node is not None:
            for c in name_node.named_children:
                words.extend(self._words(c, path))
        words.extend(self._arg_words(args, path))
        line, end = line_of(node), end_line_of(node)
        if not words:
            for p in prefix:  # `FOO=1` with an empty expansion as command: plain assignments
                self._assign(p, path, None)
            return True
        env_prefix: dict[str, Var] = {}
        for p in prefix:
            n = p.child_by_field_name("name")
            v = p.child_by_field_name("value")
            if n is not None:
                val = self._string(v, path) if v is not None else ""
                env_prefix[text_of(n)] = Var(val, path=path, line=line_of(p), exported=True)
        head = words[0]
        if not head.known:
            self._launch(words, env_prefix, path, line, end)
            return None
        name = head.text
        rest = words[1:]
        if name in ("source", "."):
            return self._source(rest, path, line)
        if name in self.functions and name not in ("exit",):
            return self._call(name, rest, env_prefix, path, line)
        handler = _BUILTINS.get(name)  # type: ignore[arg-type]
        if handler is not None:
            return handler(self, rest, path, line, words, env_prefix, end)
        self._launch(words, env_prefix, path, line, end)
        return None

    def _launch(self, words: list[Arg], env_prefix: dict[str, Var], path: str, line: int, end: int) -> None:
        env = {k: v for k, v in self.vars.items() if v.exported}
        env.update(env_prefix)
        launch = Launch(tuple(words), env, path, line, end, self._guard(), self.fn_stack[-1] if self.fn_stack else None,
                        captured=bool(self.capture), files=dict(self.result.written) if self.result.written else {})
        self.result.launches.append(launch)
        if self.capture:
            self.capture[-1].append(Unknown(f"output of `{_shape_words(words)}` (line {line})"))
        # `bash -c "<known text>"`, `bash script.sh`: follow what is data.
        if words and words[0].known and posixpath.basename(words[0].text or "") in ("bash", "sh") and len(words) > 2 \
                and words[1].text == "-c" and words[2].known and self.depth < MAX_DEPTH:
            self._eval_text(words[2].text or "", path, line, f"bash -c at {path}:{line}")

    def _call(self, name: str, args: list[Arg], env_prefix, path: str, line: int) -> bool | None:
        body, fpath = self.functions[name]
        env = {k: v for k, v in self.vars.items() if v.exported}
        env.update(env_prefix)
        self.result.launches.append(Launch((Arg(name, path, line, name), *args), env, path, line, line, self._guard(),
                                           self.fn_stack[-1] if self.fn_stack else None, bool(self.capture), True))
        if fpath != self.main and not self.follow_library:
            # A library function (defined in a sourced file) is not followed: its body is the
            # harness, not the point's command line. What it may set becomes unknown.
            script = self.files.script(fpath)
            if isinstance(script, Script):
                for a in script.assignments:
                    if a.function == name and a.declaration not in ("local", "prefix"):
                        self._set(a.name, Var(Unknown(f"set by `{name}` ({fpath}:{a.line})"), path=fpath,
                                              line=a.line, exported=a.declaration == "export"))
            return None
        if self.depth >= MAX_DEPTH or self.fn_stack.count(name) >= 4:
            self.result.notes.append(f"function `{name}` not followed at {path}:{line}: calls nest too deep")
            self._launch([Arg(name, path, line, name), *args], env_prefix, path, line, line)
            return None
        saved_pos = self.positional
        self.positional = list(args)
        self.locals.append({})
        self.fn_stack.append(name)
        self.depth += 1
        status = None
        try:
            status = self._stmt(body, fpath)
        except _Return as r:
            status = r.args[0] if r.args else None
        except _LoopBreak:
            status = None
        finally:
            self.depth -= 1
            self.fn_stack.pop()
            frame = self.locals.pop()
            for k, old in frame.items():
                if old is None:
                    self.vars.pop(k, None)
                else:
                    self.vars[k] = old
            self.positional = saved_pos
        return status

    def _source(self, args: list[Arg], path: str, line: int) -> bool | None:
        if not args:
            return None
        target = args[0]
        shape = target.shape
        if not target.known:
            self.result.sources.append(SourceEvent(path, line, None, shape, None, False, target.why))
            return None
        rel = None if self._cwd_unknown and not (target.text or "").startswith("/") else normalize(
            self.cwd, target.text or "")
        if rel is None:
            self.result.sources.append(SourceEvent(path, line, None, shape, None, False,
                                                   "absolute path or outside the repository"))
            return None
        exists = self._ask("exists", rel)
        self.result.questions[("digest", rel)] = self.files.digest(rel)
        if rel in self.source_stack or len(self.source_stack) > MAX_SOURCE_DEPTH:
            self.result.sources.append(SourceEvent(path, line, rel, shape, exists, False, "source loop"))
            self.result.notes.append(f"`source {rel}` at {path}:{line} not followed: it is already being sourced")
            return None
        script = self.files.script(rel) if exists is not False else Unreadable(rel, "does not exist")
        if isinstance(script, Unreadable):
            self.result.sources.append(SourceEvent(path, line, rel, shape, exists, False, script.reason))
            return None if exists is not False else False
        self.result.sources.append(SourceEvent(path, line, rel, shape, exists, True))
        saved_pos = self.positional
        if len(args) > 1:
            self.positional = list(args[1:])
        self.source_stack.append(rel)
        try:
            self._block(script.root, rel)
        except (_Return, _LoopBreak):
            pass
        finally:
            self.source_stack.pop()
            self.positional = saved_pos
        return True

    def _eval_text(self, text: str, path: str, line: int, label: str) -> None:
        script = parse(label, text.encode("utf-8", "surrogateescape"))
        if isinstance(script, Unreadable):
            return
        self.depth += 1
        try:
            self._block(script.root, path)
        finally:
            self.depth -= 1

    # -- words -----------------------------------------------------------------------------------
    def _string(self, node: Node | None, path: str) -> str | Unknown:
        """A word's value without field splitting (assignments, test operands, case values)."""
        if node is None:
            return ""
        segs = self._segs(node, path, quoted=True)
        out = []
        for s in segs:
            if s.text is None:
                return Unknown(s.why or "unknown")
            out.append(s.text)
        return " ".join(out) if any(s.brk for s in segs) else "".join(out)

    def _pattern(self, node: Node, path: str) -> str | Unknown:
        """A glob pattern: quoted parts match literally."""
        segs = self._segs(node, path, quoted=False)
        out = []
        for s in segs:
            if s.text is None:
                return Unknown(s.why or "unknown")
            out.append(re.sub(r"([*?\[\\])", r"\\\1", s.text) if s.quoted else s.text)
        return "".join(out)

    def _words(self, node: Node, path: str) -> list[Arg]:
        """The fields a word expands to (word splitting applied to unquoted expansions)."""
        return self._fields(self._segs(node, path, quoted=False), path, line_of(node))

    def _arg_words(self, nodes: list[Node], path: str) -> list[Arg]:
        """Arguments of a command. The grammar sometimes splits one word in two (`--m=$A:$B,$C` parses
        as `…:$` + `B,$C`): nodes with no gap between them are one word again."""
        out: list[Arg] = []
        i = 0
        while i < len(nodes):
            group = [nodes[i]]
            while i + 1 < len(nodes) and nodes[i + 1].start_byte == nodes[i].end_byte:
                i += 1
                group.append(nodes[i])
            i += 1
            if len(group) == 1:
                out.extend(self._words(group[0], path))
                continue
            segs: list[_Seg] = []
            for n in group:
                more = self._segs(n, path, quoted=False)
                if segs and segs[-1].text is not None and segs[-1].text.endswith("$") and not segs[-1].path \
                        and more and more[0].text is not None and not more[0].path:
                    m = re.match(r"[A-Za-z_]\w*", more[0].text)
                    if m:
                        segs[-1] = replace(segs[-1], text=segs[-1].text[:-1], shape=segs[-1].text[:-1])
                        value, var = self._lookup(m.group(0), path, line_of(n))
                        segs.extend(self._value_segs(value, var, False, "$" + m.group(0), path, line_of(n), m.group(0)))
                        rest = more[0].text[m.end():]
                        more = ([replace(more[0], text=rest, shape=rest)] if rest else []) + more[1:]
                segs.extend(more)
            out.extend(self._fields(segs, path, line_of(group[0])))
        return out

    def _fields(self, segs: list[_Seg], path: str, line: int) -> list[Arg]:
        fields: list[list[_Seg]] = [[]]
        for s in segs:
            if s.brk and fields[-1]:
                fields.append([])
            if s.text is None or s.quoted or not s.path:
                fields[-1].append(s)
                continue
            # An unquoted expansion's value splits at blanks.
            parts = _IFS.split(s.text)
            for i, p in enumerate(parts):
                if i > 0 and fields[-1]:
                    fields.append([])
                if p:
                    fields[-1].append(replace(s, text=p, shape=p))
        out = []
        for f in fields:
            if not f:
                continue
            if all(s.text == "" and not s.quoted for s in f):
                continue
            known = all(s.text is not None for s in f)
            origins = {(s.path, s.line) for s in f if s.path}
            p, ln = (next(iter(origins)) if len(origins) == 1 and all(s.path for s in f) else (path, line))
            if known:
                text = "".join(s.text for s in f)  # type: ignore[misc]
                out.append(Arg(text, p, ln, text))
            else:
                why = next((s.why for s in f if s.text is None), None)
                out.append(Arg(None, p, ln, "".join(s.text if s.text is not None else s.shape for s in f), why))
        return out

    def _segs(self, node: Node, path: str, quoted: bool) -> list[_Seg]:
        self._tick()
        t = node.type
        if t in ("word", "number", "extglob_pattern", "regex", "special_variable_name", "variable_name",
                 "test_operator"):
            raw = text_of(node)
            if t == "word" and ("\\" in raw):
                raw = re.sub(r"\\(.)", r"\1", raw.replace("\\\n", ""))
            return [_Seg(raw, quoted, shape=raw)]
        if t == "raw_string":
            return [_Seg(text_of(node)[1:-1], True, shape=text_of(node))]
        if t == "ansi_c_string":
            body = text_of(node)[2:-1]
            body = re.sub(r"\\([nt'\"\\])", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)
            return [_Seg(body, True, shape=text_of(node))]
        if t in ("string", "translated_string"):
            return self._gapped(node, path, True, strip=1 if t == "string" else 2)
        if t == "concatenation":
            return self._gapped(node, path, quoted, strip=0)
        if t == "string_content":
            raw = re.sub(r'\\([$`"\\\n])', r"\1", text_of(node))
            return [_Seg(raw, True, shape=raw)]
        if t == "simple_expansion":
            return self._simple(node, path, quoted)
        if t == "expansion":
            return self._expansion(node, path, quoted)
        if t == "command_substitution":
            v = self._substitution(node, path)
            return [_Seg(v if isinstance(v, str) else None, quoted, why=v.why if isinstance(v, Unknown) else None,
                         shape=text_of(node), path=path, line=line_of(node))]
        if t == "arithmetic_expansion":
            expr = node.named_children[0] if node.named_children else None
            v = self._arith(expr, path) if expr is not None else Unknown("empty arithmetic")
            if isinstance(v, Unknown):
                return [_Seg(None, quoted, why=v.why, shape=text_of(node))]
            return [_Seg(str(v), quoted, shape=str(v), path=path, line=line_of(node))]
        if t == "process_substitution":
            return [_Seg(None, quoted, why="process substitution", shape=text_of(node))]
        if t == "brace_expression":
            return [_Seg(None, quoted, why="brace expansion", shape=text_of(node))]
        if t == "array":
            return [_Seg(None, quoted, why="array literal", shape=text_of(node))]
        # Anything else (binary expressions inside tests, etc.): its literal text.
        raw = text_of(node)
        return [_Seg(None, quoted, why=f"`{raw[:40]}` is not a value the interpreter reads", shape=raw)]

    def _gapped(self, node: Node, path: str, quoted: bool, strip: int) -> list[_Seg]:
        """Children of a string or concatenation, with the text between them kept as literal."""
        out: list[_Seg] = []
        src = node.text or b""
        base = node.start_byte
        pos = strip
        end = len(src) - (1 if strip else 0)
        for c in node.children:
            if not c.is_named:
                continue
            start = c.start_byte - base
            if start > pos:
                gap = src[pos:start].decode("utf-8", "replace")
                if quoted and strip:
                    gap = re.sub(r'\\([$`"\\\n])', r"\1", gap)
                elif not quoted:
                    gap = re.sub(r"\\(.)", r"\1", gap)
                out.append(_Seg(gap, quoted, shape=gap))
            out.extend(self._segs(c, path, quoted))
            pos = c.end_byte - base
        if end > pos:
            gap = src[pos:end].decode("utf-8", "replace")
            if quoted and strip:
                gap = re.sub(r'\\([$`"\\\n])', r"\1", gap)
            out.append(_Seg(gap, quoted, shape=gap))
        return out

    def _special(self, name: str, path: str, line: int) -> str | Unknown | tuple[Arg, ...]:
        if name == "0":
            return self.arg0 or path
        if name.isdigit():
            i = int(name) - 1
            return self.positional[i].text if i < len(self.positional) and self.positional[i].known else (
                Unknown(f"argument ${name}") if i < len(self.positional) else "")
        if name in ("@", "*"):
            return tuple(self.positional)
        if name == "#":
            return str(len(self.positional))
        return Unknown(f"`${name}` at run time")

    def _lookup(self, name: str, path: str, line: int, index: str | None = None):
        """(value, var): the value is str, Unknown, or a tuple of Args for `[@]`; var is None when unset."""
        if name == "BASH_SOURCE" or name == "FUNCNAME":
            src = self.source_stack[-1] if self.source_stack else path
            if name == "BASH_SOURCE":
                return (src, Var(src)) if index not in ("@", "*") else ((Arg(src, path, line, src),), Var(src))
            fn = self.fn_stack[-1] if self.fn_stack else "main"
            return fn, Var(fn)
        if name.isdigit() or name in ("@", "*", "#", "?", "$", "!", "-", "_"):
            v = self._special(name, path, line)
            return v, Var("")
        var = self._read(name)
        if var is None:
            return "", None
        if index is None:
            return var.scalar(), var
        if var.items is None:
            if index in ("@", "*"):
                sv = var.scalar()
                return ((_arg(sv, var.path, var.line, None),) if sv != "" else ()), var
            if index == "0":
                return var.scalar(), var
            return "", var
        if index in ("@", "*"):
            return var.items, var
        if index.isdigit():
            i = int(index)
            if i < len(var.items):
                a = var.items[i]
                return (a.text if a.known else Unknown(a.why or "unknown element")), var
            return "", var
        return Unknown(f"`{name}[{index}]`"), var

    def _simple(self, node: Node, path: str, quoted: bool) -> list[_Seg]:
        inner = node.named_children[0] if node.named_children else None
        if inner is None:
            return [_Seg("$", quoted, shape="$")]
        name = text_of(inner)
        value, var = self._lookup(name, path, line_of(node))
        return self._value_segs(value, var, quoted, text_of(node), path, line_of(node), name)

    def _value_segs(self, value, var, quoted, shape, path, line, name) -> list[_Seg]:
        vp, vl = (var.path, var.line) if var is not None and var.path else (path, line)
        if isinstance(value, tuple):
            segs = []
            for i, a in enumerate(value):
                segs.append(_Seg(a.text, quoted, why=a.why, shape=a.shape, path=a.path or vp, line=a.line or vl,
                                 brk=i > 0))
            if not segs and quoted:
                return [_Seg("", False, path=vp, line=vl)]
            return segs
        if isinstance(value, Unknown):
            return [_Seg(None, quoted, why=value.why, shape=shape, path=vp, line=vl)]
        if var is None and name not in ("0",) and not name.isdigit():
            return [_Seg(value, quoted, shape=value, path=path, line=line)]
        return [_Seg(value, quoted, shape=value, path=vp, line=vl)]

    def _expansion(self, node: Node, path: str, quoted: bool) -> list[_Seg]:
        line = line_of(node)
        shape = text_of(node)
        kids = [c for c in node.children if c.type not in ("${", "}")]
        # ${#X}, ${!X}
        prefix_op = None
        if kids and not kids[0].is_named and kids[0].type in ("#", "!"):
            prefix_op = kids[0].type
            kids = kids[1:]
        if not kids:
            return [_Seg(None, quoted, why="empty expansion", shape=shape)]
        target = kids[0]
        index = None
        if target.type == "subscript":
            n = target.child_by_field_name("name")
            idx = target.child_by_field_name("index")
            name = text_of(n) if n is not None else ""
            if idx is not None:
                iv = self._string(idx, path) if idx.type not in ("word", "number") else text_of(idx)
                index = iv if isinstance(iv, str) else None
                if index is None:
                    return [_Seg(None, quoted, why=f"index of `{name}` unknown", shape=shape)]
        elif target.type in ("variable_name", "special_variable_name"):
            name = text_of(target)
        else:
            return [_Seg(None, quoted, why=f"`{shape}`", shape=shape)]
        if prefix_op == "!":
            return [_Seg(None, quoted, why=f"indirect expansion `{shape}`", shape=shape)]
        value, var = self._lookup(name, path, line, index)
        if prefix_op == "#":
            if isinstance(value, tuple):
                if any(not a.known for a in value):
                    return [_Seg(None, quoted, why=f"length of `{name}` unknown", shape=shape)]
                return [_Seg(str(len(value)), quoted, shape=shape)]
            if isinstance(value, Unknown):
                return [_Seg(None, quoted, why=value.why, shape=shape)]
            return [_Seg(str(len(value)), quoted, shape=shape)]
        rest = kids[1:]
        if not rest:
            return self._value_segs(value, var, quoted, shape, path, line, name)
        op = rest[0].type if not rest[0].is_named else text_of(rest[0])
        operands = rest[1:]
        unset = var is None and not (name.isdigit() or name in ("@", "*", "0", "BASH_SOURCE"))
        if name.isdigit():
            unset = int(name) > len(self.positional)
        empty = unset or value == "" or value == ()
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            use_default = (empty if op.startswith(":") else unset)
            if op in (":+", "+"):
                if isinstance(value, Unknown) and op == ":+":
                    return [_Seg(None, quoted, why=value.why, shape=shape)]
                if use_default:
                    return [_Seg("", quoted, shape="")]
                return self._operand_segs(operands, path, quoted)
            if isinstance(value, Unknown) and op.startswith(":"):
                return [_Seg(None, quoted, why=value.why, shape=shape, path=var.path if var else "",
                             line=var.line if var else 0)]
            if use_default:
                if op in (":?", "?"):
                    return [_Seg(None, quoted, why=f"`{name}` unset: `{shape}` stops the script", shape=shape)]
                segs = self._operand_segs(operands, path, quoted)
                if op in (":=", "="):
                    joined_v = self._join(segs)
                    self._set(name, Var(joined_v, path=path, line=line))
                return segs
            return self._value_segs(value, var, quoted, shape, path, line, name)
        if isinstance(value, tuple):
            value = " ".join(a.text or "" for a in value) if all(a.known for a in value) else Unknown("array element")
        if isinstance(value, Unknown):
            return [_Seg(None, quoted, why=value.why, shape=shape)]
        vp, vl = (var.path, var.line) if var is not None and var.path else (path, line)
        if op in ("#", "##", "%", "%%"):
            pat = self._pattern_of(operands, path)
            if isinstance(pat, Unknown):
                return [_Seg(None, quoted, why=pat.why, shape=shape)]
            return [_Seg(_strip(value, pat, op), quoted, shape=shape, path=vp, line=vl)]
        if op in ("/", "//", "/#", "/%"):
            pat_nodes, repl_nodes, seen_sep = [], [], False
            for o in operands:
                if not o.is_named and o.type == "/":
                    seen_sep = True
                    continue
                (repl_nodes if seen_sep else pat_nodes).append(o)
            pat = self._pattern_of(pat_nodes, path)
            repl = self._join(self._operand_segs(repl_nodes, path, True)) if repl_nodes else ""
            if isinstance(pat, Unknown) or isinstance(repl, Unknown):
                return [_Seg(None, quoted, why="substitution operand unknown", shape=shape)]
            return [_Seg(_substitute(value, pat, repl, op), quoted, shape=shape, path=vp, line=vl)]
        if op in (",,", ","):
            return [_Seg(value.lower() if op == ",," else value[:1].lower() + value[1:], quoted, shape=shape,
                         path=vp, line=vl)]
        if op in ("^^", "^"):
            return [_Seg(value.upper() if op == "^^" else value[:1].upper() + value[1:], quoted, shape=shape,
                         path=vp, line=vl)]
        if op == ":":
            nums = [o for o in operands if o.is_named]
            try:
                off = int(self._join(self._segs(nums[0], path, True))) if nums else 0
                ln = int(self._join(self._segs(nums[1], path, True))) if len(nums) > 1 else None
            except (ValueError, TypeError):
                return [_Seg(None, quoted, why="substring bounds unknown", shape=shape)]
            s = value[off:] if ln is None else value[off:off + ln] if ln >= 0 else value[off:ln]
            return [_Seg(s, quoted, shape=shape, path=vp, line=vl)]
        return [_Seg(None, quoted, why=f"expansion operator `{op}`", shape=shape)]

    def _operand_segs(self, operands: list[Node], path: str, quoted: bool) -> list[_Seg]:
        segs: list[_Seg] = []
        for o in operands:
            if o.is_named:
                segs.extend(self._segs(o, path, quoted))
            elif o.type not in ("}",):
                segs.append(_Seg(o.type, quoted, shape=o.type))
        return segs

    def _pattern_of(self, operands: list[Node], path: str) -> str | Unknown:
        out = []
        for o in operands:
            if not o.is_named:
                continue
            v = self._pattern(o, path)
            if isinstance(v, Unknown):
                return v
            out.append(v)
        return "".join(out)

    @staticmethod
    def _join(segs: list[_Seg]) -> str | Unknown:
        out = []
        for s in segs:
            if s.text is None:
                return Unknown(s.why or "unknown")
            out.append(s.text)
        return "".join(out)

    # -- $(…) ------------------------------------------------------------------------------------
    def _substitution(self, node: Node, path: str) -> str | Unknown:
        if self.depth >= MAX_DEPTH:
            return Unknown("command substitutions nest too deep")
        self.capture.append([])
        saved_vars, saved_cwd, saved_unknown = dict(self.vars), self.cwd, self._cwd_unknown
        self.depth += 1
        try:
            for c in node.named_children:
                self._stmt(c, path)
        except (_Exit, _Return, _LoopBreak):
            pass
        finally:
            self.depth -= 1
            out = self.capture.pop()
            # a subshell: its assignments do not leak
            self.vars, self.cwd, self._cwd_unknown = saved_vars, saved_cwd, saved_unknown
        parts = []
        for o in out:
            if isinstance(o, Unknown):
                return o
            parts.append(o)
        return "".join(parts).rstrip("\n")

    def _emit(self, text: str | Unknown) -> None:
        if self.capture:
            self.capture[-1].append(text)

    # -- tests -----------------------------------------------------------------------------------
    def _test(self, node: Node) -> bool | None:
        exprs = [c for c in node.named_children]
        if not exprs:
            return False
        double = node.children[0].type == "[["
        return self._cond(exprs[0], "", double)

    def _cond(self, e: Node, path: str, double: bool) -> bool | None:
        self._tick()
        t = e.type
        if t == "parenthesized_expression":
            inner = e.named_children[0] if e.named_children else None
            return self._cond(inner, path, double) if inner is not None else None
        if t == "unary_expression":
            op_node = e.child_by_field_name("operator") or e.children[0]
            op = text_of(op_node)
            operand = next((c for c in e.named_children if c is not op_node and c.id != op_node.id), None)
            if op == "!":
                v = self._cond(operand, path, double) if operand is not None else None
                return None if v is None else not v
            if operand is None:
                return None
            val = self._string(operand, path)
            if isinstance(val, Unknown):
                return None
            if op == "-n":
                return val != ""
            if op == "-z":
                return val == ""
            if op in ("-f", "-e", "-d", "-s", "-r", "-x", "-L", "-h"):
                rel = None if self._cwd_unknown and not val.startswith("/") else normalize(self.cwd, val)
                if rel is None:
                    return None
                if op == "-d":
                    return self._ask("is_dir", rel)
                ex = self._ask("exists", rel)
                if op == "-f" and ex:
                    d = self._ask("is_dir", rel)
                    return None if d is None else not d
                return ex
            if op == "-v":
                return self._read(val) is not None
            return None
        if t == "binary_expression":
            op_node = e.child_by_field_name("operator")
            op = text_of(op_node) if op_node is not None else ""
            left = e.child_by_field_name("left")
            right = e.child_by_field_name("right")
            if op in ("&&", "-a", "||", "-o"):
                lv = self._cond(left, path, double) if left is not None else None
                if op in ("&&", "-a"):
                    if lv is False:
                        return False
                    rv = self._cond(right, path, double) if right is not None else None
                    return rv if lv is True else (False if rv is False else None)
                if lv is True:
                    return True
                rv = self._cond(right, path, double) if right is not None else None
                return rv if lv is False else (True if rv is True else None)
            if left is None or right is None:
                return None
            if left.type in ("binary_expression", "unary_expression") or right.type in ("binary_expression",
                                                                                          "unary_expression"):
                return None
            lv = self._string(left, path)
            if op in ("==", "=", "!=") and double:
                rv = self._pattern(right, path)
            else:
                rv = self._string(right, path)
            if isinstance(lv, Unknown) or isinstance(rv, Unknown):
                return None
            if op in ("==", "="):
                return glob_match(rv, lv) if double else lv == rv
            if op == "!=":
                return not glob_match(rv, lv) if double else lv != rv
            if op in ("-eq", "-ne", "-gt", "-ge", "-lt", "-le"):
                li, ri = _int(lv), _int(rv)
                if li is None or ri is None:
                    return None
                return {"-eq": li == ri, "-ne": li != ri, "-gt": li > ri, "-ge": li >= ri, "-lt": li < ri,
                        "-le": li <= ri}[op]
            if op == "=~":
                try:
                    return re.search(rv, lv) is not None
                except re.error:
                    return None
            if op in ("<", ">"):
                return lv < rv if op == "<" else lv > rv
            return None
        # A bare word: true when non-empty.
        val = self._string(e, path)
        if isinstance(val, Unknown):
            return None
        return val != ""

    # -- arithmetic --------------------------------------------------------------------------------
    def _arith(self, e: Node, path: str) -> int | Unknown:
        self._tick()
        t = e.type
        if t == "number":
            try:
                return int(text_of(e), 0)
            except ValueError:
                return Unknown(f"number `{text_of(e)}`")
        if t == "variable_name":
            name = text_of(e)
            var = self._read(name)
            if var is None:
                return 0
            return self._int_value(var.scalar(), name)
        if t in ("simple_expansion", "expansion", "string", "word", "concatenation", "command_substitution"):
            v = self._string(e, path)
            if isinstance(v, Unknown):
                return v
            iv = _int(v)
            if iv is None:
                var = self._read(v.strip()) if re.fullmatch(r"\s*[A-Za-z_]\w*\s*", v) else None
                if var is not None:
                    return self._int_value(var.scalar(), v.strip())
                return Unknown(f"`{v}` is not an integer")
            return iv
        if t == "parenthesized_expression":
            inner = e.named_children[0] if e.named_children else None
            return self._arith(inner, path) if inner is not None else Unknown("empty parentheses")
        if t == "unary_expression":
            op = text_of(e.children[0])
            operand = e.named_children[-1] if e.named_children else None
            v = self._arith(operand, path) if operand is not None else Unknown("no operand")
            if isinstance(v, Unknown):
                return v
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}.get(op, Unknown(f"operator `{op}`"))
        if t == "binary_expression":
            op_node = e.child_by_field_name("operator")
            op = text_of(op_node) if op_node is not None else ""
            left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
            if left is None or right is None:
                return Unknown("incomplete arithmetic")
            lv = self._arith(left, path)
            if op in ("&&", "||") and not isinstance(lv, Unknown):
                if op == "&&" and not lv:
                    return 0
                if op == "||" and lv:
                    return 1
            rv = self._arith(right, path)
            if isinstance(lv, Unknown):
                return lv
            if isinstance(rv, Unknown):
                return rv
            try:
                return _ARITH[op](lv, rv)
            except KeyError:
                return Unknown(f"arithmetic operator `{op}`")
            except (ZeroDivisionError, ValueError, OverflowError):
                return Unknown(f"`{lv} {op} {rv}` does not evaluate")
        if t == "ternary_expression":
            kids = e.named_children
            if len(kids) == 3:
                c = self._arith(kids[0], path)
                if isinstance(c, Unknown):
                    return c
                return self._arith(kids[1] if c else kids[2], path)
        return Unknown(f"arithmetic `{text_of(e)[:40]}`")

    def _int_value(self, v, name: str) -> int | Unknown:
        if isinstance(v, Unknown):
            return v
        iv = _int(v)
        if iv is None:
            return 0 if v == "" else Unknown(f"`{name}`=`{v}` is not an integer")
        return iv


def _pow(a: int, b: int) -> int:
    if b < 0 or b > 64:
        raise ValueError("exponent out of range")
    return a ** b


def _div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _mod(a: int, b: int) -> int:
    return a - b * _div(a, b)


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _div, "%": _mod,
    "**": _pow, "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b), "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "&&": lambda a, b: int(bool(a and b)), "||": lambda a, b: int(bool(a or b)), "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b if 0 <= b < 64 else _raise(), ">>": lambda a, b: a >> b if 0 <= b < 64 else _raise(),
}


def _raise() -> int:
    raise ValueError("shift out of range")


def _int(v: str) -> int | None:
    v = v.strip()
    if re.fullmatch(r"[+-]?\d+", v):
        return int(v)
    return None


def _short(node: Node) -> str:
    t = re.sub(r"\s+", " ", re.sub(r"\\\r?\n", " ", text_of(node))).strip()
    return t if len(t) <= 80 else t[:77] + "..."


def _shape_words(words: list[Arg]) -> str:
    s = " ".join(w.shape for w in words)
    return s if len(s) <= 80 else s[:77] + "..."


def _concat(a, b):
    if isinstance(a, Unknown):
        return a
    if isinstance(b, Unknown):
        return b
    return a + b


def _arg(value, path: str, line: int, node: Node | None) -> Arg:
    if isinstance(value, Unknown):
        return Arg(None, path, line, text_of(node) if node is not None else "?", value.why)
    return Arg(value, path, line, value)


def _merge(a: dict[str, Var], b: dict[str, Var], guard: str) -> dict[str, Var]:
    out = dict(a)
    for k in set(a) | set(b):
        va, vb = a.get(k), b.get(k)
        if va == vb:
            continue
        if va is not None and vb is not None and va.value == vb.value and va.items == vb.items:
            out[k] = va if va.line >= vb.line else vb
            continue
        ref = vb if vb is not None else va
        out[k] = Var(Unknown(f"`{k}` depends on {guard}"), path=ref.path, line=ref.line,
                     exported=bool((va and va.exported) or (vb and vb.exported)))
    return out


# -- builtins (never run; each only updates the interpreter's state) --------------------------


def _b_true(it, rest, path, line, words, env_prefix, end):
    return True


def _b_false(it, rest, path, line, words, env_prefix, end):
    return False


def _b_exit(it, rest, path, line, words, env_prefix, end):
    raise _Exit()


def _b_return(it, rest, path, line, words, env_prefix, end):
    if it.fn_stack or len(it.source_stack) > 1:
        code = rest[0].text if rest and rest[0].known else "0"
        raise _Return(code == "0")
    raise _Exit()


def _b_break(it, rest, path, line, words, env_prefix, end):
    raise _LoopBreak()


def _b_shift(it, rest, path, line, words, env_prefix, end):
    n = int(rest[0].text) if rest and rest[0].known and (rest[0].text or "").isdigit() else 1
    it.positional = it.positional[n:]
    return True


def _b_set(it, rest, path, line, words, env_prefix, end):
    for a in rest:
        if (
            a.known
            and re.fullmatch(r"-[a-zA-Z]*a[a-zA-Z]*", a.text or "")
            or (a.text == "allexport" and it.nounset is not None)
        ):
            it.allexport = True
        if a.known and re.fullmatch(r"\+[a-zA-Z]*a[a-zA-Z]*", a.text or ""):
            it.allexport = False
        if a.text in ("-u", "-eu", "-ue") or (a.known and re.fullmatch(r"-[a-zA-Z]*u[a-zA-Z]*", a.text or "")):
            it.nounset = True
        if a.known and re.fullmatch(r"\+[a-zA-Z]*u[a-zA-Z]*", a.text or ""):
            it.nounset = False
    if rest and rest[0].text == "--":
        it.positional = list(rest[1:])
    return True


def _b_echo(it, rest, path, line, words, env_prefix, end):
    args = list(rest)
    newline = True
    while args and args[0].known and re.fullmatch(r"-[neE]+", args[0].text or ""):
        if "n" in (args[0].text or ""):
            newline = False
        args = args[1:]
    if any(not a.known for a in args):
        it._emit(Unknown(next(a.why for a in args if not a.known) or "unknown"))
    else:
        it._emit(" ".join(a.text for a in args) + ("\n" if newline else ""))  # type: ignore[misc]
    return True


def _b_printf(it, rest, path, line, words, env_prefix, end):
    if not it.capture and not (rest and rest[0].text == "-v"):
        return True
    args = list(rest)
    target = None
    if args and args[0].text == "-v" and len(args) > 1:
        target = args[1].text
        args = args[2:]
    if not args or any(not a.known for a in args):
        out: str | Unknown = Unknown("printf of unknown values")
    else:
        out = _printf(args[0].text or "", [a.text or "" for a in args[1:]])
    if target:
        it._set(target, Var(out, path=path, line=line))
    else:
        it._emit(out)
    return True


def _printf(fmt: str, args: list[str]) -> str | Unknown:
    """bash's printf for %s/%d/%q: the format is reused while arguments remain
    (`printf "%s, " 1 2 4` prints `1, 2, 4, `)."""
    out = []
    ai = 0
    fmt = fmt.replace("\\n", "\n").replace("\\t", "\t")
    while True:
        i, used = 0, 0
        while i < len(fmt):
            c = fmt[i]
            if c == "%" and i + 1 < len(fmt):
                m = re.match(r"%([-0-9.]*)([sdq%])", fmt[i:])
                if not m:
                    return Unknown(f"printf format `{fmt}`")
                kind = m.group(2)
                if kind == "%":
                    out.append("%")
                else:
                    a = args[ai] if ai < len(args) else ""
                    ai += 1
                    used += 1
                    out.append(a)
                i += m.end()
                continue
            out.append(c)
            i += 1
        if not used or ai >= len(args):
            return "".join(out)


def _b_basename(it, rest, path, line, words, env_prefix, end):
    args = [a for a in rest if a.text not in ("-a", "--")]
    if not it.capture:
        return True
    if not args or not args[0].known:
        it._emit(Unknown("basename of an unknown path"))
        return None
    b = posixpath.basename((args[0].text or "").rstrip("/"))
    if len(args) > 1 and args[1].known and b.endswith(args[1].text or "\0") and b != args[1].text:
        b = b[: -len(args[1].text or "")]
    it._emit(b + "\n")
    return True


def _b_dirname(it, rest, path, line, words, env_prefix, end):
    if not it.capture:
        return True
    if not rest or not rest[0].known:
        it._emit(Unknown("dirname of an unknown path"))
        return None
    d = posixpath.dirname((rest[0].text or "").rstrip("/")) or "."
    it._emit(d + "\n")
    return True


def _b_cd(it, rest, path, line, words, env_prefix, end):
    if not rest or not rest[0].known:
        it._cwd_unknown = True  # later `pwd` and relative paths are unknown
        return None
    rel = normalize(it.cwd, rest[0].text or "")
    if rel is None:
        it._cwd_unknown = True
        return None
    it.cwd = rel
    return True


def _b_pwd(it, rest, path, line, words, env_prefix, end):
    if it._cwd_unknown:
        it._emit(Unknown("working directory unknown"))
    else:
        it._emit(f"{it.cwd or '.'}\n")
    return True


def _b_read(it, rest, path, line, words, env_prefix, end):
    for a in rest:
        if a.known and re.fullmatch(r"[A-Za-z_]\w*", a.text or ""):
            it._set(a.text or "", Var(Unknown(f"read at line {line}"), path=path, line=line))
    return None


def _b_eval(it, rest, path, line, words, env_prefix, end):
    if not rest:
        return True
    if any(not a.known for a in rest) or it.depth >= MAX_DEPTH:
        it._launch(words, env_prefix, path, line, end)
        return None
    it._eval_text(" ".join(a.text or "" for a in rest), path, line, f"eval at {path}:{line}")
    return None


def _b_exec(it, rest, path, line, words, env_prefix, end):
    if not rest:
        return True
    if rest[0].known and rest[0].text in it.functions:
        return it._call(rest[0].text or "", list(rest[1:]), env_prefix, path, line)
    it._launch(list(rest), env_prefix, path, line, end)
    raise _Exit()


def _b_mapfile(it, rest, path, line, words, env_prefix, end):
    names = [a.text for a in rest if a.known and re.fullmatch(r"[A-Za-z_]\w*", a.text or "")]
    if names:
        it._set(names[-1] or "MAPFILE", Var(Unknown(f"mapfile at line {line}"), path=path, line=line))
    return None


_BUILTINS: dict[str, Callable] = {
    "true": _b_true, ":": _b_true, "false": _b_false, "exit": _b_exit, "return": _b_return, "break": _b_break,
    "continue": _b_break, "shift": _b_shift, "set": _b_set, "echo": _b_echo, "printf": _b_printf,
    "basename": _b_basename, "dirname": _b_dirname, "cd": _b_cd, "pushd": _b_cd, "pwd": _b_pwd, "read": _b_read,
    "eval": _b_eval, "exec": _b_exec, "mapfile": _b_mapfile, "readarray": _b_mapfile, "shopt": _b_true,
    "trap": _b_true, "wait": _b_true, "sleep": _b_true, "popd": _b_true,
}


def _b_test_cmd(it, rest, path, line, words, env_prefix, end):
    """`test …` / `[ … ]` written as a command (the grammar gives `[` its own node; `test` is a word)."""
    return None


_BUILTINS["test"] = _b_test_cmd
