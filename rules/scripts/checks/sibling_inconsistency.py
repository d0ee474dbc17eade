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
four exist, else same family and engine on any vendor when that many exist, otherwise same
engine and vendor in the same directory). An added script is
compared as it is; a modified one only for what the PR drops (comparing an edited command line as
a whole was measured and dropped: on the dev bundle it added 61 nits, 82 → 143, about
long-standing, often deliberate differences — a DP-only vLLM command with no
`--tensor-parallel-size` under a comment saying so — and no reviewer finding). Speculative-decoding flags and
variables are left to RR410/RR411. One finding per script names what it lacks (at most
`max_reported` items: variables first, then sizing flags such as `--cuda-graph-max-bs`, then the
rest, each with the share of siblings that set it).
"""
from collections.abc import Iterator
import re

from pydantic import Field

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.engine_flags import canonical_flag
from rules.scripts.facts import changed_scripts
from rules.scripts.siblings import engine_statement, env_not_needed_here, features, siblings_of

CODE = "RR412"
NAME = "sibling-inconsistency"
SEVERITY = Severity.NIT
# Prefix caching is a scenario decision (off for random prompts, on for agentic trace replay), and
# so are sequence-length, batch and memory sizes: these flags are compared only with siblings in
# the same scenario directory.
# Sizes and memory shares follow the workload too (random prompts of one length vs replayed traces).
SCENARIO_FLAGS = ("--disable-radix-cache", "--no-enable-prefix-caching", "--enable-prefix-caching",
                  "--enable-hierarchical-cache", "--context-length", "--max-model-len", "--max-num-seqs",
                  "--max-running-requests", "--cuda-graph-max-bs", "--max-num-batched-tokens", "--chunked-prefill-size",
                  "--mem-fraction-static", "--gpu-memory-utilization", "--swa-full-tokens-ratio",
                  "--max-cudagraph-capture-size", "--max-prefill-tokens")
_SPEC = re.compile(r"specul|spec[-_]|mtp|eagle|draft|SPEC", re.I)
# Flags that name the run rather than configure the engine (always per script).
_IDENTITY = ("--model", "--model-path", "--served-model-name", "--result-filename", "--result-dir", "--port", "--host")


class Options(RuleOptions):
    threshold: float = Field(default=0.8, gt=0, le=1)
    min_siblings: int = Field(default=4, ge=1)
    max_reported: int = Field(default=3, ge=1)  # items named per script; more than this in tier 2: skipped


def _scenario(path: str) -> str:
    """`fixed_seq_len` / `agentic` (an archived script counts in its parent's scenario)."""
    parts = path.split("/")
    parts = [p for p in parts[:-1] if p != "deprecated"]
    return parts[-1] if parts else ""


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    for f in changed_scripts(ctx):
        me = features(ctx, f.path)
        if me is None or me.engine is None:
            continue
        sibs, tier, family = siblings_of(ctx, f.path, min_family=options.min_siblings)
        if len(sibs) < options.min_siblings:
            continue
        base = features(ctx, f.base_path, "base") if f.status in ("modified", "renamed") else None
        missing = []
        same_vendor = [s for s in sibs if s.vendor == me.vendor]
        scenario_flags = {canonical_flag(me.engine, x) for x in SCENARIO_FLAGS}
        identity = {canonical_flag(me.engine, x) for x in _IDENTITY}
        spelled: dict[str, str] = {}  # name → the spelling of the first sibling that sets it
        for kind, mine, was, pool in (("flag", me.flags, base.flags if base else None, sibs),
                                      ("variable", me.env, base.env if base else None, same_vendor)):
            if len(pool) < options.min_siblings:
                continue
            counts: dict[str, list[str]] = {}
            for s in pool:
                for name in (s.flags if kind == "flag" else s.env):
                    counts.setdefault(name, []).append(s.path)
                    spelled.setdefault(name, s.spelling(name))
            for name, who in counts.items():
                if _SPEC.search(name) or name in identity or name in mine:
                    continue
                if kind == "variable" and env_not_needed_here(ctx, f.path, me.engine, name):
                    continue  # the engine version this script runs does not read it, or defaults to it
                total = len(pool)
                if name in scenario_flags:
                    scen = [s for s in pool if _scenario(s.path) == _scenario(f.path)]
                    who = [p for p in who if _scenario(p) == _scenario(f.path)]
                    total = len(scen)
                    if total < options.min_siblings:
                        continue
                if len(who) / total < options.threshold:
                    continue
                if was is not None and name not in was:
                    continue  # absent before this PR too: not this PR's change
                missing.append((len(who) / total, kind, name, who, total))
        if not missing:
            yield Passed(f"{f.path}: sets every flag and variable that ≥{options.threshold:.0%} of {len(sibs)} "
                         f"siblings ({tier}) set", path=f.path)
            continue
        if len(missing) > options.max_reported and not family:
            yield Skipped(f"{f.path}: differs from its {len(sibs)} siblings ({tier}) in {len(missing)} flags and "
                          "variables: a different recipe, not a slip; not compared", path=f.path)
            continue
        # Variables first (the usual slip), then the sizing flags (caps, capture, memory: they change
        # what is measured), then the rest; each by share.
        missing.sort(key=lambda m: (m[1] != "variable", m[2] not in scenario_flags, -m[0], spelled.get(m[2], m[2])))
        line, end = engine_statement(ctx, f.path)
        verb = "drops" if base is not None else "lacks"
        shown = missing[: options.max_reported]
        names = ", ".join(f"{kind} `{spelled.get(name, name)}` ({len(who)}/{n})" for _, kind, name, who, n in shown)
        rest = len(missing) - len(shown)
        evidence = [f"siblings: {tier}"]
        for _, kind, name, who, n in shown:
            evidence.append(f"`{spelled.get(name, name)}` is set by " + ", ".join(f"`{p.rsplit('/', 1)[-1]}`" for p in who[:4])
                            + (" …" if len(who) > 4 else ""))
        if rest:
            evidence.append(f"{rest} more: " + ", ".join(f"`{spelled.get(m[2], m[2])}`" for m in missing[len(shown):len(shown) + 6]))
        yield Problem(f.path, line,
                      f"script {verb} what nearly all of its {len(sibs)} siblings set: {names}"
                      + (f" and {rest} more" if rest else ""),
                      end_line=end if end and end > line else None, evidence=tuple(evidence))
