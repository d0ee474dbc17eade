"""Flags a benchmark script that lacks (or drops) a flag or variable that nearly all of its siblings set.

## Why it matters
Scripts of one model family and engine are copies of each other with a few deliberate
differences. A flag every sibling passes and the new script lacks is usually a copy slip that
changes what is measured: #2272 ran an FP8 model with a bf16 KV cache (no `--kv-cache-dtype`,
which 12 of 12 sibling GLM SGLang scripts set), #1935 left out the `VLLM_USE_BREAKABLE_CUDAGRAPH=0`
every other MiniMax-M3 ROCm script sets, #1187 dropped `--disable-radix-cache`.

## Example
    # 12/12 glm5 SGLang scripts on amd pass --kv-cache-dtype fp8_e4m3; this one does not
    python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" ...

## Fix
Add the flag or variable, or say in the PR why this script differs.

## Options
`threshold`: share of siblings that must set a flag or variable (default 0.8).
`min_siblings`: fewer siblings than this and nothing is compared.

Siblings are defined in `rules.scripts.siblings` (same family, engine and vendor when at least
four exist, otherwise same engine and vendor in the same directory). An added script is
compared as it is; a modified one only for what the PR drops. Speculative-decoding flags and
variables are left to RR410/RR411.
"""
from collections.abc import Iterator
import re

from pydantic import Field

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import changed_scripts
from rules.scripts.siblings import features, siblings_of

CODE = "RR412"
NAME = "sibling-inconsistency"
SEVERITY = Severity.NIT
_SPEC = re.compile(r"specul|spec[-_]|mtp|eagle|draft|SPEC", re.I)
# Flags that name the run rather than configure the engine (always per script).
_IDENTITY = ("--model", "--model-path", "--served-model-name", "--result-filename", "--result-dir", "--port", "--host")


class Options(RuleOptions):
    threshold: float = Field(default=0.8, gt=0, le=1)
    min_siblings: int = Field(default=4, ge=1)


def _anchor(ctx: ReviewContext, path: str, me) -> int:
    """The engine launch line (where a missing flag would go)."""
    from rules.scripts.resolve import parsed
    from rules.scripts.parse import Unreadable
    s = parsed(ctx, path)
    if isinstance(s, Unreadable):
        return 1
    for i, raw in enumerate(s.lines, start=1):
        code = raw.split("#", 1)[0]
        if re.search(r"vllm serve|sglang\.launch_server|sglang serve|trtllm-serve|atom\.entrypoints", code):
            return i
    return 1


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed]:
    for f in changed_scripts(ctx):
        me = features(ctx, f.path)
        if me is None or me.engine is None:
            continue
        sibs, tier = siblings_of(ctx, f.path, min_family=options.min_siblings)
        if len(sibs) < options.min_siblings:
            continue
        base = features(ctx, f.base_path, "base") if f.status in ("modified", "renamed") else None
        missing = []
        for kind, mine, was in (("flag", me.flags, base.flags if base else None),
                                ("variable", me.env, base.env if base else None)):
            counts: dict[str, list[str]] = {}
            for s in sibs:
                for name in (s.flags if kind == "flag" else s.env):
                    counts.setdefault(name, []).append(s.path)
            for name, who in sorted(counts.items()):
                if _SPEC.search(name) or name in _IDENTITY or name in mine:
                    continue
                if len(who) / len(sibs) < options.threshold:
                    continue
                if was is not None and name not in was:
                    continue  # absent before this PR too: not this PR's change
                missing.append((kind, name, who))
        if not missing:
            yield Passed(f"{f.path}: sets every flag and variable that ≥{options.threshold:.0%} of {len(sibs)} "
                         f"siblings ({tier}) set", path=f.path)
            continue
        line = _anchor(ctx, f.path, me)
        for kind, name, who in missing:
            verb = "drops" if base is not None else "lacks"
            shown = ", ".join(f"`{p.rsplit('/', 1)[-1]}`" for p in who[:4]) + (" …" if len(who) > 4 else "")
            yield Problem(f.path, line,
                          f"script {verb} {kind} `{name}`, which {len(who)} of {len(sibs)} siblings set",
                          evidence=(f"siblings: {tier}", f"set by {shown}"))
