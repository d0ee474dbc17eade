"""Benchmark scripts and launchers as data: a bash parse tree (tree-sitter) and what it holds.

`parse(path, raw)` turns a script's bytes into a `Script`: the tree-sitter-bash parse tree (an
error-tolerant parser; regions it cannot parse become ERROR nodes, listed in `errors`) plus the
facts rules ask for, each with its 1-based head line:

- `commands`: every simple command (name, argument nodes, prefix assignments such as
  `FOO=1 cmd`), in source order, with the conditions that enclose it (`if`/`elif`/`else`,
  `case` items, `while`/`until`, and the left side of `&&`/`||`) and the function it sits in;
- `assignments`: plain, `export`, `local`, `declare`/`typeset`/`readonly` and array assignments
  (`X=(…)`, `X+=(…)`);
- `functions`: `name() { … }` definitions;
- `references`: every `$X` / `${X…}` read, with its expansion operator (`:-`, `%%`, …), so
  a rule can tell a bare read from one with a default;
- `set_options`: `set -u` / `set -euo pipefail` / `set +u` and friends at the top level.

Nothing is executed: this module only reads the tree. `rules.scripts.interpret` evaluates a
safe subset of it. Parsing is bounded by `MAX_SCRIPT_BYTES`; binary and non-UTF-8 files are
not parsed (`Unreadable` says why).
"""
from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import tree_sitter
import tree_sitter_bash

from rules.cache import LRU
from rules.changeset import FileChange

# Real benchmark scripts and launchers are a few hundred lines (benchmark_lib.sh ~80 KB); a
# larger "script" is not parsed (bounded time).
MAX_SCRIPT_BYTES = 2 * 1024 * 1024

_LANGUAGE = tree_sitter.Language(tree_sitter_bash.language())
_PARSER = threading.local()

Node = tree_sitter.Node

# Statements that hold other statements (walked for commands).
_CONTAINERS = {"program", "compound_statement", "subshell", "redirected_statement", "pipeline", "list",
               "negated_command", "do_group", "if_statement", "elif_clause", "else_clause", "case_statement",
               "case_item", "while_statement", "for_statement", "c_style_for_statement", "function_definition"}
_DECLARATIONS = {"export", "local", "declare", "typeset", "readonly"}
# Loop statements (`until` parses as a while_statement).
LOOPS = ("while_statement", "for_statement", "c_style_for_statement")


def _parser() -> tree_sitter.Parser:
    """This thread's parser: a tree-sitter parser holds parse state, so threads do not share one."""
    parser = getattr(_PARSER, "parser", None)
    if parser is None:
        parser = _PARSER.parser = tree_sitter.Parser(_LANGUAGE)
    return parser


def line_of(node: Node) -> int:
    return node.start_point[0] + 1


def end_line_of(node: Node) -> int:
    end = node.end_point
    # A node ending at column 0 ends on the previous line (trailing newline of a heredoc body).
    return end[0] + (1 if end[1] else 0) if end[0] > node.start_point[0] else end[0] + 1


def text_of(node: Node) -> str:
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def joined(node: Node) -> str:
    """The node's text on one line: `\\` continuations joined, runs of blanks collapsed."""
    return re.sub(r"[ \t]+", " ", re.sub(r"\\\r?\n", " ", text_of(node))).strip()


@dataclass(frozen=True)
class Condition:
    """A condition that encloses a command: its text and whether the command runs when it fails."""

    text: str
    node: Node
    line: int
    negated: bool = False  # else branch, the right side of `||`, a later `case` item

    def __str__(self) -> str:
        return f"not ({self.text})" if self.negated else self.text


@dataclass(frozen=True)
class Command:
    """One simple command as written."""

    node: Node  # the `command` node
    name: str | None  # the command name when it is a literal word (`vllm`, `source`), else None
    name_node: Node | None
    args: tuple[Node, ...]  # argument nodes after the name
    prefix: tuple[Node, ...]  # `variable_assignment` nodes before the name (`FOO=1 cmd`)
    line: int
    end_line: int
    conditions: tuple[Condition, ...]
    function: str | None  # enclosing function, if any

    @cached_property
    def text(self) -> str:
        return joined(self.node)

    def literal_args(self) -> list[str | None]:
        """Each argument's value when it is a literal (quotes removed), else None."""
        return [literal(a) for a in self.args]


