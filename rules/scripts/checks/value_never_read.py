"""Flags a variable the script reads, then assigns a new value that nothing reads afterwards.

## Why it matters
A script that computes a setting, adjusts it in a branch and then launches the engine with
something else has lost the adjustment: the cap, size or flag the branch chose never reaches the
server, and the benchmark measures the unadjusted run while the script looks as if it handled the
case (#1654 and #1709: the HiCache branches lower `CUDA_GRAPH_MAX_BS` for safe capture, then the
launch line passes `--cuda-graph-max-bs $CONC`). ShellCheck's SC2034 does not see it, because the
variable *is* read, only before the assignment that matters.

## When it fires
An assignment is reported when all of these hold, so that no later reader can exist:
it is at the top level of the script (not in a function or a loop, whose bodies run again), the
variable is read somewhere before it and nowhere after it (a `$NAME` read, a bare name in
arithmetic, or the name as a literal word, as `check_env_vars NAME` passes it), in no function
of the script, and in no file the script sources; the variable is never exported, the script never
turns on `set -a`, and has no `eval`, name reference or indirect expansion (which read variables
by computed name). Only assignments on lines the PR adds, or whose later reads the PR removed,
are reported. When a later command passes the flag the variable is named after
(`CUDA_GRAPH_MAX_BS` ↔ `--cuda-graph-max-bs`) with another value, the finding sits on that flag,
where the fix goes, with the replacement as a suggestion; otherwise on the assignment.

## Example
    CUDA_GRAPH_MAX_BS="$CONC"
    if [ "$OFFLOADING" = hicache ] && [ "$CUDA_GRAPH_MAX_BS" -gt 16 ]; then
        CUDA_GRAPH_MAX_BS=16            # nothing reads this value
    fi
    python3 -m sglang.launch_server --cuda-graph-max-bs "$CONC" ...

## Fix
Pass the variable where the value is meant to go (`--cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS"`),
or delete the dead assignment.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script, in_loop, line_of, script_at, text_of
from rules.scripts.resolve import parsed, standalone

CODE = "RR418"
NAME = "value-never-read"
SEVERITY = Severity.NIT
_DYNAMIC = re.compile(r"(?<![\w-])eval(?![\w-])|\$\{!|(?<![\w-])(?:declare|local|typeset)\s+-\w*n")
_ALLEXPORT = re.compile(r"(?<![\w-])set\s+(?:-\w*a|-o\s+allexport)")


def _reads(ctx: ReviewContext, path: str, script: Script, side: str = "head") -> dict[str, list[int]]:
    """name → start bytes of every read: `$X`/`${X…}`, bare names in arithmetic and `[[ ]]`,
    and literal words equal to a variable name (a name passed to a function or a test).
    Walked once per file and side in a review (a library sourced by several scripts, a base
    version asked about for several names)."""
    return ctx.memo(("scripts", "names-read", path, side), lambda: _walk_reads(script))


def _walk_reads(script: Script) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    stack = [script.root]
    while stack:
        n = stack.pop()
        if n.type == "variable_name":
            parent = n.parent
            if not (parent is not None and parent.type == "variable_assignment"
                    and parent.child_by_field_name("name") is not None
                    and parent.child_by_field_name("name").id == n.id):
                if not (parent is not None and parent.type == "declaration_command"):
                    out.setdefault(text_of(n), []).append(n.start_byte)
        elif n.type == "word" and re.fullmatch(r"[A-Za-z_]\w*", text_of(n)):
            out.setdefault(text_of(n), []).append(n.start_byte)
        stack.extend(n.children)
    return out


def _exported(script: Script) -> set[str]:
    return {a.name for a in script.assignments if a.declaration == "export"
            or (a.declaration == "declare" and re.search(r"declare\s+-\w*x", a.text))}


def _flag_for(name: str) -> str:
    return "--" + name.lower().replace("_", "-")


def _keep_flag(value: str) -> Callable[[re.Match[str]], str]:
    """A `re.sub` replacement: the matched flag (group 1) followed by `value`."""
    return lambda m: m.group(1) + value


def _later_flag(script: Script, name: str, after: int) -> tuple[int, str] | None:
    """(line, value) of a later command argument `--<name-as-flag> VALUE` whose value does not read `name`."""
    flag = _flag_for(name)
    for c in script.commands:
        if c.node.start_byte <= after:
            continue
        args = list(c.args)
        for i, a in enumerate(args):
            t = text_of(a)
            if t == flag and i + 1 < len(args):
                value = text_of(args[i + 1])
            elif t.startswith(flag + "="):
                value = t[len(flag) + 1:]
            else:
                continue
            if not re.search(r"\$\{?" + re.escape(name) + r"\b", value):
                return line_of(a), value
    return None


def _base_reads_after(ctx: ReviewContext, path: str, name: str) -> int:
    """How many reads of `name` the base version has after its last assignment of it (0 when none)."""
    base = script_at(ctx, path, "base")
    if not isinstance(base, Script):
        return 0
    assigns = [a for a in base.assignments if a.name == name and a.function is None]
    if not assigns:
        return 0
    last = max(a.node.end_byte for a in assigns)
    return sum(1 for b in _reads(ctx, path, base, "base").get(name, ()) if b > last)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Skipped]:
    for f in changed_scripts(ctx, ("scripts", "launchers")):
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        code = script.code
        if _DYNAMIC.search(code) or _ALLEXPORT.search(code):
            continue
        lines = touched(ctx, f.path)
        if lines is None:
            continue
        reads = _reads(ctx, f.path, script)
        exported = _exported(script)
        in_functions = {r.name for r in script.references if r.function is not None}
        candidates = [a for a in script.assignments
                      if a.function is None and a.declaration is None and not a.append and a.value is not None
                      and a.name not in exported and a.name not in in_functions and a.name in reads]
        if not candidates:
            continue
        lib_reads: set[str] | None = None
        for a in candidates:
            start, end = a.node.start_byte, a.node.end_byte
            mine = reads[a.name]
            if not any(b < start for b in mine) or any(b >= end for b in mine):
                continue
            later = [b for b in (x.node.start_byte for x in script.assignments if x.name == a.name) if b > start]
            if later or in_loop(a.node):
                continue
            if a.line not in lines and not (f.status in ("modified", "renamed")
                                            and _base_reads_after(ctx, f.base_path or f.path, a.name)):
                continue
            if lib_reads is None:
                lib_reads = _library_reads(ctx, f.path)
            if lib_reads is None:
                yield Skipped(f"{f.path}: a sourced file could not be read; assignments never read not checked",
                              path=f.path)
                break
            if a.name in lib_reads:
                continue
            flag = _later_flag(script, a.name, end)
            evidence = (f"`{a.name}` is read before line {a.line} and nowhere after it, in this script or what it "
                        "sources",)
            fix = f"Pass `${a.name}` where the value is meant to go, or delete the assignment."
            if flag is None:
                yield Problem(f.path, a.line, f"`{a.name}` is assigned here, but nothing reads it afterwards: "
                              "the value is lost", end_line=a.end_line if a.end_line > a.line else None,
                              fix=fix, evidence=evidence)
                continue
            # The fix goes where the flag is passed: anchor there and offer the replacement.
            fline, value = flag
            old_line = script.lines[fline - 1]
            wanted = f'"${a.name}"'
            new_line = re.sub(r"(" + re.escape(_flag_for(a.name)) + r"(?:\s+|=))" + re.escape(value),
                              _keep_flag(wanted), old_line, count=1)
            yield Problem(f.path, fline,
                          f"`{_flag_for(a.name)} {value}` ignores `{a.name}`, which line {a.line} sets and nothing "
                          "reads afterwards",
                          fix=f"Pass `{_flag_for(a.name)} {wanted}`, or delete the assignment at line {a.line}.",
                          suggestion=new_line if new_line != old_line else None,
                          evidence=evidence + (f"line {a.line}: `{a.text}`",),
                          cause=((f.path, a.line),))


def _library_reads(ctx: ReviewContext, path: str) -> set[str] | None:
    """Every name the files `path` sources read; None when a sourced file is unknown or unreadable."""
    result = standalone(ctx, path)
    if isinstance(result, str):
        return None
    names: set[str] = set()
    for ev in result.sources:
        if ev.path != path:
            continue
        if not ev.target:
            return None
        lib = parsed(ctx, ev.target)
        if not isinstance(lib, Script):
            return None
        names |= set(_reads(ctx, ev.target, lib))
    return names
