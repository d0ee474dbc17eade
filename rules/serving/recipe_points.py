"""Serving recipes as *points*: one fully merged configuration each, every value with its line.

A recipe file is one of two shapes (RULES.md §1):

- **srt-slurm** (`backend.vllm_config.{prefill,decode,aggregated}`, `backend.sglang_config.*`,
  `backend.trtllm_config.*`, `resources.gpus_per_{prefill,decode,agg}`,
  `backend.{prefill,decode,aggregated}_environment`);
- **schema 2** (`roles.<role>.{args,env,gpus,nodes,workers}`, `benchmark.env`).

Either shape may be a bundle: a `base:` mapping plus `override_<name>:` variants (each deep-merged
over `base`) and `zip_override_<name>:` variants (list values are zipped by index, scalars
broadcast, giving `zip_override_<name>[i]`). Each variant is one point; a file without `base:` is
one point (`recipe`), and a `base:` without variants is the point `base`.

The public surface, used by the recipe rules and by other rule families:

- `recipe_points(ctx, path)` → `list[RecipePoint]` for the head version of a changed recipe (memoized;
  empty when the file does not parse or is not a recipe; `points_error` says why);
- `RecipePoint`: `name`, `path`, `roles`, `benchmark_env`, `get(*keys)`, `line_of(*keys)`,
  `env(name)` (benchmark env first, then any role env);
- `Role`: `name`, `engine`, `args`, `env`, `gpus`, `arg(name)`, `int_arg(name)`, `json(name)`;
- `Value(value, line)`: a merged leaf and the head line of its key (a value inherited from
  `base` keeps base's line; a value inside a JSON string has the string's line);
- `as_int(value)` / `as_number(value)`: numbers written as YAML numbers or numeric strings;

Where a finding about several values goes (`anchor`: the first of them on a line the PR added, so a
relation broken by one edit is reported on the edited line) is `rules.added`, shared by every domain.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from rules.context import ReviewContext
from rules.document import Document, plain

# Engine CLI args whose value is JSON carried in a YAML string.
JSON_ARGS = ("compilation-config", "speculative-config", "kv-transfer-config", "attention-config")
# srt-slurm role blocks: config key suffix → canonical role name.
_SRT_ROLES = {"prefill": "prefill", "decode": "decode", "aggregated": "agg", "agg": "agg"}
_SRT_ENGINES = {"vllm_config": "vllm", "sglang_config": "sglang", "trtllm_config": "trtllm"}
_OVERRIDE = re.compile(r"^(zip_)?override_[A-Za-z0-9_.-]+$")
# The engines accept `max-num-seqs` and `max_num_seqs` alike; look both spellings up.
_NUMERIC = re.compile(r"^\s*[+-]?\d[\d_]*\s*$")


@dataclass(frozen=True)
class Value:
    """A merged leaf: its value and the 1-based head line of its key (None when unknown)."""

    value: Any
    line: int | None
    items: tuple[int | None, ...] = ()  # lines of list items, when the value is a YAML list


@dataclass(frozen=True)
class JsonArg:
    """A JSON-in-string arg: the parsed value (None on error), the error, and the string's line."""

    data: Any
    error: str | None
    line: int | None
    text: str


def as_int(value: Any) -> int | None:
    """An integer written as a YAML int or a numeric string ('898', '1_000'); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _NUMERIC.match(value):
        return int(value.replace("_", ""))
    return None


def as_number(value: Any) -> float | None:
    """A number written as a YAML number or a numeric string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace("_", ""))
        except ValueError:
            return None
    return None


def _spellings(name: str) -> tuple[str, ...]:
    return (name, name.replace("-", "_"), name.replace("_", "-"))


