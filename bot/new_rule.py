"""`recipe-review new-rule DOMAIN NAME`: the skeleton of a new rule, its registry line and a test stub.

Writes, in a source tree (`--root`, default: the current directory):

- `rules/<domain>/checks/<name>.py`: the docstring sections the registry test and the README table
  read (summary, `## Why it matters`, `## When it fires`, `## Example`, `## Fix`), `CODE` (the next
  code of the domain's range after the highest one in use: codes are never reused), `NAME`,
  `SEVERITY = Severity.NIT` (blocking needs a `PROOF`, notes/proof.md) and a `check` function that
  walks the changed files of the domain's kinds;
- the module's import and its line at the end of `ALL_RULES` in `rules/registry.py`;
- `tests/rules/<domain>/test_<name>.py`: two tests that fail, saying what to write, until the author
  gives them a fixture the rule must flag and one it must pass.

Only files are written (nothing is imported or run), so it works on any checkout of the project.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

# The code range of each domain (RR<digit>xx) and the file kinds its rules usually read (rules/context.py).
DOMAINS: dict[str, tuple[int, tuple[str, ...]]] = {
    "changelog": (0, ("changelog",)),
    "master": (1, ("master_configs",)),
    "recipe": (2, ("recipes",)),
    "serving": (2, ("recipes", "scripts")),
    "general": (3, ("recipes", "master_configs")),
    "claims": (3, ("changelog",)),
    "scripts": (4, ("scripts", "launchers")),
}
_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)+")
_CODE = re.compile(r'^CODE = "RR(\d{3})"', re.M)
_RULE_NAME = re.compile(r'^NAME = "([^"]+)"', re.M)


class NewRuleError(ValueError):
    """The rule cannot be added as asked (the message says why)."""


def used_codes(root: Path) -> dict[int, str]:
    """Codes in use in the tree, by number, with the module that holds each."""
    out: dict[int, str] = {}
    for path in sorted((root / "rules").glob("*/checks/*.py")):
        m = _CODE.search(path.read_text(encoding="utf-8"))
        if m:
            out[int(m.group(1))] = str(path.relative_to(root))
    return out


def next_code(root: Path, domain: str) -> str:
    """The code after the highest one in the domain's range (RR000 is the engine's crash code)."""
    digit = DOMAINS[domain][0]
    low, high = digit * 100, digit * 100 + 99
    taken = [c for c in used_codes(root) if low <= c <= high]
    code = max(taken, default=low) + 1
    if code > high:
        raise NewRuleError(f"the {domain} range RR{digit}xx is full")
    return f"RR{code:03d}"


def _tuple(items: tuple[str, ...]) -> str:
    return "(" + ", ".join(f'"{i}"' for i in items) + ("," if len(items) == 1 else "") + ")"


def module_text(code: str, name: str, kinds: tuple[str, ...]) -> str:
    words = name.replace("-", " ")
    return f'''"""Flags TODO: one line saying what is wrong ({words}), not when the rule decides it.

## Why it matters
TODO: what goes wrong in the benchmark or the repository when this is merged (a wrong number, a
run that measures something else, a gate that rejects the PR), and for whom.

## When it fires
TODO: exactly what the rule reads and decides: which files and lines the PR touched, what it
compares, what it skips (with a Skipped and the reason) and the known cases it does not cover.

## Example
    TODO: the smallest snippet that is flagged

## Fix
TODO: what the author changes, in one or two sentences.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity

CODE = "{code}"
NAME = "{name}"
SEVERITY = Severity.NIT  # blocking needs a PROOF (notes/proof.md); a nit until it is proven
KINDS = {_tuple(kinds)}  # the file kinds this rule reads (rules/context.py KINDS)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in ctx.changeset.files:
        if f.status == "removed" or ctx.kind(f.path) not in KINDS:
            continue
        text = f.head_text
        if text is None:
            continue
        # TODO: decide from what the PR changed whether `f` has the problem, and for each place:
        #     yield Problem(f.path, line, "`value` is … because …", evidence=("what was read",))
    yield from ()
'''


def test_text(code: str, name: str, domain: str, module: str) -> str:
    return f'''"""{code} {name}: a fixture it must flag and one it must pass."""
from rules import ChangeSet, FileChange, run
from rules.{domain}.checks import {module}

# TODO: a changed file (or files) on which {code} must fire, and a control on which it must not, e.g.
#     VIOLATION = (FileChange("path/in/the/repo.yaml", "added", head=b"..."),)
VIOLATION: tuple[FileChange, ...] = ()
CONTROL: tuple[FileChange, ...] = ()


def _run(*files):
    return run(ChangeSet(files=tuple(files)), rules=[{module}])


