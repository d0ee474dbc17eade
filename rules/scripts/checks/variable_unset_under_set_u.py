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

Three cases are reported, on lines the PR adds at the top level of a script under `set -u`:
the base version read the variable with a default and this one reads it bare, while neither
the script nor its library's top level sets it (a variable the workflow passes counts only when
a launcher that runs the script does not pass it on, as a `docker run -e` list may not); the
variable is first set further down; or nothing sets it and its name is one letter away from one
that is set (a misspelling). A variable counts as set when the script or a file it sources assigns it
(`X=`, `export`, `local`, `read`, `for X in`, `printf -v`), `check_env_vars` validates it, the
workflow passes it (`scripts.point_env`) or the runner provides it (`scripts.runtime_env`). Other
unset reads are left alone: the container and the scheduler set variables a review cannot see.
"""
from collections.abc import Iterator
import difflib

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, resolved_for, touched
from rules.scripts.parse import Script, Unreadable, parse
from rules.scripts.resolve import parsed, standalone

CODE = "RR404"
NAME = "variable-unset-under-set-u"
SEVERITY = Severity.BLOCKING
PROOF = "engine"
_SPECIAL = set("0123456789@*#?$!-_") | {"BASH_SOURCE", "FUNCNAME", "LINENO", "RANDOM", "SECONDS", "PIPESTATUS",
                                        "BASH_REMATCH", "OPTARG", "OPTIND", "REPLY", "IFS", "PWD", "OLDPWD", "UID",
                                        "EUID", "PPID", "HOSTNAME", "BASHPID", "SHLVL", "MAPFILE", "BASH_VERSION"}


def _set_names(script: Script, top_level: bool = False) -> set[str]:
    names = {a.name for a in script.assignments if not top_level or a.function is None}
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


def _launchers_without(ctx: ReviewContext, path: str, name: str) -> list[str]:
    """Launchers that run `path` for some resolved point through a filtered environment (`docker run -e …`)
    that leaves `name` out (a launch that passes everything exported passes the workflow's variables)."""
    return sorted({r.launcher_link or r.launcher or "?" for r in resolved_for(ctx, path)
                   if r.script_env_filtered and name not in r.script_env})


def _one_edit(a: str, b: str) -> bool:
    """a and b differ by one inserted, deleted, replaced or swapped character."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


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
                        known |= _set_names(lib, top_level=True)
        before = _defaulted(f.base, f.base_path) if f.status != "added" else set()
        first_set: dict[str, int] = {}
        for a in script.assignments:
            if a.function is None and not a.conditions:
                first_set[a.name] = min(first_set.get(a.name, a.line), a.line)
        validated = {a for c in script.commands_named("check_env_vars") for a in c.literal_args() if a}
        everything = known | provided
        reported = set()
        checked = 0
        for ref in script.references:
            if ref.has_default or ref.line not in lines or ref.name in _SPECIAL or ref.name.isdigit():
                continue
            if ref.function is not None or not script.option_at("u", ref.line):
                continue
            checked += 1
            if ref.name in reported:
                continue
            shown = ref.node.text.decode("utf-8", "replace")
            why = None
            if ref.name in before and ref.name not in validated and ref.name not in known:
                missing_from = _launchers_without(ctx, f.path, ref.name)
                if ref.name not in provided:
                    why = f"the base version read it with a default; this line reads `{shown}` bare"
                elif missing_from:
                    why = (f"the base version read it with a default, and `{missing_from[0]}` does not pass it "
                           "to the script")
            elif ref.name in first_set and first_set[ref.name] > ref.line and ref.name not in provided \
                    and ref.name not in validated and not any(a.name == ref.name and a.line < ref.line
                                                              for a in script.assignments):
                why = f"it is first set at line {first_set[ref.name]}, after this read"
            elif ref.name not in everything:
                close = [n for n in difflib.get_close_matches(ref.name, sorted(everything), n=3, cutoff=0.8)
                         if _one_edit(ref.name, n)]
                if close:
                    why = f"nothing sets it; did you mean `{close[0]}`?"
            if why is None:
                continue
            reported.add(ref.name)
            yield Problem(f.path, ref.line, f"`{shown}` is read under `set -u` with no default: {why}",
                          evidence=(f"`set -u` in force since line "
                                    f"{next(s.line for s in script.set_options if 'u' in s.on)}",))
        if checked and not reported:
            yield Passed(f"{f.path}: {checked} reads on added lines under `set -u` are set or defaulted", path=f.path)
