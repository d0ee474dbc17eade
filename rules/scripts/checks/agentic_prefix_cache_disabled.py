"""Flags an agentic benchmark script that turns the engine's prefix cache off.

## Why it matters
The agentic scenario replays multi-turn coding sessions: every turn resends the conversation so
far, and what it measures is how well the server reuses that shared prefix (RadixAttention in
SGLang, prefix caching in vLLM). With the prefix cache off every turn is prefilled from scratch,
the hit rate is zero and the throughput and latency numbers describe a configuration no agentic
deployment runs (#1709: an agentic SGLang script passed `--disable-radix-cache` while its own
HiCache branches explained that the replay depends on prefix reuse). Random-prompt
(`fixed_seq_len`) scripts disable it on purpose, since their prompts share nothing; no agentic
script on the repository's main does.

## When it fires
Scripts under an `agentic/` directory (or named `…agentic…`) are checked, on the lines the PR
adds or edits; the flag counts wherever it is written outside comments (a command, an array, a
variable holding flags).

## Example
    # benchmarks/single_node/agentic/dsv4_fp4_mi355x_sglang.sh
    sglang serve --model-path "$MODEL" --disable-radix-cache ...

## Fix
Drop the flag (SGLang `--disable-radix-cache`, vLLM `--no-enable-prefix-caching`) from agentic
scripts; if an offload backend needs it off, say so in a comment and in the PR.
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed

CODE = "RR419"
NAME = "agentic-prefix-cache-disabled"
SEVERITY = Severity.NIT
FLAGS = {"--disable-radix-cache": "SGLang", "--no-enable-prefix-caching": "vLLM"}
_FLAG = re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in FLAGS) + r")(?![\w-])")


def _agentic(path: str) -> bool:
    parts = path.split("/")
    return "agentic" in parts[:-1] or "agentic" in parts[-1]


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for f in changed_scripts(ctx):
        if not _agentic(f.path):
            continue
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        lines = touched(ctx, f.path)
        hits = [n for n in script.flag_lines(script.root, _FLAG) if lines is None or n in lines]
        if not hits:
            yield Passed(f"{f.path}: an agentic script, and the PR turns no prefix cache off", path=f.path)
            continue
        for n in hits:
            flag = _FLAG.search(script.lines[n - 1]).group(1)
            yield Problem(f.path, n,
                          f"agentic script turns the {FLAGS[flag]} prefix cache off (`{flag}`): the trace replay's "
                          "shared prefixes are prefilled again on every turn",
                          evidence=(f"`{f.path}` is an agentic-scenario script",
                                    f"line {n}: `{script.lines[n - 1].strip()[:80]}`"))
