"""Flags a benchmark client call that hard-codes a size the harness passes per point (`CONC`, `ISL`, `OSL`).

## Why it matters
The sweep runs one script for every point of a master config. A literal `--max-concurrency 64`
or `--num-prompts 640` measures the same load at every concurrency, and `--input-len 1024` the
same sequence length for every `isl`: the published curve is flat by construction.

## When it fires
On lines the PR adds to a benchmark script it adds or changes: it fires for each
`run_benchmark_serving` call, or command with an argument ending in `benchmark_serving.py` (`python3
…/benchmark_serving.py`), that gives `--max-concurrency`, `--num-prompts`, `--input-len`,
`--output-len`, `--random-input-len` or `--random-output-len` a literal integer (`--flag 64` or
`--flag=64`). A value built from a variable or an arithmetic expansion (`"$CONC"`, `$((CONC * 10))`)
is not flagged, nor are the commands inside the `run_benchmark_serving` function's own body; a
script that does not parse is not checked. The rule reports no passed check.

## Example
    run_benchmark_serving --max-concurrency 64 --num-prompts 640 --input-len "$ISL" ...

## Fix
Use the point's values: `--max-concurrency "$CONC" --num-prompts $((CONC * 10))`.
"""
import re
from collections.abc import Iterator

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
            is_client = c.name == "run_benchmark_serving" or any(
                w and w.endswith("benchmark_serving.py") for w in words
            )
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
                yield Problem(
                    f.path,
                    line,
                    f"`{flag} {val}` is hard-coded; the harness passes `${SIZED[flag]}` per point",
                    evidence=(f"{c.name} call at line {c.line}",),
                )
