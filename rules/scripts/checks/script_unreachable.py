"""Flags a benchmark script the PR adds that no master-config key reaches, while a key meant for it runs another script.

## Why it matters
The launcher picks the script by name. A script whose name differs from what the launcher
builds is never run: the sweep silently benchmarks the other script (#1499: a new
`dsr1_fp8_mi300x_mtp.sh`, but `launch_mi300x-amds.sh` adds no `_mtp` suffix, so the MTP key runs
the non-MTP script; #1222: `…_vllm_mtp.sh` where the H200 launchers build `…_mtp.sh`).

## When it fires
The finding sits on the script's first command. A key is "meant for" the script when its model
prefix and precision match the script's name, it runs on the SKU the name carries, its framework is
the one the name carries (when it carries one, `…_atom.sh`) and its spec-decoding matches the name's
`_mtp` suffix.

A single-node script the PR adds that no key runs, while a key meant for it (above) runs another
script. When the script launches an engine (`vllm serve`, `sglang.launch_server`, …), only keys
whose framework serves that engine count, and the message names one of them; if none does, the
script is not flagged.

## Example
    benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi300x_mtp.sh   (added)
    dsr1-fp8-mi300x-sglang-mtp → launch_mi300x-amds.sh → dsr1_fp8_mi300x.sh

## Severity
A nit until it is fixed: judged on ten sampled InferenceX PRs (benchmarks/precision.py), 9 true, 1 nit as blocking;
the bar for a blocking rule is 95 %.

## Fix
Rename the script to what the launcher builds, or teach the launcher the suffix.
"""
import posixpath
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import changed_scripts, spec_mtp
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed, resolutions
from rules.serving.siblings import engine_of

CODE = "RR402"
NAME = "script-unreachable"
SEVERITY = Severity.NIT
ENFORCES = ("F7",)


def _sku(name: str) -> str | None:
    parts = name.removesuffix(".sh").split("_")
    return parts[2] if len(parts) >= 3 else None


def _family(framework) -> str | None:
    """The engine a master-config framework serves (`dynamo-sglang` → sglang, `vllm` → vllm)."""
    text = str(framework or "").lower()
    for engine, words in (("sglang", ("sglang",)), ("vllm", ("vllm",)), ("trt", ("trt",)), ("atom", ("atom",))):
        if any(w in text for w in words):
            return engine
    return None


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    # Added only: a moved script (renamed) was as reachable before the move as after it.
    added = [f for f in changed_scripts(ctx) if f.status == "added" and "/single_node/" in f.path]
    if not added:
        return
    rs = resolutions(ctx)
    for f in added:
        name = posixpath.basename(f.path)
        parts = name.removesuffix(".sh").split("_")
        if len(parts) < 3:
            continue
        mtp = name.removesuffix(".sh").endswith("_mtp")
        scenario = posixpath.basename(posixpath.dirname(f.path))
        reach = [r for r in rs if r.script == f.path]
        if reach:
            keys = sorted({r.point.key for r in reach})
            yield Passed(
                f"{f.path} is run by key{'s' if len(keys) > 1 else ''} {', '.join(f'`{k}`' for k in keys[:3])}",
                path=f.path,
            )
            continue
        tags = [x for x in parts[3:] if x != "mtp"]
        meant = [r for r in rs if r.script and r.script_exists and r.point.values.get("model_prefix") == parts[0]
                 and str(r.point.values.get("precision")) == parts[1] and _sku(posixpath.basename(r.script)) == parts[2]
                 and spec_mtp(r) == mtp and posixpath.basename(posixpath.dirname(r.script)) == scenario
                 and (not tags or str(r.point.values.get("framework")) in tags)]
        if not meant:
            continue
        # Name the key whose framework serves the engine the script launches (an SGLang script is
        # meant for the sglang key, not for the vllm key of the same model and SKU).
        served = engine_of((f.head or b"").decode("utf-8", "replace"))
        same = [x for x in meant if served and _family(x.point.values.get("framework")) == served]
        if served and not same:
            continue  # the keys meant for it by name serve another engine: nothing shows which key it is for
        meant = same or meant
        r = meant[0]
        script = parsed(ctx, f.path)
        line = script.commands[0].line if isinstance(script, Script) and script.commands else 1
        others = sorted({x.point.key for x in meant})
        yield Problem(f.path, line,
                      f"no key runs `{name}`: key `{r.point.key}` on runner `{r.point.node}` runs "
                      f"`{posixpath.basename(r.script or '')}` instead",
                      evidence=(f"{r.chain()} (launcher line {r.script_line})",
                                "keys meant for this script (model, precision, SKU, spec-decoding): "
                                + ", ".join(f"`{k}`" for k in others[:5])))
