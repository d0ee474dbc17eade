"""Flags a cudagraph capture list and `max_cudagraph_capture_size` that vLLM refuses together.

## Why it matters
The engine refuses the configuration at start-up, after the job has waited in the queue for its
GPUs: the sweep point produces no result.

## When it fires
What vLLM does with the two settings (the releases that have `max_cudagraph_capture_size`,
≈ 0.11.1 on; older ones have no such field), per point and vLLM role:

- `VllmConfig._set_cudagraph_sizes` (`vllm/config/vllm.py`) deduplicates and sorts the list,
  drops the sizes above `max-num-batched-tokens`, and takes the largest size left as the valid
  maximum (0 when none is left). When **both** the list and `max_cudagraph_capture_size` are
  written and the cap is not that maximum, it raises `ValueError` ("customized
  max_cudagraph_capture_size … should be consistent with the max value of
  cudagraph_capture_sizes"): the server does not start. This rule reports that case. The cap
  must therefore equal the largest listed size that is not above the token budget; when the
  budget is not written, a cap that is not one of the listed sizes fails whatever the budget
  is, and a cap below the list's end depends on vLLM's default budget (Skipped).
- `EngineArgs.create_engine_config` (`vllm/engine/arg_utils.py`) raises "… are mutually
  exclusive" when the compilation-config field and its CLI spelling are both given
  (`cudagraph_capture_sizes` with `--cudagraph-capture-sizes`, `max_cudagraph_capture_size`
  with `--max-cudagraph-capture-size`).

Everything else about the end of the list is not a failure, so not this rule's:

- a list that ends below `max-num-batched-tokens` is normal. The scheduler never runs more
  than the token budget in one step (`Scheduler.schedule`, `vllm/v1/core/sched/scheduler.py`:
  `token_budget = self.max_num_scheduled_tokens`), vLLM's own default ladder stops at
  min(2 × max-num-seqs × (k + 1), 512), and steps above the last size run without a graph by
  design;
- sizes above the budget without a conflicting cap, a cap alone above the budget (vLLM clamps
  it: "Truncating max_cudagraph_capture_size"), and `FULL_DECODE_ONLY` sizes above the decode
  range are dropped silently: dead config, `capture-size-dropped` (a nit).

## Example
    max-num-batched-tokens: 8192
    compilation-config: '{"cudagraph_mode":"FULL_AND_PIECEWISE","max_cudagraph_capture_size":8192,"cudagraph_capture_sizes":[5,10,4096]}'

## Fix
Set `max_cudagraph_capture_size` to the largest listed size within the token budget (4096 here),
or drop it: vLLM derives it from the list.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.recipe_points import Once, captures, changed_recipes, fmt, points_note, where

CODE = "RR202"
NAME = "capture-list-end-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:  # noqa: C901 (per point and role checks, then grouped findings, passes and skips)
    for path, _ in changed_recipes(ctx):
        bad, good, skipped = Once(), [], Once()
        for point, cap in captures(ctx, path):
            w = where(point, cap.role)
            found = []
            for twice, field in (
                (cap.sizes_twice, "cudagraph_capture_sizes"),
                (cap.mccs_twice, "max_cudagraph_capture_size"),
            ):
                if twice is not None:
                    name, line = twice
                    found.append((
                        (line, cap.sizes_line),
                        f"{field} is set both in compilation-config and as `{name}`, which vLLM refuses together",
                        f"Keep one of the two: drop `{name}` or the compilation-config field.",
                        (f"{name} (line {line})", f"compilation-config {field}")))
            sizes = cap.engine_sizes
            if sizes and cap.mccs is not None:
                kept = cap.kept_sizes()
                if kept is not None:
                    top = kept[-1] if kept else 0
                    if cap.mccs != top:
                        if top == sizes[-1]:
                            msg = f"capture list ends at `{sizes[-1]}` but max_cudagraph_capture_size is `{cap.mccs}`"
                            evidence = (
                                f"last of {len(sizes)} sizes = {sizes[-1]}",
                                f"max_cudagraph_capture_size = {cap.mccs}",
                            )
                        else:
                            dropped = [s for s in sizes if s > cap.mbt]
                            msg = (
                                f"max_cudagraph_capture_size is `{cap.mccs}`, but the largest listed size vLLM keeps "
                                f"under max-num-batched-tokens {fmt(cap.mbt)} is `{top}`"
                            )
                            evidence = (
                                f"sizes above the budget, dropped: {dropped}",
                                f"kept: up to {top}",
                                f"max_cudagraph_capture_size = {cap.mccs}",
                                f"max-num-batched-tokens = {cap.mbt}",
                            )
                        found.append((
                            (cap.sizes_line, cap.mccs_line, cap.mbt_line), msg,
                            f"Set max_cudagraph_capture_size to {top}, or drop it (vLLM takes the list's end)."
                            if top else "Write sizes within max-num-batched-tokens, or raise the budget.",
                            evidence))
                elif cap.mccs not in sizes:
                    found.append((
                        (cap.sizes_line, cap.mccs_line),
                        f"capture list ends at `{sizes[-1]}` but max_cudagraph_capture_size is `{cap.mccs}`",
                        "Set max_cudagraph_capture_size to the list's end, or drop it (vLLM takes the list's end).",
                        (f"max_cudagraph_capture_size = {cap.mccs} is not a listed size", f"last size = {sizes[-1]}")))
                elif cap.mccs != sizes[-1]:
                    skipped.add(
                        (cap.sizes_line, cap.mccs),
                        point.name,
                        f"{w}: max_cudagraph_capture_size {fmt(cap.mccs)} is below the list's end {fmt(sizes[-1])}; "
                        "whether vLLM keeps the larger sizes depends on max-num-batched-tokens, which the role "
                        "does not write",
                    )
            for lines, msg, fix, evidence in found:
                bad.add((lines, msg), point.name, (w, lines, msg, fix, evidence))
            if not found and sizes and cap.mccs is not None and cap.kept_sizes() is not None:
                good.append(f"{w} max_cudagraph_capture_size {fmt(cap.mccs)} = the list's end within the token budget")
        for (w, lines, msg, fix, evidence), names in bad.items():
            yield Problem(
                path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", fix=fix, evidence=evidence
            )
        for g in good:
            yield Passed(f"{path}: {g} ✓", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
