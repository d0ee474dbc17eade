"""Engine command-line spellings and environment variables as the engines read them: the one alias table.

Two words a script writes are the same setting when the engine's argument parser stores them in
the same destination. The table below is read from the engines' own parsers, not guessed:

| engine | spellings (→ the one setting) | source |
|---|---|---|
| SGLang | `--tp-size`, `--tensor-parallel-size`, `--tp` | `python/sglang/srt/server_args.py`: `ServerArgs.tp_size` (`aliases=["--tensor-parallel-size"]`; 0.5.10–0.5.12 register both in `ServerArgs.add_cli_args`); `--tp` is argparse's abbreviation of `--tp-size`, the only option starting with it (`prepare_server_args` builds a default `ArgumentParser`, `allow_abbrev` on) |
| SGLang | `--dp-size`, `--data-parallel-size`, `--dp` | same, `ServerArgs.dp_size` (`--dp` as above) |
| SGLang | `--pp-size`, `--pipeline-parallel-size` | same, `ServerArgs.pp_size` (`--pp` is ambiguous there: `--pp-max-micro-batch-size` …) |
| SGLang | `--ep-size`, `--expert-parallel-size`, `--ep` | same, `ServerArgs.ep_size` |
| SGLang | `--model-path`, `--model`; `--dist-init-addr`, `--nccl-init-addr`; `--speculative-draft-model-path`, `--speculative-draft-model`; `--attn-cp-size`, `--attention-context-parallel-size`; `--moe-dp-size`, `--moe-data-parallel-size`; `--dcp-size`, `--decode-context-parallel-size` | same, the fields' `aliases` |
| SGLang | `--dsa-prefill-backend` / `--nsa-prefill-backend`, `--dsa-decode-backend` / `--nsa-decode-backend`, `--dsa-prefill-cp-mode` / `--nsa-prefill-cp-mode`, `--enable-dsa-prefill-context-parallel` / `--enable-nsa-prefill-context-parallel` | 0.5.15: `ServerArgs.add_cli_args`, the `nsa` spellings registered with `DeprecatedAliasStoreAction` / `DeprecatedStoreTrueAction` on the `dsa` destination (0.5.10–0.5.12 know only `--nsa-*`) |
| SGLang | `--cuda-graph-max-bs-decode` / `--cuda-graph-max-bs`, `--cuda-graph-bs-decode` / `--cuda-graph-bs`, `--cuda-graph-max-bs-prefill` / `--piecewise-cuda-graph-max-tokens`, `--cuda-graph-bs-prefill` / `--piecewise-cuda-graph-tokens`, `--mamba-radix-cache-strategy` / `--mamba-scheduler-strategy`, `--incremental-streaming-output` / `--stream-output` | same, `DeprecatedAliasStoreAction` / `DeprecatedStoreTrueAction` with the new flag's `dest` |
| vLLM | `--tensor-parallel-size` `-tp`, `--pipeline-parallel-size` `-pp`, `--data-parallel-size` `-dp`, `--data-parallel-size-local` `-dpl`, `--data-parallel-external-lb` `-dpe`, `--enable-expert-parallel` `-ep`, `--compilation-config` `-cc`, `--attention-config` `-ac` | `vllm/engine/arg_utils.py` `EngineArgs.add_cli_args` |
| vLLM | `--a_b` = `--a-b`; `--json-arg.key v` sets `--json-arg` | `vllm/utils/argparse_utils.py` `FlexibleArgumentParser.parse_args` |

Environment variables: SGLang reads every `SGL_X` as `SGLANG_X` (`python/sglang/srt/environ.py`
`_convert_SGL_to_SGLANG`). Variables an engine version no longer needs (removed, or its default
is what scripts set) come from the engine-defaults table (`rules.serving.defaults`) by the
version the point's image names: `SGLANG_ENABLE_SPEC_V2=1` is what SGLang does by default from
0.5.11 on.
"""
from __future__ import annotations

import re

from rules.serving import defaults

