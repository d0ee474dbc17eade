"""Flags a master-config key whose launcher would run a benchmark script that does not exist.

## Why it matters
The sweep runs `runners/launch_<runner>.sh`, which builds the script path from the key's model
prefix, precision, SKU, framework and spec-decoding (with its own fallbacks). When that file is
missing the job fails at start, or — worse — a fallback picks a different script than the one
the PR added (#383: an mi300x atom key with no atom script; #1571: an agentic vLLM key whose
launcher looks for `dsv4_fp4_mi355x_vllm.sh` or `dsv4_fp4_mi355x.sh`, neither of which exists).

## When it fires
The path is found by interpreting the launcher for each point of the key (nothing is run);
`rules.scripts.resolve` documents how.

Keys the PR adds, keys whose path inputs it changes (model prefix, precision, framework, node
layout, scenarios, speculative-decoding variants), and keys whose script a changed launcher or a
removed script affects. A key whose image or search space alone changed ran the same path before
the PR: a script missing there is the base's.

## Example
    dsv4-fp4-mi355x-vllm-agentic:
      runner: mi355x
      framework: vllm
      scenarios: {agentic-coding: [...]}
    # launch_mi355x-amds.sh runs benchmarks/single_node/agentic/dsv4_fp4_mi355x_vllm.sh (absent)

## Severity
A nit until it is fixed: judged on ten sampled InferenceX PRs (benchmarks/precision.py), 9 true, 1
nit as blocking (a routing the base already had); the bar for a blocking rule is 95 %.

## Fix
Add the script under the name the launcher builds (the message names it), or rename the script
you added to that name; if the launcher's naming is wrong, fix the launcher.
"""
import difflib
import posixpath
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import master_keys
from rules.master.matrix import scenarios_of
from rules.scripts.facts import changed_key_names, groups, key_line
from rules.scripts.resolve import iter_unknown, review_points

CODE = "RR401"
NAME = "script-missing-for-config"
SEVERITY = Severity.NIT
ENFORCES = ("F7",)


SHOWN = ("--tensor-parallel-size", "--tp", "--tp-size", "--max-running-requests", "--max-num-seqs",
         "--kv-cache-dtype", "--max-model-len", "--context-length")


def _shown(g) -> str:
    """`; conc 4–64: `--tp 8` from line 12, …` for a group whose engine command resolved."""
    r = next((x for x in g.items if x.engine is not None), None)
    if r is None:
        return ""
    flags = r.engine.flags()
    parts = []
    for name in SHOWN:
        for v in flags.get(name, [])[:1]:
            if v is not None and v.known:
                parts.append(f"`{name} {v.text}` from line {v.line}" if v.line else f"`{name} {v.text}`")
    return f"; {r.engine.engine}: " + ", ".join(parts[:4]) if parts else f"; {r.engine.engine} command resolved"


def _closest(ctx: ReviewContext, path: str) -> list[str]:
    d = posixpath.dirname(path)
    cs = ctx.changeset
    names = [posixpath.basename(p) for p in set(cs.tree) | {f.path for f in cs.files if f.status != "removed"}
             if posixpath.dirname(p) == d and p.endswith(".sh") and cs.exists(p)]
    return difflib.get_close_matches(posixpath.basename(path), names, n=2, cutoff=0.6)


# The key fields a launcher builds a script path from (model prefix, precision, framework, node
# layout) and the row fields that pick a variant (speculative decoding, scenario). The runner is
# left out: the repository renames runner labels (`mi355x` → `cluster:mi355x-amds`) without
# changing the launcher that serves them, and a missing script that only a relabel carries is the
# base's (judged false on the bundle). A runner move to another launcher is a recall cost here.
_PATH_FIELDS = ("model-prefix", "precision", "framework", "multinode", "disagg")


def _path_signature(value) -> tuple | None:
    if not isinstance(value, dict):
        return None
    rows = []
    scen = scenarios_of(value)
    for name, blocks in (scen.items() if isinstance(scen, dict) else ()):
        for block in blocks if isinstance(blocks, list) else ():
            for row in (block.get("search-space") or []) if isinstance(block, dict) else ():
                if isinstance(row, dict):
                    rows.append((str(name), str(row.get("spec-decoding"))))
    return (tuple(str(value.get(k)) for k in _PATH_FIELDS), tuple(sorted(set(rows))))


def _path_inputs_changed(ctx: ReviewContext, key: str) -> bool:
    """Whether the PR changed what the launcher builds this key's script path from: a new key, or
    one of `_PATH_FIELDS` / its scenarios and speculative-decoding variants. A key whose image or
    search space alone changed ran the same (missing) path before the PR."""
    base, head = master_keys(ctx, "base").get(key), master_keys(ctx, "head").get(key)
    if base is None or head is None:
        return True
    return _path_signature(base.value) != _path_signature(head.value)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    rp = review_points(ctx)
    if not rp.points:
        return
    changed_keys = changed_key_names(ctx)
    changed = {f.path: f for f in ctx.changeset.files}
    removed = {f.base_path for f in ctx.changeset.files if f.status in ("removed", "renamed")}
    if rp.skipped_keys:
        cfg = ctx.config.repo.scripts
        yield Skipped(f"{len(rp.skipped_keys):,} more keys were not resolved (caps: {cfg.max_keys:,} keys through a "
                      f"changed shared file, {cfg.max_paths:,} launcher paths): {', '.join(rp.skipped_keys[:3])}"
                      f"{' …' if len(rp.skipped_keys) > 3 else ''}")
    reported: set[tuple[str, str]] = set()
    for g in groups(ctx):
        r = g.first
        where = key_line(ctx, g.key)
        if r.no_script:
            if g.key in changed_keys:
                yield Passed(f"key `{g.key}` → runner `{r.point.node}` → `{r.launcher_link or r.launcher}`: "
                             f"{r.no_script}", path=where[0] if where else None)
            continue
        if r.script is None:
            if g.key in changed_keys:
                why = next(iter_unknown(r), "not resolved")
                yield Skipped(f"key `{g.key}` on runner `{r.point.node}`: script not resolved ({why})",
                              path=where[0] if where else None)
            continue
        if r.script_exists is not False:
            if g.key in changed_keys:
                yield Passed(f"{r.chain()} (conc {g.concs}) exists{_shown(g)}", path=where[0] if where else None,
                             line=where[1] if where else None)
            continue
        launcher = r.launcher or ""
        if g.key in changed_keys and where is not None and _path_inputs_changed(ctx, g.key):
            path, line = where
        elif launcher in changed and r.script_line:
            path, line = launcher, r.script_line
        elif r.script in removed and where is not None:
            path, line = where
        else:
            continue  # missing before this PR and untouched by it
        if (g.key, r.script) in reported:
            continue
        reported.add((g.key, r.script))
        close = _closest(ctx, r.script)
        evidence = [f"{r.chain()}: the launcher builds this path at line {r.script_line}"
                    + (f" when {r.script_guard}" if r.script_guard else "")]
        if close:
            evidence.append("closest existing scripts: " + ", ".join(f"`{c}`" for c in close))
        yield Problem(path, line,
                      f"key `{g.key}` on runner `{r.point.node}`: `{r.launcher_link or launcher}` runs "
                      f"`{r.script}`, which does not exist", evidence=tuple(evidence))
