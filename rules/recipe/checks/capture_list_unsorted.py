"""Flags a cudagraph capture list with repeated, out-of-order or loosely typed sizes, which vLLM silently rewrites.

## Why it matters
A reader (and the next author who copies the ladder) takes the list for what is captured. A
repeated or misplaced size hides the size that was meant, and a quoted or boolean entry
(`true` is a graph of size 1) captures a graph nobody asked for.

## When it fires
vLLM normalizes the list before it captures anything: pydantic reads `"10"`, `10.0` and `true`
as integers (10, 10 and 1; `CompilationConfig.cudagraph_capture_sizes` is `list[int]`,
validated in lax mode by `parse_dataclass` in `vllm/engine/arg_utils.py`), and
`VllmConfig._set_cudagraph_sizes` (`vllm/config/vllm.py`) deduplicates and sorts it
(`list(set(...))`, then `.sort()`; older releases did the same in
`CompilationConfig.init_with_cudagraph_sizes`). The engine therefore runs the sorted set, and
the benchmark is what that set gives. A nit: nothing fails and nothing is mislabelled, but the
list no longer says what the engine captures, and a size out of place is usually a typo in a
hand-edited ladder (a `15` that should have been `25`). Lists vLLM refuses outright are
`capture-list-malformed`'s.

## Example
    compilation-config: '{"cudagraph_mode":"FULL_AND_PIECEWISE","cudagraph_capture_sizes":[5,10,15,15,25]}'

## Fix
Write the sizes once each, as integers, in increasing order (the suggestion gives the list vLLM
actually uses), and check the ladder step against `num_speculative_tokens + 1`.
"""
import re
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.serving.recipe_points import Capture, Once, captures, changed_recipes, points_note, where

CODE = "RR224"
NAME = "capture-list-unsorted"
SEVERITY = Severity.NIT
ENFORCES = ("E1",)
_LIST_IN_LINE = re.compile(r'("cudagraph_capture_sizes"\s*:\s*)\[[^\]]*\]')


def _defect(cap: Capture) -> tuple[str, str] | None:
    """(short reason, offending value) when vLLM rewrites a list it accepts, else None."""
    sizes, read = cap.sizes, cap.read_sizes
    if not read or not isinstance(sizes, list):
        return None  # absent, or refused (capture-list-malformed)
    for x in sizes:
        if isinstance(x, bool) or not isinstance(x, int):
            return "holds a size written as another type, which vLLM reads as an integer", repr(x)
    for a, b in zip(read, read[1:], strict=False):
        if b == a:
            return "repeats a size", str(b)
        if b < a:
            return f"is not increasing (`{b}` follows `{a}`)", str(b)
    return None


def _suggestion(ctx: ReviewContext, path: str, line: int | None, cap: Capture) -> str | None:
    """The head line with the list vLLM uses (sorted, deduplicated, integers), when that is a safe
    textual edit: the list sits in the JSON on that line, once."""
    sizes = cap.engine_sizes
    if line is None or sizes is None or line != cap.sizes_line:
        return None
    lines = ctx.head_doc(path).text.split("\n")
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    if len(_LIST_IN_LINE.findall(text)) != 1:
        return None
    fixed = ",".join(str(x) for x in sizes)
    return _LIST_IN_LINE.sub(lambda m: m.group(1) + "[" + fixed + "]", text)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for path, _ in changed_recipes(ctx):
        bad = Once()
        for point, cap in captures(ctx, path):
            defect = _defect(cap)
            if defect is not None:
                bad.add((cap.sizes_line, defect), point.name, (point, cap, defect))
        for (point, cap, (reason, value)), names in bad.items():
            line = anchor(ctx, path, cap.sizes_line)
            yield Problem(
                path, line,
                f"{where(point, cap.role)}: cudagraph_capture_sizes {reason}: `{value}`{points_note(names)}.",
                suggestion=_suggestion(ctx, path, line, cap),
                evidence=(f"cudagraph_capture_sizes = {cap.sizes}", f"vLLM captures {cap.engine_sizes}"))
