"""Single-node benchmark scripts as a source of the engine-settings model.

`rules/serving/settings.py` normalizes one engine instance read through an `ArgSource`.
A recipe role is one; this module adds the other: the engine command a resolved benchmark point
launches (`rules/scripts/resolve.py`: key → runner → launcher → script → command line, never
executed). Each flag becomes a `Value` on the line its word comes from, the engine process's
environment the same, and a word the interpreter could not resolve keeps its source text
(`$CUDA_GRAPH_BS`), which the model records as unknown — the rule that needed it says so in a
Skipped check instead of guessing.

The point's concurrency, scenario, image and runner come from the master-config point; its labels
(`tp`, `ep`, `dp-attn`) become the `MasterPoint` labels the recipe rules compare the engine with.
So every engine rule (RR210–RR216, RR205/RR206/RR219) reads scripts exactly as it reads recipes.

Which engines: vLLM (`vllm serve`, the OpenAI entry point), SGLang (`sglang.launch_server`,
`sglang serve`) and TensorRT-LLM (`trtllm-serve`, whose command-line spellings `--tp_size`,
`--ep_size`, `--max_batch_size`, `--max_num_tokens` map onto the model's YAML names, and the
options file it names is read when the script writes it, below). ATOM contributes its scheduler cap
(`--max-num-seqs`) only, and not under DP attention; its capture and defaults are not in the
defaults table.

Only points the PR changes are read: it edits a line that builds their engine command (the
command's lines, or the assignment a word of it comes from), or adds their own search-space
entry (new in content, not re-indented). Points reached through a changed launcher or library,
another entry of their key, or edits elsewhere in the script keep to the script rules: their
engine settings are what the base already ran, and a review is about the change. The base replay
(`rules/scope.py`, `ChangeSet.replay`) reads every point: it looks for the problems the head
review finds, as the base already had them (a PR that edits a command line without changing what
a rule judges, #1539, #1838).

A `trtllm-serve` command that takes an options file (`--extra_llm_api_options`, `--config`) is
read with that file when the script writes it from here-documents before the launch (`cat > $F
<<EOF … EOF`, `cat <<EOF >> $F` appends; the interpreter records the text with the point's
values expanded and never writes anything). trtllm-serve merges the file over its command line,
so a key in the file wins over the flag; every value keeps its line in the script; an expansion
the interpretation cannot resolve stays unknown. When the file is not one the script writes, is
written under a condition the interpretation does not know, or is no YAML mapping, DP attention
(`enable_attention_dp`, which decides the scope of `max_batch_size`) is unknown and the rules that
need it say so, with the reason, in a Skipped check.

Points are grouped per key, script and command line: points that differ only in concurrency
(the command does not read `CONC`) are one benchmark point with several concurrencies.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.added import added_in
from rules.comments import edited_lines, touched_lines
from rules.context import ReviewContext
from rules.document import parse_yaml
from rules.master.analysis import master_keys
from rules.master.matrix import entry_is_new
from rules.scripts.resolve import EngineCommand, Resolution, resolutions
from rules.scripts.values import Arg, Unknown, Var
from rules.serving.recipe_points import JsonArg, Value, value_tree
from rules.serving.settings import BenchmarkPoint, Concurrency, EngineSettings, MasterPoint, Setting, settings_from

ENGINES = {"vllm": "vllm", "sglang": "sglang", "trt": "trtllm", "atom": "atom"}
# trtllm-serve's command-line spellings → the YAML names the model reads.
TRT_FLAGS = {"tensor_parallel_size": ("tp_size", "tensor_parallel_size"),
             "pipeline_parallel_size": ("pp_size", "pipeline_parallel_size"),
             "moe_expert_parallel_size": ("ep_size", "moe_expert_parallel_size"),
             "max_batch_size": ("max_batch_size",), "max_num_tokens": ("max_num_tokens",)}
TRT_OPTION_FILES = ("--extra_llm_api_options", "--extra-llm-api-options", "--config")
SCENARIOS = {"fixed-seq-len": "fixed-seq-len", "agentic-coding": "agentic", "agentic": "agentic"}


def _word_value(a: Arg) -> Value:
    # An unresolved word keeps its source text: `$X` / `${X}` reads as a placeholder to the model.
    return Value(a.text if a.known else (a.shape if "$" in a.shape else "$" + a.shape), a.line)


@dataclass
class CommandSource:
    """An `ArgSource` over one resolved engine command (`--flag value`, `--flag=value`, bare flags)."""

    name: str
    engine: str | None
    env: Mapping[str, Any]
    command: EngineCommand
    _flags: dict[str, list[Arg | None]] = field(default_factory=dict)
    args: dict = field(default_factory=dict)  # a trtllm-serve options file the script writes, as Values
    options: OptionsFile | None = None

    def __post_init__(self) -> None:
        self._flags = self.command.flags()
        if self.engine == "trtllm":
            self.options = options_file(self.command, self._flags)
            if self.options is not None and self.options.tree is not None:
                self.args = self.options.tree

    def _spellings(self, name: str) -> tuple[str, ...]:
        if self.engine == "trtllm":
            return TRT_FLAGS.get(name, (name,))
        return (name,)

    def arg(self, name: str) -> Value | None:
        # trtllm-serve merges its options file over the command line: the file's value wins.
        if name in self.args:
            return _file_value(self.args[name], self.options)
        for spelling in self._spellings(name):
            flag = "--" + spelling.replace("_", "-")
            vals = self._flags.get(flag)
            if not vals:
                continue
            last = vals[-1]  # argparse: the last occurrence wins
            if last is None:
                word = self.command.has_flag(flag)
                return Value(None, word.line if word is not None else self.command.line)
            value = _word_value(last)
            if not value.line or last.path != self.command.path:
                # A value from the environment (`$CONC`) or a library: the flag's own line.
                word = self.command.has_flag(flag)
                value = Value(value.value, word.line if word is not None else self.command.line)
            return value
        return None

    def json(self, name: str) -> JsonArg | None:
        if name in self.args and isinstance(self.args[name], dict):
            v = _file_value(self.args[name], self.options)
            return JsonArg(v.value, None, v.line, str(v.value))
        v = self.arg(name)
        if v is None or v.value is None:
            return None
        text = str(v.value)
        if "$" in text and not text.lstrip().startswith("{"):
            return JsonArg(None, f"`{text}` is not resolved", v.line, text)
        try:
            return JsonArg(json.loads(text), None, v.line, text)
        except ValueError as exc:
            return JsonArg(None, str(exc).split(":")[0], v.line, text)


@dataclass(frozen=True)
class OptionsFile:
    """The options file a `trtllm-serve` command names, when the script writes it from here-documents."""

    flag: Arg  # the `--extra_llm_api_options` word
    target: str
    tree: dict | None  # the YAML as Values on script lines (None: not read, `why` says why)
    why: str | None
    unknowns: Mapping[str, str] = field(default_factory=dict)


def options_file(command: EngineCommand, flags: dict[str, list[Arg | None]] | None = None) -> OptionsFile | None:
    """The options file of a `trtllm-serve` command, read from the here-documents the script wrote
    before the launch (`cat > $F <<EOF … EOF`, later `>>` appends included). None when the command
    names none; a `tree` of None with the reason when the file is not one the script writes, was
    written under a condition the interpretation does not know, or is not a YAML mapping.
    `flags`: the command's `flags()` when the caller has them already."""
    word = next((w for n in TRT_OPTION_FILES if (w := command.has_flag(n)) is not None), None)
    if word is None:
        return None
    flags = command.flags() if flags is None else flags
    vals = flags.get("--" + word.text.split("=", 1)[0].lstrip("-").replace("_", "-")) or []
    target = vals[-1].text if vals and vals[-1] is not None else None
    if target is None:
        return OptionsFile(word, "?", None, "its path is not known")
    written = command.files.get(target)
    if written is None:
        return OptionsFile(word, target, None, f"`{target}` is not written by the script before the launch")
    if written.guarded:
        return OptionsFile(word, target, None, f"`{target}` is written under a condition that is not known")
    doc = parse_yaml(target, written.text)
    if not doc.ok or not isinstance(doc.data, dict):
        return OptionsFile(word, target, None, f"`{target}` is not a YAML mapping")
    return OptionsFile(word, target, _remap(value_tree(doc.data), written.lines), None, dict(written.unknowns))


