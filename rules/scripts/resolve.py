"""Per benchmark point: master-config key → runner → launcher → benchmark script → engine command.

Nothing is executed. For one point of a master-config key (a search-space entry × concurrency ×
runner machine) the resolver builds the environment the benchmark workflow would give the
launcher (`ScriptsConfig.point_env`), interprets the launcher (`rules.scripts.interpret`) to see
which script it would run, then interprets that script with the environment the launcher passes
on (its exported variables, `srun --export=…`, `docker run -e …`) to find the engine command
line. Anything unknown stays unknown, with the reason.

## The API (memoized per review through `ctx.memo`)

- `resolve_point(ctx, key, point) -> Resolution`: one point. `Resolution` carries `launcher`
  (path, followed through symlinks), `script` (the path the launcher picks, `script_exists`),
  `engine` (an `EngineCommand` or None), `unknown` (what could not be known, in words) and the
  interpretations (`launcher_result`, `script_result`: every launch, source and variable).
- `EngineCommand`: `engine` ("vllm", "sglang", "trt", "atom"), `argv` (tuple of `Arg`: each word
  with the file and line it came from; unknown words keep their source text), `flags()`
  (normalized `--name` → list of values: `--a=b` and `--a b` alike, `_` read as `-`),
  `env` (the engine process's environment: exported variables and prefix assignments, each a
  `Var` with its line), `path`/`line` of the launch.
- `key_points(ctx, key) -> list[LaunchPoint]`: the points of a head key (values in `LaunchPoint.values`, the
  environment in `LaunchPoint.env`).
- `review_points(ctx) -> ReviewPoints`: every point this review resolves — keys the PR adds or
  changes, keys whose script the PR changes, and keys routed through a changed launcher or the
  library (at most `ScriptsConfig.max_keys` of those; `skipped_keys` counts the rest).
- `needed_paths(ctx) -> set[str]`: head paths whose contents the review still needs (launchers
  followed, resolved scripts, the library, sibling scripts of changed scripts). The CLI and the
  App call it on a changeset holding the tree listing and the master configs, fetch exactly
  those, and review the completed changeset.
- `layout_root(path)`: the repository layout's root for a path (`""` or e.g. `inferencex-e2e/`).
"""
from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules.added import added_in
from rules.cache import LRU
from rules.context import ReviewContext
from rules.document import load_values
from rules.master.analysis import KeyInfo, changed_keys, master_keys
from rules.scripts.interpret import Interpreter
from rules.scripts.memo import SHARED_MEMO
from rules.scripts.names import candidates
from rules.scripts.parse import SHARED_PARSES, Script, Unreadable, review_parses
from rules.scripts.values import Arg, Files, Launch, Result, Unknown, Var, WrittenFile

SYMLINK = "120000"
MAX_LINKS = 4
# Engines and how their server command starts (a subsequence of argv words).
ENGINE_STARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("vllm", ("vllm", "serve")),
    ("vllm", ("-m", "vllm.entrypoints.openai.api_server")),
    ("sglang", ("-m", "sglang.launch_server")),
    ("sglang", ("sglang", "serve")),
    ("trt", ("trtllm-serve",)),
    ("atom", ("-m", "atom.entrypoints.openai_server")),
)
_SEQ = {(1024, 1024): "1k1k", (8192, 1024): "8k1k"}
_TEMPLATE = re.compile(r"\{([a-z0-9_]+)(?:\|([^}]*))?\}")


def layout_root(path: str) -> str:
    """`inferencex-e2e/` for `inferencex-e2e/benchmarks/x.sh`; `` for `benchmarks/x.sh`."""
    for marker in ("benchmarks/", "runners/", "configs/"):
        if path.startswith(marker):
            return ""
        i = path.find("/" + marker)
        if i >= 0:
            # Older trees keep master configs under `.github/configs/` beside a root `runners/`.
            return path[: i + 1].removesuffix(".github/")
    return ""


# -- points -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LaunchPoint:
    """One benchmark point of a key: its values, the runner machine, and the launcher environment."""

    key: str
    values: dict  # the key's fields merged with the search-space entry's, plus computed ones
    node: str  # runner machine name (runners.yaml label member), e.g. `b200-dgxc_00`
    env: dict  # name → value the workflow passes to the launcher
    line: int  # line of the search-space entry (or the key)
    extra: tuple = ()  # names that come from `additional-settings` (always given to the launcher pass)

    @property
    def label(self) -> str:
        v = self.values
        parts = [f"{v.get('scenario', '?')}"]
        if v.get("isl") is not None:
            parts.append(f"isl {v.get('isl')}/osl {v.get('osl')}")
        for name in ("tp", "ep"):
            if v.get(name) is not None:
                parts.append(f"{name} {v[name]}")
        if v.get("dp_attn"):
            parts.append("dp-attn")
        if v.get("spec_decoding") not in (None, "none"):
            parts.append(str(v["spec_decoding"]))
        parts.append(f"conc {v.get('conc')}")
        return ", ".join(parts)


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def render(template: str, values: dict) -> str | None:
    """A point-env template; None when a field is absent and has no default."""
    missing = False

    def sub(m: re.Match) -> str:
        nonlocal missing
        name, default = m.group(1), m.group(2)
        if name in values and values[name] is not None:
            return _fmt(values[name])
        if default is None:
            missing = True
            return ""
        return default

    out = _TEMPLATE.sub(sub, template)
    return None if missing else out


