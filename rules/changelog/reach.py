"""What a PR's change reaches: a job's command (proven) or nothing a job runs (labels, comments).

Shared by the changelog-presence rules (RR009 and its nit RR024) and the selection rules (RR011
and its nit RR025). The written rule (A1) asks for an entry for "every change that can affect
benchmark performance"; a blocking finding needs the change to reach a benchmark, so this module
says what each change reaches.

## Master-config fields

The sweep generator (`utils/matrix_logic/generate_sweep_configs.py`, bundle main) copies a key's
`image`, `model`, `model-prefix`, `precision`, `framework`, `runner`, `multinode`, `disagg`, every
scenario's `isl`/`osl` and every search-space field (parallelism, concurrencies, `prefill` and
`decode` with their `additional-settings`, `kv-offloading`, `kv-offload-backend`'s name,
`kv-p2p-transfer`, the DRAM budget) into the matrix rows, and the benchmark workflows hand each row
to the job as its environment, which the launchers and scripts read. Two fields reach the rows
only as result metadata: `router` (`component_metadata`: the job gets it as `ROUTER_METADATA`
JSON, which only the result processing reads) and the `version` of `kv-offload-backend` (the job
reads the backend's `name` as `KV_OFFLOAD_BACKEND`; the whole object travels as
`KV_OFFLOAD_BACKEND_METADATA`, a label of the results). A change confined to those fields — or to
comments, which are no change of the value at all — reaches no job's command: it relabels results.

## Scripts

A benchmark script a launcher runs is what the benchmark executes: an edit to its code reaches
the benchmark, except lines that only print (`echo`) or call library helpers that start no engine
or client, export nothing and set nothing the script reads (`start_gpu_monitor`, `run_eval`:
`inert_functions` over the library the script sources), and the conditions and syntax around
only such calls. Without the library's text nothing counts as inert. Shared harness code (the
library every script sources, `scripts.library`, and the helper files of `paths.harness`) runs for
many benchmarks, and most of it never touches what is measured: telemetry sampling, evals, log
collection, readiness checks. A harness edit is proven to reach a benchmark only when it edits the
command that starts the serving engine or the benchmark client (the lines of that command, an
assignment or `export` a word of it reads, transitively within the file, the conditions around them,
a call of the function that builds it); the reach of any other harness edit is unknown from the
file. An edit of a benchmark script whose every changed line, on both sides, comes after the last
start of the benchmark client (straight-line top-level code: no start inside a function or a loop)
runs after the measurement — evals, summaries, clean-up — and its reach is unknown too (judged: an
eval added after the throughput run needs no sweep). Comment-only and whitespace-only edits reach
nothing.
"""
from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from rules.config import path_matches
from rules.context import ReviewContext
from rules.master.analysis import changed_keys
from rules.scripts.parse import SHARED_PARSES, Assignment, Script, in_loop, script_at

# --------------------------------------------------------------------------------------------
# Master-config fields

# Field names whose value reaches the job only as a label of the results (see the docstring).
LABEL_FIELDS = ("router",)
# (parent field, field) pairs that are labels while the parent's other fields are not.
LABEL_SUBFIELDS = (("kv-offload-backend", "version"),)
MAX_CHANGED_FIELDS = 50


def changed_fields(base: Any, head: Any, path: tuple = ()) -> list[tuple]:
    """Paths (field names and list indices) where `head` differs from `base`, at most a few dozen.

    Lists of equal length are compared item by item; a list whose length changed is one change.
    """
    out: list[tuple] = []
    stack = [(base, head, path)]
    while stack and len(out) < MAX_CHANGED_FIELDS:
        b, h, p = stack.pop()
        if b == h:
            continue
        if isinstance(b, dict) and isinstance(h, dict):
            for k in sorted(set(b) | set(h), key=str, reverse=True):
                if k not in b or k not in h:
                    out.append((*p, k))
                elif b[k] != h[k]:
                    stack.append((b[k], h[k], (*p, k)))
        elif isinstance(b, list) and isinstance(h, list) and len(b) == len(h):
            for i in reversed(range(len(b))):
                if b[i] != h[i]:
                    stack.append((b[i], h[i], (*p, i)))
        else:
            out.append(p)
    return out


