"""Workspace hygiene (F6) and the bash conventions (F9) of benchmark scripts: the written rules and what breaks them.

The statements are read from the base revision's guidance (`rules.policy`): a PR cannot write its
own rules, and a base that does not state a rule yet leaves its check Skipped. What this module
finds is read from the parsed head script (`rules.scripts.parse`), on the lines the PR adds:

- `workspace_dirs`: a command that creates a directory under `/workspace/` (`mkdir`, `install -d`,
  `git clone` into it, a download's `--local-dir`), with a literal `/workspace/<name>` path or a
  variable the script assigns one (`X=/workspace/x`, `X=${X:-/workspace/x}` unless the workflow or
  the runner supplies `X`). `/workspace` itself
  is the checkout, and directories the workflow itself names (`RESULT_DIR`) are not new.
- `nounset_lines`: `set -u`, `set -o nounset`, any `set -…u…` (`set -euo pipefail`), or a shebang
  that turns it on.
- `point_defaults`: `${VAR:-default}` / `${VAR:=default}` (and `-` / `=`) with a non-empty default
  on a variable the workflow passes per point (`scripts.point_env`).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Literal

from rules.changeset import ChangeSet
from rules.context import ReviewContext
from rules.policy import Statement, find_statement, policy_texts
from rules.scripts.parse import Command, Reference, Script, literal, text_of

# --- the written rules at the base ----------------------------------------------------------------
_MUST_NOT = r"(?:no|never|don'?t|do\s+not|must\s+not|shall\s+not|cannot|may\s+not)"
_BANNED = r"(?:not\s+allowed|forbidden|prohibited|disallowed|banned|not\s+permitted)"
# F6: a sentence that forbids new directories in `/workspace` ("no new directories … /workspace").
_NO_WORKSPACE_DIR = re.compile(
    rf"(?i)(?:\b(?:{_MUST_NOT}|avoid|not)\b[^.]{{0,60}}\bnew\s+(?:sub)?director(?:y|ies)\b[^.]{{0,80}}/workspace\b"
    rf"|/workspace\b[^.]{{0,60}}\b(?:{_MUST_NOT}|without)\b[^.]{{0,30}}\bnew\s+(?:sub)?director(?:y|ies)\b"
    rf"|\bnew\s+(?:sub)?director(?:y|ies)\b[^.]{{0,40}}/workspace\b[^.]{{0,40}}\b{_BANNED})")
# F9: a sentence that forbids `set -u` (`set -o nounset`, `set -euo pipefail`).
_SET_U = r"(?:\bset\s+-[a-z]*u[a-z]*\b|\bnounset\b)"
_NO_SET_U = re.compile(rf"(?i)(?:\b{_MUST_NOT}\b[^.]{{0,80}}{_SET_U}|{_SET_U}[^.]{{0,80}}\b{_BANNED})")
_AVOID_SET_U = re.compile(rf"(?i)\b(?:avoid|without)\b[^.]{{0,80}}{_SET_U}")
# F9: a sentence that forbids defaults for caller-supplied configuration (`${VAR:-default}`).
_FALLBACK = r"(?:\$\{\w*:?[-=]|\bfall[- ]?backs?\b|\bdefault\s+values?\b)"
_CALLER = r"(?=[^.]*\b(?:caller|callers|input|inputs|config\w*|environment|env|variables?|launcher)\b)"
_NO_FALLBACK = re.compile(
    rf"(?i){_CALLER}(?:\b{_MUST_NOT}\b[^.]{{0,80}}{_FALLBACK}|{_FALLBACK}[^.]{{0,80}}\b{_BANNED})")
_AVOID_FALLBACK = re.compile(rf"(?i){_CALLER}\b(?:avoid|without)\b[^.]{{0,80}}{_FALLBACK}")
# "mandatory", "must", "required" in the lines above a weaker wording ("avoid …") make it a rule.
_MANDATORY = re.compile(r"(?i)\b(?:mandatory|must|required|always)\b")
_SECTION = 15


def _written(cs: ChangeSet, strict: re.Pattern[str], weak: re.Pattern[str]) -> Statement | None | Literal[False]:
    texts = policy_texts(cs)
    if texts is None:
        return None
    hit = find_statement(texts, strict)
    if hit is not None:
        return hit
    soft = find_statement(texts, weak)
    if soft is None:
        return False
    lines = texts[soft.path].split("\n")
    above = lines[max(0, soft.line - 1 - _SECTION):soft.line]
    for back, text in enumerate(reversed(above)):
        if _MANDATORY.search(text):
            return soft
        if back and text.startswith("#"):  # the heading of the section: nothing above it is this rule's
            break
    return False


def workspace_rule(cs: ChangeSet) -> Statement | None | Literal[False]:
    """The base's statement forbidding new directories under `/workspace` (F6); False when its guidance
    has none; None when the guidance was not read."""
    return _written(cs, _NO_WORKSPACE_DIR, re.compile(r"(?!)"))


def nounset_rule(cs: ChangeSet) -> Statement | None | Literal[False]:
    """The base's mandatory statement forbidding `set -u` (F9)."""
    return _written(cs, _NO_SET_U, _AVOID_SET_U)


