"""Flags a cudagraph capture list whose end disagrees with the cap, the scheduler budget or the decode range.

Per point and vLLM role: the list ends at `max_cudagraph_capture_size` when that is set; in the
modes that also capture prefill (`PIECEWISE`, `FULL_AND_PIECEWISE`) the largest size equals
`max-num-batched-tokens` and the cap is at most `max-num-batched-tokens`; a `FULL_DECODE_ONLY`
list holds decode sizes only (nothing above `max-num-seqs × (num_speculative_tokens + 1)`).
A list that stays inside the decode range is a deliberate decode-only list (a GPU-resident
conc-1 point, say) and is not held to the batched-token budget.

## Why it matters
vLLM refuses to start when the list and `max_cudagraph_capture_size` disagree. In the modes that
capture mixed prefill batches, batches above the last size run eagerly, so a list that stops
below `max-num-batched-tokens` benchmarks a slower engine than the recipe intends, and sizes
above it are captured for batches that never occur. A decode-only mode never runs a batch above
the decode range, so larger sizes only cost capture time and memory.

## Example
    max-num-batched-tokens: 8192
    compilation-config: '{"cudagraph_mode":"FULL_AND_PIECEWISE","max_cudagraph_capture_size":8192,"cudagraph_capture_sizes":[5,10,8704]}'

## Fix
End the list at `max-num-batched-tokens` (8192 here) and set `max_cudagraph_capture_size` to the
same value, or lower the scheduler budget to the last captured size.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.recipe.points import DECODE_ONLY_MODES, PREFILL_MODES, Once, anchor, captures, changed_recipes, fmt, points_note, where

CODE = "RR202"
NAME = "capture-list-end-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, _ in changed_recipes(ctx):
        bad, good = Once(), []
        for point, cap in captures(ctx, path):
            w = where(point, cap.role)
            sizes = cap.valid_sizes
            found = []
            if sizes and cap.mccs is not None and sizes[-1] != cap.mccs:
                found.append((
                    (cap.sizes_line, cap.mccs_line),
                    f"capture list ends at `{sizes[-1]}` but max_cudagraph_capture_size is `{cap.mccs}`",
                    f"End the list at {cap.mccs}, or set max_cudagraph_capture_size to {sizes[-1]}.",
                    (f"last of {len(sizes)} sizes = {sizes[-1]}", f"max_cudagraph_capture_size = {cap.mccs}")))
            if cap.mode in PREFILL_MODES and cap.mbt is not None:
                if sizes and not cap.decode_only_list and sizes[-1] != cap.mbt and not found:
                    found.append((
                        (cap.sizes_line, cap.mbt_line, cap.mns_line, cap.k_line),
                        f"{cap.mode} capture list ends at `{sizes[-1]}` but max-num-batched-tokens is `{cap.mbt}`",
                        f"End the list at {cap.mbt} (and max_cudagraph_capture_size with it), or set "
                        f"max-num-batched-tokens to {sizes[-1]}.",
                        (f"cudagraph_mode = {cap.mode}", f"last size = {sizes[-1]}",
                         f"max-num-batched-tokens = {cap.mbt}",
                         f"decode range = {cap.decode_max if cap.decode_max else '?'} (list goes beyond it)")))
                if sizes is None and cap.sizes is None and cap.mccs is not None and cap.mccs > cap.mbt:
                    found.append((
                        (cap.mccs_line, cap.mbt_line),
                        f"max cudagraph capture size `{cap.mccs}` exceeds max-num-batched-tokens `{cap.mbt}` in {cap.mode}",
                        f"Lower the capture size to {cap.mbt}, or raise max-num-batched-tokens.",
                        (f"cudagraph_mode = {cap.mode}", f"capture size = {cap.mccs}", f"max-num-batched-tokens = {cap.mbt}")))
            if cap.mode in DECODE_ONLY_MODES and sizes and cap.decode_max and sizes[-1] > cap.decode_max:
                found.append((
                    (cap.sizes_line, cap.mns_line, cap.k_line),
                    f"{cap.mode} capture list goes up to `{sizes[-1]}`, above the decode range "
                    f"max-num-seqs × (k + 1) = {cap.mns} × {cap.k + 1} = {cap.decode_max}",
                    f"Drop the sizes above {cap.decode_max}, or raise max-num-seqs.",
                    (f"max-num-seqs = {cap.mns}", f"num_speculative_tokens = {cap.k}", f"last size = {sizes[-1]}")))
            for lines, msg, fix, evidence in found:
                bad.add((lines, msg), point.name, (w, lines, msg, fix, evidence))
            if not found and sizes:
                parts = [f"ends at {fmt(sizes[-1])}"]
                if cap.mccs is not None:
                    parts.append(f"= max_cudagraph_capture_size {fmt(cap.mccs)}")
                if cap.mode in PREFILL_MODES and cap.mbt is not None:
                    parts.append("(decode-only list)" if cap.decode_only_list else f"= max-num-batched-tokens {fmt(cap.mbt)}")
                good.append(f"{w} " + " ".join(parts))
        for (w, lines, msg, fix, evidence), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", fix=fix, evidence=evidence)
        for g in good:
            yield Passed(f"{path}: {g} ✓", path=path)