def is_label(field: tuple) -> bool:
    """A changed field that reaches the job only as a label of its results."""
    names = [f for f in field if isinstance(f, str)]
    if any(n in LABEL_FIELDS for n in names):
        return True
    return any(names[i:i + 2] == list(pair) for pair in LABEL_SUBFIELDS for i in range(len(names) - 1))


def field_name(field: tuple) -> str:
    """`scenarios.fixed-seq-len[0].search-space[1].router` for a changed field path."""
    out = ""
    for part in field:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(the whole value)"


def label_only_change(base: Any, head: Any) -> list[str] | None:
    """The changed label fields when every change between the two values of a key is a label; else None."""
    if not isinstance(base, dict) or not isinstance(head, dict):
        return None
    fields = changed_fields(base, head)
    if not fields or len(fields) >= MAX_CHANGED_FIELDS or not all(is_label(f) for f in fields):
        return None
    return [field_name(f) for f in fields]


def label_keys(ctx: ReviewContext) -> dict[str, list[str]]:
    """Changed master keys whose change reaches no job's command: key → the label fields changed."""

    def compute() -> dict[str, list[str]]:
        out = {}
        for c in changed_keys(ctx):
            if c.status != "changed" or c.head is None or c.base is None or c.head.error or c.base.error:
                continue
            labels = label_only_change(c.base.value, c.head.value)
            if labels:
                out[c.key] = labels
        return out

    return ctx.memo(("changelog", "label-keys"), compute)


# --------------------------------------------------------------------------------------------
# Scripts


def _engine_pattern() -> str:
    from rules.scripts.resolve import ENGINE_STARTS

    return "|".join(r"(?<![\w.-])" + r"\s+".join(re.escape(w) for w in words) + r"(?![\w-])"
                    for _, words in ENGINE_STARTS)


# What starts the serving engine (the resolver's ENGINE_STARTS) or the benchmark client: the
# repository's `benchmark_serving.py` (directly or through the library's `run_benchmark_serving`),
# the agentic replay (`aiperf profile`, through `$AIPERF_CLI`), and the engines' own bench clients.
CLIENT_STARTS = (r"(?<![\w-])benchmark_serving\.py\b", r"(?<![\w-])run_benchmark_serving\b",
                 r"\b(?:aiperf|AIPERF_CLI)\b\S*\s+profile\b", r"(?<![\w-])vllm\s+bench\b",
                 r"\bsglang\.bench_serving\b", r"(?<![\w-])genai-perf\b")
_STARTS: list[re.Pattern[str]] = []
_NOT_RUN = ("echo", "printf", ":", "log", "info", "warn")  # commands that only print the words


def _starts() -> re.Pattern[str]:
    if not _STARTS:
        _STARTS.append(re.compile("|".join((_engine_pattern(), *CLIENT_STARTS))))
    return _STARTS[0]


@dataclass(frozen=True)
class Reach:
    """What a changed benchmark file reaches."""

    kind: str  # "proven" | "unknown" | "none" (comments and whitespace only)
    why: str  # for evidence
    line: int | None = None  # a head line of the change that proves it, when known
    where: str = ""  # for an unknown reach: where the change is, as a message phrase


def is_harness(ctx: ReviewContext, path: str) -> bool:
    """Shared harness code: the library every script sources, or a file of `paths.harness`."""
    return path.endswith(ctx.config.repo.scripts.library) or path_matches(path, ctx.config.paths.harness)


def _code_lines(script) -> list[str]:
    """The script's lines with comments blanked and surrounding whitespace dropped."""
    return [ln.strip() for ln in script.code.split("\n")]


def changed_code_lines(base, head) -> tuple[set[int], set[int]]:
    """(head lines, base lines) whose code differs, comments and blank lines aside (1-based)."""
    b, h = _code_lines(base) if base is not None else [], _code_lines(head)
    sm = difflib.SequenceMatcher(None, b, h, autojunk=False)
    head_lines: set[int] = set()
    base_lines: set[int] = set()
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        removed = [i for i in range(i1, i2) if b[i]]
        added = [j for j in range(j1, j2) if h[j]]
        if tag == "replace" and [b[i] for i in removed] == [h[j] for j in added]:
            continue  # only blank lines moved around
        base_lines.update(i + 1 for i in removed)
        head_lines.update(j + 1 for j in added)
    return head_lines, base_lines