def _remap(tree: dict, lines: tuple[int, ...]) -> dict:
    """Lines of a here-document's YAML (1-based in the document) → the script's lines."""
    def line(n: int | None) -> int | None:
        return lines[n - 1] if n and 0 < n <= len(lines) else None

    out: dict = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            out[k] = _remap(v, lines)
        else:
            out[k] = Value(v.value, line(v.line), tuple(line(i) for i in v.items))
    return out


def _unplace(value: Any, unknowns: Mapping[str, str]) -> Any:
    """Placeholders of unknown expansions back to their source text (`$MAX_BATCH`), which the
    model records as unknown."""
    if isinstance(value, str):
        for ph, src in unknowns.items():
            value = value.replace(ph, src)
        return value
    if isinstance(value, dict):
        return {k: _unplace(v, unknowns) for k, v in value.items()}
    if isinstance(value, list):
        return [_unplace(v, unknowns) for v in value]
    return value


def _file_value(node: Any, options: OptionsFile | None) -> Value:
    unknowns = options.unknowns if options is not None else {}
    if isinstance(node, Value):
        return Value(_unplace(node.value, unknowns), node.line, node.items)
    plain = {k: (_file_value(v, options).value) for k, v in node.items()}
    first = next((v.line for v in node.values() if isinstance(v, Value) and v.line), None)
    return Value(plain, first)


