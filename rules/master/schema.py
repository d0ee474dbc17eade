"""The master-config schema exactly as the repository's own validation reads it, at a base revision.

The repository validates every master config with pydantic models in
`utils/matrix_logic/validation.py` (`SingleNodeMasterConfigEntry` / `MultiNodeMasterConfigEntry`,
chosen by `multinode`), `extra="forbid"` at every level, before it generates any sweep: one bad
key anywhere in `configs/*-master.yaml` fails `check-changelog` for every PR. The models below
mirror those declarations field for field (same types, the same lax/strict choices, the same
cross-field validators and error texts), and follow their history: a field or a check exists
only from the commit that introduced it (`rules/conventions.py` has the dates), so a PR is
judged by the schema of its base revision.

`validate_key(key, value, conv)` returns the schema errors of one config key (each with its
path inside the key, e.g. `scenarios.fixed-seq-len[0].search-space[2].conc-list`);
`key_line(info, path)` finds the line of such a path in the key's block.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from rules.conventions import (
    AGENTX_V1,
    ALL_EVALS,
    COMPONENT_METADATA,
    CONTEXT_PARALLEL,
    OFFLOADING_MORE,
    PIPELINE_PARALLEL,
    SCENARIOS,
    WORKER_HARDWARE,
    WORKER_PARALLELISM,
    Conventions,
)

CLUSTER_LABEL_PREFIX = "cluster:"
_NEVER = 2**62

# (model, field alias) -> (since, until): the field exists in [since, until).
_FIELD_ERAS: dict[tuple[str, str], tuple[int, int]] = {
    ("SearchSpace", "pp"): (PIPELINE_PARALLEL, _NEVER),
    ("SearchSpace", "dcp-size"): (CONTEXT_PARALLEL, _NEVER),
    ("SearchSpace", "pcp-size"): (CONTEXT_PARALLEL, _NEVER),
    ("SearchSpace", "router"): (COMPONENT_METADATA, _NEVER),
    ("MultiSearchSpace", "router"): (COMPONENT_METADATA, _NEVER),
    ("MultiSearchSpace", "kv-p2p-transfer"): (COMPONENT_METADATA, _NEVER),
    ("AgenticSearchSpace", "pp"): (PIPELINE_PARALLEL, _NEVER),
    ("AgenticSearchSpace", "dcp-size"): (CONTEXT_PARALLEL, _NEVER),
    ("AgenticSearchSpace", "pcp-size"): (CONTEXT_PARALLEL, _NEVER),
    ("AgenticSearchSpace", "offloading"): (SCENARIOS, AGENTX_V1),
    ("AgenticSearchSpace", "kv-offloading"): (AGENTX_V1, _NEVER),
    ("AgenticSearchSpace", "kv-offload-backend"): (AGENTX_V1, _NEVER),
    ("AgenticSearchSpace", "router"): (COMPONENT_METADATA, _NEVER),
    ("AgenticSearchSpace", "kv-p2p-transfer"): (COMPONENT_METADATA, _NEVER),
    ("AgenticCoding", "duration"): (SCENARIOS, AGENTX_V1),
    ("AgenticCoding", "dram-utilization"): (AGENTX_V1, _NEVER),
    ("Worker", "hardware"): (WORKER_HARDWARE, _NEVER),
    ("Worker", "pp"): (WORKER_PARALLELISM, _NEVER),
    ("Worker", "dcp-size"): (WORKER_PARALLELISM, _NEVER),
    ("Worker", "pcp-size"): (WORKER_PARALLELISM, _NEVER),
    ("Master", "scenarios"): (SCENARIOS, _NEVER),
    ("Master", "seq-len-configs"): (0, SCENARIOS),
    ("Master", "router"): (COMPONENT_METADATA, _NEVER),
    ("MultiMaster", "scenarios"): (SCENARIOS, _NEVER),
    ("MultiMaster", "seq-len-configs"): (0, SCENARIOS),
    ("MultiMaster", "router"): (COMPONENT_METADATA, _NEVER),
    ("MultiMaster", "kv-p2p-transfer"): (COMPONENT_METADATA, _NEVER),
}


def _conv(info: ValidationInfo) -> Conventions:
    ctx = info.context or {}
    return ctx.get("conv") or Conventions()


class _Model(BaseModel):
    """Base: `extra="forbid"`, aliases, and fields that exist only in some eras."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False)
    era: ClassVar[str] = ""  # the model's name in _FIELD_ERAS

    @model_validator(mode="before")
    @classmethod
    def _era_fields(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        conv = _conv(info)
        for key in data:
            window = _FIELD_ERAS.get((cls.era, key))
            if window is not None and not conv.admits(*window):
                raise PydanticCustomError("extra_forbidden", "Extra inputs are not permitted", {"field": key})
        return data


class ComponentMetadata(_Model):
    name: str = Field(min_length=1)
    version: str = Field(min_length=1)

    @field_validator("version")
    @classmethod
    def _not_image(cls, version: str) -> str:
        if version.startswith("image:"):
            raise ValueError("component version must be a release, package version, or source commit, not an "
                             "image reference")
        return version


class KVOffloadBackendMetadata(_Model):
    name: str = Field(min_length=1)
    version: str | None = Field(default=None, min_length=1)

    @field_validator("version")
    @classmethod
    def _not_image(cls, version: str | None) -> str | None:
        if version is not None and version.startswith("image:"):
            raise ValueError("component version must be a release, package version, or source commit, not an "
                             "image reference")
        return version


def _tp_dcp(self, conv: Conventions, since: int):
    if conv.since(since) and self.tp % self.dcp_size != 0:
        raise ValueError(f"'tp' ({self.tp}) must be divisible by 'dcp-size' ({self.dcp_size})")


def _conc(self, conv: Conventions):
    has_range = self.conc_start is not None and self.conc_end is not None
    has_list = self.conc_list is not None and len(self.conc_list) > 0
    if has_range and has_list:
        raise ValueError("Cannot specify both 'conc-list' list and 'conc-start'/'conc-end'. Use either a list or a "
                         "range, not both.")
    if not has_range and not has_list:
        raise ValueError("Must specify either 'conc-list' list or both 'conc-start' and 'conc-end'.")
    if has_range:
        if conv.since(ALL_EVALS) and (self.conc_start <= 0 or self.conc_end <= 0):
            raise ValueError("Input 'conc-start' and 'conc-end' must be greater than 0.")
        if self.conc_start > self.conc_end:
            raise ValueError(f"'conc-start' ({self.conc_start}) must be <= 'conc-end' ({self.conc_end}).")
    if has_list and not all(x > 0 for x in self.conc_list):
        raise ValueError("Input 'conc-list' entries must be greater than 0.")


class WorkerConfig(_Model):
    era: ClassVar[str] = "Worker"
    num_worker: int = Field(alias="num-worker")
    tp: int
    pp: int = Field(default=1, gt=0, strict=True)
    dcp_size: int = Field(default=1, alias="dcp-size", gt=0, strict=True)
    pcp_size: int = Field(default=1, alias="pcp-size", gt=0, strict=True)
    ep: int
    dp_attn: bool = Field(alias="dp-attn")
    hardware: str | None = Field(default=None, min_length=1)
    additional_settings: list[str] | None = Field(default=[], alias="additional-settings")

    @model_validator(mode="after")
    def _topology(self, info: ValidationInfo):
        _tp_dcp(self, _conv(info), WORKER_PARALLELISM)
        return self


def _hardware_pair(self, conv: Conventions):
    if conv.since(WORKER_HARDWARE) and bool(self.prefill.hardware) != bool(self.decode.hardware):
        raise ValueError("'hardware' must be specified for both 'prefill' and 'decode', or neither")


def _kv_offload(self, conv: Conventions):
    backend = getattr(self, "kv_offload_backend", None)
    if not conv.since(COMPONENT_METADATA) and backend == "":
        backend = None
    if self.kv_offloading is None:
        if backend is not None:
            raise ValueError("kv-offload-backend requires kv-offloading")
        return
    if self.kv_offloading == "none":
        if backend is not None:
            raise ValueError("kv-offload-backend can only be set when kv-offloading is not 'none'")
        return
    if backend is None or (isinstance(backend, str) and not backend.strip()):
        raise ValueError(f"kv-offload-backend is required when kv-offloading is '{self.kv_offloading}'")


class SingleNodeSearchSpaceEntry(_Model):
    era: ClassVar[str] = "SearchSpace"
    tp: int
    pp: int = Field(default=1, gt=0, strict=True)
    dcp_size: int = Field(default=1, alias="dcp-size", gt=0, strict=True)
    pcp_size: int = Field(default=1, alias="pcp-size", gt=0, strict=True)
    ep: int | None = None
    spec_decoding: Literal["mtp", "draft_model", "none"] = Field(default="none", alias="spec-decoding")
    dp_attn: bool | None = Field(default=None, alias="dp-attn")
    router: ComponentMetadata | None = None
    conc_start: int | None = Field(default=None, alias="conc-start")
    conc_end: int | None = Field(default=None, alias="conc-end")
    conc_list: list[int] | None = Field(default=None, alias="conc-list")

    @model_validator(mode="after")
    def _checks(self, info: ValidationInfo):
        conv = _conv(info)
        _conc(self, conv)
        _tp_dcp(self, conv, CONTEXT_PARALLEL)
        return self


class MultiNodeSearchSpaceEntry(_Model):
    era: ClassVar[str] = "MultiSearchSpace"
    spec_decoding: Literal["mtp", "draft_model", "none"] = Field(default="none", alias="spec-decoding")
    prefill: WorkerConfig
    decode: WorkerConfig
    router: ComponentMetadata | None = None
    kv_p2p_transfer: str | None = Field(default=None, alias="kv-p2p-transfer", min_length=1)
    conc_start: int | None = Field(default=None, alias="conc-start")
    conc_end: int | None = Field(default=None, alias="conc-end")
    conc_list: list[int] | None = Field(default=None, alias="conc-list")

    @model_validator(mode="after")
    def _checks(self, info: ValidationInfo):
        conv = _conv(info)
        _conc(self, conv)
        _hardware_pair(self, conv)
        return self


class SingleNodeSeqLenConfig(_Model):
    isl: int
    osl: int
    search_space: list[SingleNodeSearchSpaceEntry] = Field(alias="search-space")


class MultiNodeSeqLenConfig(_Model):
    isl: int
    osl: int
    search_space: list[MultiNodeSearchSpaceEntry] = Field(alias="search-space")


_OFFLOADING_OLD = ("none", "cpu", "ssd")
_OFFLOADING_MORE = ("none", "cpu", "ssd", "lmcache", "lmcache-mp", "hicache")


class AgenticCodingSearchSpaceEntry(_Model):
    era: ClassVar[str] = "AgenticSearchSpace"
    tp: int | None = None
    pp: int = Field(default=1, gt=0, strict=True)
    dcp_size: int = Field(default=1, alias="dcp-size", gt=0, strict=True)
    pcp_size: int = Field(default=1, alias="pcp-size", gt=0, strict=True)
    ep: int | None = None
    dp_attn: bool | None = Field(default=None, alias="dp-attn")
    spec_decoding: Literal["mtp", "draft_model", "none"] = Field(default="none", alias="spec-decoding")
    prefill: WorkerConfig | None = None
    decode: WorkerConfig | None = None
    offloading: Literal["none", "cpu", "ssd", "lmcache", "lmcache-mp", "hicache"] = Field(default="none")
    kv_offloading: Literal["none", "dram"] | None = Field(default=None, alias="kv-offloading")
    kv_offload_backend: KVOffloadBackendMetadata | str | None = Field(default=None,
                                                                                alias="kv-offload-backend")
    router: ComponentMetadata | None = None
    kv_p2p_transfer: str | None = Field(default=None, alias="kv-p2p-transfer", min_length=1)
    conc_start: int | None = Field(default=None, alias="conc-start")
    conc_end: int | None = Field(default=None, alias="conc-end")
    conc_list: list[int] | None = Field(default=None, alias="conc-list")

    @field_validator("offloading")
    @classmethod
    def _offloading_era(cls, v: str, info: ValidationInfo) -> str:
        if not _conv(info).since(OFFLOADING_MORE) and v not in _OFFLOADING_OLD:
            raise PydanticCustomError("literal_error", "Input should be 'none', 'cpu' or 'ssd'", {})
        return v

    @field_validator("kv_offload_backend", mode="before")
    @classmethod
    def _backend_era(cls, v: Any, info: ValidationInfo) -> Any:
        if v is None:
            return v
        if _conv(info).since(COMPONENT_METADATA):
            if not isinstance(v, dict):
                raise PydanticCustomError("model_type", "Input should be a valid dictionary or instance of "
                                                        "KVOffloadBackendMetadata", {})
            return KVOffloadBackendMetadata.model_validate(v, context=info.context)
        if not isinstance(v, str):
            raise PydanticCustomError("string_type", "Input should be a valid string", {})
        return v

    @model_validator(mode="after")
    def _checks(self, info: ValidationInfo):
        conv = _conv(info)
        _conc(self, conv)
        if conv.since(AGENTX_V1):
            _kv_offload(self, conv)
        has_single = self.tp is not None
        has_any_multi = self.prefill is not None or self.decode is not None
        has_multi = self.prefill is not None and self.decode is not None
        if not (not has_any_multi if has_single else has_multi):
            raise ValueError("Agentic search-space entries must specify either tp or both prefill and decode")
        if has_single:
            if conv.since(AGENTX_V1) and self.kv_offloading is None:
                raise ValueError("Single-node agentic search-space entries must specify kv-offloading")
            _tp_dcp(self, conv, CONTEXT_PARALLEL)
        if has_multi:
            banned = {"dcp_size", "pcp_size"} if conv.since(CONTEXT_PARALLEL) else set()
            if conv.since(PIPELINE_PARALLEL):
                banned.add("pp")
            if banned & self.model_fields_set:
                names = "'pp', 'dcp-size', 'pcp-size'" if conv.since(PIPELINE_PARALLEL) else "'dcp-size' or 'pcp-size'"
                raise ValueError(f"Multinode agentic search-space entries cannot specify {names}")
            _hardware_pair(self, conv)
        return self


class AgenticCodingConfig(_Model):
    era: ClassVar[str] = "AgenticCoding"
    search_space: list[AgenticCodingSearchSpaceEntry] = Field(alias="search-space")
    duration: int = Field(default=1800)
    dram_utilization: float | None = Field(default=None, alias="dram-utilization", gt=0, le=1)

    @model_validator(mode="after")
    def _dram(self, info: ValidationInfo):
        if _conv(info).since(AGENTX_V1):
            for entry in self.search_space:
                if entry.kv_offloading == "dram" and self.dram_utilization is None:
                    raise ValueError("kv-offloading='dram' requires dram-utilization with runner hardware metadata")
        return self


class SingleNodeScenarios(_Model):
    fixed_seq_len: list[SingleNodeSeqLenConfig] | None = Field(default=None, alias="fixed-seq-len")
    agentic_coding: list[AgenticCodingConfig] | None = Field(default=None, alias="agentic-coding")

    @model_validator(mode="after")
    def _one(self):
        if not self.fixed_seq_len and not self.agentic_coding:
            raise ValueError("At least one scenario type must be specified")
        return self


class MultiNodeScenarios(_Model):
    fixed_seq_len: list[MultiNodeSeqLenConfig] | None = Field(default=None, alias="fixed-seq-len")
    agentic_coding: list[AgenticCodingConfig] | None = Field(default=None, alias="agentic-coding")

    @model_validator(mode="after")
    def _one(self):
        if not self.fixed_seq_len and not self.agentic_coding:
            raise ValueError("At least one scenario type must be specified")
        return self


def _search_space_entries(self) -> list:
    if self.scenarios is None:
        return []
    return [e for configs in (self.scenarios.fixed_seq_len, self.scenarios.agentic_coding)
            for config in configs or [] for e in config.search_space]


def _master_checks(self, conv: Conventions):
    if self.scenarios is None:
        if conv.since(SCENARIOS):
            raise PydanticCustomError("missing", "Field required", {"field": "scenarios"})
        if self.seq_len_configs is None:
            raise PydanticCustomError("missing", "Field required", {"field": "seq-len-configs"})
        return
    if conv.since(AGENTX_V1) and self.scenarios.agentic_coding and not self.runner.startswith(CLUSTER_LABEL_PREFIX):
        raise ValueError("Agentic master configs must use a 'cluster:<name>' runner so every point runs on one exact "
                         "hardware fleet.")
    if not conv.since(COMPONENT_METADATA):
        return
    entries = _search_space_entries(self)
    for attr, name in (("router", "router"), ("kv_p2p_transfer", "kv-p2p-transfer")):
        if getattr(self, attr, None) is not None and any(getattr(e, attr, None) is not None for e in entries):
            raise ValueError(f"{name} must be declared either at the top level or in search-space entries, not both")
    if not self.multinode and any(getattr(e, "kv_p2p_transfer", None) is not None for e in entries):
        raise ValueError("kv-p2p-transfer is only valid when multinode=true")
    if self.disagg and getattr(self, "kv_p2p_transfer", None) is None:
        if not entries or any(getattr(e, "kv_p2p_transfer", None) is None for e in entries):
            raise ValueError("disagg=true requires kv-p2p-transfer at the top level or in every search-space entry")


class SingleNodeMasterConfigEntry(_Model):
    era: ClassVar[str] = "Master"
    image: str
    model: str
    model_prefix: str = Field(alias="model-prefix")
    precision: str
    framework: str
    runner: str
    multinode: Literal[False]
    disagg: bool = Field(default=False)
    router: ComponentMetadata | None = None
    scenarios: SingleNodeScenarios | None = None
    seq_len_configs: list[SingleNodeSeqLenConfig] | None = Field(default=None, alias="seq-len-configs")

    @model_validator(mode="after")
    def _checks(self, info: ValidationInfo):
        conv = _conv(info)
        if conv.since(WORKER_HARDWARE) and self.disagg is not False:
            raise PydanticCustomError("literal_error", "Input should be False", {"field": "disagg"})
        _master_checks(self, conv)
        return self


class MultiNodeMasterConfigEntry(_Model):
    era: ClassVar[str] = "MultiMaster"
    image: str
    model: str
    model_prefix: str = Field(alias="model-prefix")
    precision: str
    framework: str
    runner: str
    multinode: Literal[True]
    disagg: bool = Field(default=False)
    router: ComponentMetadata | None = None
    kv_p2p_transfer: str | None = Field(default=None, alias="kv-p2p-transfer", min_length=1)
    scenarios: MultiNodeScenarios | None = None
    seq_len_configs: list[MultiNodeSeqLenConfig] | None = Field(default=None, alias="seq-len-configs")

    @model_validator(mode="after")
    def _checks(self, info: ValidationInfo):
        _master_checks(self, _conv(info))
        return self


# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemaError:
    """One reason the repository's master-config validation rejects a key."""

    path: tuple[str | int, ...]  # inside the key, with aliases (e.g. scenarios, fixed-seq-len, 0, …)
    message: str  # pydantic's message, as the repository's validation prints it
    kind: str  # pydantic error type (missing, extra_forbidden, value_error, …)
    value: Any = None

    @property
    def where(self) -> str:
        out = ""
        for p in self.path:
            out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
        return out or "(the key)"


# Union members pydantic names in the loc path; not part of the YAML path.
_UNION_TAGS = {"KVOffloadBackendMetadata", "str"}


def validate_key(value: Any, conv: Conventions) -> list[SchemaError]:
    """The repository's validation of one master-config key's value; [] when it is accepted."""
    if not isinstance(value, dict):
        return [SchemaError((), f"'{type(value).__name__}' object has no attribute 'get' (the value is not a mapping)",
                            "not_mapping", value)]
    model = MultiNodeMasterConfigEntry if value.get("multinode", False) else SingleNodeMasterConfigEntry
    try:
        model.model_validate(value, context={"conv": conv})
    except ValidationError as err:
        out = []
        for e in err.errors(include_url=False):
            loc = tuple(p for p in e["loc"] if p not in _UNION_TAGS)
            field = (e.get("ctx") or {}).get("field")
            if field and (not loc or loc[-1] != field):
                loc = (*loc, field)
            msg = e["msg"].removeprefix("Value error, ")
            out.append(SchemaError(loc, msg, e["type"], e.get("input")))
        return out
    except (RecursionError, TypeError, ValueError) as err:  # pathological input
        return [SchemaError((), f"{type(err).__name__}: {err}", "error", None)]
    return []


def key_line(text: str, first_line: int, path: tuple) -> int:
    """Line (1-based, file) of `path` inside a key's block `text` that starts at `first_line`.

    Walks the block's round-trip parse (line info per mapping key and list item); the deepest
    part of the path that exists wins, so a missing field points at its parent.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        doc = YAML(typ="rt", pure=True).load(io.StringIO(text))
    except (YAMLError, ValueError, TypeError, RecursionError):
        return first_line
    if not isinstance(doc, dict) or not doc:
        return first_line
    node = next(iter(doc.values()))
    line = first_line
    if path[:2] == ("scenarios", "fixed-seq-len") and isinstance(node, dict) and "scenarios" not in node \
            and "seq-len-configs" in node:
        path = ("seq-len-configs", *path[2:])  # before 2026-05-01
    for part in path:
        try:
            if isinstance(part, int) and isinstance(node, list) and part < len(node):
                line = first_line + node.lc.item(part)[0]
                node = node[part]
            elif isinstance(part, str) and isinstance(node, dict) and part in node:
                line = first_line + node.lc.key(part)[0]
                node = node[part]
            else:
                break
        except (AttributeError, KeyError, IndexError, TypeError):
            break
    return line


__all__ = ["SchemaError", "validate_key", "key_line"]
