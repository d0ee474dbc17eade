"""Flags speculative-decoding flags the PR adds to a plain-named benchmark script that no point of a key reaches.

## Why it matters
Single-node scripts are named `<model>_<precision>_<sku>[_<framework>][_mtp].sh`, and the
launchers pick `…_mtp.sh` for keys with `spec-decoding: mtp`. A script without a speculative
name that turns on EAGLE/MTP is likely to be run by a plain key and its results published as
plain decoding (#1139: `dsv4_fp4_b200.sh` gained `--speculative-algo EAGLE` before any key
reached it). This is read from the file name only, so it is a nit: which script a key runs is the
launcher's choice, and when a point resolves to the script speculative-flags-in-non-mtp-script
judges what the point runs instead.

## When it fires
Only scripts under `benchmarks/single_node/` named like a point's script (`<model>_<precision>_<sku>…`,
a precision such as `fp8`, `bf16`, `int4`), that no resolved point runs (any point: an MTP key
routed to a plain-named script is an MTP point), whose name says nothing speculative (`_mtp`,
`_eagle3`, `_spec…`, `_draft…`), on lines the PR adds, outside a condition that mentions
SPEC_DECODING/MTP. SPEED-Bench acceptance-length collectors (`benchmarks/single_node/speedbench/`)
measure speculative acceptance on purpose and are not checked.

## Example
    # benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200.sh, no key resolves to it
    python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE ...

## Fix
Name the script `…_mtp.sh` (and give its key `spec-decoding: mtp`), or make the flags depend on
`SPEC_DECODING`.
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.facts import changed_scripts, resolved_for, touched
from rules.scripts.names import name_parts
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed

CODE = "RR422"
NAME = "speculative-flags-in-plain-named-script"
SEVERITY = Severity.NIT
_ANY_SPEC = re.compile(r"(?<![\w-])--(?:speculative[\w-]*|num-speculative-tokens)(?![\w-])")
_PRECISION = re.compile(r"(?:nv|mx)?fp\d+(?:fp\d+)?|bf16|int\d+|w\d+a\d+")
_GUARD = re.compile(r"SPEC|MTP|mtp|EAGLE", re.I)
# A name that says the script is speculative (`…_mtp.sh`, `…_eagle3.sh`, `…_spec…`).
_SPECULATIVE_NAME = re.compile(r"(?:^|_)(?:mtp|eagle\w*|spec\w*|draft\w*)(?:_|\.sh$)", re.I)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in changed_scripts(ctx):
        name = f.path.rsplit("/", 1)[-1]
        if "/single_node/" not in f.path or "/speedbench/" in f.path or _SPECULATIVE_NAME.search(name):
            continue
        parts = name_parts(f.path)
        if parts is None or not _PRECISION.fullmatch(parts[1]):
            continue  # not named like a benchmark point's script (a smoke test, a helper)
        if resolved_for(ctx, f.path):
            continue  # a key reaches it: what its points run is RR410's
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        lines = touched(ctx, f.path) or set()
        for stmt in script.statements():
            for line in script.flag_lines(stmt.node, _ANY_SPEC):
                if line not in lines or any(_GUARD.search(c.text) for c in stmt.conditions):
                    continue
                flag = _ANY_SPEC.search(script.lines[line - 1]).group(0)
                yield Problem(f.path, line, f"non-MTP script `{name}` passes `{flag}`",
                              evidence=("the file name has no `_mtp` suffix, so its results would be published as "
                                        "plain decoding", "no enclosing condition mentions SPEC_DECODING/MTP",
                                        "no key's point resolves to the script: read from its name"))
                break
            else:
                continue
            break
