"""Flags a speculative-decoding recipe whose fixed-sequence benchmark turns the chat template off.

## Why it matters
Without the chat template the benchmark sends raw random tokens; draft models accept far more
of them than of real chat text, so the acceptance rate and the throughput the point publishes
are inflated against every other MTP point, which uses it (the scripts' rule is
`--use-chat-template` for `*_mtp.sh`).

## When it fires
A point speculates when any role sets a draft (vLLM `speculative-config`, SGLang
`speculative-algorithm`, TensorRT-LLM `speculative_config`). Its srt-slurm `sa-bench` benchmark
(random prompts) runs with the chat template unless the recipe says otherwise: srtctl's
`BenchmarkConfig.use_chat_template` defaults to true (`src/srtctl/core/schema.py`), and
`SABenchRunner.build_command` (`src/srtctl/benchmarks/sa_bench.py`) hands it to the sa-bench
script, which passes `--use-chat-template` when it is true (older srtctl versions pass it
unconditionally). So a recipe that does not mention `use_chat_template` benchmarks with the
template (#1211, #1688, #1907, #2113, #2115, #2218 were flagged for that, wrongly); only an
explicit non-true value turns it off, and that breaks the repository's rule that MTP
fixed-sequence benchmarks use the chat template (F1). Other benchmark types do not read the key;
agentic points replay traces (`type: custom`); neither is judged.

## Example
    speculative-algorithm: EAGLE
    benchmark:
      type: sa-bench
      use_chat_template: false

## Fix
Set `use_chat_template: true` in the `benchmark:` block (or remove the key: true is the default).
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import Once, points_note
from rules.serving.settings import changed_settings, suggest_number, where

CODE = "RR220"
NAME = "mtp-recipe-chat-template-missing"
SEVERITY = Severity.BLOCKING
PROOF = "written:F1"
ENFORCES = ("F1",)
KEY = "use_chat_template"
SA_BENCH = "sa-bench"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, bps in changed_settings(ctx):
        bad, good = Once(), Once()
        for bp in bps:
            if not bp.speculative or bp.scenario != "fixed-seq-len":
                continue
            kind = str(bp.bench_type.value).strip().lower() if bp.bench_type is not None else None
            if kind != SA_BENCH:
                continue  # only sa-bench reads the key
            spec = next(r.speculative for r in bp.roles if r.speculative is not None)
            uct = bp.use_chat_template
            if uct is None or uct.value is True:
                how = f"`{KEY}: true`" if uct is not None else f"`{KEY}` unset (srtctl's default: true)"
                good.add((uct.line if uct else None,), bp.name, f"{where(bp)}: speculative ({spec.label}) and {how} ✓")
                continue
            line = uct.line
            msg = f"the point speculates ({spec.label}) but `benchmark.{KEY}` is `{uct.value}`"
            sug = suggest_number(ctx, path, line, str(uct.value).lower(), "true")
            bad.add((line, msg), bp.name, (where(bp), line, msg, sug, spec.line))
        for (w, line, msg, sug, spec_line), names in bad.items():
            at = anchor(ctx, path, line, spec_line)
            yield Problem(path, at, f"{w}: {msg}{points_note(names)}.", suggestion=sug if at == line else None)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
