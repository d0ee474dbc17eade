"""Flags an engine or benchmark flag that is followed by no value for some benchmark point.

## Why it matters
`--context-length` followed by the next flag (or nothing) makes the engine reject its arguments
or, worse, swallow the next flag as the value. It usually comes from an expansion that went
empty: a variable dropped from `EVAL_CONTEXT_ARGS="--context-length $CONTEXT_LENGTH"` (#1669),
or one the launcher does not set (`--num-prompts "$NUM_PROMPTS"` → `--num-prompts ''`, #406).

## When it fires
For each resolved point of a script the PR changes (`rules.scripts.resolve`), in the engine command
and in the script's own benchmark-client calls (`run_benchmark_serving`, `run_eval`): it fires when
a flag that takes a value (one of `value_flags`, or one the same script passes a value with `=`
somewhere else: `--flag=v`; `--flag word` teaches nothing, `--quiet pkg` is a boolean flag and a
positional argument) ends the command line, or is followed by an empty word or by another `--flag`.
Only flags written on lines the PR adds are reported, once per line and flag; a next word whose
value the resolution does not know, and a flag written as `--flag=…`, are not judged. When the empty
value expands from a variable the script reads unset and the point's launcher, which the PR changes,
never sets or passes it, the finding goes on that launcher's line that runs the script (once per
launcher line), since that is where the value is missing (#406). Each changed script whose flags
were checked passes with the count of uses checked.

## Example
    EVAL_CONTEXT_ARGS="--context-length"
    vllm serve "$MODEL" $EVAL_CONTEXT_ARGS --port "$PORT"

## Fix
Give the flag its value (`--context-length "$CONTEXT_LENGTH"`) or drop the flag.

## Options
`value_flags`: flags known to take a value.
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import groups, touched
from rules.scripts.parse import Unreadable
from rules.scripts.resolve import parsed

CODE = "RR405"
NAME = "flag-missing-value"
SEVERITY = Severity.BLOCKING
PROOF = "engine"

VALUE_FLAGS = (
    "--context-length", "--max-model-len", "--tensor-parallel-size", "--tp", "--tp-size", "--port", "--host",
    "--model", "--model-path", "--max-num-seqs", "--max-running-requests", "--kv-cache-dtype",
    "--mem-fraction-static", "--gpu-memory-utilization", "--chunked-prefill-size", "--max-num-batched-tokens",
    "--cuda-graph-max-bs", "--block-size", "--quantization", "--dtype", "--served-model-name",
    "--data-parallel-size", "--dp-size", "--ep-size", "--expert-parallel-size", "--attention-backend",
    "--num-prompts", "--max-concurrency", "--input-len", "--output-len", "--random-range-ratio",
    "--result-filename", "--result-dir", "--backend", "--speculative-algorithm", "--speculative-num-steps",
    "--speculative-eagle-topk", "--speculative-num-draft-tokens", "--speculative-config", "--compilation-config",
    "--max-cudagraph-capture-size", "--moe-runner-backend", "--tokenizer", "--trust-remote-code-revision",
    "--pipeline-parallel-size", "--scheduler-recv-interval", "--max-prefill-tokens", "--page-size",
    "--num-warmups", "--extra_llm_api_options", "--extra-llm-api-options", "--max_batch_size", "--max-batch-size",
    "--max_num_tokens", "--max-num-tokens", "--kv-cache-free-gpu-memory-fraction",
)


class Options(RuleOptions):
    value_flags: tuple[str, ...] = VALUE_FLAGS  # flags that always take a value


def _learned(ctx: ReviewContext, path: str) -> set[str]:
    """Flags the script passes a value elsewhere (`--x=v`, `--x v`, `--x "$V"`)."""
    def compute() -> set[str]:
        s = parsed(ctx, path)
        if isinstance(s, Unreadable):
            return set()
        out = set()
        # Only `--x=value` teaches anything: `--x word` may be a boolean flag and a positional
        # argument (`pip install --quiet pkg`), `--x $Y` a boolean flag and more arguments.
        for m in re.finditer(r"(?<![\w-])(--[a-zA-Z][\w-]*)=[\"']?[A-Za-z0-9_./:@%+,$]", s.code):
            out.add(m.group(1).replace("_", "-"))
        return out

    return ctx.memo(("scripts", "valued-flags", path), compute)


CLIENTS = ("run_benchmark_serving", "run_eval")


def _launches(r):
    """The engine command and the script's benchmark-client calls."""
    if r.engine is not None:
        yield r.engine.argv, f"engine command at {r.engine.path}:{r.engine.line}"
    if r.script_result is not None:
        for launch in r.script_result.launches:
            if launch.path == r.script and launch.call and launch.argv[0].text in CLIENTS:
                yield launch.argv, f"`{launch.argv[0].text}` at {launch.path}:{launch.line}"


