"""Reads under `set -u` of variables that may be unset: the analysis RR404 and RR423 share.

Under `set -u` bash aborts on the expansion of an unset variable ("unbound variable", bash's
`subst.c` `err_unboundvar`). For every changed script or launcher that turns `set -u` on, each
bare read (`$X`, `${X}`, no `:-`/`:=`/`:?`/`:+` operator) on a line the PR adds, at the top level
and under `set -u` at that line, is judged against what sets the variable:

- **set** — the script or a file it sources assigns it (`X=`, `export`, `local`, `declare`,
  `typeset`, `readonly`, arrays, `read`, `mapfile`/`readarray`, `getopts`, `printf -v`,
  `for X in`), `check_env_vars` validates it, a read with `:=` assigns it, a `${X:?}` guard
  stops the script when it is unset (so past the guard it is set), the workflow passes it
  (`scripts.point_env`) or the runner provides it (`scripts.runtime_env`), or a launcher that
  runs the script passes it on. Each of these counts from its own line on; an assignment inside
  a function counts from the function's definition (it may be called before the read).
- **read-before-set** (proven): the script first sets the variable further down, nothing above
  the read sets it on any path, the read is not in a loop (a later iteration would see the
  assignment), no `eval` or unresolved `source` above it can set it, and nothing in the
  environment the benchmark gets passes it: bash aborts there.
- **launcher-drops** (proven): the base read it with a default, this line reads a workflow
  variable bare, and a launcher that runs the script through a filtered environment (`docker run
  -e …`) leaves it out: those points abort.
- **default-removed** (may be unset): the base read it with a default and nothing the review
  sees sets it. The container or the scheduler may: it might be unset, not proven.
- **misspelling** (may be unset): nothing sets it and a name one letter away is set: read from
  names, not proven.

Other unset reads are left alone: the container and the scheduler set variables a review cannot
see. Nothing is executed.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from rules.context import ReviewContext
from rules.scripts.facts import changed_scripts, resolved_for, touched
from rules.scripts.parse import Script, Unreadable, in_loop, line_of, parse
from rules.scripts.resolve import parsed, standalone

SPECIAL = set("0123456789@*#?$!-_") | {"BASH_SOURCE", "FUNCNAME", "LINENO", "RANDOM", "SECONDS", "PIPESTATUS",
                                       "BASH_REMATCH", "OPTARG", "OPTIND", "REPLY", "IFS", "PWD", "OLDPWD", "UID",
                                       "EUID", "PPID", "HOSTNAME", "BASHPID", "SHLVL", "MAPFILE", "BASH_VERSION"}
PROVEN = ("read-before-set", "launcher-drops")
_SETTING_COMMANDS = ("read", "mapfile", "readarray", "getopts")
_GUARDS = (":?", "?", ":=", "=")  # a guard stops the script when unset; `:=` assigns


@dataclass(frozen=True)
class UnsetRead:
    """One bare read under `set -u` of a variable that may be unset, and why."""

    path: str
    line: int
    name: str
    shown: str  # the read as written (`$X`, `${X}`)
    kind: str  # "read-before-set" | "launcher-drops" | "default-removed" | "misspelling"
    why: str
    set_u_line: int

    @property
    def proven(self) -> bool:
        return self.kind in PROVEN

    @property
    def message(self) -> str:
        return f"`{self.shown}` is read under `set -u` with no default: {self.why}"


@dataclass
class FileReads:
    """The analysis of one changed file: what it found, or why it was not analysed."""

    path: str
    skipped: str | None = None  # why the file was not checked
    checked: int = 0  # bare reads on added lines under `set -u`
    reads: list[UnsetRead] = field(default_factory=list)


def set_names(script: Script, top_level: bool = False) -> set[str]:
    """Every name the script sets anywhere (or at its top level only)."""
    return set(set_lines(script, top_level))


def set_lines(script: Script, top_level: bool = False) -> dict[str, int]:  # noqa: C901 (one branch per way a script can set a name)
    """name → the first line from which something in the script sets it (see the module doc)."""
    out: dict[str, int] = {}

    def put(name: str | None, line: int) -> None:
        if name and not name.startswith("-"):
            out[name] = min(out.get(name, line), line)

    for a in script.assignments:
        if a.function is None:
            put(a.name, a.line)
        elif not top_level:
            fn = script.functions.get(a.function)
            put(a.name, fn.line if fn is not None else a.line)
    for c in script.commands:
        if top_level and c.function is not None:
            continue
        args = c.literal_args()
        if c.name in _SETTING_COMMANDS:
            for a in args:
                put(a, c.line)
        elif c.name == "printf" and len(args) > 1 and args[0] == "-v":
            put(args[1], c.line)
        elif c.name == "check_env_vars":
            for a in args:
                put(a, c.line)
    for r in script.references:
        if r.operator in _GUARDS and (not top_level or r.function is None):
            put(r.name, r.line)
    stack = [script.root]
    while stack:
        n = stack.pop()
        if n.type == "for_statement":
            v = n.child_by_field_name("variable")
            if v is not None:
                put(v.text.decode(), line_of(n))
        stack.extend(n.children)
    return out


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


def _sources(ctx: ReviewContext, path: str) -> tuple[dict[str, int], int | None]:
    """(name → line of the `source` from which a sourced file sets it, the first line of an
    `eval` or of a `source` whose file is not known: from there on anything may be set)."""
    script = parsed(ctx, path)
    names: dict[str, int] = {}
    opaque = [c.line for c in script.commands if c.name == "eval"] if isinstance(script, Script) else []
    result = standalone(ctx, path)
    if isinstance(result, str):
        if isinstance(script, Script):
            opaque += [c.line for c in script.commands if c.name in ("source", ".")]
        return names, min(opaque, default=None)
    for ev in result.sources:
        lib = parsed(ctx, ev.target) if ev.read and ev.target else None
        if not isinstance(lib, Script):
            opaque.append(ev.line)
            continue
        for n in set_names(lib):
            names[n] = min(names.get(n, ev.line), ev.line)
    return names, min(opaque, default=None)


def _launchers_without(ctx: ReviewContext, path: str, name: str) -> list[str]:
    """Launchers that run `path` for some resolved point through a filtered environment (`docker run -e …`)
    that leaves `name` out (a launch that passes everything exported passes the workflow's variables)."""
    return sorted({r.launcher_link or r.launcher or "?" for r in resolved_for(ctx, path)
                   if r.script_env_filtered and name not in r.script_env})


def unset_reads(ctx: ReviewContext) -> list[FileReads]:
    """The analysis of every changed script and launcher (memoized per review)."""
    return ctx.memo(
        ("scripts", "unset-reads"), lambda: [_file(ctx, f) for f in changed_scripts(ctx, ("scripts", "launchers"))]
    )


def _file(ctx: ReviewContext, f) -> FileReads:  # noqa: C901 (one branch per way a reference can be safe, unset or unknown)
    out = FileReads(f.path)
    script = parsed(ctx, f.path)
    if isinstance(script, Unreadable):
        out.skipped = f"{f.path}: {script.reason}; `set -u` reads not checked"
        return out
    on = [s.line for s in script.set_options if "u" in s.on]
    if not on:
        return out
    lines = touched(ctx, f.path)
    if lines is None:
        out.skipped = f"{f.path}: no patch, so added lines are unknown; `set -u` reads not checked"
        return out
    cfg = ctx.config.repo.scripts
    provided = set(cfg.point_env) | set(cfg.runtime_env)
    sets = set_lines(script)
    from_sources, opaque = _sources(ctx, f.path)
    for n, line in from_sources.items():
        sets[n] = min(sets.get(n, line), line)
    known = set(sets)
    passed: set[str] = set()  # names a launcher that runs the script passes on
    for r in resolved_for(ctx, f.path):
        passed |= r.script_env
    before = _defaulted(f.base, f.base_path) if f.status != "added" else set()
    first_set: dict[str, int] = {}
    for a in script.assignments:
        if a.function is None and not a.conditions:
            first_set[a.name] = min(first_set.get(a.name, a.line), a.line)
    validated = {a for c in script.commands_named("check_env_vars") for a in c.literal_args() if a}
    everything = known | provided
    reported: set[str] = set()
    for ref in script.references:
        if ref.has_default or ref.line not in lines or ref.name in SPECIAL or ref.name.isdigit():
            continue
        if ref.function is not None or not script.option_at("u", ref.line):
            continue
        out.checked += 1
        if ref.name in reported:
            continue
        shown = ref.node.text.decode("utf-8", "replace")
        kind = why = None
        if ref.name in before and ref.name not in validated and ref.name not in known:
            missing_from = _launchers_without(ctx, f.path, ref.name)
            if ref.name not in provided and ref.name not in passed:
                kind, why = (
                    "default-removed",
                    f"the base version read it with a default; this line reads `{shown}` bare",
                )
            elif ref.name in provided and missing_from:
                kind, why = "launcher-drops", (f"the base version read it with a default, and `{missing_from[0]}` "
                                               "does not pass it to the script")
        elif (ref.name in first_set and first_set[ref.name] > ref.line and sets.get(ref.name, ref.line + 1) > ref.line
              and ref.name not in provided and ref.name not in validated and ref.name not in passed
              and not in_loop(ref.node) and (opaque is None or opaque > ref.line)):
            kind, why = "read-before-set", f"it is first set at line {first_set[ref.name]}, after this read"
        elif ref.name not in everything:
            close = [n for n in difflib.get_close_matches(ref.name, sorted(everything), n=3, cutoff=0.8)
                     if _one_edit(ref.name, n)]
            if close:
                kind, why = "misspelling", f"nothing sets it; did you mean `{close[0]}`?"
        if kind is None:
            continue
        reported.add(ref.name)
        out.reads.append(UnsetRead(f.path, ref.line, ref.name, shown, kind, why, on[0]))
    return out
