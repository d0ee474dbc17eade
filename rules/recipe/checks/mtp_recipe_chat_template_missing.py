"""Flags a speculative-decoding recipe whose fixed-sequence benchmark runs without the chat template.

A point speculates when any role sets a draft (vLLM `speculative-config`, SGLang
`speculative-algorithm`, TensorRT-LLM `speculative_config`). Its srt-slurm benchmark
(`benchmark.type` other than `custom`: `sa-bench`, random prompts) must set
`benchmark.use_chat_template: true`; srt-slurm's default is false. Agentic points replay traces
(`type: custom`) and are not judged.

## Why it matters
Without the chat template the benchmark sends raw random tokens; draft models accept far more
of them than of real chat text, so the acceptance rate and the throughput the point publishes
are inflated against every other MTP recipe, which sets it (#1907, #2113; the scripts' rule is
`--use-chat-template` for `*_mtp.sh`).

## Example
    speculative-algorithm: EAGLE
    benchmark:
      type: sa-bench                 # no use_chat_template: true

## Fix
Add `use_chat_template: true` to the `benchmark:` block.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.recipe.engine_settings import changed_settings, insert_after, suggest_number, where
from rules.recipe.points import Once, anchor, points_note

CODE = "RR220"
NAME = "mtp-recipe-chat-template-missing"
SEVERITY = Severity.BLOCKING
PROOF = "written:F1"
KEY = "use_chat_template"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, bps in changed_settings(ctx):
        bad, good = Once(), Once()
        for bp in bps:
            if not bp.speculative or bp.scenario != "fixed-seq-len":
                continue
            spec = next(r.speculative for r in bp.roles if r.speculative is not None)
            uct = bp.use_chat_template
            if uct is not None and uct.value is True:
                good.add((uct.line,), bp.name, f"{where(bp)}: speculative ({spec.label}) and `{KEY}: true` ✓")
                continue
            if uct is not None:
                line = uct.line
                msg = f"the point speculates ({spec.label}) but `benchmark.{KEY}` is `{uct.value}`"
                sug = suggest_number(ctx, path, line, str(uct.value).lower(), "true")
            else:
                line = bp.benchmark_line
                msg = f"the point speculates ({spec.label}) but its `benchmark:` block does not set `{KEY}: true`"
                sug = insert_after(ctx, path, line, f"{KEY}: true")
            bad.add((line, msg), bp.name, (where(bp), line, msg, sug, spec.line))
        for (w, line, msg, sug, spec_line), names in bad.items():
            at = anchor(ctx, path, line, spec_line)
            yield Problem(path, at, f"{w}: {msg}{points_note(names)}.", suggestion=sug if at == line else None)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
