"""Tests and arithmetic of the shell interpreter: `[ … ]`, `[[ … ]]`, `test`, `$(( … ))`, `(( … ))`.

`Conditions` is the part of `rules.scripts.interpret.Interpreter` that answers a test (True,
False, or None when it depends on what is unknown) and evaluates integer arithmetic over the
parse tree (a tiny evaluator, never Python's `eval`). File tests are answered from the review's
tree listing, never from a disk.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rules.scripts.parse import Node, text_of
from rules.scripts.patterns import glob_match
from rules.scripts.values import Unknown, Var, normalize


class Conditions:
    """Tests and arithmetic (a mixin of the interpreter, which holds the state it reads)."""

    cwd: str
    _cwd_unknown: bool

    if TYPE_CHECKING:
        def _tick(self) -> None: ...
        def _read(self, name: str) -> Var | None: ...
        def _ask(self, kind: str, path: str) -> bool | None: ...
        def _string(self, node: Node | None, path: str) -> str | Unknown: ...
        def _pattern(self, node: Node, path: str) -> str | Unknown: ...

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
            return self._unary_cond(e, path, double)
        if t == "binary_expression":
            return self._binary_cond(e, path, double)
        # A bare word: true when non-empty.
        val = self._string(e, path)
        if isinstance(val, Unknown):
            return None
        return val != ""

    def _unary_cond(self, e: Node, path: str, double: bool) -> bool | None:
        """`! X`, `-n`/`-z`, file tests (answered from the tree listing), `-v`."""
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

    def _binary_cond(self, e: Node, path: str, double: bool) -> bool | None:  # noqa: C901 (one branch per test operator)
        """`&&`/`||`/`-a`/`-o`, string, glob (`[[ == ]]`), integer and regex comparisons."""
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

    def _arith(self, e: Node, path: str) -> int | Unknown:  # noqa: C901 (one branch per arithmetic node and operator)
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
