"""Flags cudagraph capture sizes vLLM drops or clamps without capturing them: dead config.

## Why it matters
The recipe claims a capture range the engine never uses, so a reader (or the next recipe that
copies it) believes batches up to that size run with graphs. It is usually a value copied from a
recipe with a larger token budget (#1304's decode roles: `max-cudagraph-capture-size: 2048` with
`max-num-batched-tokens: 256`), and it hides which of the two the author meant.

## When it fires
Per point and vLLM role, what vLLM does instead of what the recipe writes:

- **Above the token budget.** `VllmConfig._set_cudagraph_sizes` (`vllm/config/vllm.py`) keeps
  only listed sizes `<= max-num-batched-tokens` ("cudagraph_capture_sizes specified in
  compilation_config … is overridden by config …"), and lowers a `max_cudagraph_capture_size`
  given without a list to the budget (`min(max_num_tokens, max_cudagraph_capture_size)`, then
  "Truncating max_cudagraph_capture_size to …"). No step could use those graphs anyway: the
  scheduler never schedules more than the budget in one step (`Scheduler.schedule`,
  `vllm/v1/core/sched/scheduler.py`). When every listed size is above the budget, no graph is
  captured at all and the role runs eagerly.
- **Decode-only graphs outside the decode range.** In `FULL_DECODE_ONLY` there are no graphs
  for mixed batches, and `CudagraphDispatcher.initialize_cudagraph_keys`
  (`vllm/v1/cudagraph_dispatcher.py`) captures decode graphs only for sizes from k + 1 up to
  `max-num-seqs × (k + 1)`: larger sizes, and sizes of zero or below, are never captured.

A list and a cap that together make vLLM refuse to start are `capture-list-end-mismatch`'s
(blocking); a list that simply ends below the budget is normal and not reported. A nit: the
engine runs, and runs the point it reports; the recipe only states graphs that do not exist.

## Example
    max-num-batched-tokens: 512
    max-cudagraph-capture-size: 2048       # vLLM captures up to 512

## Fix
Lower the capture size to `max-num-batched-tokens` (or drop it), or raise the token budget if
the larger batches were meant; in `FULL_DECODE_ONLY`, end the list at max-num-seqs × (k + 1).
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import DECODE_ONLY_MODES, Once, captures, changed_recipes, fmt, points_note, where

CODE = "RR222"
NAME = "capture-size-dropped"
SEVERITY = Severity.NIT
ENFORCES = ("E2",)


def _listed(xs: list[int]) -> str:
    return ", ".join(fmt(x) for x in xs[:8]) + (f" … ({len(xs)} sizes)" if len(xs) > 8 else "")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, _ in changed_recipes(ctx):
        bad, good = Once(), []
        for point, cap in captures(ctx, path):
            w = where(point, cap.role)
            found = []
            sizes = cap.engine_sizes
            kept = cap.kept_sizes()
            if (
                sizes is None
                and cap.sizes is None
                and cap.mccs is not None
                and cap.mbt is not None
                and cap.mccs > cap.mbt
            ):
                found.append((
                    (cap.mccs_line, cap.mbt_line),
                    f"max cudagraph capture size `{fmt(cap.mccs)}` exceeds max-num-batched-tokens `{fmt(cap.mbt)}`: "
                    f"vLLM clamps it to {fmt(cap.mbt)} (dead config)",
                    f"Lower the capture size to {cap.mbt}, or raise max-num-batched-tokens.",
                    (f"capture size = {cap.mccs}", f"max-num-batched-tokens = {cap.mbt}",
                     f"graphs captured up to {cap.mbt}")))
            consistent = cap.mccs is None or (kept is not None and cap.mccs == (kept[-1] if kept else 0))
            if sizes and kept is not None and len(kept) < len(sizes) and consistent:
                dropped = [s for s in sizes if s > cap.mbt]
                what = ("vLLM captures none of them and runs without CUDA graphs" if not kept
                        else f"vLLM drops {'it' if len(dropped) == 1 else 'them'} (dead config)")
                found.append((
                    (cap.sizes_line, cap.mbt_line),
                    f"capture size{'s' if len(dropped) > 1 else ''} {_listed(dropped)} above max-num-batched-tokens "
                    f"`{fmt(cap.mbt)}`: {what}",
                    f"Drop the sizes above {cap.mbt}, or raise max-num-batched-tokens.",
                    (f"max-num-batched-tokens = {cap.mbt}", f"kept: {kept}", f"dropped: {dropped}")))
            if cap.mode in DECODE_ONLY_MODES and cap.read_sizes:
                dmax = cap.decode_max
                above = [
                    s for s in sorted(set(cap.read_sizes)) if dmax and s > dmax and (cap.mbt is None or s <= cap.mbt)
                ]
                nonpos = [s for s in sorted(set(cap.read_sizes)) if s <= 0]
                if above:
                    found.append((
                        (cap.sizes_line, cap.mns_line, cap.k_line),
                        f"{cap.mode} capture list goes up to `{fmt(above[-1])}`, above the decode range "
                        f"max-num-seqs × (k + 1) = {cap.mns} × {cap.k + 1} = {dmax}: vLLM never captures "
                        f"{_listed(above)} (dead config)",
                        f"Drop the sizes above {dmax}, or raise max-num-seqs.",
                        (f"max-num-seqs = {cap.mns}", f"num_speculative_tokens = {cap.k}", f"last size = {above[-1]}")))
                if nonpos:
                    found.append((
                        (cap.sizes_line,),
                        f"{cap.mode} capture list holds `{_listed(nonpos)}`: decode graphs start at k + 1, so vLLM "
                        "never captures it (dead config)",
                        "Drop the sizes below 1.",
                        (f"cudagraph_capture_sizes = {cap.sizes}",)))
            for lines, msg, fix, evidence in found:
                bad.add((lines, msg), point.name, (w, lines, msg, fix, evidence))
            if not found and (sizes or cap.mccs is not None) and cap.mbt is not None:
                good.append(f"{w} every capture size is within max-num-batched-tokens {fmt(cap.mbt)}")
        for (w, lines, msg, fix, evidence), names in bad.items():
            yield Problem(
                path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", fix=fix, evidence=evidence
            )
        for g in good:
            yield Passed(f"{path}: {g} ✓", path=path)
