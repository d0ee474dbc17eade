"""Model-config overrides on the lines a PR adds: `--hf-overrides`, `--json-model-override-args` and the like.

Read by model-architecture-overridden (F5). The override's value is a JSON object (often quoted,
escaped or held in a variable); its keys are read from the text between its braces, nested keys
included (`{"text_config": {"num_hidden_layers": 2}}` gives both), so a value that is not quite
JSON still yields its keys. Shell files and recipe YAML (`hf-overrides:` / `hf_overrides:` keys
of an engine's config) are read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rules.scripts.patching import logical_lines

# Options whose value rewrites the model's config before the engine builds the model.
OVERRIDE_FLAGS = ("--hf-overrides", "--hf_overrides", "--json-model-override-args", "--json_model_override_args",
                  "--override-generation-config", "--model-override-args", "--hf-config-overrides")
_FLAG = re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in OVERRIDE_FLAGS) + r")(?![\w-])")
_YAML_KEY = re.compile(
    r"^(\s*)[\"']?(hf[-_]overrides|json[-_]model[-_]override[-_]args|model[-_]override[-_]args)[\"']?\s*:\s*(.*)$"
)
_KEY = re.compile(r"""\\*["']([A-Za-z_][\w.-]*)\\*["']\s*:|(?:^|[{,\s])([A-Za-z_]\w*)\s*:(?!//)""")


@dataclass(frozen=True)
class Override:
    path: str
    line: int
    end: int
    flag: str
    keys: tuple[str, ...]
    text: str


def _braced(text: str, start: int) -> str | None:
    """The balanced `{…}` that starts at or after `start`."""
    at = text.find("{", start)
    if at < 0:
        return None
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[at:i + 1]
    return text[at:]


def keys_of(obj: str) -> tuple[str, ...]:
    out = []
    for m in _KEY.finditer(obj):
        k = m.group(1) or m.group(2)
        if k and k not in out:
            out.append(k)
    return tuple(out)


def shell_overrides(path: str, text: str, added: set[int] | None) -> list[Override]:
    out = []
    for lg in logical_lines(text, added):
        if not lg.added:
            continue
        for m in _FLAG.finditer(lg.text):
            obj = _braced(lg.text, m.end())
            if obj is None:
                continue
            out.append(Override(path, lg.line, lg.end, m.group(1), keys_of(obj), obj[:200]))
    return out


def yaml_overrides(path: str, text: str, added: set[int] | None) -> list[Override]:
    lines = text.split("\n")
    out = []
    for i, raw in enumerate(lines):
        m = _YAML_KEY.match(raw)
        if not m:
            continue
        indent = len(m.group(1))
        end = i
        while end + 1 < len(lines) and (
            not lines[end + 1].strip() or len(lines[end + 1]) - len(lines[end + 1].lstrip()) > indent
        ):
            end += 1
        span = range(i + 1, end + 2)
        if added is not None and not any(n in added for n in span):
            continue
        value = "\n".join([m.group(3)] + lines[i + 1:end + 1])
        keys = keys_of(value if "{" in value else "{" + value + "}")
        out.append(Override(path, i + 1, end + 1, m.group(2), keys, " ".join(value.split())[:200]))
    return out