@dataclass
class Role:
    """One serving role of a point (prefill, decode, agg or a schema-2 role name)."""

    name: str
    engine: str | None
    args: Mapping[str, Any]  # merged tree: leaves are Value
    env: Mapping[str, Any]
    gpus: Value | None  # declared GPUs per worker
    gpus_key: str = ""  # where `gpus` is declared, for messages
    _json: dict = field(default_factory=dict, repr=False)

    def arg(self, name: str) -> Value | None:
        """The arg leaf under any spelling of `name` (hyphens or underscores), or None."""
        for n in _spellings(name):
            v = self.args.get(n)
            if isinstance(v, Value):
                return v
            if isinstance(v, dict):
                return Value(_plain(v), _first_line(v))
        return None

    def int_arg(self, name: str) -> int | None:
        v = self.arg(name)
        return as_int(v.value) if v is not None else None

    def json(self, name: str) -> JsonArg | None:
        """The parsed JSON of a string arg (or a YAML mapping written in place), or None if unset."""
        if name not in self._json:
            v = self.arg(name)
            if v is None:
                self._json[name] = None
            elif isinstance(v.value, str):
                try:
                    data = json.loads(v.value)
                    self._json[name] = JsonArg(data, None, v.line, v.value)
                except (ValueError, RecursionError) as err:
                    self._json[name] = JsonArg(None, str(err).split("\n")[0], v.line, v.value)
            else:
                self._json[name] = JsonArg(v.value, None, v.line, "")
        return self._json[name]

    def json_dict(self, name: str) -> dict:
        """The JSON arg as a dict ({} when unset, invalid or not an object)."""
        j = self.json(name)
        return j.data if j is not None and isinstance(j.data, dict) else {}

    @property
    def label(self) -> str:
        return self.name


@dataclass
class RecipePoint:
    """One runnable configuration of a recipe file."""

    path: str
    name: str
    schema: int  # 1 = srt-slurm layout, 2 = `roles.*` layout
    tree: dict
    roles: tuple[Role, ...]

    def get(self, *keys: str) -> Value | None:
        cur: Any = self.tree
        for k in keys:
            if not isinstance(cur, dict) or k not in cur:
                return None
            cur = cur[k]
        if isinstance(cur, dict):
            return Value(_plain(cur), _first_line(cur))
        return cur

    def line_of(self, *keys: str) -> int | None:
        v = self.get(*keys)
        return v.line if v is not None else None

    @property
    def benchmark_env(self) -> dict:
        env = self.tree.get("benchmark", {})
        env = env.get("env", {}) if isinstance(env, dict) else {}
        return env if isinstance(env, dict) else {}

    def env(self, name: str) -> Value | None:
        """An environment value: benchmark env first, then the roles' env blocks."""
        v = self.benchmark_env.get(name)
        if isinstance(v, Value):
            return v
        for role in self.roles:
            v = role.env.get(name)
            if isinstance(v, Value):
                return v
        return None

    @property
    def gpus_per_node(self) -> int | None:
        v = self.get("resources", "gpus_per_node")
        return as_int(v.value) if v is not None else None

    @property
    def gpu_type(self) -> str | None:
        v = self.get("resources", "gpu_type")
        return str(v.value) if v is not None and v.value is not None else None


# --- building merged trees ---------------------------------------------------------------------


def _first_line(tree: dict) -> int | None:
    for v in tree.values():
        line = v.line if isinstance(v, Value) else _first_line(v) if isinstance(v, dict) else None
        if line is not None:
            return line
    return None


def _plain(node: Any) -> Any:
    if isinstance(node, Value):
        return node.value
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items()}
    return node




# Merge-key chains deeper than this are not followed for lines (the values are still merged).
MAX_MERGE_DEPTH = 32


def _merge_sources(node: Any) -> list:
    """The mappings a `<<:` merge key pulls into `node`, in priority order."""
    merged = getattr(node, "merge", None)
    out = []
    for item in merged or ():
        src = item[1] if isinstance(item, tuple) else item  # older ruamel: (index, map) pairs
        if isinstance(src, dict):
            out.append(src)
    return out


def key_line(node: Any, key: Any, depth: int = 0) -> int | None:
    """1-based line where `key` of a ruamel mapping is written: its own line, or, for a key that a
    `<<:` merge key brings in, the line in the anchored mapping it comes from (chains followed)."""
    lc = getattr(node, "lc", None)
    data = getattr(lc, "data", None)
    if isinstance(data, dict) and key in data:
        pos = data[key]
        return pos[0] + 1 if pos else None
    if depth >= MAX_MERGE_DEPTH:
        return None
    for src in _merge_sources(node):
        if key in src:
            return key_line(src, key, depth + 1)
    return None


