"""The sweep matrix a changelog entry selects: a pure re-implementation of the repository's expansion.

`process_changelog.py` resolves each new entry's `config-keys`, then runs
`generate_sweep_configs.py test-config` for the selected keys: per key, per scenario block, per
search-space row, one throughput job per concurrency (single-node, and multi-node agentic rows,
one allocation per concurrency), or one job per row with the whole concurrency list (multi-node
fixed-seq-len). Then the eval subset (`mark_eval_entries`: 8k1k rows at the highest and median
concurrency per group; multi-node per topology at its highest concurrency ≥ 16). An entry with
`evals-only` or `all-evals` runs no throughput jobs; `scenario-type` filters the scenarios; a
key already run by an earlier entry of the same PR for a scenario is not run again.

Concurrency ranges expand like the generator: `conc-start`, then doubling, clamped to
`conc-end` (4..48 → 4, 8, 16, 32, 48).

`entry_jobs(ctx, diff)` gives, per new changelog entry, the keys, rows and jobs it selects (the
passed checks quote it: "`k`: 3 rows × 6 concurrencies = 18 jobs"); `pr_run_matrix_failures`
feeds the PR-run gate of `rules.changelog.gates` (schema, key resolution, generator errors).
Bounded: at most `MAX_JOBS` jobs are counted per review; past that the count is a lower bound.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from rules.conventions import conventions, schema_modelled
from rules.master.analysis import KeyInfo, changed_keys, master_files, master_keys, match_keys
from rules.master.schema import key_line, validate_key

SCENARIO_TYPES = ("fixed-seq-len", "agentic-coding")
MIN_EVAL_CONC = 16
MAX_JOBS = 200_000
MAX_CONC_POINTS = 10_000
BYTES_PER_MIB = 1024 * 1024
BYTES_PER_GB = 1_000_000_000
MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 2_861_022


class MatrixError(ValueError):
    """The generator would fail for this key (its message, as close to the tool's as known)."""


_CONC = ("conc-list", "conc-start", "conc-end")
_DEFAULTS = {"pp": 1, "dcp-size": 1, "pcp-size": 1, "spec-decoding": "none", "dp-attn": False, "ep": 1}


def row_topology(row: dict, settings: bool = True) -> str:
    """A search-space row without its concurrencies, defaults applied: what one benchmark is.

    `settings=False` leaves out the workers' `additional-settings` (recipe files, engine knobs):
    what the results are labelled with (the dashboard shows workers and concurrency, not them).
    """
    import json

    norm = {k: v for k, v in row.items() if k not in _CONC}
    if "prefill" in norm or "decode" in norm:
        for role in ("prefill", "decode"):
            if isinstance(norm.get(role), dict):
                norm[role] = {"pp": 1, "dcp-size": 1, "pcp-size": 1, "additional-settings": [], **norm[role]}
                if not settings:
                    norm[role].pop("additional-settings", None)
        norm.setdefault("spec-decoding", "none")
    else:
        norm = {**_DEFAULTS, **{k: v for k, v in norm.items() if v is not None}}
    try:
        return json.dumps(norm, sort_keys=True, default=str)
    except (TypeError, ValueError):  # keys of mixed types (`{1: a, b: 2}`): compare by repr
        return repr(sorted(norm.items(), key=repr))


def scenarios_of(value) -> dict | None:
    """A key's `scenarios` mapping; before 2026-05-01 its `seq-len-configs` are the fixed-seq-len scenario."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("scenarios"), dict):
        return value["scenarios"]
    if isinstance(value.get("seq-len-configs"), list):
        return {"fixed-seq-len": value["seq-len-configs"]}
    return None


def conc_values(row: dict) -> list[int]:
    """The concurrencies a search-space row runs (list as written, or the doubling range)."""
    if isinstance(row.get("conc-list"), list) and row.get("conc-list"):
        return [c for c in row["conc-list"] if isinstance(c, int)]
    start, end = row.get("conc-start"), row.get("conc-end")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool) or start <= 0:
        return []
    out = []
    c = start
    while c <= end and len(out) < MAX_CONC_POINTS:
        out.append(c)
        if c == end:
            break
        c *= 2
        if c > end:
            c = end
    return out


@dataclass
class KeyJobs:
    """What the generator produces for one key (throughput + eval jobs)."""

    key: str
    rows: int = 0  # search-space rows that produced jobs
    concurrencies: int = 0  # concurrency points over those rows
    per_row: list = field(default_factory=list)  # concurrency points of each row
    multinode: bool = False
    throughput: int = 0
    evals: int = 0
    scenarios: tuple[str, ...] = ()
    error: str | None = None

    @property
    def jobs(self) -> int:
        return self.throughput + self.evals

    def arithmetic(self) -> str:
        if self.error:
            return f"`{self.key}`: generator fails ({self.error})"
        if not self.rows:
            return f"`{self.key}`: no rows for {', '.join(self.scenarios) or 'the selected scenarios'}"
        rows = f"{self.rows} row{'s' if self.rows != 1 else ''}"
        if self.multinode and self.throughput == self.rows:
            per = f"{rows} (one job each, {self.concurrencies} concurrencies)"
            text = f"`{self.key}`: {per} = {self.throughput:,} job{'s' if self.throughput != 1 else ''}"
        else:
            same = len(set(self.per_row)) == 1
            per = (f"{rows} × {self.per_row[0]} concurrenc{'y' if self.per_row[0] == 1 else 'ies'}" if same
                   else f"{rows}, {self.concurrencies} concurrency points")
            text = f"`{self.key}`: {per} = {self.throughput:,} job{'s' if self.throughput != 1 else ''}"
        if self.evals:
            text += f" + {self.evals:,} eval job{'s' if self.evals != 1 else ''}"
        return text


def _runner_hw(runners: dict | None, runner: str) -> dict:
    hw = (runners or {}).get("hardware") if isinstance(runners, dict) else None
    return hw.get(runner, {}) if isinstance(hw, dict) and isinstance(hw.get(runner, {}), dict) else {}


def _dram_check(agentic: dict, row: dict, runner: str, runners: dict | None) -> None:
    """`agentic_dram_offload_gb`'s failure modes (DRAM offload needs runner hardware facts)."""
    if row.get("kv-offloading", "none") != "dram":
        return
    if runners is None:
        return  # runners.yaml was not read: the generator never runs without it, so this is unknown
    hw = _runner_hw(runners, runner)
    for fld in ("available-cpu-dram-mib", "gpus-per-node"):
        if hw.get(fld) is None:
            raise MatrixError(f"Runner '{runner}' requires '{fld}' in runner hardware metadata")
    gpn = hw["gpus-per-node"]
    if not isinstance(gpn, int) or gpn <= 0:
        raise MatrixError(f"Runner '{runner}' has a non-positive gpus-per-node")
    if "prefill" in row and isinstance(row["prefill"], dict):
        w = row["prefill"]
        g = w.get("tp", 1) * w.get("pp", 1) * w.get("pcp-size", 1)
        if g > gpn and g % gpn:
            raise MatrixError(f"worker tp*pp*pcp-size={g} spans multiple nodes but is not a multiple of "
                              f"gpus-per-node={gpn}")
        if g <= gpn and gpn % g:
            raise MatrixError(f"worker tp*pp*pcp-size={g} does not divide gpus-per-node={gpn} evenly")
    else:
        g = row.get("tp", 1) * row.get("pp", 1) * row.get("pcp-size", 1)
        if g > gpn:
            raise MatrixError(f"tp={row.get('tp')} with pp={row.get('pp', 1)} and pcp-size={row.get('pcp-size', 1)} "
                              f"requires {g} GPUs and exceeds gpus-per-node={gpn} for runner '{runner}'")
    du = agentic.get("dram-utilization")
    if du is not None:
        Decimal(str(du))  # the generator's arithmetic; a valid float always converts


def expand_key(key: str, value: Any, scenarios: tuple[str, ...] = SCENARIO_TYPES, evals: bool = True,  # noqa: C901 (one branch per key layout and scenario kind the generator handles)
               throughput: bool = True, runners: dict | None = None, agentic_evals: bool = False,
               all_evals: bool = False) -> KeyJobs:
    """Jobs `generate_sweep_configs.py test-config` makes for one (schema-valid) key.

    `agentic_evals`: the eval pass also marks single-node agentic rows (`mark_eval_entries`'s
    `include_agentic`, on in `process_changelog.py`'s `--evals-only` pass since 2026-07-16);
    `all_evals`: the entry's `all-evals` (`mark_all_eval_entries`). Eval groups are counted per
    key; the generator groups keys of one model, runner, framework and precision together.
    """
    out = KeyJobs(key, scenarios=scenarios)
    if isinstance(value, dict) and "scenarios" not in value and isinstance(value.get("seq-len-configs"), list):
        value = {**value, "scenarios": {"fixed-seq-len": value["seq-len-configs"]}}  # before 2026-05-01
    if not isinstance(value, dict) or not isinstance(value.get("scenarios"), dict):
        out.error = "no `scenarios` mapping"
        return out
    multinode = bool(value.get("multinode", False))
    out.multinode = multinode
    runner = value.get("runner") if isinstance(value.get("runner"), str) else ""
    rows_for_eval: list[tuple[str, int, int, Any, list[int], dict]] = []
    agentic_jobs = 0
    try:
        if "fixed-seq-len" in scenarios:
            for block in value["scenarios"].get("fixed-seq-len") or []:
                if not isinstance(block, dict):
                    continue
                isl, osl = block.get("isl"), block.get("osl")
                for row in block.get("search-space") or []:
                    if not isinstance(row, dict):
                        continue
                    cv = conc_values(row)
                    if not cv:
                        continue
                    out.rows += 1
                    out.concurrencies += len(cv)
                    out.per_row.append(len(cv))
                    out.throughput += 1 if multinode else len(cv)
                    rows_for_eval.append(("fixed-seq-len", isl, osl, row, cv, block))
        if "agentic-coding" in scenarios:
            for block in value["scenarios"].get("agentic-coding") or []:
                if not isinstance(block, dict):
                    continue
                for row in block.get("search-space") or []:
                    if not isinstance(row, dict):
                        continue
                    _dram_check(block, row, runner, runners)
                    cv = conc_values(row)
                    if not cv:
                        continue
                    out.rows += 1
                    out.concurrencies += len(cv)
                    out.per_row.append(len(cv))
                    out.throughput += len(cv)
                    agentic_jobs += len(cv)
    except MatrixError as err:
        out.error = str(err)
        return out
    except (TypeError, ValueError, ArithmeticError) as err:
        out.error = f"{type(err).__name__}: {err}"
        return out
    if not throughput:
        out.throughput = 0
    if evals:
        out.evals = _eval_jobs(rows_for_eval, multinode, all_evals)
        if agentic_evals and agentic_jobs and not multinode:  # multi-node agentic evals are unsupported
            out.evals += agentic_jobs if all_evals else 1
    return out


def _eval_jobs(rows: list, multinode: bool, all_evals: bool = False) -> int:
    """How many generated fixed-seq-len rows are marked for evals: `mark_eval_entries` (the default
    policy) or, with `all_evals`, `mark_all_eval_entries` (every 8k1k row; multi-node rows of one
    parallelism merged into one eval job)."""
    if all_evals and not multinode:
        return sum(len(cv) for _, isl, osl, _, cv, _ in rows if (isl, osl) == (8192, 1024))
    if multinode:
        topologies = set()
        for _, isl, osl, row, cv, _ in rows:
            if (isl, osl) != (8192, 1024) or (not all_evals and not [c for c in cv if c >= MIN_EVAL_CONC]):
                continue
            topologies.add(repr((row.get("spec-decoding", "none"), sorted(map(repr, (row.get("prefill"),
                                                                                        row.get("decode")))))))
        return len(topologies)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for _, isl, osl, row, cv, _ in rows:
        if (isl, osl) != (8192, 1024):
            continue
        gk = (row.get("spec-decoding", "none"), bool(row.get("dp-attn") or False))
        groups[gk].extend(c for c in cv if c >= MIN_EVAL_CONC)
    n = 0
    for concs in groups.values():
        if not concs:
            continue
        vals = sorted(set(concs))
        targets = {vals[-1], vals[len(vals) // 2]}
        n += sum(1 for c in concs if c in targets)
    return n


@dataclass
class EntryJobs:
    """What one new changelog entry selects."""

    entry: Any  # rules.changelog.analysis.Entry
    keys: list[str] = field(default_factory=list)
    per_key: list[KeyJobs] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # items that select no key
    repeated: list[str] = field(default_factory=list)  # keys an earlier entry already runs
    throughput_suppressed: bool = False
    scenarios: tuple[str, ...] = SCENARIO_TYPES

    @property
    def jobs(self) -> int:
        return sum(k.jobs for k in self.per_key)


def runners_config(ctx) -> dict | None:
    from rules.document import load_values

    for path in ctx.head_paths_of("runners"):
        data, err = load_values(path, ctx.changeset.head_bytes(path))
        if err is None and isinstance(data, dict):
            return data
    return None


def eval_policy(ctx) -> tuple[bool, bool]:
    """(is the eval selection of the tooling that runs this PR's sweep the one modelled here, does
    its eval pass mark agentic rows). The sweep of a pull request runs the tooling of the head
    merged into the base tip: the tip's time decides, the merge base's is a lower bound of it. With
    neither known, today's tooling. Agentic evals are counted unless that tooling is known to
    predate them (more eval jobs, never fewer, when unsure)."""
    from rules.conventions import AGENTIC_EVALS, EVAL_SELECTION

    cs = ctx.changeset
    times = [t for t in (getattr(cs, "base_time", None), getattr(cs, "base_tip_time", None)) if t is not None]
    newest = max(times) if times else None
    tip_known = getattr(cs, "base_tip_time", None) is not None
    modelled = newest is None or newest >= EVAL_SELECTION
    agentic = newest is None or newest >= AGENTIC_EVALS or not tip_known
    return modelled, agentic


def entry_jobs(ctx, diff) -> list[EntryJobs]:
    """Per new entry of `diff`: keys, jobs, unresolved items — in process_changelog's order."""

    def compute() -> list[EntryJobs]:
        keys = master_keys(ctx, "head")
        runners = runners_config(ctx)
        agentic = eval_policy(ctx)[1]
        out: list[EntryJobs] = []
        seen_bench: dict[str, set] = defaultdict(set)
        seen_eval: dict[str, set] = defaultdict(set)
        budget = MAX_JOBS
        entries = [e for e in diff.new_entries if isinstance(e.data, dict)]
        # all-evals entries first (their eval matrix wins), as process_changelog sorts them
        entries.sort(key=lambda e: not bool(e.data.get("all-evals")))
        for e in entries:
            data = e.data
            ej = EntryJobs(e)
            st = data.get("scenario-type")
            ej.scenarios = tuple(s for s in SCENARIO_TYPES if isinstance(st, list) and s in st) or SCENARIO_TYPES
            ej.throughput_suppressed = bool(data.get("evals-only")) or bool(data.get("all-evals"))
            items = data.get("config-keys") if isinstance(data.get("config-keys"), list) else []
            for item in items:
                if not isinstance(item, str):
                    continue
                hit = match_keys(item, keys)
                if not hit:
                    ej.unresolved.append(item)
                for k in hit:
                    if k not in ej.keys:
                        ej.keys.append(k)
            for k in ej.keys:
                bench = tuple(s for s in ej.scenarios if s not in seen_bench[k]) if not ej.throughput_suppressed else ()
                ev = tuple(s for s in ej.scenarios if s not in seen_eval[k])
                seen_bench[k].update(bench)
                seen_eval[k].update(ev)
                if not bench and not ev:
                    ej.repeated.append(k)
                    continue
                if budget <= 0:
                    break
                info = keys[k]
                kj = expand_key(k, info.value, scenarios=tuple(dict.fromkeys(bench + ev)), runners=runners,
                                agentic_evals=agentic, all_evals=bool(data.get("all-evals")))
                if not bench:
                    kj.throughput = 0
                budget -= kj.jobs
                ej.per_key.append(kj)
            out.append(ej)
        return out

    return ctx.memo(("matrix", "entry_jobs", diff.path), compute)


SCHEMA_FILES = ("matrix_logic/validation.py", "infx/matrix/validation.py")
# Errors a schema change cannot explain away: a required field missing, a value of the wrong shape.
SHAPE_ERRORS = frozenset({"missing", "dict_type", "list_type", "model_type", "int_type", "int_parsing",
                          "string_type", "bool_type", "bool_parsing", "float_type", "not_mapping"})


def schema_changed(ctx) -> str | None:
    """The path of the schema's own source when this PR changes it (its keys follow the new schema)."""
    return next((f.path for f in ctx.changeset.files if f.path.endswith(SCHEMA_FILES)), None)


def schema_failures(ctx) -> list[tuple[KeyInfo, list]]:
    """(key, schema errors) for every key the PR adds or changes that the schema rejects."""

    def compute():
        conv = conventions(ctx)
        out = []
        own = schema_changed(ctx)  # the PR changes the schema: only shape errors no new field explains count
        for c in changed_keys(ctx):
            if c.head is None or c.head.error is not None or not schema_modelled(c.head.path):
                continue
            errs = validate_key(c.head.value, conv)
            if own:
                errs = [e for e in errs if e.kind in SHAPE_ERRORS]
            if errs:
                out.append((c.head, errs))
        return out

    return ctx.memo(("matrix", "schema"), compute)


def file_set_failures(ctx) -> list[tuple[str, str, int | None]]:
    """`load_config_files`' own checks over the head master configs: (path, message, line)."""
    out = []
    seen: dict[str, str] = {}
    touched = {p for f in ctx.changeset.files for p in (f.path, f.base_path)}
    for mf in master_files(ctx, "head"):
        for k, info in mf.keys.items():
            if "*" in k and mf.path in touched:
                out.append((mf.path, f"Wildcard '*' is not allowed in master config keys: '{k}'", info.line))
            if k in seen and (mf.path in touched or seen[k] in touched):
                out.append((mf.path, f"Duplicate configuration keys found in '{mf.path}': {k}", info.line))
            seen.setdefault(k, mf.path)
    return out


def pr_run_matrix_failures(ctx, diff) -> list[tuple[str, str, int | None]]:
    """(stage, message, head changelog line) for the PR-run gate: schema, keys, generator."""
    out: list[tuple[str, str, int | None]] = []
    if not master_files(ctx, "head"):
        return out
    for info, errs in schema_failures(ctx):
        e = errs[0]
        out.append(("master-schema", f"Master config entry '{info.key}' failed validation: {e.where}: {e.message}",
                    None))
    for _path, message, _ in file_set_failures(ctx):
        out.append(("master-schema", message, None))
    for ej in entry_jobs(ctx, diff):
        for item in ej.unresolved:
            if not item.strip():
                continue  # blank keys: reported by the changelog gate itself
            line = ej.entry.start_line
            msg = (f"No config keys matched the wildcard pattern '{item}' in master configs." if "*" in item else
                   f"Config key '{item}' not found in master configs.")
            out.append(("config-key", msg, line))
        for kj in ej.per_key:
            info = master_keys(ctx, "head").get(kj.key)
            if kj.error and info is not None and schema_modelled(info.path):
                out.append(("generator", f"generate_sweep_configs.py test-config failed for '{kj.key}': {kj.error}",
                            ej.entry.start_line))
    return out


# ----------------------------------------------------------------------------------------------
# What a key benchmarks, point by point (for "does this change need a new measurement?")

MAX_POINTS = 50_000


def _frozen(value) -> str:
    import json

    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def benchmark_points(value) -> frozenset | None:
    """Every benchmark point a key's search space runs, each with all it is run with.

    A point is (scenario, the scenario block without its search space, the row without its
    concurrencies — `row_topology`, defaults applied — and one concurrency); the key's other fields
    (image, model, runner, …) are not part of it. None when the key has no readable scenarios or
    more than `MAX_POINTS` points.
    """
    scen = scenarios_of(value)
    if scen is None:
        return None
    out = set()
    for name, blocks in scen.items():
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            where = _frozen({k: v for k, v in block.items() if k != "search-space"})
            rows = block.get("search-space")
            for row in rows if isinstance(rows, list) else []:
                if not isinstance(row, dict):
                    continue
                topo = row_topology(row)
                for c in conc_values(row):
                    out.add((str(name), where, topo, c))
                    if len(out) > MAX_POINTS:
                        return None
    return frozenset(out)


def removes_points_only(base, head) -> bool:
    """Does `base` → `head` only take benchmark points away? Every other field is unchanged and
    every point of `head` is a point of `base`, run with the same settings: what remains was
    measured as it is (#911 deleted the 1k8k blocks of 52 keys and nothing else)."""
    if not isinstance(base, dict) or not isinstance(head, dict):
        return False
    space = ("scenarios", "seq-len-configs")
    if {k: v for k, v in base.items() if k not in space} != {k: v for k, v in head.items() if k not in space}:
        return False
    b, h = benchmark_points(base), benchmark_points(head)
    return b is not None and h is not None and h <= b


__all__ = [
    "KeyJobs",
    "EntryJobs",
    "MatrixError",
    "conc_values",
    "expand_key",
    "entry_jobs",
    "schema_failures",
    "file_set_failures",
    "pr_run_matrix_failures",
    "runners_config",
    "row_topology",
    "scenarios_of",
    "schema_changed",
    "key_line",
    "benchmark_points",
    "removes_points_only",
    "eval_policy",
]


def _entries(value) -> list[tuple[str, int, int, dict, dict]]:
    """(scenario, block index, row index, block, row) of every search-space row of a key value."""
    out = []
    scenarios = scenarios_of(value)
    if not isinstance(scenarios, dict):
        return out
    for name, blocks in scenarios.items():
        for b, block in enumerate(blocks if isinstance(blocks, list) else []):
            if not isinstance(block, dict):
                continue
            for r, row in enumerate(block.get("search-space") or []):
                if isinstance(row, dict):
                    out.append((str(name), b, r, block, row))
    return out


def entry_is_new(ctx, key: str, line: int | None) -> bool:
    """Whether the head search-space row of `key` at `line` is new in content: the base key has no
    row with the same values for the same scenario and sequence lengths. A row that a layout
    migration re-indents (`seq-len-configs` → `scenarios`) or an edit moves within its key is on
    added lines but runs what the base ran. True when it cannot be told (no such row or key)."""
    def compute() -> dict[int, bool]:
        head, base = master_keys(ctx, "head").get(key), master_keys(ctx, "base").get(key)
        if head is None or not isinstance(head.value, dict):
            return {}
        before = []
        if base is not None and isinstance(base.value, dict):
            before = [(s, blk.get("isl"), blk.get("osl"), row) for s, _, _, blk, row in _entries(base.value)]
        lines = _row_lines(head.text, head.line)
        out: dict[int, bool] = {}
        for s, b, r, blk, row in _entries(head.value):
            at = lines.get((s, b, r))
            if at is not None:
                out.setdefault(at, (s, blk.get("isl"), blk.get("osl"), row) not in before)
        return out

    return ctx.memo(("masterconfig", "new-entries", key), compute).get(line, True)


def _row_lines(text: str, first_line: int) -> dict[tuple[str, int, int], int]:
    """(scenario, block, row) → file line of each search-space row of a key's block (one parse)."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        doc = YAML(typ="rt", pure=True).load(io.StringIO(text))
    except (YAMLError, ValueError, TypeError, RecursionError):
        return {}
    node = next(iter(doc.values()), None) if isinstance(doc, dict) and doc else None
    if not isinstance(node, dict):
        return {}
    scen = node.get("scenarios") if isinstance(node.get("scenarios"), dict) else None
    if scen is None and isinstance(node.get("seq-len-configs"), list):
        scen = {"fixed-seq-len": node["seq-len-configs"]}
    out: dict[tuple[str, int, int], int] = {}
    for name, blocks in (scen or {}).items():
        for b, block in enumerate(blocks if isinstance(blocks, list) else []):
            space = block.get("search-space") if isinstance(block, dict) else None
            if not isinstance(space, list):
                continue
            for r in range(len(space)):
                try:
                    out[(str(name), b, r)] = first_line + space.lc.item(r)[0]
                except (AttributeError, KeyError, IndexError, TypeError):
                    continue
    return out
