"""Flags a recipe name whose `NpMd` disagrees with the prefill and decode worker counts.

## Why it matters
The name is how the sweep, the dashboards and reviewers tell layouts apart; a `1p1d` recipe that
launches two decode workers is published and compared as a layout it is not (#3103).

## When it fires
Disaggregated recipe names state their layout as `NpMd` (`disagg-b200-2p1d-dep8.yaml`,
`name: "…-4p2d-…"`): N prefill and M decode workers. Both the recipe's `name:` (per point, for
variant bundles) and its file name are read. A count also passes when it equals the role's
nodes and that role's workers span several nodes each (some recipes name multi-node workers by
node count: `12p4d` for 6 prefill workers of 8 GPUs on 4-GPU nodes). GPUs per worker are
`gpus_per_{role}`, or what srtctl derives when it is not set: nodes × GPUs per node / workers.

## Example
    name: "model-disagg-1p1d-tp4"
    resources:
      prefill_workers: 1
      decode_workers: 2

## Fix
Rename the recipe (and its master-config reference) to the layout it runs, or change the worker
counts to the named layout.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import Once, as_int, points_note
from rules.serving.settings import changed_settings, npmd, where

CODE = "RR218"
NAME = "recipe-name-workers-mismatch"
SEVERITY = Severity.NIT


def _side(es) -> tuple[int | None, int | None, bool]:
    """(workers, nodes, workers span nodes) of a role."""
    w = as_int(es.workers.value) if es.workers is not None else None
    n = as_int(es.nodes.value) if es.nodes is not None else None
    g = as_int(es.gpus.value) if es.gpus is not None else None
    gpn = as_int(es.gpus_per_node.value) if es.gpus_per_node is not None else None
    if g is None and n and gpn and w:
        g = n * gpn // w  # srtctl derives GPUs per worker from nodes × GPUs per node / workers
    return w, n, bool(g and gpn and g > gpn)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, bps in changed_settings(ctx):
        bad, good = Once(), Once()
        base = path.rsplit("/", 1)[-1]
        for bp in bps:
            pre = next((r for r in bp.roles if r.role == "prefill"), None)
            dec = next((r for r in bp.roles if r.role == "decode"), None)
            if pre is None or dec is None:
                continue
            sides = (_side(pre), _side(dec))
            if sides[0][0] is None and sides[1][0] is None:
                continue
            sources = []
            if bp.recipe_name is not None and isinstance(bp.recipe_name.value, str):
                sources.append(("name", bp.recipe_name.value, bp.recipe_name.line))
            sources.append(("file name", base, None))
            said = set()
            for what, text, line in sources:
                named = npmd(text)
                if named is None or named in said:
                    continue  # the file name repeating the `name:` layout is one claim
                said.add(named)
                wrong = []
                for label, count, (w, n, spans), es in zip(("prefill", "decode"), named, sides, (pre, dec),
                                                           strict=True):
                    ww = w if w is not None else 1
                    if count == ww or (spans and count == n):
                        continue
                    wrong.append((label, count, ww, es))
                w = where(bp)
                if not wrong:
                    good.add(
                        (what, text),
                        bp.name,
                        f"{w}: {what} `{text}` = {sides[0][0] or 1}p{sides[1][0] or 1}d workers ✓",
                    )
                    continue
                parts = "; ".join(
                    f"{count} {label} named, {ww} {label} worker{'s' if ww != 1 else ''} "
                    f"({es.workers.name if es.workers else 'default 1'})"
                    for label, count, ww, es in wrong
                )
                msg = f"the {what} `{text}` says {named[0]}p{named[1]}d, but the recipe runs another layout: {parts}"
                lines = (line,) + tuple(es.workers.line for _, _, _, es in wrong if es.workers is not None)
                bad.add((what, text, parts), bp.name, (w, lines, msg))
        for (w, lines, msg), names in bad.items():
            yield Problem(path, anchor(ctx, path, *lines) or 1, f"{w}: {msg}{points_note(names)}.")
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
