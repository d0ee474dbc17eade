"""Flags a cudagraph capture list vLLM refuses: not a list, empty, a non-integer or a non-positive size.

## Why it matters
The engine refuses the configuration at start-up, after the job has waited in the queue for
its GPUs: the sweep point produces no result at all.

## When it fires
What vLLM does with `cudagraph_capture_sizes` (the compilation-config field, or its CLI
spellings `--cudagraph-capture-sizes` / `--cuda-graph-sizes`), and so what this rule claims:

- The JSON is validated against `CompilationConfig` (`vllm/engine/arg_utils.py`,
  `parse_dataclass`: `TypeAdapter(cls).validate_json`, a `ValidationError` becomes an argparse
  error and the server exits). The field is `list[int]`: a string or a number instead of a list,
  or an entry that pydantic cannot read as an integer (`10.5`, `"ten"`, `null`, a nested list),
  stops the server before it starts. Pydantic's lax mode *does* read `"10"`, `10.0` and `true`
  (as 1): those are `capture-list-unsorted`'s (a nit), not this rule's.
- An empty list fails the assertion in `VllmConfig._set_cudagraph_sizes` (`vllm/config/vllm.py`:
  a list "should contain at least one element when using cuda graph").
- A size of zero or below is kept (the list is only filtered by `max-num-batched-tokens`), and in
  every mode that captures mixed batches (`PIECEWISE`, `FULL`, `FULL_AND_PIECEWISE`, the default)
  every size is captured (`CudagraphDispatcher.initialize_cudagraph_keys`,
  `vllm/v1/cudagraph_dispatcher.py`) through `GPUModelRunner._dummy_run`
  (`vllm/v1/worker/gpu_model_runner.py`), which splits the size over requests: a size of 0
  divides by zero requests, a negative one fails its `sum(num_scheduled_tokens) == num_tokens`
  assertion. In `FULL_DECODE_ONLY` only sizes from k + 1 up are captured, so there a
  non-positive size is dead config (`capture-size-dropped`).

Repeated and out-of-order sizes are not failures: vLLM deduplicates and sorts the list
(`_set_cudagraph_sizes`), so they are `capture-list-unsorted`'s. Roles that run eagerly
(`enforce-eager`, `cudagraph_mode: NONE`) capture nothing and are not read.

## Example
    compilation-config: '{"cudagraph_mode":"FULL_AND_PIECEWISE","cudagraph_capture_sizes":[0,5,10.5,15]}'

## Fix
Write the sizes as positive integers (`[5, 10, 15]`), or drop the field to let vLLM generate
its default ladder.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import Capture, Once, captures, changed_recipes, engine_size, points_note, where

CODE = "RR201"
NAME = "capture-list-malformed"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def _defect(cap: Capture) -> tuple[str, str] | None:
    """(short reason, offending value) when vLLM refuses the list, else None."""
    sizes = cap.sizes
    if not isinstance(sizes, list):
        return "is not a list", repr(sizes)
    if not sizes:
        return "is empty", "[]"
    for x in sizes:
        if engine_size(x) is None:
            return "holds a size that is not an integer", repr(x)
    if cap.captures_mixed:
        for x in sizes:
            v = engine_size(x)
            if v is not None and v <= 0:
                return "holds a size that is not positive", str(x)
    return None


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, _ in changed_recipes(ctx):
        bad, good = Once(), []
        for point, cap in captures(ctx, path):
            if cap.sizes is None:
                continue
            defect = _defect(cap)
            if defect is None:
                good.append(f"{where(point, cap.role)} ({len(cap.sizes)} sizes)")
                continue
            bad.add((cap.sizes_line, defect), point.name, (point, cap, defect))
        for (point, cap, (reason, value)), names in bad.items():
            yield Problem(
                path, anchor(ctx, path, cap.sizes_line),
                f"{where(point, cap.role)}: cudagraph_capture_sizes {reason}: `{value}`{points_note(names)}.",
                evidence=(f"cudagraph_capture_sizes = {cap.sizes}", f"cudagraph_mode = {cap.mode or 'default'}"))
        if good:
            yield Passed(f"{path}: capture lists are lists of integers vLLM accepts: " + ", ".join(good) + " ✓",
                         path=path)
