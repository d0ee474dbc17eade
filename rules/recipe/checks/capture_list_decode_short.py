"""Flags a capture list that does not include `max-num-seqs × (num_speculative_tokens + 1)`.

## Why it matters
The largest decode step schedules `max-num-seqs` sequences of k + 1 tokens each. When that size
is not captured, full decode batches pad up to the next larger size (a prefill-ladder size, with
many wasted slots) or, above the last size, run eagerly; either way the busiest decode steps of
the benchmark are slower than the recipe intends. It is a nit because the engine still runs.

## When it fires
Per point and vLLM role of a YAML recipe the PR changes (roles that run eagerly, with
`enforce-eager` or `cudagraph_mode: NONE`, capture nothing and are not read), when the role writes a
capture list of positive, strictly increasing integers and a `max-num-seqs` (k is
`num_speculative_tokens` of `speculative-config`, 0 without one): it fires when `max-num-seqs × (k +
1)` is not one of the listed sizes, and says whether full decode batches pad to a larger size or run
eagerly. A list vLLM refuses or rewrites (`capture-list-malformed`, `capture-list-unsorted`) and a
role without `max-num-seqs` are not judged; a value inherited by several points is reported once.

## Example
    max-num-seqs: 24
    speculative-config: '{"method":"mtp","num_speculative_tokens":4}'
    compilation-config: '{"cudagraph_capture_sizes":[5,10,15,20,25,30,8192]}'   # 120 missing

## Fix
Extend the decode ladder to max-num-seqs × (k + 1) (120 here), or lower max-num-seqs to the
last decode size divided by k + 1.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import Once, captures, changed_recipes, points_note, where

CODE = "RR204"
NAME = "capture-list-decode-short"
SEVERITY = Severity.NIT
ENFORCES = ("E5",)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, _ in changed_recipes(ctx):
        bad, good = Once(), []
        for point, cap in captures(ctx, path):
            sizes, dmax = cap.valid_sizes, cap.decode_max
            if not sizes or not dmax:
                continue
            w = where(point, cap.role)
            arith = f"max-num-seqs × (k + 1) = {cap.mns} × {cap.k + 1} = {dmax}"
            if dmax in sizes:
                good.append(f"{w}: {arith} is captured")
                continue
            below = [s for s in sizes if s < dmax]
            above = [s for s in sizes if s > dmax]
            tail = (f"decode sizes stop at `{below[-1]}`" if below else "no size reaches the decode range")
            tail += f"; full decode batches pad to `{above[0]}`" if above else "; full decode batches run eagerly"
            msg = f"{arith} is not captured: {tail}"
            bad.add((cap.sizes_line, cap.mns_line, cap.k_line, msg), point.name,
                    (w, (cap.sizes_line, cap.mns_line, cap.k_line), msg,
                     (f"max-num-seqs = {cap.mns}", f"num_speculative_tokens = {cap.k}", f"sizes = {sizes}")))
        for (w, lines, msg, evidence), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", evidence=evidence)
        for g in good:
            yield Passed(f"{path}: {g} ✓", path=path)