def _concs(entry: dict) -> list[int]:
    cl = entry.get("conc-list")
    if isinstance(cl, list):
        return [c for c in cl if isinstance(c, int) and not isinstance(c, bool)]
    start, end = entry.get("conc-start"), entry.get("conc-end")
    if not isinstance(start, int) or not isinstance(end, int) or start <= 0 or end < start:
        return []
    out, c = [], start
    while c <= end and len(out) < 64:
        out.append(c)
        if c == end:
            break
        c = min(c * 2, end)
    return out


_LABELS: LRU[dict | None] = LRU(64)  # runners.yaml by path and content, across reviews (None: unreadable)


def _runner_table(path: str, raw: bytes) -> dict | None:
    """A runners.yaml's table of label -> machines, or None when it is not readable as one."""
    data, error = load_values(path, raw)
    if error is not None or not isinstance(data, dict):
        return None
    # `labels: {label: [machines]}`; older files list `label: [machines]` at the top level.
    table = data.get("labels") if isinstance(data.get("labels"), dict) else data
    return {str(k): [str(n) for n in v if isinstance(n, str)] for k, v in table.items() if isinstance(v, list)}


def runner_nodes(ctx: ReviewContext, label: str) -> list[str]:
    """Runner machines of a runners.yaml label (the label itself when runners.yaml does not list it)."""
    def compute() -> dict:
        out: dict = {}
        for p in ctx.head_paths_of("runners"):
            raw = ctx.changeset.head_bytes(p)
            if raw is None:
                continue
            key = (p, hashlib.sha1(raw).hexdigest())
            mine = _LABELS.get_or_compute(key, lambda p=p, raw=raw: _runner_table(p, raw))
            for k, v in (mine or {}).items():
                out.setdefault(k, v)
        return out

    labels = ctx.memo(("scripts", "runner-labels"), compute)
    # A master config may name a cluster (`h200-dgxc`) that runners.yaml lists as `cluster:h200-dgxc`.
    return labels.get(label) or labels.get(f"cluster:{label}") or [label]


def _node_prefix(node: str) -> str:
    return node.split("_", 1)[0]


def key_points(ctx: ReviewContext, key: str, info: KeyInfo | None = None) -> list[LaunchPoint]:
    """Every point of a head key, one per search-space entry × concurrency × launcher (one machine each)."""
    def compute() -> list[LaunchPoint]:
        ki = info or master_keys(ctx, "head").get(key)
        if ki is None:
            return []
        # Points depend on the key's text, its runner's machines, the layout and the configuration:
        # reviews of the same master config share them.
        root = layout_root(ki.path)
        m = re.search(r"""^\s+runner:\s*["']?([^"'\s#]+)""", ki.text, re.M)
        layout = tuple(ctx.changeset.exists(f"{root}benchmarks/single_node/{d}") for d in ("fixed_seq_len", "agentic"))
        memo_key = (ki.path, ki.line, ki.text, tuple(runner_nodes(ctx, m.group(1))) if m else (), layout,
                    ctx.config.repo.scripts.model_dump_json())
        return _POINTS.get_or_compute(memo_key, lambda: _points(ctx, key, ki))

    return ctx.memo(("scripts", "points", key), compute)


_POINTS: LRU[list[LaunchPoint]] = LRU(4096)  # a master-config key's points, across reviews


