"""The engine-settings model: one normalized view of every engine instance of a benchmark point.

Whatever the source (an srt-slurm recipe role, a schema-2 role, TRT-LLM YAML in a recipe, and,
through the same `ArgSource` interface, the resolved command line of a single-node script), each
engine instance of a point becomes one `EngineSettings`: the fields below, each a `Setting`
(value, line where it is written, the spelling it was written under, or the defaults-table row it
was assumed from).

| field | vLLM | SGLang | TensorRT-LLM |
|---|---|---|---|
| `max_seqs` (admission cap) | `max-num-seqs`, per DP rank | `max-running-requests`, per server | `max_batch_size`, per attention-DP rank |
| `capture_sizes` / `capture_cap` | `compilation-config` list / `max_cudagraph_capture_size` (tokens) | `cuda-graph-bs` / `cuda-graph-max-bs` (requests per DP rank) | `cuda_graph_config.batch_sizes` / `.max_batch_size` (requests) |
| `spec_tokens` (k) | `num_speculative_tokens` | `speculative-num-steps` | `num_nextn_predict_layers` / `max_draft_len` |
| `tp`, `dp`, `pp`, `pcp`, `ep` | tensor/data/pipeline/prefill-context parallel; EP = TP × DP with `enable-expert-parallel` | `tp-size`, `dp-size`, `pp-size`, `ep-size` | `tensor_parallel_size`, `pipeline_parallel_size`, `moe_expert_parallel_size` |
| `dp_attention` | DP > 1 (vLLM's DP is attention DP) | `enable-dp-attention` | `enable_attention_dp` |
| `mem_fraction`, `kv_dtype` | `gpu-memory-utilization`, `kv-cache-dtype` | `mem-fraction-static`, `kv-cache-dtype` | `kv_cache_config.free_gpu_memory_fraction` / `.dtype` |
| `pools` | Simple CPU offload, LMCache | HiCache size/ratio | `kv_cache_config.host_cache_size` |

plus the layout of the role (workers, nodes, declared GPUs per worker, GPUs per node) and the
benchmark of the point (`BenchmarkPoint`: concurrencies with their lines and where they come
from, the scenario, `use_chat_template`, `TOTAL_CPU_DRAM_GB`, the master-config points that run
the recipe).

Scopes, from the engines' code (rows of `rules.serving.defaults`): vLLM schedules each
data-parallel rank separately, so one instance admits `max-num-seqs × DP`; SGLang's
`max-running-requests` is the server's total (split over DP-attention ranks) and its
`cuda-graph-max-bs` a per-rank batch; TensorRT-LLM's `max_batch_size` and graph sizes are per
attention-DP rank. A value that cannot be read (a placeholder, `"8k"`, a JSON string that does
not parse) is recorded in `unknowns` with what it is, so rules say Skipped, never guess.

Memoized per review: `point_settings(ctx, path)` → list of `BenchmarkPoint`.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from rules.added import added_in, anchor
from rules.context import ReviewContext
from rules.document import Document
from rules.serving import defaults
from rules.serving.defaults import Assumed
from rules.serving.recipe_points import JsonArg, RecipePoint, Role, Value, as_int, as_number, recipe_points

GB = 10**9
GIB = 2**30
DRAM_ENV = "TOTAL_CPU_DRAM_GB"
# At most this many distinct concurrencies are compared per point (a 10,000-point search space
# is reduced to its distinct values first; the largest ones decide every rule).
MAX_CONCURRENCIES = 64
_NPMD = re.compile(r"(?<![a-z0-9])(\d+)p[-_]?(\d+)d(?![a-z])", re.I)
_CONC_SPLIT = re.compile(r"[x×,\s]+")
_PLACEHOLDER = re.compile(r"\$\{?\w+|\{\{|<[A-Za-z_]+>|@dram\.")


class ArgSource(Protocol):
    """Where an instance's settings are read from: a recipe role, or a resolved command line."""

    name: str
    engine: str | None
    env: Mapping[str, Any]

    def arg(self, name: str) -> Value | None: ...

    def json(self, name: str) -> JsonArg | None: ...


@dataclass(frozen=True)
class Setting:
    """One normalized value: as written (with its line and spelling), or assumed from a default."""

    value: Any
    line: int | None
    name: str  # the spelling it is written under, or the defaults-table setting
    default: Assumed | None = None

    @property
    def explicit(self) -> bool:
        return self.default is None

    @property
    def label(self) -> str:
        """How a message names it: `` `max-num-seqs` 64 `` or the default's behaviour (no
        version: `versioned` says which version it was taken for)."""
        if self.default is not None:
            return self.default.behaviour
        shown = (fmt(self.value) if isinstance(self.value, (int, float)) and not isinstance(self.value, bool)
                 else self.value)
        return f"`{self.name}` {shown}"

    @property
    def versioned(self) -> str:
        """The label with the engine version a default was taken for (for evidence)."""
        return self.default.label if self.default is not None else self.label


@dataclass(frozen=True)
class HostPool:
    """A pinned host-memory KV pool of one instance, in bytes per rank (None when unresolvable)."""

    kind: str  # "simple-cpu" | "lmcache" | "hicache" | "trt-host-cache" | "mooncake"
    per_rank: int | None
    line: int | None
    written: str  # how it is written, with the unit conversion ("hicache-size 135 GB × 10^9 = …")
    total: int | None = None  # an instance-wide total written beside it (Simple CPU `cpu_bytes_to_use`)
    unresolved: str | None = None  # why the size is unknown
    ref: bool = False  # an `@dram.…` reference the launcher binds