@dataclass(frozen=True)
class Assignment:
    """`NAME=value`, `NAME+=value`, `NAME=(…)`, or a declaration (`export`, `local`, …)."""

    name: str
    node: Node  # the variable_assignment node (or the bare variable_name of `export NAME`)
    value: Node | None  # the value node (None for `export NAME` / `local NAME`)
    line: int
    declaration: str | None  # "export" | "local" | "declare" | "typeset" | "readonly" | None
    append: bool
    array: bool
    conditions: tuple[Condition, ...]
    function: str | None

    @property
    def end_line(self) -> int:
        return end_line_of(self.node)

    @cached_property
    def text(self) -> str:
        return joined(self.node)


@dataclass(frozen=True)
class Reference:
    """A read of a variable: `$X`, `${X}`, `${X:-d}`, `${X%%_*}`, `${#X}`, `${X[@]}`."""

    name: str
    node: Node
    line: int
    operator: str | None  # the first expansion operator (":-", "-", ":=", "%%", "#", …), None when bare
    function: str | None

    @property
    def has_default(self) -> bool:
        """True when the read tolerates an unset variable (`:-`, `-`, `:=`, `=`, `:+`, `+`, `:?`, `?`)."""
        return self.operator in (":-", "-", ":=", "=", ":+", "+", ":?", "?")


@dataclass(frozen=True)
class SetOption:
    """A top-level `set` command: the single-letter options it turns on and off."""

    line: int
    on: frozenset[str]
    off: frozenset[str]


@dataclass(frozen=True)
class Function:
    name: str
    node: Node  # function_definition
    body: Node
    line: int


@dataclass(frozen=True)
class ParseError:
    line: int
    message: str


@dataclass(frozen=True)
class Unreadable:
    """Why a script was not parsed."""

    path: str
    reason: str


# `(( … ))` with up to two levels of parentheses inside, and the bare names in it (not `$X`, not `0x1f`).
_ARITH = re.compile(r"\(\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\)")
_NAME = re.compile(r"(?<![$\w])([A-Za-z_]\w*)")
_SET_LONG = {"nounset": "u", "errexit": "e", "xtrace": "x", "pipefail": "p", "noglob": "f"}


