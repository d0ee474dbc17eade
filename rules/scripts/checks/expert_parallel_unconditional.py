"""Flags `--enable-expert-parallel` hard-coded in a benchmark script instead of depending on `EP_SIZE`.

## Why it matters
The sweep runs one script for every point of a master config, and points differ in `ep`. A
hard-coded `--enable-expert-parallel` turns expert parallelism on for the `ep: 1` points too, so
those results measure a different engine layout than the config says (the PR-review prompt's
expert-parallel check; e.g. #1130, `dsv4_fp8_h200.sh`).

## Example
    vllm serve "$MODEL" \\
        --tensor-parallel-size "$TP" \\
        --enable-expert-parallel

## Fix
Add the flag only when the point asks for it:

    if [ "${EP_SIZE:-1}" -gt 1 ]; then EP_ARGS="--enable-expert-parallel"; fi
    vllm serve "$MODEL" --tensor-parallel-size "$TP" $EP_ARGS

A flag counts as conditional when an enclosing `if`/`case`/`while` condition, or its own
command, mentions `EP_SIZE` or a variable derived from it. Only lines the PR adds are checked.
"""
import re
from collections.abc import Iterator

from rules.comments import touched_lines
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.parse import script_commands

CODE = "RR303"
NAME = "expert-parallel-unconditional"
SEVERITY = Severity.NIT
FLAG = re.compile(r"(?<![\w-])--enable-expert-parallel(?![\w-])")
_ASSIGN = re.compile(r"(?:^|[\s;])(?:export\s+|local\s+|declare\s+(?:-\w+\s+)?)?(?P<var>[A-Za-z_]\w*)=(?P<rhs>\S.*)?")


def _ep_vars(cmds) -> set[str]:
    """EP_SIZE and every variable assigned from it (one level at a time, to a fixed point)."""
    names = {"EP_SIZE"}
    changed = True
    while changed:
        changed = False
        for c in cmds:
            for m in _ASSIGN.finditer(c.text):
                var, rhs = m.group("var"), m.group("rhs") or ""
                if var not in names and any(re.search(rf"\b{re.escape(n)}\b", rhs) for n in names):
                    names.add(var)
                    changed = True
    return names


def _mentions(text: str, names: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for f in ctx.changeset.files:
        if f.status == "removed" or ctx.kind(f.path) != "scripts":
            continue
        text, cmds, why = script_commands(ctx, f)
        if why is not None:
            yield Skipped(f"{f.path}: {why}; expert-parallel flag not checked", path=f.path)
            continue
        uses = [c for c in cmds if FLAG.search(c.text)]
        if not uses:
            continue
        touched = touched_lines(f)
        if touched is None:
            yield Skipped(f"{f.path}: no patch, so added lines are unknown; expert-parallel flag not checked",
                          path=f.path)
            continue
        names = _ep_vars(cmds)
        lines = text.split("\n")
        for c in uses:
            flag_lines = [n for n in range(c.line, c.end_line + 1) if FLAG.search(lines[n - 1])]
            line = flag_lines[0] if flag_lines else c.line
            if line not in touched:
                continue
            guards = [g for g in c.conditions if _mentions(g, names)]
            if guards or _mentions(c.text, names):
                yield Passed(f"{f.path}:{line}: --enable-expert-parallel depends on "
                             f"{guards[0].strip() if guards else 'EP_SIZE in the same command'}", path=f.path, line=line)
                continue
            yield Problem(
                f.path, line,
                "`--enable-expert-parallel` is passed unconditionally; it should depend on `EP_SIZE`",
                evidence=(f"no enclosing condition mentions {', '.join(sorted(names))}",
                          f"enclosing conditions: {'; '.join(g.strip() for g in c.conditions) or 'none'}"))