def _env(command: EngineCommand) -> dict[str, Value]:
    out = {}
    for name, var in command.env.items():
        if not isinstance(var, Var):
            continue
        if isinstance(var.value, Unknown) or var.value is None:
            out[name] = Value(f"${name}", var.line or None)
        else:
            out[name] = Value(var.value, var.line or None)
    return out


def _gpu_type(res: Resolution) -> str | None:
    runner = res.point.values.get("runner")
    return str(runner).split("-")[0] if runner else None


def _master_point(ctx: ReviewContext, res: Resolution, concs: tuple[int, ...]) -> MasterPoint | None:
    ki = master_keys(ctx, "head").get(res.point.key)
    if ki is None:
        return None
    v = res.point.values
    labels = {"agg": {name: v[src] for name, src in (("tp", "tp"), ("ep", "ep"), ("dp-attn", "dp_attn"))
                      if src in v}}
    return MasterPoint(res.point.key, ki.path, res.point.line, None, concs, str(v.get("runner") or "") or None,
                       None, str(v.get("spec_decoding")) if v.get("spec_decoding") is not None else None, labels,
                       conc_list=True)


def _image(ctx: ReviewContext, res: Resolution) -> Setting | None:
    img = res.point.values.get("image")
    if not isinstance(img, str):
        return None
    ki = master_keys(ctx, "head").get(res.point.key)
    line = None
    if ki is not None:
        for i, raw in enumerate(ki.text.split("\n")):
            if raw.strip().startswith("image:"):
                line = ki.line + i
                break
    return Setting(img, line, "image")


def _touched(ctx: ReviewContext, res: Resolution, changed: set[str]) -> bool:
    """Whether the PR changes what this point runs: it edits a line that builds the engine command
    (the command's own lines, or the assignment a word of it comes from), or adds the point's own
    search-space entry (new in content: a row a layout migration re-indents is on added lines but
    is the base's, `entry_is_new`). Points reached through a changed launcher or library, through
    another entry of their key, or through edits elsewhere in the script (a moved script whose
    `source` line changed) are resolved for the script rules but not judged here: their engine
    settings are what the base already ran."""
    eng = res.engine
    ki = master_keys(ctx, "head").get(res.point.key)
    if ki is not None and res.point.line in added_in(ctx, ki.path) and entry_is_new(ctx, res.point.key, res.point.line):
        return True
    if eng is None:
        return False
    lines: dict[str, set[int]] = {}
    first, last = eng.line, max([eng.line] + [w.line for w in eng.argv if w.path == eng.path])
    lines.setdefault(eng.path, set()).update(range(first, last + 1))
    for w in eng.argv:
        lines.setdefault(w.path, set()).add(w.line)
    for var in eng.env.values():
        if isinstance(var, Var) and var.path and var.line:
            lines.setdefault(var.path, set()).add(var.line)
    own = {eng.path, res.script}
    for path, want in lines.items():
        # Words and environment from a changed library or launcher (a `PORT` default moved into
        # `benchmark_lib.sh`, #1571) do not put the point in review: only the command's own files.
        if path in own and path in changed and want & _edited(ctx, path):
            return True
    return False