@dataclass(eq=False)
class Script:
    """One parsed script."""

    path: str
    text: str
    tree: tree_sitter.Tree
    commands: list[Command] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
    set_options: list[SetOption] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)

    @property
    def root(self) -> Node:
        return self.tree.root_node

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def code(self) -> str:
        """The text with every comment blanked out (same offsets and lines)."""
        raw = bytearray(self.text.encode("utf-8"))
        stack = [self.root]
        while stack:
            n = stack.pop()
            if n.type == "comment":
                raw[n.start_byte:n.end_byte] = b" " * (n.end_byte - n.start_byte)
                continue
            stack.extend(n.children)
        return raw.decode("utf-8", "replace")

    def statements(self) -> list[Command | Assignment]:
        """Commands and standalone assignments (not `FOO=1 cmd` prefixes), in source order."""
        out: list[Command | Assignment] = [*self.commands, *(a for a in self.assignments if a.declaration != "prefix")]
        out.sort(key=lambda s: s.node.start_byte)
        return out

    def flag_lines(self, node: Node, pattern: re.Pattern[str]) -> list[int]:
        """Lines of `node` (outside comments) where `pattern` matches."""
        first = line_of(node)
        out = []
        for i, raw in enumerate(text_of(node).split("\n")):
            if pattern.search(raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""):
                out.append(first + i)
        return out

    @cached_property
    def arithmetic_reads(self) -> list[tuple[str, int]]:
        """(name, line) of every variable an arithmetic context reads without `$` (`$(( X * 2 ))`,
        `(( X > 1 ))`, `for (( i = 0; i < N; i++ ))`, `$[X]`, an array subscript): `references` holds
        only `$X` / `${X}` expansions."""
        out = []
        stack = [(self.root, False)]
        while stack:
            n, arith = stack.pop()
            if n.type in ("arithmetic_expansion", "c_style_for_statement", "subscript") or (
                    n.type == "compound_statement" and n.children and n.children[0].type == "(("):
                arith = True
            if arith and n.type == "variable_name":
                out.append((text_of(n), line_of(n)))
            if arith and n.type == "word" and re.fullmatch(r"[A-Za-z_]\w*", text_of(n)):
                out.append((text_of(n), line_of(n)))  # a bare name (`${ARR[i]}`, `i<N`): evaluated as a variable
            stack.extend((c, arith) for c in n.children)
        # The grammar reads `$(( … ))` inside `${X:-…}` as a command substitution: take the names
        # of every `(( … ))` in the text (comments blanked) as well.
        for i, line in enumerate(self.code.split("\n"), start=1):
            for m in _ARITH.finditer(line):
                out.extend((name, i) for name in _NAME.findall(m.group(1)))
        return out

    @cached_property
    def heredocs(self) -> list[tuple[Node, str, bool]]:
        """(the statement a here-document feeds, the body's text, whether the delimiter is quoted, so
        the body is passed on unexpanded) for every here-document."""
        out = []
        stack = [self.root]
        while stack:
            n = stack.pop()
            if n.type == "heredoc_redirect":
                start = next((c for c in n.children if c.type == "heredoc_start"), None)
                body = next((c for c in n.children if c.type == "heredoc_body"), None)
                quoted = start is not None and any(q in text_of(start) for q in ("'", '"', "\\"))
                if body is not None and n.parent is not None:
                    out.append((n.parent, text_of(body), quoted))
            stack.extend(n.children)
        return out

    def commands_named(self, *names: str) -> list[Command]:
        return [c for c in self.commands if c.name in names]

    def assigned(self, name: str) -> list[Assignment]:
        return [a for a in self.assignments if a.name == name]

    def option_at(self, letter: str, line: int) -> bool:
        """Whether `set -<letter>` is in force at `line` by the top-level `set` commands above it."""
        state = False
        for s in self.set_options:
            if s.line > line:
                break
            if letter in s.on:
                state = True
            if letter in s.off:
                state = False
        return state

    def function_at(self, line: int) -> str | None:
        for f in self.functions.values():
            if line_of(f.node) <= line <= end_line_of(f.node):
                return f.name
        return None


def in_loop(node: Node) -> bool:
    """Whether `node` is inside a loop of its own function (or of the top level): a body that may
    run again after the node."""
    n = node.parent
    while n is not None:
        if n.type in LOOPS:
            return True
        if n.type == "function_definition":
            return False
        n = n.parent
    return False


def literal(node: Node | None) -> str | None:
    """The value of a word that holds no expansion (quotes removed, `\\x` escapes undone), else None."""
    if node is None:
        return None
    t = node.type
    if t in ("word", "number"):
        raw = text_of(node)
        if "$" in raw or "`" in raw:
            return None
        return re.sub(r"\\(.)", r"\1", raw.replace("\\\n", ""))
    if t == "raw_string":
        return text_of(node)[1:-1]
    if t == "string":
        parts = []
        for c in node.named_children:
            if c.type != "string_content":
                return None
            parts.append(re.sub(r'\\([$`"\\\n])', r"\1", text_of(c)))
        return "".join(parts)
    if t == "concatenation":
        parts = [literal(c) for c in node.children]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
    return None


def _more(cond: Condition | None, node: Node) -> Condition:
    """A condition made of one more statement (`if a; b; then` runs both, b decides)."""
    if cond is None:
        return Condition(joined(node), node, line_of(node))
    return Condition(f"{cond.text}; {joined(node)}", node, cond.line)


