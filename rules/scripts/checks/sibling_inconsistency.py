"""Flags an added benchmark script that lacks a flag or variable nearly all of its closest siblings set.

## Why it matters
Scripts of one model family and engine are copies of each other with a few deliberate
differences. A flag every sibling passes and the new script lacks is usually a copy slip that
changes what is measured: #2272 ran an FP8 model with a bf16 KV cache (no `--kv-cache-dtype`,
which 12 of 12 sibling GLM SGLang scripts set), #1935 left out the `VLLM_USE_BREAKABLE_CUDAGRAPH=0`
every other MiniMax-M3 ROCm script sets.

## When it fires
On each benchmark script the PR adds: it fires when it lacks flags or variables that at least
`threshold` of its comparable siblings set, one finding per script (on the engine's launch) naming
what it lacks (variables first, then sizing flags such as `--cuda-graph-max-bs`, then the rest, each
with the share of siblings that set it). Only added scripts are compared (an edit that removes a
flag is deliberate: every sampled "drops" finding on the bundle was a revert or a rewrite), and
only with siblings of the same model family, engine, vendor and GPU generation (Hopper, Blackwell,
CDNA3, CDNA4: kernels, attention backends and environment switches differ by generation;
`rules.serving.siblings`), never archived (`deprecated/`) ones. The family tier only: other models
of the engine in the directory set their own flags (measured on the bundle: those findings were
other models' choices). Siblings are in the same scenario directory (`fixed_seq_len/`, `agentic/`:
prefix caching, sizes and streaming follow the workload); precision flags (`--quantization`,
`--kv-cache-dtype`, …) and environment variables (kernel switches such as DeepGEMM's FP8 JIT or
vLLM's Marlin MXFP4 path follow the weights) are compared within the precision; a sibling counts
for what it sets on every path (not under a condition: a branch depends on the point), and for a
variable only when it reaches the engine's environment (exported, a command prefix, `set -a`: a
plain shell variable is the script's own); flags that do not change what is measured (logging,
tool and reasoning parsers, `--trust-remote-code`, the MPI launcher's own options) are not
compared; spellings are the engine's (`rules.serving.flags`: `--tp` is `--tp-size`); a
variable the engine version of the script's keys does not need is not missing.
Speculative-decoding flags and variables are left to RR410/RR411.

With fewer than `min_siblings` comparable siblings nothing is compared. A script that lacks
nothing passes; one that lacks more than `max_reported` items is another recipe, not a slip, and
is Skipped.

## Example
    # 4/4 FP8 glm5 SGLang scripts on CDNA4 pass --kv-cache-dtype fp8_e4m3; this one does not
    python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" ...

## Fix
Add the flag or variable, or say in the PR why this script differs.

## Options
`threshold`: share of siblings that must set a flag or variable (default 0.8).
`min_siblings` (default 4): fewer comparable siblings than this and nothing is compared.
`max_reported` (default 3): a script that lacks more than this many items is another recipe: Skipped.
"""
import re
from collections.abc import Iterator

from pydantic import Field

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts
from rules.scripts.names import arch_of, name_parts
from rules.serving.flags import canonical_flag
from rules.serving.siblings import engine_statement, env_not_needed_here, features, siblings_of

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
# Flags that follow the checkpoint's precision (a bf16 model needs no `--quantization`): compared
# only with siblings of the same precision.
PRECISION_FLAGS = ("--quantization", "--kv-cache-dtype", "--mamba-ssm-dtype", "--dtype", "--moe-runner-backend",
                   "--fp8-gemm-backend", "--fp4-gemm-backend")
# Flags that do not change what is measured: logging, API features, the MPI launcher's own options.
NOT_MEASURED = ("--disable-log-requests", "--enable-log-requests", "--disable-log-stats", "--log-level",
                "--uvicorn-log-level", "--trust-remote-code", "--tool-call-parser", "--reasoning-parser",
                "--enable-auto-tool-choice", "--chat-template", "--allow-run-as-root", "--oversubscribe",
                "--enable-metrics")
_SPEC = re.compile(r"specul|spec[-_]|mtp|eagle|draft|SPEC", re.I)
# Flags that name the run rather than configure the engine (always per script).
_IDENTITY = ("--model", "--model-path", "--served-model-name", "--result-filename", "--result-dir", "--port", "--host")


class Options(RuleOptions):
    threshold: float = Field(default=0.8, gt=0, le=1)
    min_siblings: int = Field(default=4, ge=1)
    max_reported: int = Field(default=3, ge=1)  # more differences than this: a different recipe, skipped


