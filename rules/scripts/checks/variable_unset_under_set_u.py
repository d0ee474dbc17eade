"""Flags a variable read with no default under `set -u` that nothing sets (or whose default the PR removed).

## Why it matters
Under `set -u` (`set -euo pipefail`) reading an unset variable aborts the script. A bare
`$EVAL_ONLY` where the script used to read `${EVAL_ONLY:-false}` kills every run on a path that
does not set it (#2674), and a misspelled variable kills all of them.

## Example
    set -euo pipefail
    if [ "$EVAL_ONLY" = "true" ]; then ...      # was "${EVAL_ONLY:-false}"

## Fix
Read it with a default (`${EVAL_ONLY:-false}`), set it earlier, or list it in `check_env_vars`.

A variable counts as set when the script or a file it sources assigns it (anywhere: `X=`,
`export`, `local`, `read`, `for X in`, `printf -v`), when `check_env_vars` validates it, when
the benchmark workflow passes it (`scripts.point_env`) or the runner provides it
(`scripts.runtime_env`). Removing a default is reported even for a variable the workflow
passes: not every launcher path passes it. Only lines the PR adds are checked.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script, Unreadable, literal, parse
from rules.scripts.resolve import parsed, standalone

CODE = "RR404"
NAME = "variable-unset-under-set-u"
SEVERITY = Severity.BLOCKING
_SPECIAL = set("0123456789@*#?$!-_") | {"BASH_SOURCE", "FUNCNAME", "LINENO", "RANDOM", "SECONDS", "PIPESTATUS",
                                        "BASH_REMATCH", "OPTARG", "OPTIND", "REPLY", "IFS", "PWD", "OLDPWD", "UID",
                                        "EUID", "PPID", "HOSTNAME", "BASHPID", "SHLVL", "MAPFILE", "BASH_VERSION"}


def _set_names(script: Script) -> set[str]:
    names = {a.name for a in script.assignments}
    for c in script.commands:
        args = c.literal_args()
        if c.name in ("read", "mapfile", "readarray", "getopts"):
            names.update(a for a in args if a and not a.startswith("-"))
        elif c.name == "printf" and len(args) > 1 and args[0] == "-v" and args[1]:
            names.add(args[1])
        elif c.name == "check_env_vars":
            names.update(a for a in args if a)
    stack = [script.root]
    while stack:
        n = stack.pop()
        if n.type == "for_statement":
            v = n.child_by_field_name("variable")
            if v is not None:
                names.add(v.text.decode())
        stack.extend(n.children)
    return names


def _defaulted(raw: bytes | None, path: str) -> set[str]:
    s = parse(path, raw) if raw is not None else None
    if not isinstance(s, Script):
        return set()
    return {r.name for r in s.references if r.has_default}


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    cfg = ctx.config.repo.scripts
    provided = set(cfg.point_env) | set(cfg.runtime_env)
    for f in changed_scripts(ctx, ("scripts", "launchers")):
        script = parsed(ctx, f.path)
        if isinstance(script, Unreadable):
            yield Skipped(f"{f.path}: {script.reason}; `set -u` reads not checked", path=f.path)
            continue
        if not any("u" in s.on for s in script.set_options):
            continue
        lines = touched(ctx, f.path)
        if lines is None:
            yield Skipped(f"{f.path}: no patch, so added lines are unknown; `set -u` reads not checked", path=f.path)
            continue
        known = _set_names(script)
        result = standalone(ctx, f.path)
        if not isinstance(result, str):
            for ev in result.sources:
                if ev.read and ev.target:
                    lib = parsed(ctx, ev.target)
                    if isinstance(lib, Script):
                        known |= _set_names(lib)
        before = _defaulted(f.base, f.base_path) if f.status != "added" else set()
        reported = set()
        checked = 0
        for ref in script.references:
            if ref.has_default or ref.line not in lines or ref.name in _SPECIAL or ref.name.isdigit():
                continue
            if not script.option_at("u", ref.line) and ref.function is None:
                continue
            if ref.function is not None and not any("u" in s.on for s in script.set_options if s.line < ref.line):
                continue
            checked += 1
            removed_default = ref.name in before and ref.name not in known
            if ref.name in known and not removed_default:
                continue
            if ref.name in provided and not removed_default:
                continue
            if ref.name in reported:
                continue
            reported.add(ref.name)
            shown = ref.node.text.decode("utf-8", "replace")
            why = (f"the base version read it with a default; this line reads `{shown}` bare"
                   if ref.name in before else "nothing in the script, its library or the launch environment sets it")
            yield Problem(f.path, ref.line, f"`{shown}` is read under `set -u` with no default: {why}",
                          evidence=(f"`set -u` in force since line {next(s.line for s in script.set_options if 'u' in s.on)}",))
        if checked and not reported:
            yield Passed(f"{f.path}: {checked} reads on added lines under `set -u` are set or defaulted", path=f.path)
