"""Pure: find slash commands in a comment, and the table of commands with who may run them.

A command is a line that starts with `/` (up to three leading spaces). Lines inside fenced code
blocks (``` or ~~~), indented code (4+ spaces) and quotes (`> /…`) are not commands, nor is a `/`
in the middle of a line. Names are lower-case; `/Review` is answered as an unknown command with
a hint. The `/help` reply and the README table are generated from COMMANDS.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Permission levels, lowest to highest, as the collaborator-permission API's `role_name` gives them.
LEVELS = ("none", "read", "triage", "write", "maintain", "admin")


def level(role: str) -> int:
    return LEVELS.index(role) if role in LEVELS else 0


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    help: str
    min_role: str  # lowest repository role allowed to run it
    aliases: tuple[str, ...] = ()
    author_may: bool = False  # the PR's author may run it whatever their role


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("review", "/review", "Re-run the full review of the current head.", "write"),
    CommandSpec("sweep", "/sweep <fail-fast|enabled|non-canary> [all-evals] [evals-only] [agentx-fast] · /sweep off",
                "Set the sweep labels in one go (replacing any other primary label); `off` removes them.", "write"),
    CommandSpec("reuse-sweep-run", "/reuse-sweep-run [run_id] · /use <run_id>",
                "Reuse a successful full sweep of the current head at merge instead of running a new one.",
                "maintain", aliases=("use",)),
    CommandSpec("ignore", "/ignore <code> [reason] · /ignore <code> off · /unignore <code>",
                "Dismiss a rule's findings on this PR: the summary lists them as ignored (by whom, why), the "
                "`recipe-review` check and the sweep gate stop counting them, later pushes keep them ignored; "
                "`off` (or `/unignore`) counts them again.", "maintain", aliases=("unignore",)),
    CommandSpec("fix", "/fix · /fix changelog",
                "Push one commit to the PR branch that fixes every finding with a computable fix (the changelog "
                "entry moved to the end, history restored, pr-link and separators, safe suggestions); "
                "`changelog` fixes the changelog only. A fork without maintainer edits gets the patch instead.",
                "write", author_may=True),
    CommandSpec("explain", "/explain <code>", "Show a rule's documentation, e.g. `/explain RR001`.", "read"),
    CommandSpec("help", "/help", "List the commands and who may use them.", "read"),
)
BY_NAME = {c.name: c for c in COMMANDS} | {a: c for c in COMMANDS for a in c.aliases}

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CMD = re.compile(r"^ {0,3}/([A-Za-z][\w-]*)(?:[ \t]+(.*?))?[ \t]*$")


@dataclass(frozen=True)
class Command:
    name: str  # as typed (lower-case for known commands)
    args: tuple[str, ...]
    line: int  # 1-based line in the comment
    spec: CommandSpec | None  # None: unknown command

    @property
    def known(self) -> bool:
        return self.spec is not None


def parse(body: str | None) -> list[Command]:
    """Every command line of a comment body, in order."""
    out = []
    fence = None
    for i, raw in enumerate((body or "").splitlines(), start=1):
        m = _FENCE.match(raw)
        if m:
            fence = None if fence == m.group(1) else (fence or m.group(1))
            continue
        if fence:
            continue
        m = _CMD.match(raw)
        if not m:
            continue
        name = m.group(1)
        args = tuple((m.group(2) or "").split())
        out.append(Command(name, args, i, BY_NAME.get(name)))
    return out


def suggestion_for(name: str) -> str | None:
    low = name.lower()
    return f"/{low}" if low in BY_NAME else None


def help_text() -> str:
    rows = ["| Command | What it does | Who may use it |", "|---|---|---|"]
    for c in COMMANDS:
        who = "anyone" if c.min_role == "read" else f"`{c.min_role}` permission or higher"
        if c.author_may:
            who += ", or the PR author"
        rows.append(f"| `{c.usage}` | {c.help} | {who} |")
    return "\n".join(rows)
