"""Flags a changed `*_mtp.sh` benchmark script that calls `run_benchmark_serving` without `--use-chat-template`.

## Why it matters
Speculative decoding's acceptance rate depends on the prompt format: without the chat template
the draft model sees raw text, acceptance collapses and the MTP result is not comparable with
anyone else's (AGENTS.md; the PR-review prompt; codeowner check 9). `--dsv4` implies the chat
template (`benchmark_lib.sh`), so it counts too. The rule has been broken 17 times in real PRs,
for example #1445, which added `qwen3.5_fp4_mi355x_mtp.sh` without it.

## When it fires
Applies to added or modified `*_mtp.sh` scripts under `benchmarks/`, except `deprecated/` and
`speedbench/`. A call that passes its arguments through a variable counts as compliant when the
script spells `--use-chat-template` (or `--dsv4`) somewhere outside comments.

## Example
    run_benchmark_serving \\
        --model "$MODEL" \\
        --num-prompts "$NUM_PROMPTS"

## Fix
Add `--use-chat-template` to the `run_benchmark_serving` call.
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.parse import Unreadable, changed_script, literal

CODE = "RR302"
NAME = "mtp-script-missing-chat-template"
SEVERITY = Severity.BLOCKING
PROOF = "written:F1"
ENFORCES = ("F1",)
CALL = "run_benchmark_serving"
FLAGS = re.compile(r"(?<![\w-])--(?:use-chat-template|dsv4)(?![\w-])")
EXCLUDED = re.compile(r"(?:^|/)speedbench/")
_EXPANSIONS = ("simple_expansion", "expansion")


def _bare_expansion(node) -> bool:
    """`$EXTRA`, `"${ARGS[@]}"`: an argument that is one expansion and nothing else."""
    if node.type in _EXPANSIONS:
        return True
    return node.type == "string" and len(node.named_children) == 1 and node.named_children[0].type in _EXPANSIONS


def _passes_variable_args(args) -> bool:
    """The call has an argument that is a bare expansion, not a flag's value."""
    for i, a in enumerate(args):
        prev = literal(args[i - 1]) if i else None
        if _bare_expansion(a) and not (prev or "").startswith("-"):
            return True
    return False


def _applies(ctx: ReviewContext, path: str) -> bool:
    return path.endswith("_mtp.sh") and ctx.kind(path) == "scripts" and not EXCLUDED.search(path)


def _suggestion(lines: list[str], line: int, end_line: int) -> str | None:
    """The call with `--use-chat-template` as its own continuation line after the first line."""
    first = lines[line - 1]
    if end_line == line or not first.rstrip().endswith("\\"):
        return None
    nxt = lines[line]
    indent = nxt[: len(nxt) - len(nxt.lstrip())] or "    "
    return "\n".join([first, f"{indent}--use-chat-template \\"] + lines[line:end_line])


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for f in ctx.changeset.files:
        if f.status == "removed" or not _applies(ctx, f.path):
            continue
        script = changed_script(ctx, f)
        if isinstance(script, Unreadable):
            yield Skipped(f"{f.path}: {script.reason}; chat-template flag not checked", path=f.path)
            continue
        calls = script.commands_named(CALL)
        if not calls:
            yield Passed(f"{f.path}: no run_benchmark_serving call (trace replay or other client)", path=f.path)
            continue
        elsewhere = any(script.flag_lines(s.node, FLAGS) for s in script.statements())
        for call in calls:
            if any(FLAGS.search(a.text.decode("utf-8", "replace")) for a in call.args):
                yield Passed(f"{f.path}:{call.line}: run_benchmark_serving passes the chat template", path=f.path,
                             line=call.line)
                continue
            if elsewhere and _passes_variable_args(call.args):
                yield Passed(f"{f.path}:{call.line}: run_benchmark_serving takes its arguments from a variable "
                             "and the script sets --use-chat-template/--dsv4", path=f.path, line=call.line)
                continue
            yield Problem(
                f.path,
                call.line,
                f"`run_benchmark_serving` in MTP script `{f.path.rsplit('/', 1)[-1]}` does not pass "
                "`--use-chat-template`",
                end_line=call.end_line,
                suggestion=_suggestion(script.lines, call.line, call.end_line),
                evidence=(
                    f"call at lines {call.line}-{call.end_line} has neither --use-chat-template nor --dsv4",
                    "the file name ends in _mtp.sh, so the benchmark measures speculative decoding",
                ),
            )
