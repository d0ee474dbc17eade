"""Flags a benchmark client call that hard-codes a size the harness passes per point (`CONC`, `ISL`, `OSL`).

## Why it matters
The sweep runs one script for every point of a master config. A literal `--max-concurrency 64`
or `--num-prompts 640` measures the same load at every concurrency, and `--input-len 1024` the
same sequence length for every `isl`: the published curve is flat by construction.

## Example
    run_benchmark_serving --max-concurrency 64 --num-prompts 640 --input-len "$ISL" ...

## Fix
Use the point's values: `--max-concurrency "$CONC" --num-prompts $((CONC * 10))`.

Checks `run_benchmark_serving` calls (and direct `benchmark_serving.py` runs) on lines the PR adds.
"""
from collections.abc import Iterator
import re

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script, line_of
from rules.scripts.resolve import parsed

CODE = "RR408"
NAME = "benchmark-size-hard-coded"
SEVERITY = Severity.NIT
SIZED = {"--max-concurrency": "CONC", "--num-prompts": "CONC", "--input-len": "ISL", "--output-len": "OSL",
         "--random-input-len": "ISL", "--random-output-len": "OSL"}


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in changed_scripts(ctx):
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        lines = touched(ctx, f.path) or set()
        for c in script.commands:
            words = c.literal_args()
            is_client = c.name == "run_benchmark_serving" or any(w and w.endswith("benchmark_serving.py") for w in words)
            if not is_client or c.function == "run_benchmark_serving":
                continue
            for i, w in enumerate(words):
                flag, eq, val = (w or "").partition("=")
                if flag not in SIZED:
                    continue
                if not eq:
                    if i + 1 >= len(words):
                        continue
                    val = words[i + 1] or ""
                    node = c.args[i + 1]
                else:
                    node = c.args[i]
                line = line_of(node)
                if not re.fullmatch(r"\d+", val) or line not in lines:
                    continue
                yield Problem(f.path, line, f"`{flag} {val}` is hard-coded; the harness passes `${SIZED[flag]}` per point",
                              evidence=(f"{c.name} call at line {c.line}",))