def _points(ctx: ReviewContext, key: str, ki: KeyInfo) -> list[LaunchPoint]:  # noqa: C901 (nested loops over nodes, scenarios, blocks, concurrencies and prefixes)
    if not isinstance(ki.value, dict):
        return []
    value = ki.value
    base = {str(k).replace("-", "_"): v for k, v in value.items() if not isinstance(v, (dict, list))}
    runner = str(value.get("runner", ""))
    nodes = runner_nodes(ctx, runner) if runner else []
    by_prefix: dict[str, str] = {}
    for n in nodes:
        by_prefix.setdefault(_node_prefix(n), n)
    multinode = bool(value.get("multinode"))
    scen = value.get("scenarios") if isinstance(value.get("scenarios"), dict) else {}
    if not scen and isinstance(value.get("seq-len-configs"), list):  # the layout before scenarios
        scen = {"fixed-seq-len": value["seq-len-configs"]}
    out: list[LaunchPoint] = []
    cfg = ctx.config.repo.scripts
    root = layout_root(ki.path)
    lines = ki.text.split("\n")
    before = 0  # search-space items of earlier blocks (`_entry_line` counts items across the key)
    for scenario, blocks in scen.items():
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            space = block.get("search-space") if isinstance(block.get("search-space"), list) else []
            offset, before = before, before + len(space)
            for n_entry, entry in enumerate(space, start=offset):
                if not isinstance(entry, dict):
                    continue
                vals = dict(base)
                vals.update({str(k).replace("-", "_"): v for k, v in block.items() if not isinstance(v, (dict, list))})
                vals.update({str(k).replace("-", "_"): v for k, v in entry.items() if not isinstance(v, (dict, list))})
                isl, osl = vals.get("isl"), vals.get("osl")
                vals["scenario"] = str(scenario)
                agentic = str(scenario) == "agentic-coding"
                sub = "agentic/" if agentic else "fixed_seq_len/"
                # Older trees keep single-node scripts flat and their workflow passes no subdir.
                if ctx.changeset.exists(f"{root}benchmarks/single_node/{sub.rstrip('/')}") is not False:
                    vals["scenario_subdir"] = sub
                vals["is_agentic"] = "1" if agentic else "0"
                if isinstance(isl, int) and isinstance(osl, int):
                    vals["seq"] = _SEQ.get((isl, osl), f"{isl}_{osl}")
                    vals["max_model_len"] = isl + osl + 256
                elif agentic:
                    vals["seq"] = "agentic"
                tp = vals.get("tp")
                if isinstance(tp, int):
                    pp = vals.get("pp") if isinstance(vals.get("pp"), int) else 1
                    pcp = vals.get("pcp_size") if isinstance(vals.get("pcp_size"), int) else 1
                    vals["gpu_count"] = tp * pp * pcp
                if multinode:
                    vals["multinode_flag"] = "true"
                extra = _additional_settings(entry)
                concs = _concs(entry) or [None]
                if cfg.concurrencies == "ends" and len(concs) > 2:
                    concs = [concs[0], concs[-1]]
                line = _entry_line(ki, lines, n_entry)
                for conc in concs:
                    for _prefix, node in sorted(by_prefix.items()):
                        v = dict(vals, conc=conc, node=node, runner=runner)
                        env = {}
                        for name, tmpl in cfg.point_env.items():
                            r = render(tmpl, v)
                            if r is not None:
                                env[name] = r
                        env.update(extra)
                        out.append(LaunchPoint(key, v, node, env, line, tuple(extra)))
    return out


def _additional_settings(entry: dict) -> dict:
    """`additional-settings: ["K=V", …]` of an entry and of its prefill/decode workers: the workflow
    exports them before the launcher runs."""
    out: dict = {}
    for holder in (entry, entry.get("prefill"), entry.get("decode")):
        if not isinstance(holder, dict):
            continue
        for item in holder.get("additional-settings") or []:
            if isinstance(item, str) and "=" in item:
                k, _, v = item.partition("=")
                if re.fullmatch(r"[A-Za-z_]\w*", k.strip()):
                    out.setdefault(k.strip(), v.strip())
    return out


def _entry_line(ki: KeyInfo, lines: list[str], n: int) -> int:
    """Head line of the n-th `- ` item under the key's `search-space:` lists, counted across them in
    order (best effort; the key's line otherwise)."""
    count = -1
    inside = False
    indent = None
    for i, raw in enumerate(lines):
        s = raw.strip()
        if s.startswith("search-space:"):
            inside, indent = True, None
            continue
        if inside and s.startswith("- "):
            ind = len(raw) - len(raw.lstrip())
            if indent is None:
                indent = ind
            if ind == indent:
                count += 1
                if count == n:
                    return ki.line + i
    return ki.line


# -- resolution -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineCommand:
    """The engine server command a point launches."""

    engine: str
    argv: tuple[Arg, ...]  # from the engine's first word on
    env: dict  # name → Var: the engine process's environment
    path: str
    line: int
    guard: str | None
    files: Mapping[str, WrittenFile] = field(default_factory=dict)  # here-document files written before it

    def flags(self) -> dict[str, list[Arg | None]]:
        """`--name` (normalized: `_` → `-`) → its values in order (None for a flag given no value)."""
        out: dict[str, list[Arg | None]] = {}
        words = list(self.argv)
        i = 0
        while i < len(words):
            w = words[i]
            i += 1
            t = w.text
            if t is None or not t.startswith("--"):
                continue
            name, eq, val = t.partition("=")
            name = "--" + name[2:].replace("_", "-")
            if eq:
                out.setdefault(name, []).append(Arg(val, w.path, w.line, val))
                continue
            nxt = words[i] if i < len(words) else None
            if nxt is not None and (nxt.text is None or not nxt.text.startswith("-") or _negative(nxt.text)):
                out.setdefault(name, []).append(nxt)
                i += 1
            else:
                out.setdefault(name, []).append(None)
        return out

    def has_flag(self, *names: str) -> Arg | None:
        """The first word that spells one of `names` (`--x` or `--x=…`), else None."""
        want = {n.replace("_", "-") for n in names}
        for w in self.argv:
            if w.text and w.text.startswith("--") and w.text.split("=", 1)[0].replace("_", "-") in want:
                return w
        return None

    def unknown_words(self) -> list[Arg]:
        """Unknown words after the program (an unknown interpreter path, `$PYTHON -m …`, is no flag)."""
        return [w for w in self.argv[1:] if not w.known]

    def display(self) -> str:
        return " ".join(str(w) for w in self.argv)