class _Walker:
    def __init__(self, script: Script):
        self.s = script

    def walk(self, node: Node, conds: tuple[Condition, ...], fn: str | None) -> None:  # noqa: C901 (one branch per tree-sitter node type)
        t = node.type
        if t == "ERROR" or node.is_missing:
            self.s.errors.append(ParseError(line_of(node), "bash syntax the parser does not accept"
                                            if t == "ERROR" else f"missing `{node.type}`"))
        if t == "command":
            self._command(node, conds, fn)
            return
        if t == "variable_assignment":
            self._assignment(node, None, conds, fn)
            self._refs(node, fn)
            return
        if t == "variable_assignments":
            for c in node.named_children:
                self.walk(c, conds, fn)
            return
        if t == "declaration_command":
            self._declaration(node, conds, fn)
            return
        if t == "unset_command":
            self._refs(node, fn)
            return
        if t == "function_definition":
            name_node = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name_node is not None and body is not None:
                name = text_of(name_node)
                self.s.functions.setdefault(name, Function(name, node, body, line_of(node)))
                self.walk(body, (), name)
            return
        if t == "if_statement":
            self._if(node, conds, fn)
            return
        if t == "case_statement":
            self._case(node, conds, fn)
            return
        if t in LOOPS:
            self._loop(node, conds, fn)
            return
        if t == "list":
            self._list(node, conds, fn)
            return
        if t in ("test_command",):
            self._refs(node, fn)
            for sub in _descendants(node, ("command_substitution", "process_substitution")):
                for c in sub.named_children:
                    self.walk(c, conds, fn)
            return
        for c in node.named_children:
            if c.type == "heredoc_body" or c.type.endswith("_redirect"):
                self._refs(c, fn)
                continue
            self.walk(c, conds, fn)

    # -- statements --------------------------------------------------------------------------
    def _if(self, node: Node, conds, fn) -> None:
        here: list[Condition] = []
        cond = None
        for i, c in enumerate(node.children):
            f = node.field_name_for_child(i)
            if f == "condition":
                if c.is_named:
                    cond = _more(cond, c)
                    self._walk_condition(c, conds, fn)
                continue
            if c.type in ("elif_clause", "else_clause"):
                prior = tuple(Condition(h.text, h.node, h.line, True) for h in here + ([cond] if cond else []))
                if c.type == "elif_clause":
                    elif_cond = None
                    in_cond = True  # the grammar gives elif's condition no field: it runs up to `then`
                    for cc in c.children:
                        if cc.type == "then":
                            in_cond = False
                        elif in_cond and cc.is_named:
                            elif_cond = _more(elif_cond, cc)
                            self._walk_condition(cc, conds + prior, fn)
                        elif cc.is_named:
                            self.walk(cc, conds + prior + ((elif_cond,) if elif_cond else ()), fn)
                    if cond is not None:
                        here.append(cond)
                    cond = elif_cond
                else:
                    for cc in c.named_children:
                        self.walk(cc, conds + prior, fn)
                continue
            if c.is_named:
                self.walk(c, conds + ((cond,) if cond else ()), fn)

    def _walk_condition(self, c: Node, conds, fn) -> None:
        if c.type in ("command", "list", "pipeline", "negated_command", "redirected_statement", "compound_statement",
                      "subshell", "variable_assignment", "test_command", "declaration_command"):
            self.walk(c, conds, fn)
        else:
            self._refs(c, fn)

    def _case(self, node: Node, conds, fn) -> None:
        value = node.child_by_field_name("value")
        vtext = joined(value) if value is not None else "?"
        if value is not None:
            self._refs(value, fn)
        earlier: list[Condition] = []
        for item in node.named_children:
            if item.type != "case_item":
                continue
            pats = [
                joined(item.children[i]) for i in range(item.child_count) if item.field_name_for_child(i) == "value"
            ]
            cond = Condition(f"case {vtext} in {'|'.join(pats)}", item, line_of(item))
            for i, c in enumerate(item.children):
                if item.field_name_for_child(i) == "value" or not c.is_named:
                    continue
                self.walk(c, conds + tuple(earlier) + (cond,), fn)
            earlier.append(Condition(cond.text, item, cond.line, True))

    def _loop(self, node: Node, conds, fn) -> None:
        cond = None
        for i, c in enumerate(node.children):
            f = node.field_name_for_child(i)
            if f in ("condition", "value", "variable", "initializer", "update") and c.is_named:
                if cond is None:
                    head = text_of(node).split("\n", 1)[0]
                    cond = Condition(re.sub(r"\s*;?\s*do\b.*$", "", head).strip(), c, line_of(c))
                self._walk_condition(c, conds, fn)
                continue
            if c.type == "do_group":
                self.walk(c, conds + ((cond,) if cond else ()), fn)
            elif c.is_named:
                self._refs(c, fn)

    def _list(self, node: Node, conds, fn) -> None:
        kids = list(node.children)
        left = kids[0]
        self.walk(left, conds, fn)
        op = kids[1].type if len(kids) > 1 else "&&"
        for right in kids[2:]:
            if right.is_named:
                self.walk(right, conds + (Condition(joined(left), left, line_of(left), op == "||"),), fn)

    def _command(self, node: Node, conds, fn) -> None:
        name_node = node.child_by_field_name("name")
        prefix, args = [], []
        seen_name = False
        for i, c in enumerate(node.children):
            f = node.field_name_for_child(i)
            if f == "name":
                seen_name = True
                continue
            if not seen_name and c.type == "variable_assignment":
                prefix.append(c)
                self._assignment(c, "prefix", conds, fn)
                continue
            if f == "argument" or (seen_name and c.is_named and c.type not in ("comment",)):
                args.append(c)
        word = name_node.named_children[0] if name_node is not None and name_node.named_children else None
        name = literal(word) if word is not None else None
        cmd = Command(node, name, word, tuple(args), tuple(prefix), line_of(node), end_line_of(node), conds, fn)
        self.s.commands.append(cmd)
        if name == "set" and fn is None and not conds:
            self._set(cmd)
        self._refs(node, fn)
        # Commands inside `$(…)` and `<(…)` are commands too (the interpreter never runs them).
        for sub in _descendants(node, ("command_substitution", "process_substitution")):
            for c in sub.named_children:
                self.walk(c, conds, fn)

    def _set(self, cmd: Command) -> None:
        on, off = set(), set()
        args = cmd.literal_args()
        i = 0
        while i < len(args):
            a = args[i] or ""
            if a in ("-o", "+o") and i + 1 < len(args):
                letter = _SET_LONG.get(args[i + 1] or "")
                if letter:
                    (on if a == "-o" else off).add(letter)
                i += 2
                continue
            if re.fullmatch(r"[-+][a-zA-Z]+", a):
                target = on if a[0] == "-" else off
                for ch in a[1:]:
                    if ch == "o":  # `set -euo pipefail`: the next word names a long option
                        if i + 1 < len(args):
                            letter = _SET_LONG.get(args[i + 1] or "")
                            if letter:
                                target.add(letter)
                            i += 1
                        continue
                    target.add(ch)
            i += 1
        if on or off:
            self.s.set_options.append(SetOption(cmd.line, frozenset(on), frozenset(off)))

    def _declaration(self, node: Node, conds, fn) -> None:
        kw = node.children[0].type if node.children else ""
        flags = {text_of(c) for c in node.named_children if c.type == "word" and text_of(c).startswith("-")}
        is_array = any("a" in f or "A" in f for f in flags)
        for c in node.named_children:
            if c.type == "variable_assignment":
                self._assignment(c, kw, conds, fn, force_array=is_array)
            elif c.type == "variable_name":
                self.s.assignments.append(Assignment(text_of(c), c, None, line_of(c), kw, False, is_array, conds, fn))
        self._refs(node, fn)
        for sub in _descendants(node, ("command_substitution",)):
            for c in sub.named_children:
                self.walk(c, conds, fn)

    def _assignment(self, node: Node, decl: str | None, conds, fn, force_array: bool = False) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        if name_node.type == "subscript":  # arr[i]=x
            inner = name_node.child_by_field_name("name")
            name = text_of(inner) if inner is not None else text_of(name_node)
            array = True
        else:
            name = text_of(name_node)
            array = False
        value = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        array = array or force_array or (value is not None and value.type == "array")
        self.s.assignments.append(Assignment(name, node, value, line_of(node), decl, append, array, conds, fn))
        if decl not in ("prefix",):
            for sub in _descendants(node, ("command_substitution",)):
                for c in sub.named_children:
                    self.walk(c, conds, fn)

    def _refs(self, node: Node, fn) -> None:
        for n in _descendants(node, ("simple_expansion", "expansion")):
            ref = _reference(n, fn)
            if ref is not None:
                self.s.references.append(ref)