@dataclass
class EngineSettings:
    """One engine instance (a role of a point): normalized settings, each with its line."""

    path: str
    point: str
    role: str
    engine: str | None
    source: str  # "srt-slurm" | "schema-2" | "script"
    version: defaults.Version | None = None
    image: Setting | None = None
    gpu_type: str | None = None
    tp: Setting | None = None
    dp: Setting | None = None
    pp: Setting | None = None
    pcp: Setting | None = None
    ep: Setting | None = None
    expert_parallel: Setting | None = None
    dp_attention: Setting | None = None
    max_seqs: Setting | None = None
    capture_sizes: Setting | None = None
    capture_cap: Setting | None = None
    # what disables graphs (enforce-eager, disable-cuda-graph, cuda_graph_config null)
    capture_off: Setting | None = None
    spec_tokens: Setting | None = None
    speculative: Setting | None = None  # the setting that turns speculative decoding on
    max_batched_tokens: Setting | None = None
    mem_fraction: Setting | None = None
    kv_dtype: Setting | None = None
    pools: tuple[HostPool, ...] = ()
    workers: Setting | None = None
    nodes: Setting | None = None
    gpus: Setting | None = None  # declared GPUs per worker
    gpus_per_node: Setting | None = None
    env: Mapping[str, Any] = field(default_factory=dict)
    unknowns: list[str] = field(default_factory=list)
    parallel_unknown: str | None = None  # why the rank count cannot be told (a placeholder TP, …)
    opaque: str | None = None  # a command word that may be any flag (a script's unresolved `$EXTRA`)
    block_line: int | None = None  # first line of the role's block (for findings about a missing key)

    # --- parallelism ---------------------------------------------------------------------

    def _n(self, s: Setting | None) -> int:
        v = as_int(s.value) if s is not None else None
        return v if v is not None and v > 0 else 1

    @property
    def instance_ranks(self) -> int:
        """GPUs (ranks) of one instance: vLLM TP × DP × PP × PCP; SGLang TP × PP (DP attention
        runs inside the TP group; plain DP replicas multiply); TensorRT-LLM TP × PP."""
        tp, dp, pp, pcp = self._n(self.tp), self._n(self.dp), self._n(self.pp), self._n(self.pcp)
        if self.engine == "vllm":
            return tp * dp * pp * pcp
        if self.engine == "sglang":
            return tp * pp * (dp if dp > 1 and not self.dp_attention_on else 1)
        return tp * pp

    @property
    def world_size(self) -> int:
        """vLLM's `parallel_config.world_size` of one DP engine: TP × PP × PCP (no DP)."""
        return self._n(self.tp) * self._n(self.pp) * self._n(self.pcp)

    @property
    def dp_attention_on(self) -> bool:
        return bool(self.dp_attention is not None and self.dp_attention.value is True)

    @property
    def dp_ranks(self) -> int:
        """Ranks that schedule their own batch: vLLM DP; SGLang DP under DP attention;
        TensorRT-LLM TP under attention DP; 1 otherwise."""
        if self.engine == "vllm":
            return self._n(self.dp)
        if self.engine == "sglang":
            return self._n(self.dp) if self.dp_attention_on else 1
        if self.engine == "trtllm":
            return self._n(self.tp) if self.dp_attention_on else 1
        return 1

    @property
    def parallel_arith(self) -> str:
        parts = [(s.name, as_int(s.value)) for s in (self.tp, self.dp, self.pp, self.pcp) if s is not None]
        parts = [(n, v) for n, v in parts if v is not None]
        if not parts:
            return "1"
        text = " × ".join(f"{n} {v}" for n, v in parts)
        return text + (f" = {self.instance_ranks}" if len(parts) > 1 else "")

    def ranks_on_node(self) -> int:
        """Ranks of one instance on one node (an instance larger than a node fills each node)."""
        gpn = as_int(self.gpus_per_node.value) if self.gpus_per_node is not None else None
        r = self.instance_ranks
        return min(r, gpn) if gpn and gpn > 0 else r

    # --- admission and capture ----------------------------------------------------------

    def admits(self) -> tuple[int, str] | None:
        """(requests one instance admits at once, arithmetic), from `max_seqs` and its scope."""
        if self.max_seqs is None:
            return None
        cap = as_int(self.max_seqs.value)
        if cap is None:
            return None
        per = self.dp_ranks if self.engine in ("vllm", "trtllm") else 1
        if per > 1:
            return cap * per, f"{self.max_seqs.label} × {per} DP ranks = {fmt(cap * per)}"
        return cap, self.max_seqs.label

    def per_rank_cap(self) -> int | None:
        """Requests one scheduling rank can hold (the batch a decode graph must cover)."""
        if self.max_seqs is None:
            return None
        cap = as_int(self.max_seqs.value)
        if cap is None:
            return None
        if self.engine == "sglang" and self.dp_ranks > 1:
            return math.ceil(cap / self.dp_ranks)
        return cap

    @property
    def capture_unit(self) -> str:
        return "tokens" if self.engine == "vllm" else "requests"

    def capture_top(self) -> Setting | None:
        """The largest batch graphs are captured for: the list's last size, else the cap."""
        if self.capture_off is not None:
            return None
        if self.capture_sizes is not None and isinstance(self.capture_sizes.value, list):
            ints = [as_int(x) for x in self.capture_sizes.value]
            if ints and all(i is not None for i in ints):
                return Setting(max(ints), self.capture_sizes.line, self.capture_sizes.name, self.capture_sizes.default)
            return None
        return self.capture_cap

    @property
    def k(self) -> int:
        v = as_int(self.spec_tokens.value) if self.spec_tokens is not None else None
        return v if v is not None and v > 0 else 0


# --- building settings from a source ----------------------------------------------------------

_ARG_NAMES = {
    "vllm": {
        "tp": ("tensor-parallel-size", "tp"), "dp": ("data-parallel-size", "dp"),
        "pp": ("pipeline-parallel-size", "pp"), "pcp": ("prefill-context-parallel-size", "pcp"),
        "max_seqs": ("max-num-seqs",), "mbt": ("max-num-batched-tokens",),
        "mem": ("gpu-memory-utilization",), "kv": ("kv-cache-dtype",),
    },
    "sglang": {
        "tp": ("tensor-parallel-size", "tp-size", "tp"), "dp": ("data-parallel-size", "dp-size", "dp"),
        "pp": ("pipeline-parallel-size", "pp-size", "pp"), "ep": ("expert-parallel-size", "ep-size", "ep"),
        "max_seqs": ("max-running-requests",), "mem": ("mem-fraction-static",), "kv": ("kv-cache-dtype",),
        "mbt": ("chunked-prefill-size",),
    },
    "trtllm": {
        "tp": ("tensor_parallel_size",), "pp": ("pipeline_parallel_size",), "ep": ("moe_expert_parallel_size",),
        "max_seqs": ("max_batch_size",), "mbt": ("max_num_tokens",),
    },
    # ATOM (ROCm, single-node scripts): only its scheduler cap is modelled; its capture, DP and
    # defaults are not in the defaults table, so nothing else is read.
    "atom": {
        "tp": ("tensor-parallel-size",), "max_seqs": ("max-num-seqs",), "mbt": ("max-num-batched-tokens",),
    },
}


def _first(src: ArgSource, names: tuple[str, ...]) -> tuple[str, Value] | None:
    for n in names:
        v = src.arg(n)
        if v is not None:
            return n, v
    return None


def _int_setting(es: EngineSettings, src: ArgSource, names: tuple[str, ...], positive: bool = True) -> Setting | None:
    got = _first(src, names)
    if got is None:
        return None
    n, v = got
    iv = _strict_int(v.value)
    if iv is None:
        es.unknowns.append(f"`{n}` is `{v.value}`, not an integer")
        return None
    if positive and iv <= 0:
        es.unknowns.append(f"`{n}` is `{iv}`, not a positive integer")
        return None
    return Setting(iv, v.line, n)


def _strict_int(value: Any) -> int | None:
    """An integer as an engine's argument parser reads it: YAML ints and decimal strings only.
    `"8k"`, `"1e4"` and YAML floats (`1e4` loads as 10000.0, which the launcher passes on as
    `10000.0` and `int()` rejects) are not integers."""
    if isinstance(value, (bool, float)):
        return None
    return as_int(value)


