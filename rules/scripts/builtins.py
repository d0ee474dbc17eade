"""The builtins the shell interpreter models (never run: each only updates the interpreter's state).

`BUILTINS` maps a command name to its model, a function of one `Call` (the interpreter and the
command as it would run). A builtin returns the command's exit status when known (True =
success), or raises the interpreter's control flow (`exit`, `return`, `break`/`continue`).
Inside `$(…)`, `echo`, `printf`, `basename`, `dirname` and `pwd` write what the substitution
reads.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from rules.scripts.parse import Node
from rules.scripts.values import MAX_DEPTH, Arg, FunctionReturn, LoopBreak, ScriptExit, Unknown, Var, normalize


class Shell(Protocol):
    """What of the interpreter (`rules.scripts.interpret.Interpreter`) the builtins read and change."""

    cwd: str
    _cwd_unknown: bool
    positional: list[Arg]
    functions: dict[str, tuple[Node, str]]
    fn_stack: list[str]
    source_stack: list[str]
    capture: list[list[str | Unknown]]
    depth: int
    nounset: bool
    allexport: bool

    def _set(self, name: str, var: Var) -> None: ...
    def _emit(self, text: str | Unknown) -> None: ...
    def _launch(self, words: list[Arg], env_prefix: dict[str, Var], path: str, line: int, end: int) -> None: ...
    def _eval_text(self, text: str, path: str, line: int, label: str) -> None: ...
    def _call(self, name: str, args: list[Arg], env_prefix, path: str, line: int) -> bool | None: ...


@dataclass(frozen=True, slots=True)
class Call:
    """One command line that names a builtin."""

    interp: Shell
    args: list[Arg]  # the words after the command name
    path: str  # the file holding the command
    line: int
    words: list[Arg]  # the whole command line, name included
    env_prefix: dict[str, Var]  # the command's own `NAME=value` prefix assignments
    end_line: int


def _b_true(c: Call) -> bool | None:
    return True


def _b_false(c: Call) -> bool | None:
    return False


def _b_exit(c: Call) -> bool | None:
    raise ScriptExit()


def _b_return(c: Call) -> bool | None:
    if c.interp.fn_stack or len(c.interp.source_stack) > 1:
        code = c.args[0].text if c.args and c.args[0].known else "0"
        raise FunctionReturn(code == "0")
    raise ScriptExit()


def _b_break(c: Call) -> bool | None:
    raise LoopBreak()


def _b_shift(c: Call) -> bool | None:
    n = int(c.args[0].text) if c.args and c.args[0].known and (c.args[0].text or "").isdigit() else 1
    c.interp.positional = c.interp.positional[n:]
    return True


def _b_set(c: Call) -> bool | None:
    for a in c.args:
        if (
            a.known
            and re.fullmatch(r"-[a-zA-Z]*a[a-zA-Z]*", a.text or "")
            or (a.text == "allexport" and c.interp.nounset is not None)
        ):
            c.interp.allexport = True
        if a.known and re.fullmatch(r"\+[a-zA-Z]*a[a-zA-Z]*", a.text or ""):
            c.interp.allexport = False
        if a.text in ("-u", "-eu", "-ue") or (a.known and re.fullmatch(r"-[a-zA-Z]*u[a-zA-Z]*", a.text or "")):
            c.interp.nounset = True
        if a.known and re.fullmatch(r"\+[a-zA-Z]*u[a-zA-Z]*", a.text or ""):
            c.interp.nounset = False
    if c.args and c.args[0].text == "--":
        c.interp.positional = list(c.args[1:])
    return True


def _b_echo(c: Call) -> bool | None:
    args = list(c.args)
    newline = True
    while args and args[0].known and re.fullmatch(r"-[neE]+", args[0].text or ""):
        if "n" in (args[0].text or ""):
            newline = False
        args = args[1:]
    if any(not a.known for a in args):
        c.interp._emit(Unknown(next(a.why for a in args if not a.known) or "unknown"))
    else:
        c.interp._emit(" ".join(a.text for a in args) + ("\n" if newline else ""))  # type: ignore[misc]
    return True


def _b_printf(c: Call) -> bool | None:
    if not c.interp.capture and not (c.args and c.args[0].text == "-v"):
        return True
    args = list(c.args)
    target = None
    if args and args[0].text == "-v" and len(args) > 1:
        target = args[1].text
        args = args[2:]
    if not args or any(not a.known for a in args):
        out: str | Unknown = Unknown("printf of unknown values")
    else:
        out = _printf(args[0].text or "", [a.text or "" for a in args[1:]])
    if target:
        c.interp._set(target, Var(out, path=c.path, line=c.line))
    else:
        c.interp._emit(out)
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


def _b_basename(c: Call) -> bool | None:
    args = [a for a in c.args if a.text not in ("-a", "--")]
    if not c.interp.capture:
        return True
    if not args or not args[0].known:
        c.interp._emit(Unknown("basename of an unknown path"))
        return None
    b = posixpath.basename((args[0].text or "").rstrip("/"))
    if len(args) > 1 and args[1].known and b.endswith(args[1].text or "\0") and b != args[1].text:
        b = b[: -len(args[1].text or "")]
    c.interp._emit(b + "\n")
    return True


def _b_dirname(c: Call) -> bool | None:
    if not c.interp.capture:
        return True
    if not c.args or not c.args[0].known:
        c.interp._emit(Unknown("dirname of an unknown path"))
        return None
    d = posixpath.dirname((c.args[0].text or "").rstrip("/")) or "."
    c.interp._emit(d + "\n")
    return True


def _b_cd(c: Call) -> bool | None:
    if not c.args or not c.args[0].known:
        c.interp._cwd_unknown = True  # later `pwd` and relative paths are unknown
        return None
    rel = normalize(c.interp.cwd, c.args[0].text or "")
    if rel is None:
        c.interp._cwd_unknown = True
        return None
    c.interp.cwd = rel
    return True


def _b_pwd(c: Call) -> bool | None:
    if c.interp._cwd_unknown:
        c.interp._emit(Unknown("working directory unknown"))
    else:
        c.interp._emit(f"{c.interp.cwd or '.'}\n")
    return True


def _b_read(c: Call) -> bool | None:
    for a in c.args:
        if a.known and re.fullmatch(r"[A-Za-z_]\w*", a.text or ""):
            c.interp._set(a.text or "", Var(Unknown(f"read at line {c.line}"), path=c.path, line=c.line))
    return None


def _b_eval(c: Call) -> bool | None:
    if not c.args:
        return True
    if any(not a.known for a in c.args) or c.interp.depth >= MAX_DEPTH:
        c.interp._launch(c.words, c.env_prefix, c.path, c.line, c.end_line)
        return None
    c.interp._eval_text(" ".join(a.text or "" for a in c.args), c.path, c.line, f"eval at {c.path}:{c.line}")
    return None


def _b_exec(c: Call) -> bool | None:
    if not c.args:
        return True
    if c.args[0].known and c.args[0].text in c.interp.functions:
        return c.interp._call(c.args[0].text or "", list(c.args[1:]), c.env_prefix, c.path, c.line)
    c.interp._launch(list(c.args), c.env_prefix, c.path, c.line, c.end_line)
    raise ScriptExit()


def _b_mapfile(c: Call) -> bool | None:
    names = [a.text for a in c.args if a.known and re.fullmatch(r"[A-Za-z_]\w*", a.text or "")]
    if names:
        c.interp._set(names[-1] or "MAPFILE", Var(Unknown(f"mapfile at line {c.line}"), path=c.path, line=c.line))
    return None


def _b_test_cmd(c: Call) -> bool | None:
    """`test …` / `[ … ]` written as a command (the grammar gives `[` its own node; `test` is a word)."""
    return None


BUILTINS: dict[str, Callable[[Call], bool | None]] = {
    "true": _b_true, ":": _b_true, "false": _b_false, "exit": _b_exit, "return": _b_return, "break": _b_break,
    "continue": _b_break, "shift": _b_shift, "set": _b_set, "echo": _b_echo, "printf": _b_printf,
    "basename": _b_basename, "dirname": _b_dirname, "cd": _b_cd, "pushd": _b_cd, "pwd": _b_pwd, "read": _b_read,
    "eval": _b_eval, "exec": _b_exec, "mapfile": _b_mapfile, "readarray": _b_mapfile, "shopt": _b_true,
    "trap": _b_true, "wait": _b_true, "sleep": _b_true, "popd": _b_true, "test": _b_test_cmd,
}