def _negative(t: str) -> bool:
    return bool(re.fullmatch(r"-\d+(\.\d+)?", t))


@dataclass
class Resolution:
    """One point resolved as far as the review's files allow."""

    point: LaunchPoint
    launcher: str | None = None  # the launcher file interpreted (symlinks followed)
    launcher_link: str | None = None  # the launcher path as named, when it is a symlink
    script: str | None = None  # the benchmark script the launcher runs
    script_exists: bool | None = None
    script_line: int | None = None  # launcher line that runs it
    script_guard: str | None = None
    engine: EngineCommand | None = None
    engines: list[EngineCommand] = field(default_factory=list)  # every engine launch (branches)
    launcher_result: Result | None = None
    script_result: Result | None = None
    unknown: list[str] = field(default_factory=list)
    no_script: str | None = None  # why no benchmark script runs (e.g. handed off to another tool)
    script_env: frozenset[str] = frozenset()  # names the launcher passes to the script (exported, -e, --export)
    script_env_filtered: bool = False  # the launch passes only a list (`docker run -e`), not everything exported

    def chain(self) -> str:
        parts = [f"key `{self.point.key}`", f"runner `{self.point.node}`"]
        if self.launcher:
            parts.append(f"`{self.launcher_link or self.launcher}`")
        if self.script:
            parts.append(f"`{self.script}`")
        return " → ".join(parts)


def _files(ctx: ReviewContext) -> Files:
    def compute() -> Files:
        cs = ctx.changeset
        return Files(cs.head_bytes, cs.exists, cs.is_dir, parse_cache=review_parses(ctx), shared=SHARED_PARSES)

    return ctx.memo(("scripts", "files"), compute)


def parsed(ctx: ReviewContext, path: str) -> Script | Unreadable:
    """A head script parsed once per review (shared with the interpreter's cache)."""
    return _files(ctx).script(path)


def follow_links(ctx: ReviewContext, path: str) -> tuple[str | None, str | None]:
    """(the file `path` resolves to through git symlinks, why not); a symlink's blob text is its target."""
    cs = ctx.changeset
    seen = 0
    while cs.mode(path) == SYMLINK:
        seen += 1
        raw = cs.head_bytes(path)
        if raw is None:
            return None, f"`{path}` is a symlink whose target was not read"
        target = raw.decode("utf-8", "replace").strip()
        nxt = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        if nxt.startswith("../") or target.startswith("/") or seen > MAX_LINKS:
            return None, f"`{path}` links to `{target}`, outside the repository or too many links deep"
        path = nxt
    return path, None


def _runtime(ctx: ReviewContext) -> dict:
    return {n: Unknown(f"`${n}` comes from the runner at run time") for n in ctx.config.repo.scripts.runtime_env}


def _interpret(ctx: ReviewContext, path: str, env: dict, root: str, kind: str) -> Result | str:
    files = _files(ctx)
    name = f"{kind}:{root}:{path}"
    hit = SHARED_MEMO.get(name, env, files)
    if hit is not None:
        return hit
    script = parsed(ctx, path)
    if isinstance(script, Unreadable):
        return script.reason
    it = Interpreter(files, env, cwd=root.rstrip("/"), arg0=path)
    result = it.run(script)
    SHARED_MEMO.put(name, dict(result.reads), dict(result.questions), result)
    return result


_SHELLS = ("bash", "sh")


def _kind(ctx: ReviewContext, path: str) -> str | None:
    return ctx.kind(path)


def _runs_script_at(words: tuple[Arg, ...], i: int) -> bool:
    """Word i is what a shell runs: argv[0], after `bash`/`sh` (and its options), or the first
    argument after the image of a `docker run --entrypoint=…bash`."""
    if i == 0:
        return True
    j = i - 1
    while j > 0 and words[j].known and (words[j].text or "").startswith("-") and words[j].text != "-c":
        j -= 1
    prev = words[j].text or ""
    if posixpath.basename(prev) in _SHELLS:
        return True
    first = words[0].text or ""
    return first == "docker" and any((w.text or "").startswith("--entrypoint") and "sh" in (w.text or "")
                                     for w in words[:i])


def _script_candidates(result: Result, root: str, ctx: ReviewContext) -> list[tuple[Launch, Arg]]:
    """(launch, word) pairs where a launch runs a benchmark script (known or not)."""
    out = []
    for launch in result.launches:
        words = launch.argv
        for i, w in enumerate(words):
            if not _runs_script_at(words, i):
                continue
            if w.known:
                t = (w.text or "").removeprefix("./")
                if not t.endswith((".sh", ".slurm")):
                    continue
                rel = root + t if root and not t.startswith(root) else t
                if _kind(ctx, rel) == "scripts":
                    out.append((launch, Arg(rel, w.path, w.line, w.shape)))
                    break
            elif "benchmarks/" in w.shape and (".sh" in w.shape or w.shape.endswith("}") or w.shape.endswith('"')):
                out.append((launch, w))
                break
    return out


PLACEHOLDER_WHY = "(left out of the launcher pass)"


