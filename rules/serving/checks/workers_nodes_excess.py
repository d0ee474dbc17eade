"""Flags a role that states more nodes than its workers use: the extra nodes are allocated and left idle.

## Why it matters
Each idle node is a whole machine taken from the shared cluster for every run of the sweep, and
the count usually comes from a layout with another node size: #1649 copied the GB200 (4-GPU)
counts to B200 (8-GPU) recipes, `decode_nodes: 2` for one 8-GPU decode worker.

## When it fires
The nodes a role needs follow srtctl's allocator (`allocate_endpoints` in srt-slurm's
`src/srtctl/core/topology.py`, the same arithmetic as `workers-nodes-mismatch`): workers of a
full node or more take ⌈GPUs / GPUs per node⌉ nodes each, smaller ones are packed (or spread with
`spread_workers`), and a count of one node (set) per worker also fits the older templates. The
allocator walks the job's nodes in order and starts nothing on the nodes left after the last
worker, so each engine runs exactly the topology its parallelism describes, and the point
reports what it ran. Roles allowed to share nodes are packed by srtctl, which lowers the job's
node count itself, so they are not judged here.

A nit: nothing fails and nothing is mislabelled; the job holds nodes nobody uses for the length
of the sweep. Too few nodes, which fails the launch, is `workers-nodes-mismatch` (blocking).

## Example
    gpus_per_node: 8
    decode_nodes: 2
    decode_workers: 1
    gpus_per_decode: 8               # one worker fills one node

## Fix
Set the node count to what the workers need (1 here), or change the workers or GPUs per worker.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.serving.layout import node_fits
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import changed_settings, suggest_number

CODE = "RR223"
NAME = "workers-nodes-excess"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for path, bps in changed_settings(ctx):
        bad = Once()
        for bp in bps:
            fits, _ = node_fits(bp)
            for fit in fits:
                if fit.verdict != "many" or fit.es is None:
                    continue
                es = fit.es
                idle = fit.stated - fit.need
                msg = (f"{es.nodes.name} is `{fit.stated}` ({fit.stated} × {fit.gpn} = {fit.stated * fit.gpn} GPUs), "
                       f"but {fit.arith}: {idle} node{'s' if idle > 1 else ''} allocated and left idle")
                sug = suggest_number(ctx, path, es.nodes.line, fit.stated, fit.need)
                bad.add((es.nodes.line, msg), bp.name, (fit.where, fit.lines, msg, sug))
        for (w, lines, msg, sug), names in bad.items():
            line = anchor(ctx, path, *lines)
            yield Problem(path, line, f"{w}: {msg}{points_note(names)}.",
                          suggestion=sug if line == lines[0] else None)