def value_tree(node: Any) -> dict:
    """A ruamel mapping as a tree whose leaves are Values carrying their key's line.

    Keys a `<<:` merge key brings in are resolved into the tree like any other key; each keeps the
    line where it is written (in the anchored mapping), so a finding about an inherited value
    points at the line to edit.
    """
    out: dict = {}
    if not isinstance(node, dict):
        return out
    for k, v in node.items():
        key = str(k)
        line = key_line(node, k) if isinstance(node, CommentedMap) else None
        if isinstance(v, dict):
            sub = value_tree(v)
            out[key] = sub if sub else Value({}, line)
        elif isinstance(v, list):
            items: tuple[int | None, ...] = ()
            if isinstance(v, CommentedSeq):
                pos = getattr(v.lc, "data", {})
                items = tuple((pos[i][0] + 1) if pos.get(i) else line for i in range(len(v)))
            out[key] = Value(plain(v), line, items)
        else:
            out[key] = Value(v, line)
    return out


def _merge(base: dict, over: dict) -> dict:
    """Deep merge: mappings merge key by key; anything else in `over` replaces."""
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _zip_len(tree: dict) -> int:
    n = 0
    for v in tree.values():
        if isinstance(v, dict):
            n = max(n, _zip_len(v))
        elif isinstance(v, Value) and isinstance(v.value, list):
            n = max(n, len(v.value))
    return n


def _zip_pick(tree: dict, i: int, n: int) -> dict:
    out: dict = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            out[k] = _zip_pick(v, i, n)
        elif isinstance(v, Value) and isinstance(v.value, list) and len(v.value) == n:
            line = v.items[i] if i < len(v.items) else v.line
            item = v.value[i]
            out[k] = _tree_value(item, line)
        else:
            out[k] = v
    return out


def _tree_value(item: Any, line: int | None) -> Any:
    if isinstance(item, dict):
        return {str(k): _tree_value(x, line) for k, x in item.items()} or Value({}, line)
    return Value(item, line)


def _variants(data: CommentedMap) -> list[tuple[str, dict]]:
    base = value_tree(data.get("base"))
    out: list[tuple[str, dict]] = []
    for key, value in data.items():
        key = str(key)
        m = _OVERRIDE.match(key)
        if not m or not isinstance(value, dict):
            continue
        over = value_tree(value)
        if m.group(1):
            n = _zip_len(over)
            for i in range(max(n, 1)):
                out.append((f"{key}[{i}]", _merge(base, _zip_pick(over, i, n) if n else over)))
        else:
            out.append((key, _merge(base, over)))
    return out or [("base", base)]


def _roles(tree: dict) -> tuple[tuple[Role, ...], int]:
    roles: list[Role] = []
    schema = 1
    schema_v = tree.get("schema")
    if "roles" in tree or (isinstance(schema_v, Value) and as_int(schema_v.value) == 2):
        schema = 2
        engine_v = tree.get("engine", {})
        engine = None
        if isinstance(engine_v, dict) and isinstance(engine_v.get("type"), Value):
            engine = str(engine_v["type"].value)
        for name, block in (tree.get("roles") or {}).items() if isinstance(tree.get("roles"), dict) else []:
            if not isinstance(block, dict):
                continue
            args = block.get("args") if isinstance(block.get("args"), dict) else {}
            env = block.get("env") if isinstance(block.get("env"), dict) else {}
            gpus = block.get("gpus") if isinstance(block.get("gpus"), Value) else None
            role_engine = engine
            t = block.get("engine")
            if isinstance(t, Value) and isinstance(t.value, str):
                role_engine = t.value
            roles.append(Role(name, role_engine, args, env, gpus, f"roles.{name}.gpus"))
        return tuple(roles), schema
    backend = tree.get("backend")
    if not isinstance(backend, dict):
        return (), schema
    resources = tree.get("resources") if isinstance(tree.get("resources"), dict) else {}
    for cfg_key, engine in _SRT_ENGINES.items():
        cfg = backend.get(cfg_key)
        if not isinstance(cfg, dict):
            continue
        for raw_role, block in cfg.items():
            role = _SRT_ROLES.get(raw_role)
            if role is None or not isinstance(block, dict):
                continue
            env_key = f"{'aggregated' if role == 'agg' else role}_environment"
            env = backend.get(env_key) if isinstance(backend.get(env_key), dict) else {}
            gkey = f"gpus_per_{role}"
            gpus = resources.get(gkey) if isinstance(resources.get(gkey), Value) else None
            roles.append(Role(role, engine, block, env, gpus, f"resources.{gkey}"))
    return tuple(roles), schema