class Placeholder(Unknown):
    """A point value the launcher pass leaves out (it does not decide the script path): unknown while
    the launcher is interpreted, then filled back into what the launcher passes to the script."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        super().__init__(f"`${name}` {PLACEHOLDER_WHY}")
        self.name = name


def _fill(var: Var, env: dict, name: str | None = None) -> Var:
    """A launcher variable as the script receives it: placeholders replaced by the point's value, and
    a value the launcher passed on unchanged from its environment taken from this point (a memoized
    launcher interpretation of another point carries that point's environment in what it passes on:
    it is reused because the launcher never read the value, not because the value agrees)."""
    v = var.value
    if isinstance(v, Placeholder) and v.name in env:
        return Var(env[v.name], path="<environment>", line=0, exported=True)
    if name is not None and var.path == "<environment>" and var.items is None and name in env:
        return Var(env[name], path="<environment>", line=0, exported=True)
    if var.items is None and isinstance(v, Unknown) and var.path == "<environment>":
        return var
    return var


def _child_env(launch: Launch) -> dict:
    """The environment a launched script sees: exported variables (+ `srun --export`, `docker -e`)."""
    words = [w.text for w in launch.argv]
    if words and words[0] == "docker":
        env: dict = {}
        it = iter(range(len(words)))
        for i in it:
            w = words[i]
            if w in ("-e", "--env") and i + 1 < len(words):
                spec = launch.argv[i + 1]
                if spec.text is None:
                    continue
                name, eq, val = spec.text.partition("=")
                if eq:
                    env[name] = Var(val, path=spec.path, line=spec.line, exported=True)
                elif name in launch.env:
                    env[name] = launch.env[name]
        return env
    env = {k: v for k, v in launch.env.items()}
    for w in launch.argv:
        if w.text and w.text.startswith("--export="):
            for part in w.text.split("=", 1)[1].split(","):
                name, eq, val = part.partition("=")
                if eq:
                    env[name] = Var(val, path=w.path, line=w.line, exported=True)
    return env


def _engines(result: Result, script_path: str) -> list[EngineCommand]:
    out = []
    for launch in result.launches:
        words = [w.text for w in launch.argv]
        for engine, start in ENGINE_STARTS:
            n = len(start)
            for i in range(len(words) - n + 1):
                if tuple(words[i:i + n]) == start or (n == 1 and posixpath.basename(words[i] or "") == start[0]):
                    first = i if start[0] != "-m" else max(0, i - 1)
                    out.append(EngineCommand(engine, launch.argv[first:], dict(launch.env), launch.path, launch.line,
                                             launch.guard, launch.files))
                    break
            else:
                continue
            break
    # The script's own launches first (a library helper may start a router or a client).
    out.sort(key=lambda e: (e.path != script_path, e.line))
    return out


def resolve_point(ctx: ReviewContext, point: LaunchPoint, script: bool = True) -> Resolution:
    """Resolve one point (memoized per review by key, node and environment). With `script=False`
    stop at the script path (the launcher alone is interpreted)."""
    key = ("scripts", "resolution", point.key, point.node, tuple(sorted(point.env.items())), script)

    def compute() -> Resolution:
        return _resolve(ctx, point, script)

    return ctx.memo(key, compute)


def _resolve(ctx: ReviewContext, point: LaunchPoint, script: bool = True) -> Resolution:  # noqa: C901 (one early return per step of resolving a launcher to its script)
    res = Resolution(point)
    cfg = ctx.config.repo.scripts
    ki = master_keys(ctx, "head").get(point.key)
    root = layout_root(ki.path) if ki is not None else ""
    named = root + cfg.launcher.format(node=_node_prefix(point.node))
    exists = ctx.changeset.exists(named)
    if exists is False:
        res.unknown.append(f"launcher `{named}` does not exist")
        res.launcher = None
        res.launcher_link = named
        return res
    target, why = follow_links(ctx, named)
    if target is None:
        res.unknown.append(why or "launcher not readable")
        return res
    res.launcher = target
    if target != named:
        res.launcher_link = named
    full = {**_runtime(ctx), **point.env}
    env = dict(full)
    for name in point.env:
        if name not in cfg.launcher_inputs and name not in point.extra:
            env[name] = Placeholder(name)
    lr = _interpret(ctx, target, env, root, "launcher")
    if not isinstance(lr, str) and not any(w.known for _, w in _script_candidates(lr, root, ctx)) \
            and _script_candidates(lr, root, ctx):
        lr = _interpret(ctx, target, full, root, "launcher")  # the path depends on another value
    if isinstance(lr, str):
        res.unknown.append(f"launcher `{target}`: {lr}")
        return res
    res.launcher_result = lr
    cands = _script_candidates(lr, root, ctx)
    if not cands:
        res.no_script = "the launcher runs no benchmark script for this point" + (
            f" ({'; '.join(lr.notes)})" if lr.notes else "")
        return res
    known = [(launch, w) for launch, w in cands if w.known]
    unguarded = [(launch, w) for launch, w in known if launch.guard is None]
    pick = (unguarded or known or cands)[0]
    launch, word = pick
    res.script_line = launch.line
    res.script_guard = launch.guard
    if not word.known:
        res.unknown.append(f"script path `{word.shape}` (launcher line {launch.line}): {word.why}")
        return res
    res.script = word.text
    res.script_exists = ctx.changeset.exists(word.text or "")
    if res.script_exists is False:
        return res
    if len({w.text for _, w in known}) > 1:
        res.unknown.append("the launcher picks between " + ", ".join(sorted({f"`{w.text}`" for _, w in known}))
                           + " on conditions it cannot decide")
    child = _child_env(launch)
    res.script_env = frozenset(child)
    res.script_env_filtered = bool(launch.argv) and launch.argv[0].text == "docker"
    if not script:
        return res
    if any(isinstance(v.value, Unknown) and PLACEHOLDER_WHY in v.value.why for v in child.values()):
        # The launcher derives what it passes from a value the first pass left out
        # (`export MODEL_PATH=/models/$MODEL`): interpret it again with every value.
        full_lr = _interpret(ctx, target, full, root, "launcher")
        if not isinstance(full_lr, str):
            again = [(la, w) for la, w in _script_candidates(full_lr, root, ctx) if w.known and w.text == res.script]
            if again:
                launch = again[0][0]
                child = _child_env(launch)
    senv = {k: _fill(v, point.env, k) for k, v in child.items()}
    sr = _interpret(ctx, res.script, senv, root, "script")
    if isinstance(sr, str):
        res.unknown.append(f"script `{res.script}`: {sr}")
        return res
    res.script_result = sr
    res.engines = _engines(sr, res.script)
    res.engine = res.engines[0] if res.engines else None
    if res.engine is None:
        res.unknown.append(f"no engine server command found in `{res.script}`")
    return res


# -- which points a review resolves -----------------------------------------------------------


@dataclass
class ReviewPoints:
    """Points this review resolves, grouped by key, and what was left out."""

    keys: dict[str, str] = field(default_factory=dict)  # key → why it is resolved
    points: list[LaunchPoint] = field(default_factory=list)
    skipped_keys: list[str] = field(default_factory=list)  # over the shared-file cap or `max_paths`
    skipped_points: int = 0


_FIELD = re.compile(r"""^  (model-prefix|precision|runner|framework|multinode):\s*["']?([^"'\s#]+)""", re.M)


def _key_index(ctx: ReviewContext) -> dict[tuple[str, str], list[tuple[str, dict]]]:
    """(model prefix, precision) → [(key, its top-level fields as written)], from the raw text."""
    def compute():
        out: dict = {}
        for k, ki in master_keys(ctx, "head").items():
            fields = dict(_FIELD.findall(ki.text))
            out.setdefault((fields.get("model-prefix"), fields.get("precision")), []).append((k, fields))
        return out

    return ctx.memo(("scripts", "key-index"), compute)


def _script_stem_keys(ctx: ReviewContext, script_path: str) -> list[str]:
    """Keys whose model prefix, precision and runner match a script name (`<model>_<precision>_<sku>…`)
    and, when the name carries one, its framework; multinode keys never run single-node scripts."""
    name = posixpath.basename(script_path)
    parts = name.removesuffix(".sh").split("_")
    if len(parts) < 3:
        return []
    model, precision, sku = parts[0], parts[1], parts[2]
    rest = [x for x in parts[3:] if x != "mtp"]
    out = []
    for k, fields in _key_index(ctx).get((model, precision), []):
        if not fields.get("runner", "").startswith(sku):
            continue
        if fields.get("multinode") == "true" and "/single_node/" in script_path:
            continue
        # `…_<framework>.sh` names one framework; an untagged name may be any framework's fallback.
        if rest and fields.get("framework", "") not in rest:
            continue
        out.append(k)
    return out


def review_points(ctx: ReviewContext) -> ReviewPoints:
    def compute() -> ReviewPoints:
        rp = ReviewPoints()
        cfg = ctx.config.repo.scripts
        for c in changed_keys(ctx):
            if c.head is not None and isinstance(c.head.value, dict):
                rp.keys.setdefault(c.key, f"the PR {'adds' if c.status == 'added' else 'changes'} it")
        changed_scripts = [f.path for f in ctx.changeset.files
                           if f.status != "removed" and ctx.kind(f.path) == "scripts"]
        for p in changed_scripts:
            for k in _script_stem_keys(ctx, p):
                rp.keys.setdefault(k, f"its script may be `{p}`")
        shared = [f.path for f in ctx.changeset.files if f.status != "removed" and (
            ctx.kind(f.path) == "launchers" or f.path.endswith(cfg.library))]
        if shared:
            budget = cfg.max_keys
            for p in shared:
                for k in _keys_through(ctx, p):
                    if k in rp.keys:
                        continue
                    if budget <= 0:
                        rp.skipped_keys.append(k)
                        continue
                    budget -= 1
                    rp.keys[k] = f"it runs through `{p}`"
        seen_paths: set = set()
        for k, why in rp.keys.items():
            pts = key_points(ctx, k)
            if why.startswith("it runs through"):
                # Routed through a changed shared file: one point per launcher is enough to see
                # that the path still resolves and the command line still builds.
                firsts: dict[str, LaunchPoint] = {}
                for p in pts:
                    firsts.setdefault(_node_prefix(p.node), p)
                pts = list(firsts.values())
            # The cap counts launcher paths (key × machine × spec-decoding × scenario), what costs an
            # interpretation; the concurrencies of a path come with it.
            paths = {(p.node, str(p.values.get("spec_decoding") or "none"), p.values.get("scenario")) for p in pts}
            if len(seen_paths) + len(paths) > cfg.max_paths and seen_paths:
                rp.skipped_points += len(pts)
                rp.skipped_keys.append(k)
                continue
            seen_paths.update((k, *x) for x in paths)
            rp.points.extend(pts)
        return rp

    return ctx.memo(("scripts", "review-points"), compute)


def _keys_through(ctx: ReviewContext, shared_path: str) -> list[str]:
    """Head keys whose runner uses a launcher (or, for the library, every key), in file order."""
    cfg = ctx.config.repo.scripts
    keys = master_keys(ctx, "head")
    if shared_path.endswith(cfg.library):
        return list(keys)
    out = []
    base = posixpath.basename(shared_path)
    runner_line = re.compile(r"""^\s+runner:\s*["']?([^"'\s#]+)""", re.M)
    for k, ki in keys.items():
        m = runner_line.search(ki.text)  # the raw text is enough to find the runner
        if m is None:
            continue
        for node in runner_nodes(ctx, m.group(1)):
            if posixpath.basename(cfg.launcher.format(node=_node_prefix(node))) == base:
                out.append(k)
                break
    return out


def resolutions(ctx: ReviewContext) -> list[Resolution]:
    """Every point of `review_points`, resolved (memoized).

    Points of one key that share runner machine, spec-decoding and scenario run the same launcher
    path: the launcher is interpreted for the first of them, and the others share its script path
    (a launcher picks the script from those values, not from concurrency or parallelism). The
    script itself is interpreted only for scripts the PR changes and keys the PR adds or changes,
    for at most `ScriptsConfig.points_per_script` distinct points per script and launcher (in the
    order of `_by_priority`: the highest concurrency of each distinct parallelism first); other
    points keep their script path with no engine command (`Resolution.engine` None, `script_result`
    None)."""
    def compute() -> list[Resolution]:
        rp = review_points(ctx)
        changed = {f.path for f in ctx.changeset.files if f.status != "removed"}
        changed_keys_ = {c.key for c in changed_keys(ctx) if c.head is not None}
        cfg = ctx.config.repo.scripts
        cap = cfg.points_per_script
        budget: dict[str, int] = {}
        fresh: dict[str, int] = {}  # interpretations of new entries, beyond the cap
        groups: dict[tuple, list[LaunchPoint]] = {}
        for p in rp.points:
            v = p.values
            groups.setdefault((p.key, p.node, str(v.get("spec_decoding") or "none"), v.get("scenario")), []).append(p)
        out = []
        for (key, *_), pts in groups.items():
            ki = master_keys(ctx, "head").get(key)
            added = added_in(ctx, ki.path) if ki is not None else set()
            pts, new = _by_priority(pts, added)
            first = resolve_point(ctx, pts[0], script=False)
            wanted = bool(first.script) and first.script_exists is not False and (
                first.script in changed or key in changed_keys_)
            if not wanted and key not in changed_keys_:
                out.append(first)
                continue
            slot = (first.script or "", first.launcher_link or first.launcher or "")
            for p in pts:
                if wanted and id(p) in new and fresh.get(slot, 0) < cfg.new_entry_points:
                    fresh[slot] = fresh.get(slot, 0) + 1
                    out.append(resolve_point(ctx, p))
                elif wanted and budget.get(slot, 0) < cap:
                    budget[slot] = budget.get(slot, 0) + 1
                    out.append(resolve_point(ctx, p))
                else:
                    out.append(replace(first, point=p))
        return out

    return ctx.memo(("scripts", "resolutions"), compute)


def _labels(p: LaunchPoint) -> tuple:
    v = p.values
    return tuple(str(v.get(n)) for n in ("tp", "ep", "dp_attn", "pp", "spec_decoding"))


def _by_priority(pts: list[LaunchPoint], added: set[int]) -> tuple[list[LaunchPoint], set[int]]:
    """The order points are interpreted in, and the ids of the points that `new_entry_points`
    allows beyond `points_per_script`: of the entries the PR adds or edits, one point per distinct
    parallelism (at its highest concurrency, what the engine checks compare), highest first; then
    their other points; then, of the rest, one point per distinct parallelism at its highest
    concurrency, highest first (the points the caps and labels are checked at), then the others in
    key order."""
    new = [p for p in pts if p.line in added]
    old = [p for p in pts if p.line not in added]
    firsts = _peaks(new)
    chosen = {id(p) for p in firsts}
    peaks = _peaks(old)
    seen = {id(p) for p in peaks}
    return (firsts + [p for p in new if id(p) not in chosen] + peaks + [p for p in old if id(p) not in seen],
            chosen)


def _peaks(pts: list[LaunchPoint]) -> list[LaunchPoint]:
    """One point per distinct parallelism, at its highest concurrency, ordered by that concurrency
    (highest first; key order on a tie)."""
    best: dict[tuple, LaunchPoint] = {}
    for p in pts:
        cur = best.get(_labels(p))
        if cur is None or (p.values.get("conc") or 0) > (cur.values.get("conc") or 0):
            best[_labels(p)] = p
    return sorted(best.values(), key=lambda p: -(p.values.get("conc") or 0))


def resolutions_of(ctx: ReviewContext, script_path: str) -> list[Resolution]:
    """Resolved points whose benchmark script is `script_path`."""
    return [r for r in resolutions(ctx) if r.script == script_path]


# -- what a review needs to read ----------------------------------------------------------------


def siblings(ctx: ReviewContext, path: str) -> list[str]:
    """Other scripts in the same directory (head listing), excluding `path`."""
    d = posixpath.dirname(path)
    cs = ctx.changeset
    names = set(cs.tree) | {f.path for f in cs.files if f.status != "removed"} | set(cs.context)
    return sorted(p for p in names if posixpath.dirname(p) == d and p != path and ctx.kind(p) == "scripts"
                  and cs.mode(p) != "040000")


def needed_paths(ctx: ReviewContext) -> set[str]:
    """Head paths whose contents the script rules read and the changeset does not hold yet.

    Call it on a changeset that holds the changed files, the master configs, runners.yaml, the
    launchers' contents and the tree listing; it resolves every review point as far as those
    allow (the launchers pick the scripts), and adds the library, the scripts the points run, the
    sibling scripts of changed scripts (for the sibling comparison) and files they `source`.
    """
    cs = ctx.changeset
    cfg = ctx.config.repo.scripts
    want: set[str] = set()
    changed_scripts = [f.path for f in cs.files if f.status != "removed" and ctx.kind(f.path) == "scripts"]
    roots = {layout_root(p) for p in changed_scripts}
    for r in resolutions(ctx):
        if r.script:
            want.add(r.script)
            roots.add(layout_root(r.script))
        if r.launcher:
            want.add(r.launcher)
    for p in changed_scripts:
        want.update(siblings(ctx, p))
        want.update(candidates(ctx, p))
    for root in roots:
        want.add(root + cfg.library)
    for p in list(want):
        s = parsed(ctx, p) if cs.head_bytes(p) is not None else None
        if isinstance(s, Script):
            for c in s.commands_named("source", "."):
                lit = c.literal_args()
                if lit and lit[0]:
                    want.add(posixpath.normpath(posixpath.join(posixpath.dirname(p), lit[0])))
    # Only what the listing shows exists: everything a review reads lies under the listed trees.
    return {p for p in want if cs.head_bytes(p) is None and cs.exists(p) is True}


def script_dirs(changed: Iterable[str], config) -> set[str]:
    """Directories whose listing (and launchers' text) a review of these changed paths needs:
    `<root>runners` and `<root>benchmarks` for every layout root a relevant changed file sits in.
    Empty when no changed file is a master config, runners.yaml, script, launcher or library."""
    from rules.config import path_matches
    p = config.paths
    globs = (*p.master_configs, *p.runners, *p.scripts, *p.launchers)
    out: set[str] = set()
    for path in changed:
        if path_matches(path, globs):
            root = layout_root(path)
            out.update({root + "runners", root + "benchmarks"})
    return out


def iter_unknown(res: Resolution) -> Iterator[str]:
    yield from res.unknown
    if res.engine is not None:
        for w in res.engine.unknown_words():
            yield f"`{w.shape}` ({w.path}:{w.line}): {w.why}"


__all__ = ["EngineCommand", "LaunchPoint", "Resolution", "ReviewPoints", "follow_links", "iter_unknown", "key_points",
           "layout_root", "needed_paths", "resolutions", "resolutions_of", "resolve_point", "review_points",
           "script_dirs", "siblings", "standalone"]


def standalone(ctx: ReviewContext, path: str) -> Result | str:
    """A head script's top of file interpreted on its own, through its last `source`: every point
    variable unknown (both sides of a branch on one are followed), `$0` its own path, the working
    directory the repository root. Memoized."""
    def compute():
        cfg = ctx.config.repo.scripts
        env = {n: Unknown(f"`${n}` is set per benchmark point") for n in cfg.point_env}
        env.update(_runtime(ctx))
        script = parsed(ctx, path)
        if isinstance(script, Unreadable):
            return script.reason
        # Only what leads up to the last `source` matters to its readers (sources, what they
        # define); the rest of a script with every point value unknown is costly and unneeded.
        last = max((c.node.end_byte for c in script.commands if c.name in ("source", ".")), default=-1)
        it = Interpreter(_files(ctx), env, cwd=layout_root(path).rstrip("/"), arg0=path)
        return it.run(script, stop_after=last)

    return ctx.memo(("scripts", "standalone", path), compute)