def _bool(v: Value | None) -> bool | None:
    if v is None:
        return None
    if isinstance(v.value, bool):
        return v.value
    if isinstance(v.value, str) and v.value.strip().lower() in ("true", "1", "yes", "on", ""):
        return True  # srt-slurm renders an empty value as a bare flag
    if isinstance(v.value, str) and v.value.strip().lower() in ("false", "0", "no", "off"):
        return False
    if v.value is None:
        return True  # `enable-dp-attention:` with no value is a flag given without an argument
    return None


def _nested(value: Any, *keys: str) -> Any:
    cur = value
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return cur


def _trt_dict(src: ArgSource, name: str) -> tuple[dict | None, int | None, bool]:
    """A TensorRT-LLM nested config (`cuda_graph_config`, `kv_cache_config`): (mapping, line, set to null)."""
    v = src.arg(name)
    if v is None:
        return None, None, False
    if v.value is None:
        return None, v.line, True
    j = src.json(name)
    data = j.data if j is not None else v.value
    return (data if isinstance(data, dict) else None), v.line, False


def settings_from(src: ArgSource, *, path: str, point: str, source: str, image: Setting | None = None,
                  gpu_type: str | None = None, layout: Mapping[str, Setting | None] | None = None,
                  block_line: int | None = None) -> EngineSettings:
    """Normalize one engine instance read through `src` (a recipe role or a command line)."""
    engine = src.engine if src.engine in _ARG_NAMES else None
    version = defaults.image_version(image.value if image is not None else None, engine)
    es = EngineSettings(path, point, src.name, engine, source, version, image, gpu_type,
                        env=src.env, block_line=block_line)
    for k, v in (layout or {}).items():
        setattr(es, k, v)
    if engine is None:
        return es
    names = _ARG_NAMES[engine]
    for fld in ("tp", "dp", "pp", "pcp", "ep"):
        if fld in names:
            before = len(es.unknowns)
            setattr(es, fld, _int_setting(es, src, names[fld]))
            if len(es.unknowns) > before and fld != "ep":
                es.parallel_unknown = es.unknowns[-1]
    es.max_seqs = _int_setting(es, src, names["max_seqs"], positive=False)
    if "mbt" in names:
        es.max_batched_tokens = _int_setting(es, src, names["mbt"])
    if engine == "vllm":
        _vllm(es, src)
    elif engine == "sglang":
        _sglang(es, src)
    elif engine == "trtllm":
        _trtllm(es, src)
    else:
        _atom(es, src)
    for fld, arg in (("mem_fraction", names.get("mem")), ("kv_dtype", names.get("kv"))):
        got = _first(src, arg) if arg else None
        if got is not None:
            setattr(es, fld, Setting(got[1].value, got[1].line, got[0]))
    es.pools = tuple(_pools(es, src))
    _apply_defaults(es)
    return es


def _json_or_unknown(es: EngineSettings, src: ArgSource, name: str) -> tuple[dict, int | None]:
    j = src.json(name)
    if j is None:
        return {}, None
    if j.error is not None:
        es.unknowns.append(f"`{name}` does not parse as JSON ({j.error})")
        return {}, j.line
    return (j.data if isinstance(j.data, dict) else {}), j.line


def _vllm(es: EngineSettings, src: ArgSource) -> None:
    dp = as_int(es.dp.value) if es.dp is not None else 1
    es.dp_attention = Setting(
        bool(dp and dp > 1), es.dp.line if es.dp else None, es.dp.name if es.dp else "data-parallel-size"
    )
    ep_flag = src.arg("enable-expert-parallel")
    if ep_flag is not None and _bool(ep_flag):
        es.expert_parallel = Setting(True, ep_flag.line, "enable-expert-parallel")
        es.ep = Setting(es._n(es.tp) * es._n(es.dp), ep_flag.line, "enable-expert-parallel (TP × DP)")
    eager = src.arg("enforce-eager")
    if eager is not None and _bool(eager):
        es.capture_off = Setting(True, eager.line, "enforce-eager")
    cc, cc_line = _json_or_unknown(es, src, "compilation-config")
    mode = cc.get("cudagraph_mode")
    if isinstance(mode, str) and mode.upper() == "NONE":
        es.capture_off = Setting(True, cc_line, "compilation-config cudagraph_mode NONE")
    sizes = cc.get("cudagraph_capture_sizes")
    if sizes is not None:
        es.capture_sizes = Setting(sizes, cc_line, "cudagraph_capture_sizes")
    else:
        v = src.arg("cuda-graph-sizes")
        if v is not None:
            es.capture_sizes = Setting(v.value if isinstance(v.value, list) else [v.value], v.line, "cuda-graph-sizes")
    cap = cc.get("max_cudagraph_capture_size")
    if cap is not None:
        icap = _strict_int(cap)
        if icap is None:
            es.unknowns.append(f"`max_cudagraph_capture_size` is `{cap}`, not an integer")
        else:
            es.capture_cap = Setting(icap, cc_line, "max_cudagraph_capture_size")
    else:
        s = _int_setting(es, src, ("max-cudagraph-capture-size",))
        if s is not None:
            es.capture_cap = s
    spec, spec_line = _json_or_unknown(es, src, "speculative-config")
    if spec or src.arg("speculative-config") is not None:
        es.speculative = Setting(spec.get("method") or True, spec_line, "speculative-config")
        k = spec.get("num_speculative_tokens")
        if k is not None:
            ik = _strict_int(k)
            if ik is None:
                es.unknowns.append(f"`num_speculative_tokens` is `{k}`, not an integer")
            else:
                es.spec_tokens = Setting(ik, spec_line, "num_speculative_tokens")


def _sglang(es: EngineSettings, src: ArgSource) -> None:
    dpa = src.arg("enable-dp-attention")
    es.dp_attention = Setting(bool(_bool(dpa)), dpa.line if dpa else None, "enable-dp-attention")
    if es.ep is None:
        # An all-to-all MoE backend (DeepEP, Mooncake, MegaMoE, …) or the older `enable-ep-moe` /
        # `enable-deepep-moe` flags make SGLang set ep_size = tp_size (server_args.py).
        a2a = src.arg("moe-a2a-backend")
        flag = next(((n, v) for n in ("enable-ep-moe", "enable-deepep-moe") if (v := src.arg(n)) is not None
                     and _bool(v)), None)
        if a2a is not None and str(a2a.value).strip().lower() not in ("", "none", "null") and "$" not in str(a2a.value):
            es.ep = Setting(es._n(es.tp), a2a.line, f"moe-a2a-backend {a2a.value} (ep = tp)")
        elif flag is not None:
            es.ep = Setting(es._n(es.tp), flag[1].line, f"{flag[0]} (ep = tp)")
    if es.ep is not None and (as_int(es.ep.value) or 1) > 1:
        es.expert_parallel = Setting(True, es.ep.line, es.ep.name)
    off = src.arg("disable-cuda-graph")
    if off is not None and _bool(off):
        es.capture_off = Setting(True, off.line, "disable-cuda-graph")
    bs = src.arg("cuda-graph-bs")
    if bs is not None:
        vals = bs.value if isinstance(bs.value, list) else _CONC_SPLIT.split(str(bs.value).strip())
        es.capture_sizes = Setting(vals, bs.line, "cuda-graph-bs")
    cap = _int_setting(es, src, ("cuda-graph-max-bs",))
    if cap is not None:
        es.capture_cap = cap
    algo = src.arg("speculative-algorithm") or src.arg("speculative-algo")
    if algo is not None and algo.value not in (None, "", "none", "None"):
        es.speculative = Setting(algo.value, algo.line, "speculative-algorithm")
        steps = _int_setting(es, src, ("speculative-num-steps",))
        if steps is not None:
            es.spec_tokens = steps