def points(doc: Document) -> list[RecipePoint]:
    """Every point of a parsed recipe (empty when it does not parse or has no serving roles)."""
    data = doc.data
    if not doc.ok or not isinstance(data, CommentedMap):
        return []
    if isinstance(data.get("base"), dict):
        variants = _variants(data)
    else:
        variants = [("recipe", value_tree(data))]
    out = []
    for name, tree in variants:
        roles, schema = _roles(tree)
        if roles:
            out.append(RecipePoint(doc.path, name, schema, tree, roles))
    return out


def recipe_points(ctx: ReviewContext, path: str) -> list[RecipePoint]:
    """Points of the head version of `path`, memoized on the context."""
    return ctx.memo(("recipe", "points", path), lambda: points(ctx.head_doc(path)))


def changed_recipe_paths(ctx: ReviewContext) -> list[str]:
    """Changed, not removed, YAML recipes whose head parses (memoized: every recipe rule asks)."""

    def compute() -> list[str]:
        out = []
        for f in ctx.files_of("recipes"):
            if f.status == "removed" or not f.path.endswith((".yaml", ".yml")):
                continue
            if ctx.head_doc(f.path).ok:  # yaml-invalid reports the others
                out.append(f.path)
        return out

    return ctx.memo(("recipe", "changed-paths"), compute)


def changed_recipes(ctx: ReviewContext) -> Iterator[tuple[str, list[RecipePoint]]]:
    """(path, points) for every changed, not removed, YAML recipe whose head parses."""
    for path in changed_recipe_paths(ctx):
        yield path, recipe_points(ctx, path)


# --- where findings go ---------------------------------------------------------------------


def fmt(n: int | float) -> str:
    """A number with thousands separators (integers exact, others to 4 significant decimals)."""
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.4f}".rstrip("0").rstrip(".")
    return f"{int(n):,}"


def where(point: RecipePoint, role: Role) -> str:
    """How messages name a point and role: `override_c32` agg, or `decode` for a single point."""
    return f"`{point.name}` {role.name}" if point.name != "recipe" else f"{role.name}"


# --- vLLM cudagraph capture facts (shared by the capture-list rules) -------------------------

# Modes whose graphs also serve mixed prefill batches (every listed size is captured as a mixed
# graph: `CudagraphDispatcher.initialize_cudagraph_keys`, vllm/v1/cudagraph_dispatcher.py).
PREFILL_MODES = ("PIECEWISE", "FULL_AND_PIECEWISE")
MIXED_MODES = ("PIECEWISE", "FULL_AND_PIECEWISE", "FULL")
# A separate FULL decode routine and no mixed graphs: only sizes from k + 1 to
# max-num-seqs × (k + 1) are ever captured (same function).
DECODE_ONLY_MODES = ("FULL_DECODE_ONLY",)


def engine_size(x: Any) -> int | None:
    """One capture size as vLLM's config validation reads it, or None when it rejects it.

    `CompilationConfig.cudagraph_capture_sizes` is `list[int]`, validated by pydantic in lax mode
    (`vllm/engine/arg_utils.py` `parse_dataclass`: `TypeAdapter(cls).validate_json`): it takes
    `true` as 1, `8.0` and `"8"` as 8, and rejects `8.5`, `"eight"`, `null` and nested lists.
    """
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return int(x) if x.is_integer() else None
    if isinstance(x, str):
        t = x.strip()
        try:
            return int(t)
        except ValueError:
            pass
        try:
            f = float(t)
        except ValueError:
            return None
        return int(f) if f.is_integer() else None
    return None


