"""Bash glob patterns, and the pattern operators of parameter expansion on known strings.

`glob_match` is `case` / `[[ == ]]` matching; `strip_match` is `${X#p}` `${X##p}` `${X%p}`
`${X%%p}`; `substitute_match` is `${X/p/r}` `${X//p/r}` `${X/#p/r}` `${X/%p/r}`. Pure functions
of strings: the interpreter expands the operands first.
"""
from __future__ import annotations

import re


def glob_regex(pattern: str) -> re.Pattern[str]:
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
    return glob_regex(pattern).fullmatch(s) is not None


def strip_match(value: str, pattern: str, op: str) -> str:
    """`value` without its shortest (`#`, `%`) or longest (`##`, `%%`) prefix or suffix matching `pattern`."""
    rx = glob_regex(pattern)
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


def substitute_match(value: str, pattern: str, repl: str, op: str) -> str:
    """`value` with the first (`/`) or every (`//`) match of `pattern`, or a prefix (`/#`) or suffix (`/%`)
    match, replaced by `repl`."""
    rx = glob_regex(pattern)
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
