"""Flags a master-config key whose launcher runs a script that starts a different engine than the key's framework.

## Why it matters
A launcher without a framework suffix (or with a fallback to the untagged name) runs the same
script for every framework of a model and SKU. A new `atom` key then benchmarks the SGLang
script and publishes the numbers as ATOM's (#383: `dsr1-fp8-mi300x-atom` on a launcher that adds
no framework suffix, so it runs `dsr1_fp8_mi300x.sh`, an SGLang script).

## When it fires
Keys the PR adds or changes are checked. The script's engine is what it launches (`vllm serve`,
`sglang.launch_server`, `trtllm-serve`, `atom`); frameworks with no single-node engine of that
name (`dynamo-*`, `*-disagg`, `llmd-*`) are not compared.

## Example
    dsr1-fp8-mi300x-atom:
      framework: atom
      runner: mi300x
    # launch_mi300x-amds.sh runs benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi300x.sh
    # which starts python3 -m sglang.launch_server

## Fix
Add the framework's script under the name the launcher builds for it (or teach the launcher
the framework suffix), so the key runs its own engine.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import changed_key_names, groups, key_line
from rules.serving.siblings import features

CODE = "RR417"
NAME = "script-framework-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "written:F7"
ENFORCES = ("F7",)
ENGINES = {"sglang": "sglang", "vllm": "vllm", "trt": "trt", "atom": "atom"}


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    keys = changed_key_names(ctx)
    seen = set()
    for g in groups(ctx):
        r = g.first
        if g.key not in keys or not r.script or not r.script_exists:
            continue
        framework = str(r.point.values.get("framework") or "")
        want = ENGINES.get(framework)
        if want is None or (g.key, r.script) in seen:
            continue
        seen.add((g.key, r.script))
        feats = features(ctx, r.script)
        got = feats.engine if feats is not None else None
        if got is None:
            continue
        where = key_line(ctx, g.key)
        if got == want:
            yield Passed(f"key `{g.key}` (framework {framework}) runs `{r.script}`, a {got} script",
                         path=where[0] if where else None)
            continue
        if where is None:
            continue
        yield Problem(where[0], where[1],
                      f"key `{g.key}` (framework `{framework}`) runs `{r.script.rsplit('/', 1)[-1]}`, which starts "
                      f"{got}, not {want}",
                      evidence=(f"{r.chain()} (launcher line {r.script_line})",
                                f"`{r.script}` launches {got}"))
