"""Flags `--enable-expert-parallel` hard-coded in a benchmark script instead of depending on `EP_SIZE`.

## Why it matters
The sweep runs one script for every point of a master config, and points differ in `ep`. A
hard-coded `--enable-expert-parallel` turns expert parallelism on for the `ep: 1` points too, so
those results measure a different engine layout than the config says (the PR-review prompt's
expert-parallel check; e.g. #1130, `dsv4_fp8_h200.sh`).

## When it fires
A flag counts as conditional when it sits under any enclosing `if`/`case`/`while` (a DP-attention
branch, a per-recipe EP switch: which points reach it is what RR216 ep-mismatch judges on the
resolved points), or when its own command mentions `EP_SIZE` or a variable derived from it. Only
a flag passed on every path, on lines the PR adds, is flagged.

## Example
    vllm serve "$MODEL" \\
        --tensor-parallel-size "$TP" \\
        --enable-expert-parallel

## Fix
Add the flag only when the point asks for it:

    if [ "${EP_SIZE:-1}" -gt 1 ]; then EP_ARGS="--enable-expert-parallel"; fi
    vllm serve "$MODEL" --tensor-parallel-size "$TP" $EP_ARGS
"""
import re
from collections.abc import Iterator

from rules.comments import touched_lines
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.parse import Unreadable, changed_script

CODE = "RR303"
NAME = "expert-parallel-unconditional"
SEVERITY = Severity.NIT
ENFORCES = ("F2",)
FLAG = re.compile(r"(?<![\w-])--enable-expert-parallel(?![\w-])")


def _mentions(text: str, names: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)


def _ep_vars(script) -> set[str]:
    """EP_SIZE and every variable assigned from it (one level at a time, to a fixed point)."""
    names = {"EP_SIZE"}
    changed = True
    while changed:
        changed = False
        for a in script.assignments:
            if a.name not in names and a.value is not None and _mentions(a.text.split("=", 1)[-1], names):
                names.add(a.name)
                changed = True
    return names


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for f in ctx.changeset.files:
        if f.status == "removed" or ctx.kind(f.path) != "scripts":
            continue
        script = changed_script(ctx, f)
        if isinstance(script, Unreadable):
            yield Skipped(f"{f.path}: {script.reason}; expert-parallel flag not checked", path=f.path)
            continue
        uses = [(line, s) for s in script.statements() for line in script.flag_lines(s.node, FLAG)]
        if not uses:
            continue
        touched = touched_lines(f)
        if touched is None:
            yield Skipped(f"{f.path}: no patch, so added lines are unknown; expert-parallel flag not checked",
                          path=f.path)
            continue
        names = _ep_vars(script)
        seen: set[int] = set()
        # The innermost statement decides (a command inside `$(…)` of an assignment, say).
        for line, stmt in sorted(uses, key=lambda u: (u[0], -u[1].node.start_byte)):
            if line in seen or line not in touched:
                continue
            seen.add(line)
            guards = [g for g in stmt.conditions if _mentions(g.text, names)]
            if guards or _mentions(stmt.text, names):
                yield Passed(f"{f.path}:{line}: --enable-expert-parallel depends on "
                             f"{guards[0].text if guards else 'EP_SIZE in the same command'}", path=f.path, line=line)
                continue
            if stmt.conditions:
                # Inside a branch on something else (DP attention, a per-recipe EP switch): the flag is
                # conditional, and which points reach the branch is the resolved points' business (RR216).
                yield Passed(f"{f.path}:{line}: --enable-expert-parallel sits under `{stmt.conditions[0].text}`",
                             path=f.path, line=line)
                continue
            yield Problem(
                f.path, line,
                "`--enable-expert-parallel` is passed unconditionally; it should depend on `EP_SIZE`",
                evidence=(f"no enclosing condition mentions {', '.join(sorted(names))}",
                          f"enclosing conditions: {'; '.join(str(g) for g in stmt.conditions) or 'none'}"))
