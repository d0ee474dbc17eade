"""Flags a command variable that is assigned and then overwritten before anything reads it.

## Why it matters
`BENCH_CMD="…"` built with care and then `BENCH_CMD="SKIP"` on the next line throws the command
away: the run does nothing useful and reports no metrics (#1683, `server_atom.sh`).

## When it fires
Variables whose name says they hold a command or its arguments (`CMD`, `COMMAND`, `ARGS`, `OPTS`,
`FLAGS`) are checked: two assignments in the same block, under the same conditions, with no read
of the variable between them. Only second assignments on lines the PR adds are reported.

## Example
    BENCH_CMD="bash bench.sh $MODEL $ISL $OSL"
    BENCH_CMD="SKIP"
    eval "$BENCH_CMD"

## Fix
Delete the stray assignment (or guard it, e.g. `[[ $DRY_RUN == 1 ]] && BENCH_CMD="SKIP"`).
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed

CODE = "RR406"
NAME = "command-overwritten-before-use"
SEVERITY = Severity.NIT
_COMMANDISH = re.compile(r"(?:^|_)(?:CMD|COMMAND|ARGS|OPTS|FLAGS)(?:_|$)")


def _stmt(node):
    """The statement node an assignment belongs to (its parent block is what we compare)."""
    while node.parent is not None and node.parent.type in ("declaration_command", "variable_assignments"):
        node = node.parent
    return node


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in changed_scripts(ctx, ("scripts", "launchers")):
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        lines = touched(ctx, f.path) or set()
        by_name: dict[str, list] = {}
        for a in script.assignments:
            if a.declaration not in ("prefix", "local") and _COMMANDISH.search(a.name) and a.value is not None:
                by_name.setdefault(a.name, []).append(a)
        for name, assigns in by_name.items():
            for first, second in zip(assigns, assigns[1:], strict=False):
                if second.line not in lines or second.append or first.function != second.function:
                    continue
                s1, s2 = _stmt(first.node), _stmt(second.node)
                if s1.parent is None or s2.parent is None or s1.parent.id != s2.parent.id:
                    continue
                if tuple(c.text for c in first.conditions) != tuple(c.text for c in second.conditions):
                    continue
                v1 = (first.value.text or b"").decode("utf-8", "replace")
                if v1 in ('""', "''", "()", ""):
                    continue
                between = [r for r in script.references if r.name == name
                           and first.node.end_byte <= r.node.start_byte < second.node.end_byte]
                if between:
                    continue
                yield Problem(
                    f.path,
                    second.line,
                    f"`{name}` is overwritten at line {second.line} before its value from line {first.line} is used",
                    evidence=(f"line {first.line}: {first.text[:80]}", f"line {second.line}: {second.text[:80]}"),
                )
