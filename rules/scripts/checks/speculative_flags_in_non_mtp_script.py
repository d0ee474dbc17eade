"""Flags speculative-decoding flags in the engine command of a point whose key does not ask for speculative decoding.

## Why it matters
A key without `spec-decoding: mtp` is published as a plain (non-speculative) result. If its
script turns on EAGLE/MTP anyway, the numbers are mislabelled and compared against plain runs
(#1145: the non-MTP `dsv4_fp4_b200.sh` passed `--speculative-algo EAGLE --speculative-num-steps 3`).

## Example
    # key dsv4-fp4-b200-sglang (no spec-decoding) → dsv4_fp4_b200.sh
    python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE ...

## Fix
Move the speculative flags to the `_mtp.sh` script (and key), or make them depend on
`SPEC_DECODING`.

The engine command is resolved per point (`rules.scripts.resolve`): a flag under
`if [[ "$SPEC_DECODING" == mtp ]]` is not passed to a non-MTP point and is not reported. A
script without the `_mtp` suffix that no non-MTP point reaches is read as written: speculative
flags on lines the PR adds, outside a condition on SPEC_DECODING/MTP, are reported, unless
its name says it is speculative (`_mtp`, `_eagle3`, `_spec…`). A point asks
for speculative decoding when its `spec-decoding` is anything but `none` (`mtp`, `eagle3`, …).
"""
from collections.abc import Iterator
import re

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import changed_key_names, changed_scripts, groups, resolved_for, speculative, touched
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed

CODE = "RR410"
NAME = "speculative-flags-in-non-mtp-script"
SEVERITY = Severity.BLOCKING
PROOF = "engine"
SPEC_FLAG = re.compile(r"^--(?:speculative[\w-]*|num-speculative-tokens|spec-[\w-]+)(?:=|$)")
_ANY_SPEC = re.compile(r"(?<![\w-])--(?:speculative[\w-]*|num-speculative-tokens)(?![\w-])")
_GUARD = re.compile(r"SPEC|MTP|mtp|EAGLE", re.I)
# A name that says the script is speculative (`…_mtp.sh`, `…_eagle3.sh`, `…_spec…`).
_SPECULATIVE_NAME = re.compile(r"(?:^|_)(?:mtp|eagle\w*|spec\w*|draft\w*)(?:_|\.sh$)", re.I)


def _static(ctx: ReviewContext, path: str) -> Iterator[Problem]:
    """A non-MTP-named script no non-MTP point resolved to: its own speculative flags, unguarded."""
    script = parsed(ctx, path)
    if not isinstance(script, Script):
        return
    lines = touched(ctx, path) or set()
    for stmt in script.statements():
        for line in script.flag_lines(stmt.node, _ANY_SPEC):
            if line not in lines or any(_GUARD.search(c.text) for c in stmt.conditions):
                continue
            flag = _ANY_SPEC.search(script.lines[line - 1]).group(0)
            yield Problem(path, line, f"non-MTP script `{path.rsplit('/', 1)[-1]}` passes `{flag}`",
                          evidence=("the file name has no `_mtp` suffix, so its results are published as plain decoding",
                                    "no enclosing condition mentions SPEC_DECODING/MTP"))
            return


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for f in changed_scripts(ctx):
        name = f.path.rsplit("/", 1)[-1]
        if "/single_node/" in f.path and not _SPECULATIVE_NAME.search(name) and not any(
                not speculative(r) for r in resolved_for(ctx, f.path)):
            yield from _static(ctx, f.path)
    changed = {f.path for f in ctx.changeset.files if f.status != "removed"}
    keys = changed_key_names(ctx)
    seen = set()
    for g in groups(ctx):
        r = g.first
        if r.engine is None or speculative(r) or not (r.script in changed or g.key in keys):
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
