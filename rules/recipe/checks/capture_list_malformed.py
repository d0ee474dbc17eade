"""Flags a cudagraph capture list that is not a list of positive, strictly increasing integers.

## Why it matters
vLLM captures one CUDA graph per listed size and pads each batch up to the next size. A zero,
a negative or a non-integer size fails engine start-up; a repeated or out-of-order size is a
sign the list was edited by hand and no longer says what its author meant (a ladder with a
typo), and such lists are rejected or silently re-sorted depending on the vLLM version. Either
way the sweep measures something other than what the recipe claims.

## Example
    compilation-config: '{"cudagraph_mode":"FULL_AND_PIECEWISE","cudagraph_capture_sizes":[5,10,15,15,25]}'

## Fix
Write the sizes once each, in increasing order (the suggestion gives the sorted list when every
entry is a positive integer), and check the ladder step against `num_speculative_tokens + 1`.
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.recipe.points import Once, anchor, captures, changed_recipes, points_note, where

CODE = "RR201"
NAME = "capture-list-malformed"
SEVERITY = Severity.BLOCKING
PROOF = "engine"
_LIST_IN_LINE = re.compile(r'("cudagraph_capture_sizes"\s*:\s*)\[[^\]]*\]')


def _defect(sizes) -> tuple[str, str] | None:
    """(short reason, offending value) when the list is malformed, else None."""
    if not isinstance(sizes, list):
        return "is not a list", repr(sizes)
    if not sizes:
        return "is empty", "[]"
    for x in sizes:
        if isinstance(x, bool) or not isinstance(x, int):
            return "holds a size that is not an integer", repr(x)
        if x <= 0:
            return "holds a size that is not positive", str(x)
    for a, b in zip(sizes, sizes[1:]):
        if b == a:
            return "repeats a size", str(b)
        if b < a:
            return f"is not increasing (`{b}` follows `{a}`)", str(b)
    return None


def _suggestion(ctx: ReviewContext, path: str, line: int | None, sizes) -> str | None:
    """The head line with the list sorted and deduplicated, when that is a safe textual edit."""
    if line is None or not isinstance(sizes, list):
        return None
    if any(isinstance(x, bool) or not isinstance(x, int) or x <= 0 for x in sizes):
        return None
    lines = ctx.head_doc(path).text.split("\n")
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    if len(_LIST_IN_LINE.findall(text)) != 1:
        return None
    fixed = ",".join(str(x) for x in sorted(set(sizes)))
    return _LIST_IN_LINE.sub(lambda m: m.group(1) + "[" + fixed + "]", text)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, _ in changed_recipes(ctx):
        bad, good = Once(), []
        for point, cap in captures(ctx, path):
            if cap.sizes is None:
                continue
            defect = _defect(cap.sizes)
            if defect is None:
                good.append(f"{where(point, cap.role)} ({len(cap.sizes)} sizes)")
                continue
            bad.add((cap.sizes_line, defect), point.name, (point, cap, defect))
        for (point, cap, (reason, value)), names in bad.items():
            line = anchor(ctx, path, cap.sizes_line)
            yield Problem(
                path, line,
                f"{where(point, cap.role)}: cudagraph_capture_sizes {reason}: `{value}`{points_note(names)}.",
                suggestion=_suggestion(ctx, path, line, cap.sizes) if line == cap.sizes_line else None,
                evidence=(f"cudagraph_capture_sizes = {cap.sizes}",))
        if good:
            yield Passed(f"{path}: capture lists are positive, strictly increasing integers: " + ", ".join(good) + " ✓",
                         path=path)