def _seeds(script) -> list[tuple]:
    """(statement, the start it names) for each statement whose code starts an engine or client."""
    code = script.code.encode("utf-8")
    starts = _starts()
    out = []
    for st in script.statements():
        if not isinstance(st, Assignment) and st.name in _NOT_RUN:
            continue
        m = starts.search(code[st.node.start_byte:st.node.end_byte].decode("utf-8", "replace"))
        if m:
            out.append((st, m.group(0)))
    return out


def inert_functions(library) -> dict[str, set[str]]:
    """Library functions that start no engine or client, export nothing and call only such
    functions: name → the global variables they assign (a caller that reads one is not inert)."""
    seeded = {st.function for st, _ in _seeds(library) if st.function}
    exports = {a.function for a in library.assignments if a.declaration == "export" and a.function}
    calls: dict[str, set[str]] = {}
    for c in library.commands:
        if c.function and c.name in library.functions:
            calls.setdefault(c.function, set()).add(c.name)
    inert = {f for f in library.functions if f not in seeded and f not in exports}
    changed = True
    while changed:
        changed = False
        for f in list(inert):
            if calls.get(f, set()) - inert:
                inert.discard(f)
                changed = True
    assigned: dict[str, set[str]] = {f: set() for f in inert}
    for a in library.assignments:
        if a.function in inert and a.declaration not in ("local", "prefix"):
            assigned[a.function].add(a.name)
    return {f: assigned[f] for f in inert}


def active_lines(script, lines: set[int], inert: dict[str, set[str]], first: bool = False) -> list[int]:
    """Of `lines` of a benchmark script, those that may change what it runs: all but the lines of
    `echo`s, of calls of inert library functions (whose assigned globals the script does not
    read), of conditions that hold only such statements, and of bare syntax (`fi`, `done`).
    With `first`, stop at the first such line."""
    if not lines:
        return []
    read = {r.name for r in script.references}

    def quiet(st) -> bool:
        if isinstance(st, Assignment):
            return False
        if st.name in _NOT_RUN:
            return True
        return st.name in inert and not (inert[st.name] & read)

    at: dict[int, list] = {}  # line -> statements over it, conditions' lines -> the statements they hold
    held: dict[int, list] = {}
    for st in script.statements():
        for n in range(st.line, st.end_line + 1):
            if n in lines:
                at.setdefault(n, []).append(st)
        for c in st.conditions:
            for n in range(c.line, c.node.end_point[0] + 2):
                if n in lines:
                    held.setdefault(n, []).append(st)
    out = []
    for n in sorted(lines):
        sts = at.get(n) or held.get(n)
        if sts and not all(quiet(st) for st in sts):
            out.append(n)
            if first:
                break
    return out