def fallback_rule(cs: ChangeSet) -> Statement | None | Literal[False]:
    """The base's mandatory statement forbidding defaults for caller-supplied configuration (F9)."""
    return _written(cs, _NO_FALLBACK, _AVOID_FALLBACK)


def said(rule: Statement) -> str:
    return f"{rule.path}:{rule.line}: {rule.text}"


# --- F6: directories created under /workspace -----------------------------------------------------
WORKSPACE = "/workspace"
_UNDER = re.compile(r"^/workspace/+([A-Za-z0-9_.][^/]*)")
_REF = re.compile(r"^\$(?:\{(\w+)\}|(\w+))")
_DEFAULTED = re.compile(r"^\$\{(\w+):?[-=]([^}$`]*)\}$")


@dataclass(frozen=True)
class WorkspaceDir:
    path: str  # the script
    line: int
    command: str  # the command as written (shortened)
    target: str  # the directory it creates, variables replaced
    via: str | None  # the variable the path came from


def _value(node, supplied: set[str]) -> str | None:
    """A literal value, or the literal default of `${Y:-/literal}` when nothing the review knows of
    supplies `Y` (the workflow's and the runner's variables do: their values win)."""
    got = literal(node)
    if got is not None:
        return got
    raw = text_of(node).strip()
    if len(raw) > 1 and raw[0] == raw[-1] == '"':
        raw = raw[1:-1]
    m = _DEFAULTED.match(raw)
    return m.group(2) if m and m.group(1) not in supplied else None


def _paths_of(script: Script, supplied: set[str]) -> dict[str, list[tuple[int, str | None]]]:
    """Variable → (line, literal value or None) for each assignment, in order."""
    out: dict[str, list[tuple[int, str | None]]] = {}
    for a in script.assignments:
        if a.declaration == "prefix" or a.array or a.append:
            continue
        out.setdefault(a.name, []).append((a.line, _value(a.value, supplied) if a.value is not None else None))
    return out


def _expand(word: str, line: int, values: dict[str, list[tuple[int, str | None]]]) -> tuple[str, str | None] | None:
    """The word with a leading `$X` / `${X}` replaced by X's literal value above `line` (None when the
    assignments above give it none or several)."""
    w = word.strip()
    if len(w) > 1 and w[0] == w[-1] and w[0] in "\"'":
        w = w[1:-1]
    m = _REF.match(w)
    if not m:
        return w, None
    name = m.group(1) or m.group(2)
    before = {v for ln, v in values.get(name, ()) if ln < line}
    value = before.pop() if len(before) == 1 else None  # unset, not a literal, or set apart on two paths
    if value is None:
        return None
    return value + w[m.end():], name


def _operands(args, words, with_value: set[str]) -> list:
    """The argument nodes that are not options (nor the values of options in `with_value`)."""
    out, skip = [], False
    for a, w in zip(args, words, strict=True):
        if skip:
            skip = False
        elif w in with_value:
            skip = True
        elif not w.startswith("-"):
            out.append(a)
    return out


_CLONE_VALUES = {"-b", "--branch", "--depth", "-o", "--origin", "--reference", "-c", "--config"}


def _created(c: Command) -> list:
    """The argument nodes naming directories this command creates."""
    words = [text_of(a) for a in c.args]
    if c.name == "mkdir":
        return _operands(c.args, words, {"-m", "--mode"})
    if c.name == "install" and any(re.fullmatch(r"-[A-Za-z]*d[A-Za-z]*|--directory", w) for w in words):
        return _operands(c.args, words, {"-m", "--mode", "-o", "--owner", "-g", "--group"})
    if c.name == "git" and words[:1] == ["clone"]:
        return _operands(c.args[1:], words[1:], _CLONE_VALUES)[1:2]  # the repository, then the directory
    if c.name in ("huggingface-cli", "hf"):
        for i, w in enumerate(words):
            if w == "--local-dir" and i + 1 < len(c.args):
                return [c.args[i + 1]]
            if w.startswith("--local-dir="):
                return [c.args[i]]
    return []