def _edited(ctx: ReviewContext, path: str) -> frozenset[int]:
    def compute() -> frozenset[int]:
        f = ctx.changeset.file(path)
        if f is None:
            return frozenset()
        if f.status == "added":
            return touched_lines(f) or frozenset()
        return edited_lines(f.patch)

    return ctx.memo(("scripts", "edited", path), compute)


def script_points(ctx: ReviewContext) -> list[tuple[str, list[BenchmarkPoint]]]:
    """(script path, its benchmark points) for every resolved point with an engine command the model
    reads (memoized per review). Paths in first-seen order."""
    def compute() -> list[tuple[str, list[BenchmarkPoint]]]:
        groups: dict[tuple, list[Resolution]] = {}
        changed = {f.path for f in ctx.changeset.files if f.status != "removed"}
        for res in resolutions(ctx):
            eng = res.engine
            if eng is None or res.script is None or ENGINES.get(eng.engine) is None:
                continue
            if not ctx.changeset.replay and not _touched(ctx, res, changed):
                continue  # (the base replay reads every point: it looks for what the head review finds)
            sig = (res.script, res.point.key, eng.path, eng.line, tuple(str(w) for w in eng.argv),
                   tuple(sorted((k, str(v.value)) for k, v in eng.env.items() if isinstance(v, Var))),
                   res.point.values.get("scenario"), res.point.line,
                   tuple(str(res.point.values.get(n)) for n in ("tp", "ep", "dp_attn")))
            groups.setdefault(sig, []).append(res)
        by_path: dict[str, list[BenchmarkPoint]] = {}
        for (_script, key, *_), group in groups.items():
            first = group[0]
            concs = tuple(sorted({c for c in (r.point.values.get("conc") for r in group)
                                  if isinstance(c, int) and not isinstance(c, bool) and c > 0}))
            mp = _master_point(ctx, first, concs)
            eng = first.engine
            src = CommandSource("server", ENGINES[eng.engine], _env(eng), eng)
            image = _image(ctx, first)
            es = settings_from(src, path=eng.path, point=key, source="script", image=image,
                               gpu_type=_gpu_type(first), block_line=eng.line)
            opts = src.options
            if es.engine == "trtllm" and opts is not None and opts.tree is None and (
                    es.dp_attention is None or es.dp_attention.line is None):
                # An options file the script does not write (or not knowably) may set
                # `enable_attention_dp` (and with it the scope of `max_batch_size`): not known.
                es.dp_attention = Setting(
                    None,
                    opts.flag.line,
                    f"`enable_attention_dp` (in the `{opts.flag.text.split('=')[0]}` file: {opts.why})",
                )
            loose = opaque_words(eng)
            if loose:
                es.opaque = f"`{loose[0].shape}` is not resolved and may be any flag"
            scen = SCENARIOS.get(str(first.point.values.get("scenario")))
            conc_list = [Concurrency(c, first.point.line, f"master `{key}`", mp.path if mp else None) for c in concs]
            budget = es.env.get("TOTAL_CPU_DRAM_GB")
            bp = BenchmarkPoint(
                eng.path, key, "script", [es], scen, None, conc_list, None,
                Setting(budget.value, budget.line, "TOTAL_CPU_DRAM_GB") if isinstance(budget, Value) else None,
                None, None, _gpu_type(first), [mp] if mp else [], eng.line,
                [f"`{first.point.key}`: {u}" for u in first.unknown])
            by_path.setdefault(eng.path, []).append(bp)
        return list(by_path.items())

    return ctx.memo(("scripts", "engine-points"), compute)


def opaque_words(eng: EngineCommand) -> list[Arg]:
    """Words of the command the interpretation could not resolve that are no flag's value: an
    unquoted `$EP` or `$EXTRA_ARGS` that may expand to any flags (#965: `EP=" --enable-expert-parallel"`
    under a condition on a variable the launcher does not pass). A rule that concludes from a
    flag's absence cannot conclude past them."""
    values = {id(v) for vs in eng.flags().values() for v in vs if v is not None}
    first = next((i for i, w in enumerate(eng.argv) if w.text and w.text.startswith("--")), len(eng.argv))
    return [w for w in eng.argv[first:] if not w.known and id(w) not in values]  # positionals come first


def settings_of(bp: BenchmarkPoint) -> EngineSettings:
    """The one instance of a script point."""
    return bp.roles[0]
