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

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from rules.scripts.builtins import BUILTINS, Call
from rules.scripts.conditions import Conditions
from rules.scripts.heredocs import Heredocs
from rules.scripts.parse import Node, Script, Unreadable, end_line_of, line_of, literal, parse, text_of
from rules.scripts.patterns import glob_match
from rules.scripts.values import (
    MAX_DEPTH,
    MAX_LOOP,
    MAX_SOURCE_DEPTH,
    MAX_STEPS,
    MAX_VALUE,
    Arg,
    Files,
    FunctionReturn,
    Launch,
    LoopBreak,
    OutOfSteps,
    Result,
    ScriptExit,
    SourceEvent,
    Unknown,
    Var,
    arg_of,
    normalize,
)
from rules.scripts.words import Words


class Interpreter(Words, Conditions, Heredocs):
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
        except ScriptExit:
            self.result.exited = True
        except (FunctionReturn, LoopBreak):
            pass
        except OutOfSteps:
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
            raise OutOfSteps()

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

    def _stmt(self, node: Node, path: str) -> bool | None:  # noqa: C901 (one branch per statement node type)
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
            return self._subshell(node, path)
        if t == "redirected_statement":
            return self._redirected(node, path)
        if t == "pipeline":
            return self._pipeline(node, path)
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

    def _subshell(self, node: Node, path: str) -> bool | None:
        saved = dict(self.vars), self.cwd, self._cwd_unknown
        status = None
        try:
            for c in node.named_children:
                status = self._stmt(c, path)
        except ScriptExit:
            status = None
        self.vars, self.cwd, self._cwd_unknown = saved
        return status

    def _redirected(self, node: Node, path: str) -> bool | None:
        body = node.child_by_field_name("body")
        self._heredoc_file(node, body, path)
        for c in node.named_children:
            if c.type == "heredoc_redirect" or c.type.endswith("_redirect"):
                self._redirect(c, path)
        return self._stmt(body, path) if body is not None else None

    def _pipeline(self, node: Node, path: str) -> bool | None:
        status = None
        kids = [c for c in node.named_children]
        saved = dict(self.vars)
        for c in kids:
            status = self._stmt(c, path)
        if len(kids) > 1:
            # Each part of a pipeline runs in a subshell: assignments there do not survive.
            self.vars = saved
        return status

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
            status = self._maybe(lambda right=right: self._stmt(right, path), f"`{_short(kids[0])}` {op} …")
        return status

    def _maybe(self, body: Callable[[], bool | None], guard: str) -> None:
        """Run `body` as a branch that may or may not run; merge its effects as unknown."""
        before = dict(self.vars)
        self.guards.append(guard)
        exited = False
        try:
            body()
        except (ScriptExit, FunctionReturn):
            exited = True
        except LoopBreak:
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
                except (ScriptExit, FunctionReturn):
                    pass
                except LoopBreak:
                    outcomes.append(self.vars)
        finally:
            self.guards.pop()
        if not outcomes:
            self.vars = start
            raise ScriptExit()
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
            except LoopBreak:
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
                except LoopBreak:
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
                self._set(name, Var(items=(*old.items, arg_of(value, path, line, value_node)), path=path, line=line,
                                    exported=export))
                return
            prev = old.scalar()
            value = _concat(prev, value)
        if array:
            self._set(name, Var(items=(arg_of(value, path, line, value_node),), path=path, line=line, exported=export))
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
    def _command(self, node: Node, path: str) -> bool | None:  # noqa: C901 (builtins, functions, launches, subshells)
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
        handler = BUILTINS.get(name)  # type: ignore[arg-type]
        if handler is not None:
            return handler(Call(self, rest, path, line, words, env_prefix, end))
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
        except FunctionReturn as r:
            status = r.args[0] if r.args else None
        except LoopBreak:
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
        except (FunctionReturn, LoopBreak):
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
        except (ScriptExit, FunctionReturn, LoopBreak):
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
