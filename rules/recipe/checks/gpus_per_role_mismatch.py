"""Flags a role whose declared GPU count differs from the product of its parallelism.

## Why it matters
The launcher allocates the declared GPUs and the engine spawns one rank per parallel slot. When
they disagree the job either fails to start after waiting in the queue for nodes, or leaves GPUs
idle while the benchmark reports per-GPU throughput over the declared count.

## When it fires
Declared: `resources.gpus_per_{prefill,decode,agg}` (srt-slurm) or `roles.<role>.gpus`
(schema 2). Computed: vLLM `tensor × data × pipeline × prefill-context` parallel size; SGLang
`tp × pp` (data-parallel attention runs inside the TP group); TensorRT-LLM
`tensor_parallel_size × pipeline_parallel_size`. Decode-context parallelism reuses the TP ranks
and does not multiply.

## Example
    resources:
      gpus_per_decode: 8
    backend:
      vllm_config:
        decode:
          tensor-parallel-size: 4
          data-parallel-size: 4      # 16 ranks on 8 GPUs

## Fix
Make the declared count equal the product (16 here), or change the parallel sizes to fit it.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import Once, as_int, changed_recipes, parallelism, points_note, where

CODE = "RR207"
NAME = "gpus-per-role-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "written:E14"
ENFORCES = ("E14",)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, points in changed_recipes(ctx):
        bad, good = Once(), Once()
        for point in points:
            for role in point.roles:
                if role.gpus is None:
                    continue
                par = parallelism(role)
                declared = as_int(role.gpus.value)
                if par is None or declared is None:
                    continue
                w = where(point, role)
                if declared == par.gpus:
                    good.add((role.gpus.line, par.lines), point.name, f"{w}: {par.arith} = {role.gpus_key} {declared}")
                    continue
                msg = f"{role.gpus_key} is `{declared}` but {role.engine} parallelism gives {par.arith}"
                if len(par.factors) == 1:
                    msg = f"{role.gpus_key} is `{declared}` but {par.arith}"
                bad.add(
                    (role.gpus.line, par.lines, msg),
                    point.name,
                    (
                        w,
                        (role.gpus.line, *par.lines),
                        msg,
                        f"Set {role.gpus_key} to {par.gpus}, or change the parallel sizes so their product "
                        f"is {declared}.",
                        tuple(f"{n} = {v}" for n, v, _ in par.factors) + (f"{role.gpus_key} = {declared}",),
                    ),
                )
        for (w, lines, msg, fix, evidence), names in bad.items():
            yield Problem(
                path, anchor(ctx, path, *lines), f"{w}: {msg}{points_note(names)}.", fix=fix, evidence=evidence
            )
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)} ✓", path=path)
