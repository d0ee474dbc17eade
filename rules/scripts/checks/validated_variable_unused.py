"""Flags a variable that `check_env_vars` requires but the script never reads.

## Why it matters
`check_env_vars X` says the script depends on `X`. If nothing reads it, either the variable
is dead weight or — more often — the script forgot to wire it in, so the setting the config
asks for is silently ignored (#348: `SPEC_DECODING` validated but never used; #1145).

## Example
    check_env_vars MODEL TP SPEC_DECODING
    vllm serve "$MODEL" --tensor-parallel-size "$TP"

## Fix
Use the variable where the engine needs it, or drop it from `check_env_vars`.

A read by the script, by a file it sources, or by a library function counts. Variables on
`check_env_vars` lines the PR adds are checked.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script, line_of
from rules.scripts.resolve import parsed, standalone

CODE = "RR416"
NAME = "validated-variable-unused"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in changed_scripts(ctx):
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        calls = script.commands_named("check_env_vars")
        if not calls:
            continue
        lines = touched(ctx, f.path) or set()
        read = {r.name for r in script.references}
        result = standalone(ctx, f.path)
        if not isinstance(result, str):
            for ev in result.sources:
                lib = parsed(ctx, ev.target) if ev.read and ev.target else None
                if isinstance(lib, Script):
                    read |= {r.name for r in lib.references}
        for c in calls:
            unused = [(node, name) for node, name in zip(c.args, c.literal_args())
                      if name and name not in read and line_of(node) in lines]
            if not unused:
                continue
            names = ", ".join(f"`{n}`" for _, n in unused)
            first = line_of(unused[0][0])
            yield Problem(f.path, first,
                          f"`check_env_vars` requires {names}, but the script never reads "
                          f"{'it' if len(unused) == 1 else 'them'}",
                          end_line=line_of(unused[-1][0]) if line_of(unused[-1][0]) != first else None,
                          evidence=(f"no read in {f.path} or what it sources",
                                    "a program the script starts may read them from the environment: "
                                    "then drop them from check_env_vars or say so"))