def command_lines(script) -> tuple[set[int], str | None]:  # noqa: C901 (seeds, then a fixpoint over assignments, conditions and references)
    """Lines of a script that build or run the serving engine's or the benchmark client's command.

    Seeds are the statements whose code names an engine or client start (`_starts`), not as the
    words of an `echo`. Then, to a fixpoint: every assignment (or `export`) of a variable a slice
    statement reads, or of a variable a slice statement assigns (`cmd+=(…)`); the `export`s of the
    function (or top level) that starts the command, which become its environment; the commands
    that run a command variable (`"${cmd[@]}"`, `$REPLAY_CMD`) or call a function holding a seed;
    and the conditions around each. `local` variables are matched within their function. Returns
    the lines and a short name of the first seed (for evidence), or None when there is none.
    """
    code = script.code.encode("utf-8")

    def text(node) -> str:
        return code[node.start_byte:node.end_byte].decode("utf-8", "replace")

    seeds = _seeds(script)
    if not seeds:
        return set(), None
    refs = sorted(script.references, key=lambda r: r.node.start_byte)
    ref_starts = [r.node.start_byte for r in refs]
    by_name: dict[str, list] = {}
    for a in script.assignments:
        if a.declaration != "prefix":
            by_name.setdefault(a.name, []).append(a)
    locals_in = {(a.function, a.name) for a in script.assignments if a.declaration == "local"}

    def refs_in(node) -> list:
        i = bisect.bisect_left(ref_starts, node.start_byte)
        out = []
        while i < len(refs) and ref_starts[i] < node.end_byte:
            out.append(refs[i])
            i += 1
        return out

    def writes(name: str, fn: str | None) -> list:
        if (fn, name) in locals_in:
            return [a for a in by_name.get(name, ()) if a.function == fn]
        return [a for a in by_name.get(name, ()) if not (a.declaration == "local" and a.function != fn)]

    slice_ids: set[int] = set()
    lines: set[int] = set()
    work = [st for st, _ in seeds]
    command_vars = {st.name for st, _ in seeds if isinstance(st, Assignment)}
    seed_functions = {st.function for st, _ in seeds if st.function}
    for fn in {st.function for st, _ in seeds}:  # what the function (or top level) exports is the command's environment
        work.extend(a for a in script.assignments if a.declaration == "export" and a.function == fn)
    for c in script.commands:
        name = text(c.name_node) if c.name_node is not None else ""
        if c.name in seed_functions or any(re.search(r"\$\{?" + re.escape(v) + r"\b", name) for v in command_vars):
            work.append(c)
    while work:
        st = work.pop()
        if id(st) in slice_ids:
            continue
        slice_ids.add(id(st))
        end = st.end_line
        lines.update(range(st.line, end + 1))
        nodes = [st.node]
        for cond in st.conditions:
            lines.update(range(cond.line, cond.node.end_point[0] + 2))
            nodes.append(cond.node)
        for node in nodes:
            for r in refs_in(node):
                work.extend(writes(r.name, r.function))
        if isinstance(st, Assignment):
            work.extend(writes(st.name, st.function))
    return lines, seeds[0][1]


# An added line of a benchmark script that is plainly code that shapes the run: an assignment or
# export, a flag line of a continued command, a `source` of other code, or an engine or client
# start (read from the patch, so most benchmark-script edits need no parse of both sides).
_PLAIN_CODE = re.compile(r"^(?:export\s+)?[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=|^--?[A-Za-z]|^(?:source|\.)\s")


def _plain_code_line(patch: str | None) -> int | None:
    """The head line of the first added line of `patch` that is plainly code shaping the run (a
    line that only re-spaces a deleted one does not count)."""
    removed = Counter(raw[1:].strip() for raw in (patch or "").split("\n") if raw.startswith("-")
                      and not raw.startswith("---"))
    line = 0
    for raw in (patch or "").split("\n"):
        m = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", raw)
        if m:
            line = int(m.group(1))
            continue
        if not line or not raw or raw[0] not in "+ ":
            continue
        text = raw[1:].strip()
        if raw[0] == "+" and removed[text]:
            removed[text] -= 1  # the same code, re-spaced
        elif raw[0] == "+" and (_PLAIN_CODE.match(text) or (not text.startswith("#") and _starts().search(text))):
            return line
        line += 1
    return None


_CLIENTS = re.compile("|".join(CLIENT_STARTS))


def _client_end(script) -> int | None:
    """The last line of the last benchmark-client start of a script, when every client start is
    top-level straight-line code (no function, no loop): what follows it runs after the measurement."""
    code = script.code.encode("utf-8")
    ends = []
    for st in script.statements():
        if isinstance(st, Assignment) or st.name in _NOT_RUN:
            continue
        if _CLIENTS.search(code[st.node.start_byte:st.node.end_byte].decode("utf-8", "replace")):
            if st.function or in_loop(st.node):
                return None
            ends.append(st.end_line)
    return max(ends) if ends else None


def _after_measurement(head, base, changed_head: set[int], changed_base: set[int]) -> int | None:
    """The head line where the benchmark client's last start ends, when every changed line of both
    sides comes after it (evals, summaries, clean-up): None when any change could reach the run."""
    end_head = _client_end(head)
    end_base = _client_end(base) if base is not None else end_head
    if end_head is None or end_base is None or not (changed_head or changed_base):
        return None
    if all(n > end_head for n in changed_head) and all(n > end_base for n in changed_base):
        return end_head
    return None