@dataclass(frozen=True)
class Capture:
    """What one vLLM role says about cudagraph capture, with the line of each input."""

    role: Role
    mode: str | None  # cudagraph_mode, upper-cased
    sizes: Any  # cudagraph_capture_sizes as written (None when not set)
    sizes_line: int | None
    mccs: int | None  # max_cudagraph_capture_size (JSON) or max-cudagraph-capture-size (arg)
    mccs_line: int | None
    mbt: int | None  # max-num-batched-tokens
    mbt_line: int | None
    mns: int | None  # max-num-seqs
    mns_line: int | None
    k: int | None  # num_speculative_tokens (0 without speculative decoding; None when unreadable)
    k_line: int | None
    # Both the compilation-config field and its top-level CLI spelling are set (vLLM refuses them
    # together): the CLI arg's name and line.
    sizes_twice: tuple[str, int | None] | None = None
    mccs_twice: tuple[str, int | None] | None = None

    @property
    def valid_sizes(self) -> list[int] | None:
        """The list when it is positive, strictly increasing integers; None otherwise."""
        s = self.sizes
        if not isinstance(s, list) or not s:
            return None
        if any(isinstance(x, bool) or not isinstance(x, int) or x <= 0 for x in s):
            return None
        if any(b <= a for a, b in zip(s, s[1:], strict=False)):
            return None
        return s

    @property
    def read_sizes(self) -> list[int] | None:
        """The list as vLLM's validation reads it (entries coerced as pydantic does), in the
        written order; None when it is not a list or holds an entry vLLM rejects."""
        s = self.sizes
        if not isinstance(s, list):
            return None
        out = [engine_size(x) for x in s]
        return None if any(x is None for x in out) else out  # type: ignore[misc]

    @property
    def engine_sizes(self) -> list[int] | None:
        """The sizes vLLM keeps before the token budget: deduplicated and sorted
        (`VllmConfig._set_cudagraph_sizes`, vllm/config/vllm.py)."""
        r = self.read_sizes
        return sorted(set(r)) if r else None

    def kept_sizes(self) -> list[int] | None:
        """The sizes vLLM captures at all: those not above max-num-batched-tokens (None when the
        budget is not written, or the list unreadable)."""
        s = self.engine_sizes
        if s is None or self.mbt is None:
            return None
        return [x for x in s if x <= self.mbt]

    @property
    def decode_max(self) -> int | None:
        """max-num-seqs × (k + 1): the most tokens one decode step schedules."""
        if self.mns is None or self.k is None or self.mns <= 0 or self.k < 0:
            return None
        return self.mns * (self.k + 1)

    @property
    def decode_only_list(self) -> bool:
        """The list stays in the decode range (a deliberate decode-only list, e.g. conc 1)."""
        s, dmax = self.valid_sizes, self.decode_max
        return bool(s and dmax and s[-1] <= dmax)

    @property
    def captures_mixed(self) -> bool:
        """Every listed size is captured as a graph of mixed batches (the mode is not decode-only;
        an unset mode is vLLM's default, FULL_AND_PIECEWISE)."""
        return self.mode is None or self.mode in MIXED_MODES


def capture(role: Role) -> Capture | None:
    """Capture facts of a vLLM role that does not run eagerly; None otherwise."""
    if role.engine is not None and role.engine != "vllm":
        return None
    if role.engine is None and role.arg("compilation-config") is None:
        return None  # an engine we cannot name and no vLLM compilation config: not ours to judge
    eager = role.arg("enforce-eager")
    if eager is not None and eager.value is True:
        return None
    comp = role.json("compilation-config")
    cdata = comp.data if comp is not None and isinstance(comp.data, dict) else {}
    mode = cdata.get("cudagraph_mode")
    mode = mode.upper() if isinstance(mode, str) else None
    if mode == "NONE":
        return None  # no graphs: vLLM ignores the sizes (`_set_cudagraph_sizes` empties the list)
    sizes = cdata.get("cudagraph_capture_sizes")
    sizes_line = comp.line if comp is not None else None
    sizes_twice = None
    for name in ("cudagraph-capture-sizes", "cuda-graph-sizes"):
        v = role.arg(name)
        if v is None:
            continue
        if sizes is not None and name == "cudagraph-capture-sizes" and sizes_twice is None:
            # `EngineArgs.create_engine_config` (vllm/engine/arg_utils.py) raises "… are mutually
            # exclusive". (`--cuda-graph-sizes` beside the JSON list did not raise in releases
            # before ≈ 0.11.1, so only the newer spelling is recorded.)
            sizes_twice = (name, v.line)
        if sizes is None:
            # A CLI list arg (nargs="+"): a scalar or a spaced string is the list of its words.
            value = v.value
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                value = [w for w in re.split(r"[\s,]+", str(value).strip()) if w] if isinstance(value, str) else [value]
            sizes, sizes_line = value, v.line
    mccs, mccs_line = as_int(cdata.get("max_cudagraph_capture_size")), comp.line if comp is not None else None
    v = role.arg("max-cudagraph-capture-size")
    mccs_twice = None
    if cdata.get("max_cudagraph_capture_size") is None:
        mccs, mccs_line = (as_int(v.value), v.line) if v is not None else (None, None)
    elif v is not None:
        mccs_twice = ("max-cudagraph-capture-size", v.line)
    mbt_v, mns_v = role.arg("max-num-batched-tokens"), role.arg("max-num-seqs")
    spec = role.json("speculative-config")
    if spec is None:
        k, k_line = 0, None
    else:
        sdata = spec.data if isinstance(spec.data, dict) else {}
        k, k_line = as_int(sdata.get("num_speculative_tokens")), spec.line
    return Capture(role, mode, sizes, sizes_line, mccs, mccs_line,
                   as_int(mbt_v.value) if mbt_v else None, mbt_v.line if mbt_v else None,
                   as_int(mns_v.value) if mns_v else None, mns_v.line if mns_v else None, k, k_line,
                   sizes_twice, mccs_twice)