def _atom(es: EngineSettings, src: ArgSource) -> None:
    dpa = src.arg("enable-dp-attention")
    es.dp_attention = Setting(bool(_bool(dpa)), dpa.line if dpa else None, "enable-dp-attention")
    if es.dp_attention_on and es.max_seqs is not None:
        # Whether ATOM's cap is per attention-DP rank or the server's total is not modelled.
        es.unknowns.append("`max-num-seqs` under ATOM DP attention: its scope (per rank or total) is not modelled")
        es.max_seqs = None


def _trtllm(es: EngineSettings, src: ArgSource) -> None:
    dpa = src.arg("enable_attention_dp")
    es.dp_attention = Setting(bool(_bool(dpa)), dpa.line if dpa else None, "enable_attention_dp")
    if es.ep is not None and (as_int(es.ep.value) or 1) > 1:
        es.expert_parallel = Setting(True, es.ep.line, es.ep.name)
    cg, cg_line, null = _trt_dict(src, "cuda_graph_config")
    if null:
        es.capture_off = Setting(True, cg_line, "cuda_graph_config: null")
    elif cg is not None:
        sizes = cg.get("batch_sizes")
        if sizes is not None:
            es.capture_sizes = Setting(sizes, _line_in(src, "cuda_graph_config", "batch_sizes") or cg_line,
                                       "cuda_graph_config.batch_sizes")
        mbs = cg.get("max_batch_size")
        if mbs is not None:
            imbs = _strict_int(mbs)
            if imbs is None:
                es.unknowns.append(f"`cuda_graph_config.max_batch_size` is `{mbs}`, not an integer")
            else:
                es.capture_cap = Setting(imbs, _line_in(src, "cuda_graph_config", "max_batch_size") or cg_line,
                                         "cuda_graph_config.max_batch_size")
    spec, spec_line, _ = _trt_dict(src, "speculative_config")
    if spec:
        es.speculative = Setting(spec.get("decoding_type") or True, spec_line, "speculative_config")
        for key in ("num_nextn_predict_layers", "max_draft_len"):
            if spec.get(key) is not None:
                ik = _strict_int(spec[key])
                if ik is not None:
                    es.spec_tokens = Setting(ik, _line_in(src, "speculative_config", key) or spec_line, key)
                    break
    kv, kv_line, _ = _trt_dict(src, "kv_cache_config")
    if kv:
        if kv.get("free_gpu_memory_fraction") is not None:
            es.mem_fraction = Setting(kv["free_gpu_memory_fraction"],
                                      _line_in(src, "kv_cache_config", "free_gpu_memory_fraction") or kv_line,
                                      "kv_cache_config.free_gpu_memory_fraction")
        if kv.get("dtype") is not None:
            es.kv_dtype = Setting(
                kv["dtype"], _line_in(src, "kv_cache_config", "dtype") or kv_line, "kv_cache_config.dtype"
            )


def _line_in(src: ArgSource, *keys: str) -> int | None:
    """Line of a key nested in a YAML mapping arg (recipes write TRT-LLM configs as YAML)."""
    args = getattr(src, "args", None)
    cur: Any = args
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    if isinstance(cur, Value):
        return cur.line
    if isinstance(cur, dict):
        for v in cur.values():
            if isinstance(v, Value):
                return v.line
    return None


# SGLang's speculative algorithms whose server arguments set max_running_requests to 48 when it
# is not given (`ServerArgs._handle_speculative_decoding`; NEXTN is renamed EAGLE first).
SGLANG_EAGLE = frozenset({"EAGLE", "EAGLE3", "NEXTN", "STANDALONE"})


def _apply_defaults(es: EngineSettings) -> None:  # noqa: C901 (one branch per engine and per cap it defaults)
    """Fill unset caps from the engine-defaults table (marked as assumed)."""
    gpu_gb = defaults.gpu_memory_gb(es.gpu_type)
    if es.engine == "vllm":
        if es.max_seqs is None:
            a = defaults.lookup("vllm", "max_num_seqs", es.version, gpu_gb=gpu_gb)
            if a is not None:
                es.max_seqs = Setting(a.value, None, "max-num-seqs", a)
        if es.capture_off is None and es.capture_sizes is None and es.capture_cap is None:
            mns = as_int(es.max_seqs.value) if es.max_seqs is not None else None
            mbt = as_int(es.max_batched_tokens.value) if es.max_batched_tokens is not None else None
            a = defaults.lookup("vllm", "max_cudagraph_capture_size", es.version, mns=mns, k=es.k, mbt=mbt)
            if a is not None and a.value is not None:
                es.capture_cap = Setting(a.value, None, "max_cudagraph_capture_size", a)
    elif es.engine == "sglang":
        if es.max_seqs is None and es.speculative is not None and str(es.speculative.value).upper() in SGLANG_EAGLE:
            a = defaults.lookup("sglang", "max_running_requests_speculative", es.version)
            if a is not None:
                es.max_seqs = Setting(a.value, None, "max-running-requests", a)
        if es.capture_off is None and es.capture_sizes is None and es.capture_cap is None:
            a = defaults.lookup("sglang", "cuda_graph_max_bs", es.version, gpu_gb=gpu_gb, tp=es._n(es.tp))
            if a is not None:
                es.capture_cap = Setting(a.value, None, "cuda-graph-max-bs", a)
    elif es.engine == "trtllm":
        if es.max_seqs is None:
            a = defaults.lookup("trtllm", "max_batch_size", es.version)
            if a is not None:
                es.max_seqs = Setting(a.value, None, "max_batch_size", a)
        if es.capture_off is None and es.capture_sizes is None and es.capture_cap is None:
            a = defaults.lookup("trtllm", "cuda_graph_max_batch_size", es.version)
            if a is not None:
                es.capture_cap = Setting(a.value, None, "cuda_graph_config.max_batch_size", a)


# --- host-memory pools ---------------------------------------------------------------------------

_SIMPLE = ("cpu_bytes_to_use_per_rank", "cpu_bytes_to_use")