def workspace_dirs(script: Script, added: set[int] | None, known: set[str],
                   supplied: set[str]) -> list[WorkspaceDir]:
    """Directories under `/workspace/` the added commands create; `known` holds the directories the
    workflow itself names (a directory at or under one of them is not new), `supplied` the variables
    the workflow or the runner sets (a default of theirs is not the value the benchmark runs with)."""
    values = _paths_of(script, supplied)
    out = []
    for c in script.commands:
        if c.name not in ("mkdir", "install", "git", "huggingface-cli", "hf"):
            continue
        if added is not None and not set(range(c.line, c.end_line + 1)) & added:
            continue
        for a in _created(c):
            word = text_of(a)
            if word.startswith("--local-dir="):
                word = word.split("=", 1)[1]
            got = _expand(word, c.line, values)
            if got is None:
                continue
            target, via = got
            m = _UNDER.match(target)
            if not m:
                continue
            norm = posixpath.normpath(target)
            if any(norm == k or norm.startswith(k + "/") for k in known):
                continue
            if not norm.startswith(WORKSPACE + "/"):
                continue
            shown = " ".join(c.text.split())
            out.append(WorkspaceDir(script.path, c.line, shown if len(shown) <= 100 else shown[:97] + "…",
                                    norm, via))
    return out


def workflow_dirs(point_env: dict[str, str]) -> set[str]:
    """The `/workspace/…` directories the workflow names in the environment it passes (`RESULT_DIR`)."""
    return {posixpath.normpath(v) for v in point_env.values()
            if v.startswith(WORKSPACE + "/") and "{" not in v}


# --- F9: set -u and defaults of caller-supplied configuration -------------------------------------
_SHEBANG_U = re.compile(r"^#!\S*(?:\s+\S+)?\s+-[A-Za-z]*u[A-Za-z]*\b")


@dataclass(frozen=True)
class Nounset:
    line: int
    text: str


def nounset_lines(script: Script, added: set[int] | None) -> list[Nounset]:
    """Commands on added lines that turn on `set -u` (`set -u`, `set -euo pipefail`, `set -o nounset`)."""
    out = []
    first = script.lines[0] if script.lines else ""
    if _SHEBANG_U.match(first) and (added is None or 1 in added):
        out.append(Nounset(1, first.strip()))
    for c in script.commands_named("set"):
        if added is not None and c.line not in added:
            continue
        words = [text_of(a) for a in c.args]
        on = any(re.fullmatch(r"-[A-Za-z]*u[A-Za-z]*", w) for w in words) or any(
            w == "-o" and i + 1 < len(words) and words[i + 1] == "nounset"
            for i, w in enumerate(words)) or any(w.startswith("-") and "o" in w and i + 1 < len(words)
                                                 and words[i + 1] == "nounset" for i, w in enumerate(words))
        if on:
            out.append(Nounset(c.line, " ".join(c.text.split())))
    return sorted(out, key=lambda n: n.line)


_DEFAULT_OPS = (":-", "-", ":=", "=")


def _default_of(r: Reference) -> str | None:
    """The default text of `${X:-default}` (None when there is no default or it is empty)."""
    raw = text_of(r.node)
    m = re.match(r"^\$\{\w+(:?[-=])(.*)\}$", raw, re.S)
    if not m:
        return None
    d = m.group(2).strip()
    return d if d and d not in ('""', "''") else None


def point_defaults(script: Script, added: set[int] | None, names: set[str]) -> list[tuple[Reference, str]]:
    """`${VAR:-default}` reads with a non-empty default of the variables in `names`, on added lines."""
    out = []
    for r in script.references:
        if r.operator not in _DEFAULT_OPS or r.name not in names:
            continue
        if added is not None and r.line not in added:
            continue
        d = _default_of(r)
        if d is not None:
            out.append((r, d))
    return out


def nounset_reported(ctx: ReviewContext, path: str, set_u_line: int) -> bool:
    """Whether nounset-enabled reports the `set -u` at `set_u_line` of `path`: the base forbids it and
    the PR adds it to a benchmark script (the unset-variable rules then leave the reads it makes unsafe)."""
    from rules.scripts.facts import touched
    from rules.scripts.resolve import parsed

    if ctx.kind(path) != "scripts":
        return False
    rule = ctx.memo(("scripts", "nounset-rule"), lambda: nounset_rule(ctx.changeset))
    if rule is None or rule is False:
        return False
    script = parsed(ctx, path)
    if not isinstance(script, Script):
        return False
    return any(n.line == set_u_line for n in nounset_lines(script, touched(ctx, path)))