def captures(ctx: ReviewContext, path: str) -> list[tuple[RecipePoint, Capture]]:
    """(point, capture facts) of every vLLM role of every point of a changed recipe (memoized)."""

    def compute() -> list[tuple[RecipePoint, Capture]]:
        out = []
        for p in recipe_points(ctx, path):
            for r in p.roles:
                c = capture(r)
                if c is not None:
                    out.append((p, c))
        return out

    return ctx.memo(("recipe", "captures", path), compute)


class Once:
    """Collects per-point findings so a value inherited by several points is reported once.

    `add(key, point_name, build)` keeps the first build for each key and counts the points that
    share it; `items()` yields (build result, [point names]) in first-seen order.
    """

    def __init__(self) -> None:
        self._seen: dict = {}

    def add(self, key, point_name: str, item) -> None:
        if key in self._seen:
            if point_name not in self._seen[key][1]:
                self._seen[key][1].append(point_name)
        else:
            self._seen[key] = (item, [point_name])

    def items(self):
        return list(self._seen.values())


def points_note(names: list[str]) -> str:
    """' (also in 3 more points)' style suffix for a finding shared by several points."""
    return "" if len(names) <= 1 else f" (the same in {len(names) - 1} more point{'s' if len(names) > 2 else ''})"


# --- parallelism ---------------------------------------------------------------------------

# GPUs of one worker = product of these args (first spelling found), per engine (RULES.md E14).
PARALLEL_ARGS = {
    "vllm": (("tensor-parallel-size", "tp"), ("data-parallel-size", "dp"), ("pipeline-parallel-size", "pp"),
             ("prefill-context-parallel-size", "pcp")),
    "sglang": (("tensor-parallel-size", "tp-size", "tp"), ("pipeline-parallel-size", "pp-size", "pp")),
    "trtllm": (("tensor_parallel_size",), ("pipeline_parallel_size",)),
}


@dataclass(frozen=True)
class Parallelism:
    """A worker's GPU count from its parallel args: the product and the factors behind it."""

    gpus: int
    factors: tuple[tuple[str, int, int | None], ...]  # (arg name, value, line) of each arg set

    @property
    def arith(self) -> str:
        if not self.factors:
            return "1"
        return " × ".join(f"{n} {v}" for n, v, _ in self.factors) + (f" = {self.gpus}" if len(self.factors) > 1 else "")

    @property
    def lines(self) -> tuple[int | None, ...]:
        return tuple(line for _, _, line in self.factors)


def parallelism(role: Role) -> Parallelism | None:
    """GPUs per worker from the role's parallel args; None for an unknown engine or no args set."""
    table = PARALLEL_ARGS.get(role.engine or "")
    if table is None:
        return None
    gpus, factors = 1, []
    for names in table:
        for n in names:
            v = role.arg(n)
            if v is not None:
                iv = as_int(v.value)
                if iv is None or iv <= 0:
                    return None
                gpus *= iv
                factors.append((n, iv, v.line))
                break
    if not factors:
        return None
    return Parallelism(gpus, tuple(factors))