def test_fires_on_the_violation():
    assert VIOLATION, "write VIOLATION: the changed files {code} must flag"
    r = _run(*VIOLATION)
    assert [f.code for f in r.findings] == ["{code}"], r.findings


def test_passes_the_control():
    assert CONTROL, "write CONTROL: changed files that look alike but that {code} must pass"
    r = _run(*CONTROL)
    assert r.findings == [], r.findings
'''


def add_to_registry(text: str, domain: str, module: str) -> str:
    """The registry with the module imported (in order) and appended to ALL_RULES."""
    block = re.search(rf"^from rules\.{domain}\.checks import \(\n(?P<body>(?:    \w+,\n)+)\)", text, re.M)
    if block is None:
        raise NewRuleError(f"rules/registry.py has no `from rules.{domain}.checks import (...)` block")
    names = sorted({*re.findall(r"\w+", block.group("body")), module})
    text = text[:block.start("body")] + "".join(f"    {n},\n" for n in names) + text[block.end("body"):]
    rules = re.search(r"^ALL_RULES = \(\n(?P<body>(?:    \w+,\n|    #.*\n|\n)+)\)", text, re.M)
    if rules is None:
        raise NewRuleError("rules/registry.py has no `ALL_RULES = (...)` tuple, one rule per line")
    return text[:rules.end("body")] + f"    {module},\n" + text[rules.end("body"):]


def new_rule(root: Path, domain: str, name: str) -> dict[str, str]:
    """Write the three pieces; return {"code", "module", "test"} (paths relative to `root`)."""
    if domain not in DOMAINS:
        raise NewRuleError(f"unknown domain `{domain}`; one of {', '.join(DOMAINS)}")
    if not _NAME.fullmatch(name):
        raise NewRuleError(f"NAME `{name}` is not kebab-case words naming the problem (e.g. `capture-list-unsorted`)")
    checks = root / "rules" / domain / "checks"
    registry = root / "rules" / "registry.py"
    if not checks.is_dir() or not registry.is_file():
        raise NewRuleError(f"{root} is not a recipe-review source tree (no rules/{domain}/checks or rules/registry.py)")
    module = name.replace("-", "_")
    path, test = checks / f"{module}.py", root / "tests" / "rules" / domain / f"test_{module}.py"
    for p in (path, test):
        if p.exists():
            raise NewRuleError(f"{p.relative_to(root)} exists already")
    for other in (root / "rules").glob("*/checks/*.py"):
        m = _RULE_NAME.search(other.read_text(encoding="utf-8"))
        if m and m.group(1) == name:
            raise NewRuleError(f"NAME `{name}` is taken by {other.relative_to(root)}")
    code = next_code(root, domain)
    registry_text = add_to_registry(registry.read_text(encoding="utf-8"), domain, module)
    path.write_text(module_text(code, name, DOMAINS[domain][1]), encoding="utf-8")
    test.parent.mkdir(parents=True, exist_ok=True)
    if not (test.parent / "__init__.py").exists():
        (test.parent / "__init__.py").write_text("", encoding="utf-8")
    test.write_text(test_text(code, name, domain, module), encoding="utf-8")
    registry.write_text(registry_text, encoding="utf-8")
    return {"code": code, "module": str(path.relative_to(root)), "test": str(test.relative_to(root))}


def cmd_new_rule(args: argparse.Namespace) -> int:
    from bot.cli import UsageError

    try:
        out = new_rule(Path(args.root), args.domain, args.name)
    except NewRuleError as err:
        raise UsageError(str(err)) from None
    print(f"{out['code']} {args.name}: wrote {out['module']} and {out['test']}; registered in rules/registry.py")
    print("next: fill in the docstring's TODOs and check(), write the test's VIOLATION and CONTROL, then "
          "`recipe-review docs --write README.md`")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    n = sub.add_parser("new-rule", help="write a new rule's module skeleton, its registry line and a test stub",
                       description="Write rules/DOMAIN/checks/NAME.py (docstring sections, the next free CODE of "
                                   "the domain's range, SEVERITY nit, a check function), add it to "
                                   "rules/registry.py, and write tests/rules/DOMAIN/test_NAME.py, whose tests fail "
                                   "until the fixtures are written. Exit 2 when the rule cannot be added.")
    n.add_argument("domain", metavar="DOMAIN", choices=sorted(DOMAINS), help=f"one of {', '.join(sorted(DOMAINS))}")
    n.add_argument("name", metavar="NAME", help="kebab-case, naming the problem, e.g. capture-list-unsorted")
    n.add_argument("--root", default=".", metavar="DIR", help="the recipe-review source tree (default: .)")
    n.set_defaults(func=cmd_new_rule)
