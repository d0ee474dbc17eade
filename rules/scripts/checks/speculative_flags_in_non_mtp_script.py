"""Flags speculative-decoding flags in the engine command of a point whose key does not ask for speculative decoding.

## Why it matters
A key without `spec-decoding: mtp` is published as a plain (non-speculative) result. If its
script turns on EAGLE/MTP anyway, the numbers are mislabelled and compared against plain runs
(#1145: the non-MTP `dsv4_fp4_b200.sh` passed `--speculative-algo EAGLE --speculative-num-steps 3`).

## When it fires
The engine command is resolved per point (`rules.scripts.resolve`: key → runner → launcher →
script → command line): what the point runs is what the engine receives, so the proof is the
engine's (`vllm/engine/arg_utils.py` `EngineArgs.create_speculative_config`, SGLang's
`ServerArgs._handle_speculative_decoding`: a speculative flag on the command line turns
speculative decoding on). A flag under `if [[ "$SPEC_DECODING" == mtp ]]` is not passed to a
non-MTP point and is not reported. A point asks for speculative decoding when its
`spec-decoding` is anything but `none` (`mtp`, `eagle3`, …); which script it runs is the
launcher's choice, not the file name's: a key with `spec-decoding: mtp` that its launcher
routes to a script without `_mtp` in its name is an MTP point, and a key without it that
reaches an `…_mtp.sh` script is not. SPEED-Bench acceptance-length collectors
(`benchmarks/single_node/speedbench/`) are not throughput benchmarks and are not checked. A
script no point reaches is read by its name, which proves nothing:
speculative-flags-in-plain-named-script (a nit) reports it.

## Example
    # key dsv4-fp4-b200-sglang (no spec-decoding) → dsv4_fp4_b200.sh
    python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE ...

## Fix
Move the speculative flags to the `_mtp.sh` script (and key), or make them depend on
`SPEC_DECODING`.
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import changed_key_names, groups, speculative

CODE = "RR410"
NAME = "speculative-flags-in-non-mtp-script"
SEVERITY = Severity.BLOCKING
PROOF = "engine"
SPEC_FLAG = re.compile(r"^--(?:speculative[\w-]*|num-speculative-tokens|spec-[\w-]+)(?:=|$)")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    changed = {f.path for f in ctx.changeset.files if f.status != "removed"}
    keys = changed_key_names(ctx)
    seen = set()
    for g in groups(ctx):
        r = g.first
        if r.engine is None or speculative(r) or not (r.script in changed or g.key in keys):
            continue
        if r.script and "/speedbench/" in r.script:
            continue
        words = [w for w in r.engine.argv if w.text and SPEC_FLAG.match(w.text)]
        if not words:
            if r.script in changed:
                yield Passed(f"{r.chain()} (conc {g.concs}, spec-decoding "
                             f"{r.point.values.get('spec_decoding') or 'none'}): no speculative flags",
                             path=r.script, line=r.engine.line)
            continue
        w = words[0]
        if (w.path, w.line) in seen:
            continue
        seen.add((w.path, w.line))
        shown = " ".join(x.text or "" for x in words[:4])
        yield Problem(w.path, w.line,
                      f"`{w.text.split('=', 1)[0]}` is passed to key `{g.key}`, which asks for no speculative decoding",
                      evidence=(f"{r.chain()} (conc {g.concs})", f"speculative flags: `{shown}`",
                                f"engine command at {r.engine.path}:{r.engine.line}"))
