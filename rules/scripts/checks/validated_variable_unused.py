"""Flags a variable that `check_env_vars` requires but neither the script nor anything it runs reads.

## Why it matters
`check_env_vars X` says the script depends on `X`. If nothing reads it, either the variable
is dead weight or — more often — the script forgot to wire it in, so the setting the config
asks for is silently ignored (#348: `SPEC_DECODING` validated but never used; #1145).

## When it fires
Variables on `check_env_vars` lines the PR adds are checked. A read counts wherever the
variable's value can reach: `$X` / `${X}` in the script, a name an arithmetic context evaluates
(`$(( X * 1024 ))`, `(( X > 1 ))`, an array index), a here-document passed on unexpanded (a
script written with `cat > run.sh <<'EOF'`, or fed to `bash`/`srun`/`sbatch`), a file the script
sources (the library's functions included), and a child script it runs (`bash x.sh`, `sh`,
`exec`, `./x.sh`, `srun … x.sh`, `sbatch x.sh`, `bash -c '…'`): a validated variable came in
through the environment, so a child inherits it. A child script the review can read counts by
its own reads; one it cannot (a path built at run time, a file of a repository the script
clones) may read anything, and the check is Skipped with its name.

## Example
    check_env_vars MODEL TP SPEC_DECODING
    vllm serve "$MODEL" --tensor-parallel-size "$TP"

## Fix
Use the variable where the engine needs it, or drop it from `check_env_vars`.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Command, Script, line_of, text_of
from rules.scripts.resolve import layout_root, parsed, standalone

CODE = "RR416"
NAME = "validated-variable-unused"
SEVERITY = Severity.NIT
_DOLLAR = re.compile(r"\$\{?#?!?([A-Za-z_]\w*)")
_SHELLS = ("bash", "sh", "zsh")
_SCHEDULERS = ("sbatch", "srun", "salloc")
_DIR_OF_SCRIPT = re.compile(
    r"""^\$\(\s*dirname\s+["']?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)["']?\s*\)/"""
)


def _reads(script: Script) -> set[str]:
    """Names the script's text reads (expansions, arithmetic, unexpanded here-documents)."""
    names = {r.name for r in script.references} | {n for n, _ in script.arithmetic_reads}
    for _, body, quoted in script.heredocs:
        if quoted:
            names |= set(_DOLLAR.findall(body))
    return names


def _unquote(s: str) -> str:
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"" else s


def _child_words(c: Command) -> list[str]:
    """The words of a command that name a child script it runs (as written), or `-c …` code."""
    words = [text_of(a) for a in c.args]
    name = c.name or (text_of(c.name_node) if c.name_node is not None else "")
    if name.endswith((".sh", ".slurm")) or name.startswith("./"):
        return [name]
    if name == "exec" and words:
        name, words = _unquote(words[0]), words[1:]
        if name.endswith((".sh", ".slurm")) or name.startswith("./"):
            return [name]
    if name not in _SHELLS and name not in _SCHEDULERS:
        return []
    i = 0
    while i < len(words):
        w = _unquote(words[i])
        if w == "-c" and i + 1 < len(words):
            return ["-c " + words[i + 1]]
        if w.startswith("-") or (name in _SCHEDULERS and w.startswith("$") and not w.endswith((".sh", ".slurm"))):
            i += 1  # an option (or options kept in a variable: `sbatch ${SLURM_ARGS} job.slurm`)
            continue
        if name in _SCHEDULERS and w in _SHELLS:
            name = w  # `srun … bash x.sh`
            i += 1
            continue
        if name in _SHELLS or name == "sbatch" or w.endswith((".sh", ".slurm")):
            return [words[i]]  # sbatch's first operand is its batch script
        return []  # srun/salloc run another program (python3, nvidia-smi, …)
    return []


def _resolve(ctx: ReviewContext, path: str, word: str) -> str | None:
    """The repository path a child-script word names, when it can be known."""
    w = _unquote(word)
    m = _DIR_OF_SCRIPT.match(w)
    if m:
        w = posixpath.join(posixpath.dirname(path), w[m.end():])
    if "$" in w or "`" in w or not w:
        return None
    w = w.removeprefix("./") if not w.startswith("../") else w
    for cand in (posixpath.normpath(posixpath.join(posixpath.dirname(path), w)),
                 posixpath.normpath(layout_root(path) + w)):
        if ctx.changeset.head_bytes(cand) is not None:
            return cand
    return None


def _child_reads(ctx: ReviewContext, path: str, script: Script, seen: set[str]) -> tuple[set[str], list[str]]:
    """(names read by the child scripts `script` runs, the children the review cannot read)."""
    names: set[str] = set()
    unknown: list[str] = []
    for c in script.commands:
        for w in _child_words(c):
            if w.startswith("-c "):
                names |= set(_DOLLAR.findall(w[3:]))
                continue
            target = _resolve(ctx, path, w)
            if target is None:
                unknown.append(f"`{_unquote(w)}` (line {c.line})")
                continue
            if target in seen:
                continue
            seen.add(target)
            child = parsed(ctx, target)
            if not isinstance(child, Script):
                unknown.append(f"`{target}` (line {c.line})")
                continue
            names |= _reads(child)
            more, unk = _child_reads(ctx, target, child, seen)
            names |= more
            unknown += unk
    return names, unknown


def _libraries(ctx: ReviewContext, path: str, script: Script) -> list[Script]:
    """The files the script sources: as the interpretation resolves them, and the repository's
    library for a `source` whose path is built at run time but names it
    (`source "$WORKSPACE/benchmarks/benchmark_lib.sh"`)."""
    out: dict[str, Script] = {}
    result = standalone(ctx, path)
    if not isinstance(result, str):
        for ev in result.sources:
            lib = parsed(ctx, ev.target) if ev.read and ev.target else None
            if isinstance(lib, Script):
                out[ev.target] = lib
    library = ctx.config.repo.scripts.library
    for c in script.commands_named("source", "."):
        if c.args and _unquote(text_of(c.args[0])).endswith("/" + posixpath.basename(library)):
            target = layout_root(path) + library
            lib = parsed(ctx, target) if ctx.changeset.head_bytes(target) is not None else None
            if isinstance(lib, Script):
                out.setdefault(target, lib)
    return list(out.values())


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Skipped]:
    for f in changed_scripts(ctx):
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        calls = script.commands_named("check_env_vars")
        if not calls:
            continue
        lines = touched(ctx, f.path) or set()
        read = _reads(script)
        for lib in _libraries(ctx, f.path, script):
            read |= _reads(lib)
        more, unknown = _child_reads(ctx, f.path, script, {f.path})
        read |= more
        for c in calls:
            unused = [(node, name) for node, name in zip(c.args, c.literal_args(), strict=True)
                      if name and name not in read and line_of(node) in lines]
            if not unused:
                continue
            names = ", ".join(f"`{n}`" for _, n in unused)
            first = line_of(unused[0][0])
            if unknown:
                yield Skipped(f"{f.path}: `check_env_vars` requires {names}, which the script does not read; it runs "
                              f"{', '.join(unknown[:3])}, which the review cannot read and which may", path=f.path)
                continue
            yield Problem(f.path, first,
                          f"`check_env_vars` requires {names}, but the script never reads "
                          f"{'it' if len(unused) == 1 else 'them'}",
                          end_line=line_of(unused[-1][0]) if line_of(unused[-1][0]) != first else None,
                          evidence=(f"no read in {f.path}, what it sources or the scripts it runs",
                                    "a program the script starts may read them from the environment: "
                                    "then drop them from check_env_vars or say so"))
