"""Flags a role with too few nodes for its workers: nodes × GPUs per node below workers × GPUs per worker.

## Why it matters
The job allocates the nodes the recipe states, and srtctl cannot place the workers on fewer
nodes than they need: the launch fails after the job waited in the queue for its nodes, and the
sweep point produces no result.

## When it fires
For each role of an srt-slurm (`resources.{prefill,decode,agg}_{nodes,workers}`,
`gpus_per_{role}`, `gpus_per_node`) or schema-2 (`roles.<role>.{nodes,workers,gpus}`) recipe that
declares its GPUs per worker, the nodes the role needs follow srtctl's allocator
(`allocate_endpoints` in srt-slurm's `src/srtctl/core/topology.py`, the launcher the multinode
sweep runs): a worker of a full node or more takes ⌈GPUs / GPUs per node⌉ nodes of its own;
smaller workers are packed ⌊GPUs per node / GPUs per worker⌋ to a node
(`{role}_workers_per_node` overrides the packing) unless `spread_workers` /
`spread_{role}_workers` gives each its own node. When the job's nodes run out the allocator
raises `ValueError` ("Not enough nodes: need node …"), so the job fails after waiting in the
queue. Roles allowed to share nodes (`backend.allow_prefill_decode_colocation`) are packed by
srtctl itself and are compared together. Without a declared GPU count srtctl derives it from
the nodes, and there is nothing to compare.

More nodes than the workers use is not a failure: the allocator places the workers on the first
nodes and starts nothing on the rest, so the engines run the topology the recipe describes and
the result is not wrong. That is `workers-nodes-excess` (a nit).

## Example
    gpus_per_node: 4
    decode_nodes: 1
    decode_workers: 1
    gpus_per_decode: 8               # one worker needs two 4-GPU nodes

## Fix
Set the node count to what the workers need (2 here), or change the workers or GPUs per worker.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving.layout import node_fits
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import changed_settings, suggest_number

CODE = "RR217"
NAME = "workers-nodes-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, bps in changed_settings(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            fits, skips = node_fits(bp)
            for key, text in skips:
                skipped.add(key, bp.name, text)
            for fit in fits:
                if fit.verdict != "few":
                    if fit.verdict == "ok":
                        good.add((fit.es.role if fit.es else "coloc", fit.arith), bp.name, fit.ok_text)
                    continue
                if fit.es is None:
                    msg = (f"the roles share nodes and need {fit.need} ({fit.arith}), but their node counts add up to "
                           f"only `{fit.stated}`")
                    bad.add((fit.lines, msg), bp.name, (fit.where, fit.lines, msg, None))
                    continue
                es = fit.es
                msg = (f"{es.nodes.name} is `{fit.stated}` ({fit.stated} × {fit.gpn} = {fit.stated * fit.gpn} GPUs), "
                       f"but {fit.arith}")
                sug = suggest_number(ctx, path, es.nodes.line, fit.stated, fit.need)
                bad.add((es.nodes.line, msg), bp.name, (fit.where, fit.lines, msg, sug))
        for (w, lines, msg, sug), names in bad.items():
            line = anchor(ctx, path, *lines)
            yield Problem(path, line, f"{w}: {msg}{points_note(names)}.",
                          suggestion=sug if line == lines[0] else None)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