def simple_cpu_config(src: ArgSource) -> tuple[dict, int | None] | None:
    """The connector extra config that sizes a vLLM Simple CPU pool (also inside a MultiConnector)."""
    j = src.json("kv-transfer-config")
    if j is None or not isinstance(j.data, dict):
        return None
    stack = [j.data]
    while stack:
        cur = stack.pop()
        extra = cur.get("kv_connector_extra_config")
        if isinstance(extra, dict) and any(k in extra for k in _SIMPLE):
            return extra, j.line
        for sub in (extra or {}).get("connectors", []) if isinstance(extra, dict) else []:
            if isinstance(sub, dict):
                stack.append(sub)
    return None


def _size(value: Any) -> tuple[int | None, str | None, bool]:
    """(bytes as an integer, why not, is an @dram reference) of a byte count."""
    if isinstance(value, str) and value.strip().startswith("@dram."):
        return None, f"`{value}` is bound by the launcher", True
    iv = _strict_int(value)
    if iv is None:
        return None, f"`{value}` is not a byte count", False
    return iv, None, False


def _pools(es: EngineSettings, src: ArgSource) -> Iterator[HostPool]:
    sc = simple_cpu_config(src) if es.engine == "vllm" else None
    if sc is not None:
        extra, line = sc
        per, per_why, per_ref = _size(extra.get(_SIMPLE[0])) if _SIMPLE[0] in extra else (None, None, False)
        tot, tot_why, tot_ref = _size(extra.get(_SIMPLE[1])) if _SIMPLE[1] in extra else (None, None, False)
        ref = per_ref or tot_ref
        why = per_why if _SIMPLE[0] in extra else tot_why
        if per is not None:
            written = f"{_SIMPLE[0]} {fmt(per)} B"
            yield HostPool("simple-cpu", per, line, written, total=tot, unresolved=None, ref=ref)
        elif tot is not None:
            # vLLM divides cpu_bytes_to_use by the world size of one DP engine (TP × PP × PCP).
            ws = es.world_size
            written = f"{_SIMPLE[1]} {fmt(tot)} B ÷ world size {ws} (TP × PP × PCP; each DP engine takes its own share)"
            yield HostPool("simple-cpu", tot // ws, line, written, total=tot, ref=ref)
        else:
            yield HostPool("simple-cpu", None, line, "Simple CPU offload", unresolved=why, ref=ref)
    for name in ("LMCACHE_MAX_LOCAL_CPU_SIZE",):
        v = es.env.get(name) if isinstance(es.env, Mapping) else None
        if isinstance(v, Value):
            gb = as_number(v.value)
            if isinstance(v.value, str) and v.value.strip().startswith("@dram."):
                yield HostPool(
                    "lmcache", None, v.line, name, unresolved=f"`{v.value}` is bound by the launcher", ref=True
                )
            elif gb is None or gb < 0:
                yield HostPool("lmcache", None, v.line, name, unresolved=f"`{name}` is `{v.value}`, not a size in GB")
            else:
                b = int(Fraction(str(gb)) * GIB)
                yield HostPool(
                    "lmcache", b, v.line, f"{name} {fmt(gb)} GiB (LMCache reads GB as 2^30 B) = {fmt(b)} B/rank"
                )
    if es.engine == "sglang":
        size = src.arg("hicache-size")
        ratio = src.arg("hicache-ratio")
        enabled = _bool(src.arg("enable-hierarchical-cache"))
        if size is not None and (as_number(size.value) or 0) > 0:
            gb = as_number(size.value)
            b = int(Fraction(str(gb)) * GB)
            yield HostPool("hicache", b, size.line, f"hicache-size {fmt(gb)} GB × 10^9 = {fmt(b)} B/rank")
        elif size is not None and as_number(size.value) is None:
            yield HostPool("hicache", None, size.line, "hicache-size", unresolved=f"`hicache-size` is `{size.value}`")
        elif enabled or ratio is not None:
            r = ratio.value if ratio is not None else 2
            yield HostPool("hicache", None, ratio.line if ratio else None, f"hicache-ratio {r}",
                           unresolved=(f"HiCache is sized as hicache-ratio {r} × the device KV pool, which the "
                                       "recipe does not state (set hicache-size to make it checkable)"))
    if es.engine == "trtllm":
        kv, kv_line, _ = _trt_dict(src, "kv_cache_config")
        if kv and kv.get("host_cache_size") is not None:
            b, why, ref = _size(kv["host_cache_size"])
            line = _line_in(src, "kv_cache_config", "host_cache_size") or kv_line
            if b is not None:
                yield HostPool("trt-host-cache", b, line, f"kv_cache_config.host_cache_size {fmt(b)} B/rank")
            else:
                yield HostPool("trt-host-cache", None, line, "kv_cache_config.host_cache_size", unresolved=why, ref=ref)


def pool_per_rank(es: EngineSettings, pool: HostPool) -> int | None:
    return pool.per_rank


# --- load at a concurrency ----------------------------------------------------------------


def role_workers(es: EngineSettings) -> int | None:
    """Workers of a role (1 when the recipe does not say); None when the count is unreadable."""
    if es.workers is None:
        return 1
    w = _strict_int(es.workers.value)
    return w if w is not None and w > 0 else None


@dataclass(frozen=True)
class Demand:
    """What one concurrency asks of one rank of an instance."""

    conc: int
    workers: int
    per_worker: int  # ceil(conc / workers): the router spreads requests over the workers
    admitted: int  # at most what one worker admits
    per_rank: int  # ceil(admitted / scheduling ranks)
    arith: str


def demand(es: EngineSettings, conc: int) -> Demand | None:
    """The batch one scheduling rank runs at `conc` (None when the worker count is unreadable)."""
    w = role_workers(es)
    if w is None:
        return None
    per_worker = math.ceil(conc / w)
    steps = [f"concurrency {fmt(conc)}" + (f" / {w} workers = {fmt(per_worker)}" if w > 1 else "")]
    admitted = per_worker
    adm = es.admits()
    if adm is not None and adm[0] < per_worker:
        admitted = max(adm[0], 0)
        steps.append(f"admitted {fmt(admitted)} ({adm[1]})")
    ranks = es.dp_ranks
    per_rank = math.ceil(admitted / ranks) if ranks > 1 else admitted
    if ranks > 1:
        steps.append(f"/ {ranks} DP ranks = {fmt(per_rank)} per rank")
    return Demand(conc, w, per_worker, admitted, per_rank, ", ".join(steps))


@dataclass(frozen=True)
class CaptureNeed:
    """The largest decode batch one rank runs at the point's concurrency, against its graphs."""

    es: EngineSettings
    demand: Demand
    need: int  # in the engine's capture unit (vLLM tokens: batch × (k + 1); others requests)
    top: Setting  # the largest captured size (as written, or assumed from the defaults table)
    unbounded: int = 0  # the need before the per-step token budget bounds it
    budget: str | None = None  # how the token budget bounds the need, when it does

    @property
    def short(self) -> bool:
        return self.need > as_int(self.top.value)

    @property
    def arith(self) -> str:
        k = self.es.k
        raw = self.unbounded or self.need
        tokens = (
            f" × (k + 1) = {fmt(self.demand.per_rank)} × {k + 1} = {fmt(raw)} tokens"
            if self.es.engine == "vllm"
            else ""
        )
        unit = "" if tokens else " requests"
        bound = f", at most {self.budget} per step = {fmt(self.need)}" if self.budget else ""
        return f"{self.demand.arith}{tokens}{unit}{bound}; graphs up to {self.top.label}"


def step_budget(es: EngineSettings) -> tuple[int, str] | None:
    """The most one scheduling step runs, in the engine's capture unit, when the role writes a
    per-step token budget: vLLM `max-num-batched-tokens` (tokens; `Scheduler.schedule` starts
    each step from `token_budget = self.max_num_scheduled_tokens` and stops scheduling when it is
    spent, vllm/v1/core/sched/scheduler.py); TensorRT-LLM `max_num_tokens` / (1 + draft tokens)
    requests (the micro-batch scheduler caps an iteration at max_num_tokens, and
    `_filter_cuda_graph_batch_sizes` in tensorrt_llm/_torch/pyexecutor/model_engine.py calls that
    quotient "the largest possible batch size for a pure decoding batch"). SGLang's
    `chunked-prefill-size` bounds prefill chunks only, not decode batches: None."""
    mbt = as_int(es.max_batched_tokens.value) if es.max_batched_tokens is not None else None
    if mbt is None or mbt <= 0:
        return None
    if es.engine == "vllm":
        return mbt, f"`{es.max_batched_tokens.name}` {fmt(mbt)} tokens"
    if es.engine == "trtllm":
        per = mbt // (1 + es.k)
        return per, (f"`{es.max_batched_tokens.name}` {fmt(mbt)} / (1 + {es.k}) = {fmt(per)} requests" if es.k
                     else f"`{es.max_batched_tokens.name}` {fmt(mbt)} requests")
    return None


def capture_need(bp: BenchmarkPoint, es: EngineSettings) -> CaptureNeed | None:
    """The capture demand of a serving instance at the point's largest concurrency, or None
    (graphs off, no concurrency, or an unreadable capture setting). A rank never runs more in one
    step than its token budget (`step_budget`), so the need is bounded by it."""
    if es.engine is None or es.capture_off is not None or not bp.concurrencies:
        return None
    if es.dp_attention is not None and es.dp_attention.value is None:
        return None  # the per-rank batch depends on DP attention, which is not known
    top = es.capture_top()
    if top is None or as_int(top.value) is None:
        return None
    d = demand(es, bp.conc_values()[0].value)
    if d is None:
        return None
    need = d.per_rank * (es.k + 1) if es.engine == "vllm" else d.per_rank
    sb = step_budget(es)
    if sb is not None and sb[0] < need:
        return CaptureNeed(es, d, sb[0], top, need, sb[1])
    return CaptureNeed(es, d, need, top)


# Disaggregated points hold part of their requests outside decode (in prefill, in the KV transfer,
# in the decode server's pre-allocation queue): generated submissions run decode at about 2× its
# admission capacity on purpose (2 × capacity plus a small allowance). That band is no proof of a
# mislabelled point; above it (an eighth more) the excess can only be queued.
DISAGG_SLACK_FACTOR = 2.0
DISAGG_PROOF_FACTOR = 2.25


@dataclass(frozen=True)
class Capacity:
    """Requests the serving instances of a point admit at once, summed over their workers."""

    total: int
    arith: str
    explicit: bool  # every cap is written in the recipe (False: some come from engine defaults)
    assumed: tuple[str, ...]  # labels of the defaults used
    lines: tuple[int | None, ...]


def capacity(bp: BenchmarkPoint) -> Capacity | str | None:
    """The point's admission capacity; a reason when it cannot be told; None when an instance has
    no cap at all (SGLang without max-running-requests sizes it from the KV pool)."""
    total, parts, assumed, lines = 0, [], [], []
    serving = bp.serving()
    if not serving:
        return "no serving role"
    for es in serving:
        if es.engine is None:
            return f"{es.role}: engine unknown"
        if es.dp_attention is not None and es.dp_attention.value is None:
            return f"{es.role}: {es.dp_attention.name}, which decides the cap's scope, is not known"
        if es.max_seqs is None:
            bad = [u for u in es.unknowns if _ARG_NAMES[es.engine]["max_seqs"][0] in u]
            return f"{es.role}: {bad[0]}" if bad else None
        adm = es.admits()
        w = role_workers(es)
        if adm is None or w is None:
            return f"{es.role}: worker count `{es.workers.value if es.workers else None}` is not a positive integer"
        total += adm[0] * w
        parts.append(f"{es.role} {adm[1]}" + (f" × {w} workers" if w > 1 else ""))
        if es.max_seqs.default is not None:
            assumed.append(es.max_seqs.default.label)
        lines.append(es.max_seqs.line)
        if es.workers is not None:
            lines.append(es.workers.line)
    arith = " + ".join(parts) + (f" = {fmt(total)}" if len(parts) > 1 or "×" in parts[0] else "")
    return Capacity(total, arith, not assumed, tuple(assumed), tuple(lines))


# --- benchmark points ------------------------------------------------------------------------


@dataclass(frozen=True)
class Concurrency:
    """One concurrency a point runs, with where it is written."""

    value: int
    line: int | None
    source: str  # "recipe benchmark.concurrencies", "CONC", "master <key>"
    path: str | None = None  # file of the line (the master config for master values)


@dataclass(frozen=True)
class MasterPoint:
    """A master-config search-space point that runs this recipe (or one of its variants)."""

    key: str
    path: str
    line: int
    variant: str | None
    concurrencies: tuple[int, ...]
    runner: str | None
    dram_util: float | None
    spec_decoding: str | None
    labels: Mapping[str, Mapping[str, Any]]  # role ("prefill"/"decode"/"agg") -> {tp, ep, dp-attn, num-worker}
    conc_list: bool = True  # concurrencies come from `conc-list` (else from conc-start..conc-end)

    def covers(self, conc: int) -> bool | None:
        """Whether the point's concurrencies include `conc` (None: it lists none)."""
        if not self.concurrencies:
            return None
        if self.conc_list:
            return conc in self.concurrencies
        return self.concurrencies[0] <= conc <= self.concurrencies[-1]


@dataclass
class BenchmarkPoint:
    """One runnable point of a recipe: its engine instances and its benchmark."""

    path: str
    name: str
    source: str
    roles: list[EngineSettings]
    scenario: str | None  # "fixed-seq-len" | "agentic" | None
    bench_type: Setting | None
    concurrencies: list[Concurrency]
    use_chat_template: Setting | None
    total_cpu_dram_gb: Setting | None
    recipe_name: Setting | None
    gpus_per_node: int | None
    gpu_type: str | None
    master: list[MasterPoint]
    benchmark_line: int | None
    unknowns: list[str] = field(default_factory=list)
    colocated: Setting | None = None  # backend.allow_prefill_decode_colocation: roles share nodes
    resources: Mapping[str, Any] = field(default_factory=dict)  # plain `resources:` values (layout knobs)

    @property
    def disaggregated(self) -> bool:
        return any(r.role in ("prefill", "decode") for r in self.roles)

    def serving(self) -> list[EngineSettings]:
        """Instances that hold requests through decode: decode roles when disaggregated, else agg."""
        dec = [r for r in self.roles if r.role == "decode"]
        return dec or [r for r in self.roles if r.role != "prefill"]

    @property
    def speculative(self) -> bool:
        return any(r.speculative is not None for r in self.roles)

    def conc_values(self) -> list[Concurrency]:
        """Distinct concurrencies, largest first, bounded (the largest decide every check)."""
        seen: dict[int, Concurrency] = {}
        for c in self.concurrencies:
            if c.value not in seen:
                seen[c.value] = c
        return sorted(seen.values(), key=lambda c: -c.value)[:MAX_CONCURRENCIES]


def _layout(point: RecipePoint, role: Role) -> dict[str, Setting | None]:
    out: dict[str, Setting | None] = {}
    if point.schema == 2:
        block = point.tree.get("roles", {}).get(role.name, {}) if isinstance(point.tree.get("roles"), dict) else {}
        for fld, key in (("workers", "workers"), ("nodes", "nodes"), ("gpus", "gpus")):
            v = block.get(key) if isinstance(block, dict) else None
            out[fld] = Setting(v.value, v.line, f"roles.{role.name}.{key}") if isinstance(v, Value) else None
        gpn = point.get("resources", "gpus_per_node")
    else:
        res = point.tree.get("resources") if isinstance(point.tree.get("resources"), dict) else {}
        prefix = "agg" if role.name == "agg" else role.name
        for fld, keys in (("workers", (f"{prefix}_workers",)), ("nodes", (f"{prefix}_nodes",)),
                          ("gpus", (f"gpus_per_{prefix}",))):
            for key in keys:
                v = res.get(key)
                if isinstance(v, Value):
                    out[fld] = Setting(v.value, v.line, f"resources.{key}")
                    break
            else:
                out[fld] = None
        gpn = point.get("resources", "gpus_per_node")
    out["gpus_per_node"] = Setting(gpn.value, gpn.line, "resources.gpus_per_node") if gpn is not None else None
    return out


def _concurrencies(point: RecipePoint) -> tuple[list[Concurrency], list[str]]:
    out, unknown = [], []
    v = point.get("benchmark", "concurrencies")
    if v is not None:
        raw = v.value
        items = raw if isinstance(raw, list) else _CONC_SPLIT.split(str(raw).strip()) if isinstance(raw, str) else [raw]
        flat = []
        for it in items:
            flat.extend(it if isinstance(it, list) else [it])
        for it in flat:
            iv = _strict_int(it)
            if iv is None or iv <= 0:
                if str(it).strip():
                    unknown.append(f"`benchmark.concurrencies` item `{it}` is not a positive integer")
                continue
            out.append(Concurrency(iv, v.line, "benchmark.concurrencies"))
    conc = point.env("CONC")
    if conc is not None:
        iv = _strict_int(conc.value)
        if iv is not None and iv > 0:
            out.append(Concurrency(iv, conc.line, "CONC"))
        else:
            unknown.append(f"`CONC` is `{conc.value}`, not a positive integer")
    return out, unknown


def _scenario(point: RecipePoint, path: str) -> tuple[str | None, Setting | None]:
    bt = point.get("benchmark", "type")
    t = str(bt.value).strip().lower() if bt is not None and bt.value is not None else None
    setting = Setting(bt.value, bt.line, "benchmark.type") if bt is not None else None
    low = path.lower()
    if "/agentic/" in low or "agentx" in low or "/agentic" in low:
        return "agentic", setting
    if t == "custom":
        return "agentic", setting
    if t in ("sa-bench", "random", "sharegpt", "mooncake") or point.get("benchmark", "isl") is not None:
        return "fixed-seq-len", setting
    return None, setting


def benchmark_points(
    ctx: ReviewContext | None, path: str, pts: list[RecipePoint], doc: Document | None = None
) -> list[BenchmarkPoint]:
    """Every point of a recipe as engine settings plus its benchmark (the pure builder)."""
    masters = master_points(ctx, path) if ctx is not None else []
    out = []
    for p in pts:
        image_v = p.get("model", "container")
        image = Setting(image_v.value, image_v.line, "model.container") if image_v is not None else None
        source = "schema-2" if p.schema == 2 else "srt-slurm"
        roles = []
        for r in p.roles:
            first = _first_line_of(r.args)
            roles.append(settings_from(r, path=path, point=p.name, source=source, image=image,
                                       gpu_type=p.gpu_type, layout=_layout(p, r), block_line=first))
        concs, unknown = _concurrencies(p)
        scen, bt = _scenario(p, path)
        mine = [m for m in masters if m.variant in (None, p.name)]
        if not any(c.source == "benchmark.concurrencies" for c in concs):
            for m in mine:
                for c in m.concurrencies:
                    concs.append(Concurrency(c, m.line, f"master `{m.key}`", m.path))
        uct = p.get("benchmark", "use_chat_template")
        budget = p.env(DRAM_ENV)
        name = p.get("name")
        bline = p.line_of("benchmark")
        out.append(BenchmarkPoint(
            path, p.name, source, roles, scen, bt, concs,
            Setting(uct.value, uct.line, "benchmark.use_chat_template") if uct is not None else None,
            Setting(budget.value, budget.line, DRAM_ENV) if budget is not None else None,
            Setting(name.value, name.line, "name") if name is not None else None,
            p.gpus_per_node, p.gpu_type, mine, bline, unknown,
            _colocated(p), _resources(p)))
    return out


def master_label(bp: BenchmarkPoint, es: EngineSettings) -> list[tuple[MasterPoint, Mapping[str, Any]]]:
    """(master point, its labels for this role): `prefill:` / `decode:` blocks, or the point's own
    labels for an aggregated recipe (a multinode aggregated row labels its workers `prefill:`)."""
    out, seen = [], set()
    for mp in bp.master:
        lab = mp.labels.get(es.role)
        if lab is None and es.role not in ("prefill", "decode"):
            lab = mp.labels.get("agg") or mp.labels.get("prefill")
        if not lab:
            continue
        sig = (mp.key, repr(sorted(lab.items())))
        if sig not in seen:
            seen.add(sig)
            out.append((mp, lab))
    return out


def _resources(p: RecipePoint) -> dict:
    v = p.get("resources")
    return v.value if v is not None and isinstance(v.value, dict) else {}


def _colocated(p: RecipePoint) -> Setting | None:
    v = p.get("backend", "allow_prefill_decode_colocation")
    return (
        Setting(True, v.line, "backend.allow_prefill_decode_colocation") if v is not None and v.value is True else None
    )


def _first_line_of(tree: Mapping) -> int | None:
    lines = []
    for v in tree.values():
        if isinstance(v, Value) and v.line is not None:
            lines.append(v.line)
        elif isinstance(v, dict):
            sub = _first_line_of(v)
            if sub is not None:
                lines.append(sub)
    return min(lines) if lines else None


def point_settings(ctx: ReviewContext, path: str) -> list[BenchmarkPoint]:
    """The benchmark points of a changed recipe (memoized per review)."""
    return ctx.memo(("recipe", "engine-settings", path),
                    lambda: benchmark_points(ctx, path, recipe_points(ctx, path)))


# --- master-config points that run a recipe ------------------------------------------------


def _ref_target(ref: str) -> tuple[str, str | None]:
    """(recipe path suffix, variant or None) of a master reference."""
    path, variant = ref, None
    for ext in (".yaml:", ".yml:"):
        if ext in ref:
            head, variant = ref.split(ext, 1)
            path = head + ext[:-1]
    if path.startswith("recipes/"):
        path = path[len("recipes/"):]
    return path.lstrip("/"), variant or None


def ref_matches(ref: str, path: str) -> tuple[bool, str | None]:
    target, variant = _ref_target(ref)
    return (path == target or path.endswith("/" + target)), variant


def _conc(sp: Mapping) -> tuple[int, ...]:
    lst = sp.get("conc-list")
    if isinstance(lst, list):
        return tuple(sorted({v for v in (_strict_int(x) for x in lst) if v is not None and v > 0}))
    lo, hi = _strict_int(sp.get("conc-start")), _strict_int(sp.get("conc-end"))
    if lo is None or hi is None or lo <= 0 or hi < lo:
        return ()
    vals, c = [], lo
    while c <= hi and len(vals) < MAX_CONCURRENCIES:
        vals.append(c)
        c *= 2
    if vals and vals[-1] != hi:
        vals.append(hi)
    return tuple(vals)


def master_points(ctx: ReviewContext, path: str) -> list[MasterPoint]:
    """Search-space points of the master configs whose recipe reference names `path` (memoized)."""

    def compute() -> list[MasterPoint]:
        try:
            from rules.master import analysis as mc
        except ImportError:  # pragma: no cover - the master domain ships with the rules
            return []
        base = path.rsplit("/", 1)[-1]
        out: list[MasterPoint] = []
        seen: set = set()
        for key, info in mc.master_keys(ctx).items():
            if base not in info.text:
                continue
            value = info.value
            if not isinstance(value, dict):
                continue
            row_refs = mc.recipe_refs(value)
            for _scen, block, sp in mc.scenario_entries(value):
                for ref in mc.recipe_refs(sp) or row_refs:
                    ok, variant = ref_matches(ref, path)
                    if not ok:
                        continue
                    labels = {}
                    for role in ("prefill", "decode"):
                        if isinstance(sp.get(role), dict):
                            labels[role] = {k: sp[role].get(k) for k in ("tp", "ep", "dp-attn", "num-worker")}
                    if not labels:
                        labels["agg"] = {k: sp.get(k) for k in ("tp", "ep", "dp-attn")}
                    mp = MasterPoint(key, info.path, info.line, variant, _conc(sp), value.get("runner"),
                                     mc.dram_utilization(block), sp.get("spec-decoding"), labels,
                                     isinstance(sp.get("conc-list"), list))
                    sig = (key, variant, mp.concurrencies, mp.dram_util, repr(sorted(labels.items())))
                    if sig not in seen:
                        seen.add(sig)
                        out.append(mp)
                    if len(out) >= 10 * MAX_CONCURRENCIES:
                        return out
        return out

    return ctx.memo(("recipe", "master-points", path), compute)


# --- messages ---------------------------------------------------------------------------------


def fmt(n: int | float | Fraction) -> str:
    """A number with thousands separators (integers exact, others to 4 significant decimals)."""
    if isinstance(n, Fraction):
        n = float(n)
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.4f}".rstrip("0").rstrip(".")
    return f"{int(n):,}"