# canonical spelling → other spellings the engine's parser stores in the same destination.
_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "sglang": {
        "--tp-size": ("--tensor-parallel-size", "--tp"),
        "--dp-size": ("--data-parallel-size", "--dp"),
        "--pp-size": ("--pipeline-parallel-size",),
        "--ep-size": ("--expert-parallel-size", "--ep"),
        "--model-path": ("--model",),
        "--dist-init-addr": ("--nccl-init-addr",),
        "--speculative-draft-model-path": ("--speculative-draft-model",),
        "--attn-cp-size": ("--attention-context-parallel-size",),
        "--moe-dp-size": ("--moe-data-parallel-size",),
        "--dcp-size": ("--decode-context-parallel-size",),
        "--dsa-prefill-backend": ("--nsa-prefill-backend",),
        "--dsa-decode-backend": ("--nsa-decode-backend",),
        "--dsa-prefill-cp-mode": ("--nsa-prefill-cp-mode",),
        "--enable-dsa-prefill-context-parallel": ("--enable-nsa-prefill-context-parallel",),
        "--cuda-graph-max-bs-decode": ("--cuda-graph-max-bs",),
        "--cuda-graph-bs-decode": ("--cuda-graph-bs",),
        "--cuda-graph-max-bs-prefill": ("--piecewise-cuda-graph-max-tokens",),
        "--cuda-graph-bs-prefill": ("--piecewise-cuda-graph-tokens",),
        "--mamba-radix-cache-strategy": ("--mamba-scheduler-strategy",),
        "--incremental-streaming-output": ("--stream-output",),
    },
    "vllm": {
        "--tensor-parallel-size": ("-tp",),
        "--pipeline-parallel-size": ("-pp",),
        "--data-parallel-size": ("-dp",),
        "--data-parallel-size-local": ("-dpl",),
        "--data-parallel-external-lb": ("-dpe",),
        "--enable-expert-parallel": ("-ep",),
        "--compilation-config": ("-cc",),
        "--attention-config": ("-ac",),
    },
}
_CANONICAL: dict[str, dict[str, str]] = {
    engine: {alias: canon for canon, aliases in groups.items() for alias in (canon, *aliases)}
    for engine, groups in _GROUPS.items()}
# Single-dash spellings a script may use (read as flags by the feature extractors).
SHORT_FLAGS: frozenset[str] = frozenset(a for groups in _GROUPS.values() for aliases in groups.values()
                                        for a in aliases if not a.startswith("--"))
_SHORT = re.compile(r"(?<![\w-])(-[a-z]{2,3})(?=[\s=.'\"]|$)")


def canonical_flag(engine: str | None, flag: str) -> str:
    """The one spelling of `flag` for `engine` (`--tp` → `--tp-size` for SGLang; `-tp` →
    `--tensor-parallel-size` for vLLM); underscores read as dashes, a dotted JSON key as its
    argument (`--compilation-config.mode` → `--compilation-config`)."""
    name = flag.split("=", 1)[0]
    if name.startswith("--"):
        name = "--" + name[2:].split(".", 1)[0].replace("_", "-")
    else:
        name = name.split(".", 1)[0]
    return _CANONICAL.get(engine or "", {}).get(name, name)


def short_flags(line: str) -> list[str]:
    """Single-dash engine spellings (`-tp 8`, `-cc.mode=3`) on a line, in order."""
    return [m.group(1) for m in _SHORT.finditer(line) if m.group(1) in SHORT_FLAGS]


def canonical_env(engine: str | None, name: str) -> str:
    """The variable the engine reads for `name` (SGLang: `SGL_X` is `SGLANG_X`)."""
    if engine == "sglang" and name.startswith("SGL_"):
        return "SGLANG_" + name[4:]
    return name


# (engine, variable) → (engine-defaults setting, the value at which the variable is not needed)
_ENV_DEFAULTS: dict[tuple[str, str], tuple[str, object]] = {
    ("sglang", "SGLANG_ENABLE_SPEC_V2"): ("spec_v2", True),
}


def env_not_needed(engine: str | None, name: str, version: tuple[int, ...] | None) -> str | None:
    """Why `engine` at `version` does not need `name` set (its default already is what scripts set,
    or it no longer reads it), in words; None when it may (or the version is unknown)."""
    row = _ENV_DEFAULTS.get((engine or "", canonical_env(engine, name)))
    if row is None or version is None:
        return None
    a = defaults.lookup(engine or "", row[0], version)
    if a is None or a.value != row[1]:
        return None
    return f"{defaults.ENGINE_NAMES.get(engine or '', engine)} {defaults.fmt_version(version)}: {a.row.text}"
