"""Flags decode capture sizes that are not multiples of `num_speculative_tokens + 1`.

## Why it matters
A decode batch pads up to the next captured size. Sizes off the k + 1 grid are never hit
exactly, so real batches pad past them: capture time and graph memory are spent on graphs that
run with wasted slots, and the benchmark reflects padding rather than the recipe. A ladder left
at the old step after a draft-length change is the usual cause.

## When it fires
The decode part of a list is its sizes up to `max-num-seqs × (k + 1)`, k =
`num_speculative_tokens` (0 without speculative decoding). With k drafts every decode step
schedules k + 1 tokens per sequence, so decode batches come in multiples of k + 1. The rule
flags, per point and vLLM role:

- a ladder with a uniform step other than k + 1 (a list built for another draft length, e.g.
  multiples of 4 after `num_speculative_tokens` went from 3 to 4);
- sizes that break an otherwise aligned ladder (most sizes are multiples of k + 1, a few are not).

Two shapes seen in the real recipes are deliberate and pass: a dense ladder (every size from
its first to its last, step 1), which captures every multiple of k + 1 as well; and a hand-tuned
list where most decode sizes are not multiples and no uniform step exists (reported as skipped).

## Example
    speculative-config: '{"method":"mtp","num_speculative_tokens":4}'
    compilation-config: '{"cudagraph_mode":"FULL_AND_PIECEWISE","cudagraph_capture_sizes":[5,10,16,20,25,8192]}'

## Fix
Rebuild the decode part as the multiples of k + 1 up to `max-num-seqs × (k + 1)` (5, 10, …, 120
for k = 4 and max-num-seqs 24), then the prefill ladder.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.recipe_points import Capture, Once, captures, changed_recipes, points_note, where

CODE = "RR203"
NAME = "capture-list-decode-misaligned"
SEVERITY = Severity.NIT
ENFORCES = ("E4",)


def classify(cap: Capture) -> tuple[str, list[int]]:
    """('aligned'|'dense'|'stale'|'outliers'|'irregular'|'n/a', misaligned decode sizes)."""
    sizes, dmax = cap.valid_sizes, cap.decode_max
    if not sizes or dmax is None or cap.k is None:
        return "n/a", []
    step = cap.k + 1
    decode = [s for s in sizes if s <= dmax]
    off = [s for s in decode if s % step]
    if not off:
        return "aligned", []
    diffs = {b - a for a, b in zip(decode, decode[1:], strict=False)}
    if diffs == {1}:
        return "dense", []
    if len(decode) >= 3 and len(diffs) == 1:
        return "stale", off
    if len(decode) - len(off) >= len(off):
        return "outliers", off
    return "irregular", off


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, _ in changed_recipes(ctx):
        bad, good, odd = Once(), [], []
        for point, cap in captures(ctx, path):
            kind, off = classify(cap)
            if kind == "n/a":
                continue
            w = where(point, cap.role)
            step = cap.k + 1
            decode = [s for s in cap.valid_sizes if s <= cap.decode_max]
            if kind in ("aligned", "dense"):
                how = "multiples of" if kind == "aligned" else "a dense ladder covering every multiple of"
                good.append(f"{w}: {len(decode)} decode sizes up to {decode[-1]} are {how} k + 1 = {step}")
                continue
            if kind == "irregular":
                odd.append(f"{w}: {len(off)} of {len(decode)} decode sizes are off the k + 1 = {step} grid "
                           f"with no uniform step (hand-tuned list); alignment not checked")
                continue
            shown = ", ".join(str(s) for s in off[:6]) + (", …" if len(off) > 6 else "")
            if kind == "stale":
                d = decode[1] - decode[0]
                msg = (f"decode sizes step by `{d}`, a ladder for {d - 1} draft tokens, but "
                       f"num_speculative_tokens is `{cap.k}` (multiples of {step} expected)")
            else:
                msg = (f"decode size{'s' if len(off) > 1 else ''} `{shown}` "
                       f"{'are' if len(off) > 1 else 'is'} not a multiple of num_speculative_tokens + 1 = {step}")
            ladder = list(range(step, cap.decode_max + 1, step))
            fix = (f"Use the multiples of {step} up to max-num-seqs × (k + 1) = {cap.mns} × {step} = {cap.decode_max}: "
                   f"{ladder[:4]}… then the sizes above {cap.decode_max}." if len(ladder) > 4 else
                   f"Use the multiples of {step} up to {cap.decode_max}: {ladder}.")
            bad.add((cap.sizes_line, cap.k_line, msg), point.name,
                    (w, (cap.sizes_line, cap.k_line), msg, fix,
                     (f"num_speculative_tokens = {cap.k} → step {step}", f"max-num-seqs = {cap.mns}",
                      f"decode part (≤ {cap.decode_max}) = {decode}")))
        for (w, lines, msg, fix, evidence), names in bad.items():
            yield Problem(
                path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", fix=fix, evidence=evidence
            )
        for g in good:
            yield Passed(f"{path}: {g} ✓", path=path)
        for o in odd:
            yield Skipped(f"{path}: {o}", path=path)