def _input_name(ctx: ReviewContext, path: str, line: int, flag: str) -> str | None:
    """The variable a flag's empty value expands from, read off the source line (`--flag "$NAME"`)."""
    script = parsed(ctx, path)
    if isinstance(script, Unreadable) or not 0 < line <= len(script.lines):
        return None
    m = re.search(re.escape(flag) + r"""(?:\s+|=)["']?\$\{?([A-Za-z_]\w*)\}?""", script.lines[line - 1])
    return m.group(1) if m else None


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed]:  # noqa: C901 (per launch word scan, then one branch per kind of missing value and blame)
    changed = {f.path for f in ctx.changeset.files if f.status != "removed"}
    value_flags = {f.replace("_", "-") for f in options.value_flags}
    found: dict[tuple[str, int, str], tuple] = {}  # (script, line, flag) -> the first finding's facts
    blamed: dict[tuple[str, int, str], dict[tuple[str, int], tuple]] = {}  # ... -> launcher line -> facts
    checked: dict[str, int] = {}
    for g in groups(ctx):
        r = g.first
        if r.script not in changed:
            continue
        lines = touched(ctx, r.script) or set()
        learned = _learned(ctx, r.script)
        for words, where in _launches(r):
            for i, w in enumerate(words):
                t = w.text
                if not t or not t.startswith("--") or "=" in t:
                    continue
                name = t.replace("_", "-")
                if name not in value_flags and name not in learned:
                    continue
                nxt = words[i + 1] if i + 1 < len(words) else None
                checked[r.script] = checked.get(r.script, 0) + 1
                if nxt is not None and not (nxt.known and (nxt.text == "" or (nxt.text or "").startswith("--"))):
                    continue
                if w.path != r.script or w.line not in lines:
                    continue
                spot = (w.path, w.line, name)
                found.setdefault(spot, (t, nxt, g, r, where, name))
                # An empty value from an input the launcher never sets: the launcher the PR changes is
                # where the value is missing (#406: two launchers that set no NUM_PROMPTS).
                var = _input_name(ctx, w.path, w.line, t) if nxt is not None and nxt.text == "" else None
                if (var and r.launcher in changed and r.script_line and r.script_result is not None
                        and var in r.script_result.reads and r.script_result.reads[var] is None
                        and var not in r.script_env):
                    blamed.setdefault(spot, {}).setdefault((r.launcher, r.script_line), (var, g, r))
    for spot, (t, nxt, g, r, where, name) in found.items():
        learned = _learned(ctx, r.script)
        takes = f"`{t}` takes a value" + (" (the script passes it one elsewhere)" if name in learned else "")
        if spot in blamed:
            for (launcher, line), (var, bg, br) in blamed[spot].items():
                yield Problem(launcher, line,
                              f"`{launcher}` runs `{br.script}` without setting `{var}`, so `{t}` at "
                              f"{spot[0]}:{spot[1]} gets an empty value (key `{bg.key}`, conc {bg.concs})",
                              fix=f"Set and pass `{var}` in `{launcher}` as the other launchers do, or give it a "
                                  f"default in `{br.script}`.",
                              evidence=(br.chain(), f"`{var}` is read unset by `{br.script}`", takes))
            continue
        if nxt is None:
            what = "ends the command line"
        elif nxt.text == "":
            what = "is given an empty value"
        else:
            what = f"is followed by `{nxt.text}` instead of a value"
        yield Problem(spot[0], spot[1], f"`{t}` {what} (key `{g.key}`, conc {g.concs})",
                      evidence=(f"{r.chain()}", where, takes))
    for path, n in checked.items():
        yield Passed(f"{path}: {n:,} value-taking flag uses checked across the resolved points", path=path)