def _scenario(path: str) -> str:
    """`fixed_seq_len` / `agentic` (an archived script counts in its parent's scenario)."""
    parts = path.split("/")
    parts = [p for p in parts[:-1] if p != "deprecated"]
    return parts[-1] if parts else ""


def _same_kind(me_path: str, other: str) -> tuple[bool, bool]:
    """(same GPU generation, same precision) of two scripts by their names."""
    a, b = name_parts(me_path), name_parts(other)
    if a is None or b is None:
        return False, False
    return arch_of(a[2]) == arch_of(b[2]), a[1] == b[1]


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:  # noqa: C901 (one early exit per reason a script has no sibling pool to compare)
    for f in changed_scripts(ctx):
        if f.status != "added":
            continue  # an edit of a command is deliberate (reverts and rewrites); slips come with copies
        me = features(ctx, f.path)
        if me is None or me.engine is None:
            continue
        sibs, tier, family = siblings_of(ctx, f.path, min_family=options.min_siblings)
        if not family:
            continue  # other models of the engine: their flags are theirs
        pool = [s for s in sibs if s.vendor == me.vendor and _same_kind(f.path, s.path)[0]
                and _scenario(s.path) == _scenario(f.path)]
        if len(pool) < options.min_siblings:
            continue
        tier = f"{tier.split(' on ')[0]} on {arch_of(name_parts(f.path)[2])}"
        missing = []
        scenario_flags = {canonical_flag(me.engine, x) for x in SCENARIO_FLAGS}
        precision_flags = {canonical_flag(me.engine, x) for x in PRECISION_FLAGS}
        identity = {canonical_flag(me.engine, x) for x in _IDENTITY + NOT_MEASURED}
        spelled: dict[str, str] = {}  # name → the spelling of the first sibling that sets it
        for kind, mine in (("flag", me.flags), ("variable", me.env)):
            counts: dict[str, list[str]] = {}
            for s in pool:
                # what a sibling always sets: not under a condition, and a variable that reaches
                # the engine's environment (a plain shell variable is the script's own)
                for name in (s.flags if kind == "flag" else [v for v in s.env if v in s.exported]):
                    if name not in s.fixed:
                        continue
                    counts.setdefault(name, []).append(s.path)
                    spelled.setdefault(name, s.spelling(name))
            for name, who in counts.items():
                if _SPEC.search(name) or name in identity or name in mine:
                    continue
                if kind == "variable" and env_not_needed_here(ctx, f.path, me.engine, name):
                    continue  # the engine version this script runs does not read it, or defaults to it
                comparable = [s.path for s in pool]
                if kind == "variable" or name in precision_flags:
                    comparable = [p for p in comparable if _same_kind(f.path, p)[1]]
                who = [p for p in who if p in comparable]
                total = len(comparable)
                if total < options.min_siblings or len(who) / total < options.threshold:
                    continue
                missing.append((len(who) / total, kind, name, who, total))
        if not missing:
            yield Passed(f"{f.path}: sets every flag and variable that ≥{options.threshold:.0%} of {len(pool)} "
                         f"siblings ({tier}) set", path=f.path)
            continue
        if len(missing) > options.max_reported:
            yield Skipped(f"{f.path}: differs from its {len(pool)} siblings ({tier}) in {len(missing)} flags and "
                          "variables: a different recipe, not a slip; not compared", path=f.path)
            continue
        # Variables first (the usual slip), then the sizing flags (caps, capture, memory: they change
        # what is measured), then the rest; each by share.
        missing.sort(key=lambda m: (m[1] != "variable", m[2] not in scenario_flags, -m[0], spelled.get(m[2], m[2])))
        line, end = engine_statement(ctx, f.path)
        names = ", ".join(f"{kind} `{spelled.get(name, name)}` ({len(who)}/{n})" for _, kind, name, who, n in missing)
        evidence = [f"siblings: {tier}"]
        for _, _kind, name, who, _n in missing:
            evidence.append(
                f"`{spelled.get(name, name)}` is set by "
                + ", ".join(f"`{p.rsplit('/', 1)[-1]}`" for p in who[:4])
                + (" …" if len(who) > 4 else "")
            )
        yield Problem(f.path, line,
                      f"script lacks what nearly all of its {len(pool)} siblings set: {names}",
                      end_line=end if end and end > line else None, evidence=tuple(evidence))
