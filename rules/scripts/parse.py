"""Benchmark scripts as the rules see them: logical commands (continuations joined), comments removed.

A plain scan, like `rules.comments`: `\\` continuations join physical lines into one logical
command (with the line range it spans), comments are blanked out (quotes and here-documents
respected), and `if`/`elif`/`case` conditions are tracked so a rule can ask which conditions
enclose a line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rules.comments import shell_comments

_IF = re.compile(r"^\s*(?:if|elif|while|until|for|select)\b(?P<cond>.*?)(?:;\s*then\b|;\s*do\b|$)")
_ONE_LINE_LOOP = re.compile(r"^\s*(?:for|while|until|select)\b.*\bdo\b.*\bdone\b")
_FI = re.compile(r"(?:^|[\s;])(?:fi|done)\s*(?:[;|&)#]|$)")
_ELSE = re.compile(r"^\s*else\b")
_CASE = re.compile(r"^\s*case\s+(?P<word>.+?)\s+in\b")
_ESAC = re.compile(r"(?:^|[\s;])esac\b")
_ONE_LINE_IF = re.compile(r"^\s*if\b.*\bthen\b.*\bfi\b")


@dataclass(frozen=True)
class Command:
    """One logical command: its text (continuations joined) and the head lines it spans."""

    text: str
    line: int
    end_line: int
    conditions: tuple[str, ...]  # text of every enclosing if/elif/while/case condition


# Real benchmark scripts are a few hundred lines; a larger "script" is not scanned (bounded time).
MAX_SCRIPT_BYTES = 2 * 1024 * 1024


def too_large(raw: bytes | None) -> str | None:
    """Why a script is not scanned (size), or None."""
    if raw is not None and len(raw) > MAX_SCRIPT_BYTES:
        return f"script is {len(raw):,} bytes; scripts over {MAX_SCRIPT_BYTES:,} bytes are not scanned"
    return None


def strip_comments(text: str) -> list[str]:
    """The script's physical lines with comments blanked out."""
    lines = text.split("\n")
    for c in shell_comments(text):
        raw = lines[c.line - 1]
        lines[c.line - 1] = raw[: c.col].rstrip()
    if lines and lines[0].startswith("#!"):
        lines[0] = ""
    return lines


def commands(text: str) -> list[Command]:
    """Logical commands of a shell script, each with the conditions that enclose it."""
    lines = strip_comments(text)
    out: list[Command] = []
    stack: list[str] = []
    i = 0
    while i < len(lines):
        start = i
        parts = [lines[i]]
        while parts[-1].rstrip().endswith("\\") and i + 1 < len(lines):
            parts[-1] = parts[-1].rstrip()[:-1]
            i += 1
            parts.append(lines[i])
        logical = " ".join(p.strip() for p in parts)
        if not logical.strip():
            i += 1
            continue
        opened = None
        if _ONE_LINE_IF.match(logical) or _ONE_LINE_LOOP.match(logical):
            pass
        elif m := _IF.match(logical):
            opened = m.group("cond")
            if logical.lstrip().startswith("elif") and stack:
                stack[-1] = stack[-1] + " / " + opened
                opened = None
        elif m := _CASE.match(logical):
            opened = "case " + m.group("word")
        out.append(Command(logical, start + 1, i + 1, tuple(stack) + ((opened,) if opened else ())))
        if opened is not None:
            stack.append(opened)
        elif (_FI.search(logical) or _ESAC.search(logical)) and stack:
            stack.pop()
        i += 1
    return out


def script_commands(ctx, f) -> tuple[str | None, list[Command], str | None]:
    """(text, commands, why not read) of a changed script's head, parsed once per review and
    shared by the script rules; `why` is set (and text None) when the script is too large or its
    content is not available."""
    def compute():
        big = too_large(f.head)
        if big is not None:
            return None, [], big
        text = f.head_text
        if text is None:
            return None, [], "script content not available"
        return text, commands(text), None

    return ctx.memo(("shell", "commands", f.path), compute)