def _shown(changed_head: set[int]) -> str:
    return ", ".join(f"{n:,}" for n in sorted(changed_head)[:5]) or "deleted lines only"


def _after_reach(path: str, changed_head: set[int], end: int) -> Reach:
    return Reach("unknown", f"{path}: the changed lines ({_shown(changed_head)}) come after the benchmark client's "
                            f"last run (line {end:,}): what follows the measurement (evals, summaries) cannot "
                            "change the throughput it recorded",
                 where="only after the benchmark client has run")


def script_reach(ctx: ReviewContext, f) -> Reach:
    """What a changed (not removed) script reaches."""
    harness = is_harness(ctx, f.path)
    head = script_at(ctx, f.path, "head") if f.head is not None else None
    base = SHARED_PARSES.parse(f.base_path, f.base) if f.status != "added" and f.base is not None else None
    readable = isinstance(head, Script) and (f.status == "added" or isinstance(base, Script))
    if not harness:
        hit = _plain_code_line(f.patch)
        if hit is not None:
            if f.status != "added" and readable:
                changed_head, changed_base = changed_code_lines(base, head)
                end = _after_measurement(head, base, changed_head, changed_base)
                if end is not None:
                    return _after_reach(f.path, changed_head, end)
            return Reach("proven", f"{f.path}: the benchmark script itself is changed", hit)
    if not readable:
        # Without both sides readable, comments cannot be told from code, nor commands found.
        if not harness:
            return Reach("proven", f"{f.path}: the benchmark script itself is changed")
        return Reach("unknown", f"{f.path}: shared harness whose change could not be read",
                     where="in a way the review could not read")
    changed_head, changed_base = changed_code_lines(base, head)
    if not changed_head and not changed_base:
        return Reach("none", f"{f.path}: comments and whitespace only")
    shown = _shown(changed_head)
    if not harness:
        if f.status == "added":  # a new benchmark script: what its benchmark runs is all new
            return Reach("proven", f"{f.path}: a new benchmark script", min(changed_head) if changed_head else None)
        end = _after_measurement(head, base, changed_head, changed_base)
        if end is not None:
            return _after_reach(f.path, changed_head, end)
        inert = _library_inert(ctx, f.path)
        active = active_lines(head, changed_head, inert, first=True)
        if active or (base is not None and active_lines(base, changed_base, inert, first=True)):
            return Reach("proven", f"{f.path}: the benchmark script itself is changed",
                         active[0] if active else None)
        calls = sorted({c.name for c in head.commands if c.name in inert and c.line in changed_head})
        return Reach("unknown", f"{f.path}: the changed lines ({shown}) only print or call library helpers that "
                                f"start no engine or client ({', '.join(f'`{c}`' for c in calls) or 'none'})",
                     where="only where it prints or calls library helpers that start no engine or client")
    head_cmd, seed = command_lines(head)
    base_cmd, base_seed = command_lines(base) if base is not None else (set(), None)
    hit = sorted(changed_head & head_cmd)
    gone = sorted(changed_base & base_cmd)
    if hit or gone:
        where = f"line {hit[0]:,}" if hit else f"base line {gone[0]:,}"
        return Reach("proven", f"{f.path}: {where} builds or runs the `{seed or base_seed}` command",
                     hit[0] if hit else None)
    return Reach("unknown", f"{f.path}: shared harness; the changed lines ({shown}) are outside every command "
                            "that starts the engine or the benchmark client",
                 where="outside the engine and benchmark-client commands")


def _library_inert(ctx: ReviewContext, path: str) -> dict[str, set[str]]:
    """The inert functions of the library a benchmark script sources ({} when it is not readable)."""
    from rules.scripts.resolve import layout_root

    lib = layout_root(path) + ctx.config.repo.scripts.library

    def compute() -> dict[str, set[str]]:
        script = script_at(ctx, lib, "head") if ctx.changeset.head_bytes(lib) is not None else None
        return inert_functions(script) if isinstance(script, Script) else {}

    return ctx.memo(("changelog", "inert-functions", lib), compute)