def _descendants(node: Node, types: tuple[str, ...]) -> Iterator[Node]:
    """Descendants of the given types (not descending into a match, nor into nested commands'
    substitutions twice: a substitution's own commands are walked as commands)."""
    stack = list(reversed(node.children))
    while stack:
        n = stack.pop()
        if n.type in types:
            yield n
            if n.type in ("simple_expansion", "expansion"):
                stack.extend(reversed(n.children))  # `${A:-$B}` reads B too
            continue
        if n.type in ("command_substitution", "process_substitution") and "command_substitution" not in types:
            continue  # walked as commands of their own
        stack.extend(reversed(n.children))


def _reference(n: Node, fn) -> Reference | None:
    if n.type == "simple_expansion":
        inner = n.named_children[0] if n.named_children else None
        if inner is None or inner.type not in ("variable_name", "special_variable_name"):
            return None
        return Reference(text_of(inner), n, line_of(n), None, fn)
    name = None
    op = None
    for i, c in enumerate(n.children):
        f = n.field_name_for_child(i)
        if f == "operator" and op is None:
            op = text_of(c)
        elif c.type in ("variable_name", "special_variable_name") and name is None:
            name = text_of(c)
        elif c.type == "subscript" and name is None:
            inner = c.child_by_field_name("name")
            name = text_of(inner) if inner is not None else None
    if name is None:
        return None
    if op == "!":  # ${!X}: indirect
        return None
    return Reference(name, n, line_of(n), op, fn)


