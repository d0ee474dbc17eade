"""Engine defaults and version-dependent behaviour: one table, each row with its source.

The engine-settings model (`rules.serving.settings`) reads a setting from the recipe or
the command line when it is written there; when it is not, the value the engine would use comes
from this table, and every rule that relies on such a value says so ("assumed vLLM ≥ 0.11
default …"). Rows are looked up by engine, setting and the engine version read from the
container image (`vllm/vllm-openai:v0.20.1-…` → vLLM 0.20.1). When the image names no version
(a `dynamo-sglang` alias, a nightly tag), the newest row applies and the message says which one
was assumed.

Sources are the engines' own code, read for this table (paths in the engines' repositories):

| engine | setting | behaviour | source |
|---|---|---|---|
| vLLM | max_num_seqs | 1024 on GPUs with ≥ 70 GiB (not A100), else 256 (API server) | `vllm/engine/arg_utils.py` `get_batch_defaults` |
| vLLM | max_cudagraph_capture_size | min(2 × max_num_seqs × (1 + k), 512), then ≤ max_num_batched_tokens | `vllm/config/vllm.py` `_set_cudagraph_sizes` |
| vLLM | cudagraph_capture_sizes | [1, 2, 4] + 8, 16, … 248 + 256, 272, … ≤ the cap | `vllm/config/compilation.py` (docstring of `cudagraph_capture_sizes`) |
| vLLM | max_num_seqs scope | per data-parallel rank: each DP rank is its own engine core and scheduler | `docs/serving/data_parallel_deployment.md` |
| vLLM | cpu_bytes_to_use | divided by the engine's world size (TP × PP, not DP); `cpu_bytes_to_use_per_rank` overrides | `vllm/distributed/kv_transfer/kv_connector/v1/simple_cpu_offload_connector.py` |
| SGLang | cuda_graph_max_bs | by GPU memory: < 90 GB and < 160 GB: 256 (TP < 4) / 512; ≥ 160 GB: 512 (since ≈ 0.5.3, PR #10372); 160 before | `python/sglang/srt/server_args.py` `_handle_gpu_memory_settings` |
| SGLang | cuda_graph_bs | generated up to cuda_graph_max_bs (1, 2, 4, 8, 12, 16…256 by 8, …) | same, `_generate_cuda_graph_batch_sizes` |
| SGLang | max_running_requests scope | the whole server: divided by dp_size under DP attention | `python/sglang/srt/model_executor/model_runner.py` (max_running_requests // dp_size) |
| SGLang | max_running_requests | no fixed default (derived from the KV pool) | same |
| SGLang | max_running_requests (speculative) | 48 when EAGLE, EAGLE3, NEXTN (an alias of EAGLE) or STANDALONE speculative decoding runs without `--max-running-requests` ("Max running requests is reset to 48 for speculative decoding"); the capture sizes are then clamped to the request pool | `python/sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`; `cuda_graph_runner.py` `get_batch_sizes_to_capture` |
| SGLang | SGLANG_ENABLE_SPEC_V2 | no V2 worker before ≈ 0.5.4 (PR #11398); off through 0.5.10 (`EnvBool(False)`); spec V2 is the default from 0.5.11 (`EnvBool(True)`, PR #21062; `ServerArgs._handle_speculative_decoding` falls back to V1 only when it is set false or topk > 1); by 0.5.15 the variable is gone (V1 retired in PR #27964; `arg_groups/speculative_hook.py` warns when it is set) | `python/sglang/srt/environ.py` `Envs.SGLANG_ENABLE_SPEC_V2` in the 0.5.10, 0.5.11 and 0.5.12 releases |
| TRT-LLM | max_batch_size | 2048 | `tensorrt_llm/llmapi/llm_args.py` `BaseLlmArgs.max_batch_size` |
| TRT-LLM | cuda_graph_config | on by default (PyTorch backend); `null` disables; without sizes: max_batch_size 128 | `tensorrt_llm/llmapi/llm_args.py` `TorchLlmArgs.cuda_graph_config`, `CudaGraphConfig` |
| TRT-LLM | max_batch_size scope | per attention-DP rank when `enable_attention_dp` | `tensorrt_llm/llmapi/llm_args.py` (attention DP schedules per rank) |

Version boundaries marked ≈ are the first release after the change was merged; the table says
so rather than pretending to more precision than the sources give.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

Version = tuple[int, ...]

# GPU memory per GPU (decimal GB) by the recipes' `gpu_type`, for defaults that depend on it.
GPU_MEMORY_GB = {
    "h100": 80, "h200": 141, "h20": 96, "b200": 180, "b300": 288, "gb200": 186, "gb300": 288,
    "mi300x": 192, "mi325x": 256, "mi355x": 288, "rtx6000pro": 96,
}


@dataclass(frozen=True)
class Default:
    """One row: what `engine` does for `setting` from version `since` (inclusive) on."""

    engine: str
    setting: str
    since: Version | None  # None: every version we know of
    text: str  # the behaviour, in words (quoted in messages)
    source: str  # where in the engine's code it is defined
    compute: Callable[..., object] | None = None


def _vllm_mns(gpu_gb: float | None = None, **_) -> int:
    return 256 if gpu_gb is not None and gpu_gb < 70 * 1.073741824 else 1024


def _vllm_capture_cap(mns: int | None = None, k: int = 0, mbt: int | None = None, **_) -> int | None:
    if mns is None:
        return None
    cap = min(mns * (1 + k) * 2, 512)
    return min(cap, mbt) if mbt else cap


def _sglang_graph_bs(gpu_gb: float | None = None, tp: int = 1, **_) -> int:
    if gpu_gb is None:
        return 160
    mib = gpu_gb * 1e9 / 2**20
    if mib < 20 * 1024:
        return 8
    if mib < 35 * 1024:
        return 24 if tp < 4 else 80
    if mib < 60 * 1024:
        return 32 if tp < 4 else 160
    if mib < 160 * 1024:
        return 256 if tp < 4 else 512
    return 512


DEFAULTS: tuple[Default, ...] = (
    Default("vllm", "max_num_seqs", (0, 8, 0),
            "max-num-seqs 1024 on GPUs with at least 70 GiB (256 on smaller ones)",
            "vllm/engine/arg_utils.py get_batch_defaults", _vllm_mns),
    Default("vllm", "max_cudagraph_capture_size", (0, 11, 0),
            "max_cudagraph_capture_size = min(2 × max-num-seqs × (1 + k), 512), capped at max-num-batched-tokens",
            "vllm/config/vllm.py _set_cudagraph_sizes", _vllm_capture_cap),
    Default("sglang", "cuda_graph_max_bs", None,
            "cuda-graph-max-bs 160", "python/sglang/srt/server_args.py (before PR #10372)",
            lambda **_: 160),
    Default("sglang", "cuda_graph_max_bs", (0, 5, 3),
            "cuda-graph-max-bs by GPU memory (512 on GPUs of 160 GB or more; 256 below 160 GB at TP < 4)",
            "python/sglang/srt/server_args.py _handle_gpu_memory_settings", _sglang_graph_bs),
    Default("sglang", "max_running_requests_speculative", None,
            "max-running-requests 48 under EAGLE-family speculative decoding",
            "python/sglang/srt/server_args.py ServerArgs._handle_speculative_decoding", lambda **_: 48),
    Default("sglang", "spec_v2", None,
            "no spec V2 worker (SGLANG_ENABLE_SPEC_V2 has no effect)",
            "python/sglang/srt/speculative (before PR #11398)", lambda **_: None),
    Default("sglang", "spec_v2", (0, 5, 4),
            "SGLANG_ENABLE_SPEC_V2 off (speculative decoding runs the V1 worker unless set)",
            "python/sglang/srt/environ.py (PR #11398 added the V2 worker behind the variable)", lambda **_: False),
    Default("sglang", "spec_v2", (0, 5, 11),
            "spec V2 on by default", "python/sglang/srt/environ.py Envs.SGLANG_ENABLE_SPEC_V2 (PR #21062)",
            lambda **_: True),
    Default("trtllm", "max_batch_size", None, "max_batch_size 2048",
            "tensorrt_llm/llmapi/llm_args.py BaseLlmArgs.max_batch_size", lambda **_: 2048),
    Default("trtllm", "cuda_graph_max_batch_size", None,
            "cuda_graph_config on with max_batch_size 128 when no batch_sizes are given",
            "tensorrt_llm/llmapi/llm_args.py CudaGraphConfig", lambda **_: 128),
)


@dataclass(frozen=True)
class Assumed:
    """A default the model used: its value, the row, and the version it was picked for."""

    value: object
    row: Default
    version: Version | None  # the image's version, or None when the newest row was assumed

    @property
    def label(self) -> str:
        """How a message names it: `vLLM 0.20.1 default …` or `vLLM ≥ 0.11 default … (assumed)`."""
        name = ENGINE_NAMES.get(self.row.engine, self.row.engine)
        if self.version is not None:
            return f"{name} {fmt_version(self.version)} default ({self.row.text})"
        since = f" ≥ {fmt_version(self.row.since)}" if self.row.since else ""
        return f"{name}{since} default ({self.row.text}; image names no version, newest behaviour assumed)"

    @property
    def behaviour(self) -> str:
        """How a finding's message names it: the engine and the row's behaviour, no version
        (`vLLM default (max-num-seqs 1024 …)`). A message is a finding's identity, and the base
        replay compares it: an image bump that keeps the default is not the cause of a problem
        the default had before (#1838, #2119). The version goes in the evidence (`label`)."""
        return f"{ENGINE_NAMES.get(self.row.engine, self.row.engine)} default ({self.row.text})"


ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM"}


def fmt_version(v: Version) -> str:
    return ".".join(str(x) for x in v)


def lookup(engine: str, setting: str, version: Version | None, **inputs) -> Assumed | None:
    """The default `engine` uses for `setting` at `version` (newest row when the version is unknown)."""
    rows = [r for r in DEFAULTS if r.engine == engine and r.setting == setting]
    if not rows:
        return None
    rows.sort(key=lambda r: r.since or ())
    row = rows[-1]
    if version is not None:
        fitting = [r for r in rows if r.since is None or r.since <= version]
        if not fitting:
            return None  # older than anything the table knows
        row = fitting[-1]
    value = row.compute(**inputs) if row.compute is not None else None
    return Assumed(value, row, version)


_IMAGE_VERSION = re.compile(r"(?::|@)v?(\d+)\.(\d+)(?:\.(\d+))?")
_ENGINE_REPOS = (("vllm", re.compile(r"(^|/)vllm[-/]")), ("sglang", re.compile(r"(^|/)sglang")),
                 ("trtllm", re.compile(r"tensorrt[-_]?llm|trtllm")))


def image_version(image: object, engine: str | None) -> Version | None:
    """The engine version an image tag names (`lmsysorg/sglang:v0.5.12.post1` → (0, 5, 12)).

    Only images of the engine's own repository count: a Dynamo runtime tag versions Dynamo, not
    the engine inside it, and an alias (`dynamo-sglang`) or a nightly tag names no version.
    """
    if not isinstance(image, str) or engine is None:
        return None
    repo = image.split(":", 1)[0].split("@", 1)[0].lower()
    pattern = dict(_ENGINE_REPOS).get(engine)
    if pattern is None or not pattern.search(repo) or "dynamo" in repo:
        return None
    m = _IMAGE_VERSION.search(image[len(repo):] if image.lower().startswith(repo) else image)
    if not m:
        return None
    return tuple(int(x) for x in m.groups() if x is not None)


def gpu_memory_gb(gpu_type: object) -> float | None:
    """Memory of one GPU (decimal GB) for a recipe `gpu_type`, or None when unknown."""
    if not isinstance(gpu_type, str):
        return None
    key = gpu_type.strip().lower()
    if key in GPU_MEMORY_GB:
        return float(GPU_MEMORY_GB[key])
    for name, gb in GPU_MEMORY_GB.items():
        if key.startswith(name):
            return float(gb)
    return None
