"""Flags an engine arg carried as a JSON string that does not parse as JSON.

## Why it matters
The engine rejects the argument at start-up, after the job has waited for its nodes. A YAML
author's habits (single quotes inside, trailing commas, unquoted keys, Python `True`) are the
usual cause, and none of the numbers inside can be checked until it parses.

## When it fires
Engines take `compilation-config`, `speculative-config`, `kv-transfer-config`,
`attention-config` (and any other `{…}` or `[…]` string arg, such as `deepep-config`) as JSON
text. The recipe rules read the capture list, draft length and offload pool from these strings.

The engine parses these strings while it reads its arguments, before anything runs: vLLM's
`_compute_kwargs` in `vllm/engine/arg_utils.py` gives config-class args (`compilation-config`,
`kv-transfer-config`, `attention-config`) the type `parse_dataclass`, which calls
`TypeAdapter(cls).validate_json(val)` and turns a `ValidationError` (malformed JSON included)
into `argparse.ArgumentTypeError`; dict args (`speculative-config`) get `parse_type(json.loads)`,
which does the same for a `json.loads` error. argparse then exits the server with a usage error.
SGLang reads `json-model-override-args` with `json.loads` at start-up (`ServerArgs.get_hf_config`,
`python/sglang/srt/server_args.py`), which raises on malformed JSON the same way.

## Example
    speculative-config: '{"method":"mtp","num_speculative_tokens":4,}'

## Fix
Write strict JSON: double-quoted keys and strings, no trailing comma, `true`/`false`/`null`.
"""
import re
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import JSON_ARGS, Once, Value, changed_recipes, points_note, where

CODE = "RR209"
NAME = "json-arg-invalid"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


# A `{{ name }}` template placeholder is filled in before launch; it is not JSON to judge.
_TEMPLATE = re.compile(r"^\{\{.*\}\}$", re.S)


def _json_like(name: str, v: Value) -> bool:
    if not isinstance(v.value, str):
        return False
    text = v.value.strip()
    if _TEMPLATE.match(text) and name not in JSON_ARGS:
        return False
    return name in JSON_ARGS or text.startswith("{") or (text.startswith("[") and text.endswith("]"))


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, points in changed_recipes(ctx):
        bad, good = Once(), set()
        for point in points:
            for role in point.roles:
                for name, v in role.args.items():
                    if not isinstance(v, Value) or not _json_like(name, v):
                        continue
                    j = role.json(name)
                    if j is None:
                        continue
                    if j.error is None:
                        good.add((name, v.line))
                        continue
                    msg = f"{name} is not valid JSON ({j.error})"
                    bad.add((v.line, msg), point.name, (where(point, role), v.line, msg, v.value))
        for (w, line, msg, text), names in bad.items():
            shown = text if len(text) <= 80 else text[:77] + "…"
            yield Problem(path, anchor(ctx, path, line), f"{w}: {msg}: `{shown}`{points_note(names)}.",
                          evidence=(f"json.loads failed: {msg.split('(', 1)[1].rstrip(')')}",))
        if good:
            yield Passed(f"{path}: {len(good)} JSON string arg(s) parse ✓", path=path)