def where(bp: BenchmarkPoint, es: EngineSettings | None = None) -> str:
    """How messages name a point and role: `override_c32` decode, or `decode` for a single point."""
    role = es.role if es is not None else ""
    if bp.name in ("recipe",):
        return role or "recipe"
    return f"`{bp.name}` {role}".strip()


def npmd(name: str) -> tuple[int, int] | None:
    """(prefill, decode) worker counts a recipe name states as `NpMd` (`2p1d`, `1p-4d`), or None."""
    m = _NPMD.search(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and bool(_PLACEHOLDER.search(value))


def line_text(ctx: ReviewContext, path: str, line: int | None) -> str | None:
    """The head text of one line of a changed file (for suggestions), or None."""
    if line is None:
        return None
    doc = ctx.head_doc(path)
    lines = doc.text.split("\n") if doc.text else []
    return lines[line - 1] if 0 < line <= len(lines) else None


def suggest_number(ctx: ReviewContext, path: str, line: int | None, old: int | str, new: int | str) -> str | None:
    """The line with one number replaced (a GitHub suggestion), when the old number appears once."""
    text = line_text(ctx, path, line)
    if text is None:
        return None
    pat = re.compile(rf"(?<![\d.]){re.escape(str(old))}(?![\d.])")
    code = text.split(" #", 1)[0]
    if len(pat.findall(code)) != 1:
        return None
    return pat.sub(str(new), code, count=1) + text[len(code):]


def changed_settings(ctx: ReviewContext) -> Iterator[tuple[str, list[BenchmarkPoint]]]:
    """(path, benchmark points) of every changed recipe whose head parses (memoized per path)."""
    from rules.serving.recipe_points import changed_recipes

    for path, _ in changed_recipes(ctx):
        yield path, point_settings(ctx, path)


def label_anchor(ctx: ReviewContext, bp: BenchmarkPoint, line: int | None, mp: MasterPoint) -> tuple[str, int | None]:
    """Where a finding that a master label and the engine disagree goes: the engine's line, unless
    the engine is a script's command the PR did not touch there while the PR adds the label's
    master-config line — then on that line (blame what the PR changed)."""
    if bp.source == "script":
        from rules.master.matrix import entry_is_new  # the master model (a row re-indented is not added)

        if (
            line not in added_in(ctx, bp.path)
            and mp.line in added_in(ctx, mp.path)
            and entry_is_new(ctx, mp.key, mp.line)
        ):
            return mp.path, mp.line
        return bp.path, line
    return bp.path, anchor(ctx, bp.path, line)


def insert_after(ctx: ReviewContext, path: str, line: int | None, text: str, sibling: bool = True) -> str | None:
    """A suggestion that keeps `line` and adds `text` after it at the same indentation (a sibling
    key of the mapping that line belongs to); None when the line is a flow mapping or unknown."""
    cur = line_text(ctx, path, line)
    if cur is None or not cur.strip() or cur.rstrip().endswith(("{", "[", "|", ">")) or "{" in cur:
        return None
    indent = cur[: len(cur) - len(cur.lstrip())]
    return f"{cur}\n{indent}{text}"
