"""Flags a single-node benchmark script that runs `benchmark_serving.py` itself instead of `run_benchmark_serving`.

## Why it matters
`run_benchmark_serving` (benchmark_lib.sh) is what makes results comparable: the backend, the
model name the server answers to, `--num-prompts` = 10 × concurrency, warm-ups, result paths.
A direct call drifts from all of these (#914: `--backend openai-chat`, a model name the server
rejects, `CONC*5` prompts and no warm-ups).

## When it fires
On lines the PR adds to a single-node benchmark script (a path with `/single_node/`) it adds or
changes: it fires for each command, outside any shell function, whose name or one of whose arguments
ends in `benchmark_serving.py`. Commands inside a function body are not checked, nor is a script
that does not parse; the rule reports no passed check.

## Example
    python3 utils/bench_serving/benchmark_serving.py --model glm-5-fp8 --num-prompts $((CONC * 5)) ...

## Fix
Call the helper: `run_benchmark_serving --model "$MODEL" --port "$PORT" --backend vllm
--input-len "$ISL" --output-len "$OSL" --max-concurrency "$CONC" --num-prompts $((CONC * 10)) …`.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed

CODE = "RR409"
NAME = "benchmark-helper-bypassed"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in changed_scripts(ctx):
        if "/single_node/" not in f.path:
            continue
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        lines = touched(ctx, f.path) or set()
        for c in script.commands:
            if c.line not in lines or c.function is not None:
                continue
            words = [a.text.decode("utf-8", "replace") for a in c.args]
            hit = next((w for w in [c.name or "", *words] if w.strip("\"'").endswith("benchmark_serving.py")), None)
            if hit is None:
                continue
            yield Problem(
                f.path,
                c.line,
                f"the script runs `{hit.strip(chr(34))}` directly instead of `run_benchmark_serving`",
                evidence=(c.text[:120],),
            )