def decode_script(raw: bytes | None) -> tuple[str | None, str | None]:
    """(text, None) or (None, why it is not read)."""
    if raw is None:
        return None, "content not available"
    if len(raw) > MAX_SCRIPT_BYTES:
        return None, f"script is {len(raw):,} bytes; scripts over {MAX_SCRIPT_BYTES:,} bytes are not parsed"
    if b"\0" in raw:
        return None, "file is binary (contains NUL bytes)"
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as err:
        return None, f"not valid UTF-8 (byte {err.start})"


def parse(path: str, raw: bytes | None) -> Script | Unreadable:
    """Parse one script's bytes (never raises on bad input)."""
    text, why = decode_script(raw)
    if text is None:
        return Unreadable(path, why or "not readable")
    tree = _parser().parse(text.encode("utf-8"))
    script = Script(path, text, tree)
    _Walker(script).walk(tree.root_node, (), None)
    script.commands.sort(key=lambda c: (c.node.start_byte, c.node.end_byte))
    script.assignments.sort(key=lambda a: a.node.start_byte)
    script.references.sort(key=lambda r: r.node.start_byte)
    return script


class SharedParses:
    """Parses shared across reviews, keyed by path and content (launchers and the library rarely
    change between PRs). Bounded: the largest scripts hold tens of thousands of objects. Safe to
    share between the App's worker threads (`rules.cache.LRU`)."""

    def __init__(self, size: int = 96):
        self.size = size
        self._lru: LRU[Script | Unreadable] = LRU(size)

    def parse(self, path: str, raw: bytes | None) -> Script | Unreadable:
        if raw is None:
            return parse(path, raw)
        return self._lru.get_or_compute((path, hashlib.sha1(raw).hexdigest()), lambda: parse(path, raw))

    def __len__(self) -> int:
        return len(self._lru)


SHARED_PARSES = SharedParses()


def too_large(raw: bytes | None) -> str | None:
    """Why a script is not parsed (size), or None."""
    if raw is not None and len(raw) > MAX_SCRIPT_BYTES:
        return f"script is {len(raw):,} bytes; scripts over {MAX_SCRIPT_BYTES:,} bytes are not parsed"
    return None


def review_parses(ctx) -> dict:
    """The review's head parses by path (shared by the rules and the interpreter's `Files`)."""
    return ctx.memo(("scripts", "parse-cache"), dict)


def script_at(ctx, path: str, side: str = "head") -> Script | Unreadable:
    """The parsed script at `path` (a changed file or repository context), memoized per review
    (and across reviews by content, `SHARED_PARSES`)."""
    cs = ctx.changeset
    if side == "head":
        cache = review_parses(ctx)
        if path not in cache:
            cache[path] = SHARED_PARSES.parse(path, cs.head_bytes(path))
        return cache[path]
    return ctx.memo(("scripts", "parse", side, path), lambda: SHARED_PARSES.parse(path, cs.base_bytes(path)))


def changed_script(ctx, f: FileChange) -> Script | Unreadable:
    """The head parse of a changed script, shared by the script rules."""
    if f.head is None:
        return Unreadable(f.path, "content not available")
    return script_at(ctx, f.path, "head")
