"""What a PR changes that a sweep must measure: master-config keys, recipes and scripts.

Shared by the changelog-presence rules (RR009, its cleanup nit RR010 and its unproven-reach nit
RR024): each changed benchmark file becomes a `BenchmarkChange` (with the keys it adds or changes,
whether it only removes, and what it reaches: `rules/changelog/reach.py`), memoized per review.
A file whose edits are comments and whitespace only (master configs and recipes: equal values;
scripts: equal code lines) is no benchmark change at all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rules.changelog.analysis import changelog_diffs, changelog_files
from rules.changelog.reach import Reach, is_harness, label_keys, script_reach
from rules.context import ReviewContext
from rules.document import load_values
from rules.master.analysis import changed_keys, master_files, master_keys

BENCHMARK_KINDS = ("recipes", "scripts")
# GitHub's revert button writes `Revert "…"`; conventional commits write `revert: …`.
REVERT_TITLE = re.compile(r"^(?:Revert\b|revert:)")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
MAX_LISTED = 5


@dataclass(frozen=True)
class BenchmarkChange:
    """One changed file that affects what a benchmark runs."""

    path: str
    line: int | None  # first changed head line (None: removed file, or no patch)
    what: str  # "master config" | "recipe" | "script"
    removal: bool  # only removes (file removed, keys removed, only deleted lines, moved to deprecated)
    detail: str  # for evidence: what changed
    keys: tuple[str, ...] = ()  # master keys added or changed (master configs only)
    # What the change reaches (rules/changelog/reach.py): "proven" (a benchmark's command, config
    # or recipe), "unknown" (shared harness outside those commands), "label" (result labels only).
    reach: str = "proven"
    why: str = ""  # how the reach was decided, for evidence
    where: str = ""  # for an unproven reach: where the change is (a message phrase)

    @property
    def evidence(self) -> str:
        return f"{self.detail} ({self.why.split(': ', 1)[-1]})" if self.why else self.detail


def patch_lines(patch: str | None) -> tuple[list[int], list[int]]:
    """(head lines added, head positions of deletions) of a GitHub unified-diff patch."""
    added: list[int] = []
    deleted_at: list[int] = []
    line = 0
    for raw in (patch or "").split("\n"):
        m = _HUNK.match(raw)
        if m:
            line = int(m.group(1))
            continue
        if not line or not raw or raw.startswith("\\"):
            continue
        if raw[0] == "+":
            added.append(line)
            line += 1
        elif raw[0] == "-":
            deleted_at.append(max(line, 1))
        else:
            line += 1
    return added, deleted_at


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def listed(names: list[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:MAX_LISTED])
    return shown + (f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else "")


def benchmark_changes(ctx: ReviewContext) -> list[BenchmarkChange]:
    """Every changed master config (with added/changed/removed keys), recipe and script, in PR order."""

    def compute() -> list[BenchmarkChange]:
        by_file: dict[str, list] = {}
        for c in changed_keys(ctx):
            by_file.setdefault(c.path, []).append(c)
        unreadable = {mf.path for side in ("head", "base") for mf in master_files(ctx, side) if mf.error}
        # What a change reaches matters only to a PR that appends no entry (RR009, RR024).
        judge = entry_state(ctx)[0] == 0
        out: list[BenchmarkChange] = []
        for f in ctx.changeset.files:
            head_kind, base_kind = ctx.kind(f.path), ctx.kind(f.base_path)
            added, deleted_at = patch_lines(f.patch)
            if "master_configs" in (head_kind, base_kind):
                changes = by_file.get(f.path, []) + (by_file.get(f.base_path, []) if f.base_path != f.path else [])
                if {f.path, f.base_path} & unreadable:
                    # Keys cannot be compared: judge by the patch (or assume a change without one).
                    removal = f.status == "removed" or (f.patch is not None and not added)
                    line = None if f.status == "removed" else (added or deleted_at or [None])[0]
                    out.append(BenchmarkChange(f.path, line, "master config", removal,
                                               f"{f.path}: master config {f.status}, keys not readable"))
                    continue
                if not changes:
                    continue  # comments or formatting only
                labels = label_keys(ctx)
                live = [c for c in changes if c.status != "removed" and c.key not in labels]
                relabelled = [c for c in changes if c.key in labels]
                gone = [c.key for c in changes if c.status == "removed"]
                if live:
                    spans = [(c.head.line, c.head.end_line) for c in live]
                    inside = [n for n in added if any(a <= n <= b for a, b in spans)]
                    line = (inside or added or [live[0].line])[0]
                    detail = f"{f.path}: {_plural(len(live), 'key')} added or changed ({listed([c.key for c in live])})"
                    out.append(BenchmarkChange(f.path, line, "master config", False, detail,
                                               tuple(c.key for c in live)))
                elif relabelled:
                    # Changes no job reads (result labels): the reach of the file is not a benchmark.
                    fields = sorted({x for c in relabelled for x in labels[c.key]})
                    spans = [(c.head.line, c.head.end_line) for c in relabelled]
                    inside = [n for n in added if any(a <= n <= b for a, b in spans)]
                    line = (inside or added or [relabelled[0].line])[0]
                    detail = (f"{f.path}: {_plural(len(relabelled), 'key')} change only result labels "
                              f"({listed([c.key for c in relabelled])}: {', '.join(f'`{x}`' for x in fields[:4])})"
                              + (f", {_plural(len(gone), 'key')} removed" if gone else ""))
                    out.append(BenchmarkChange(f.path, line, "master config", False, detail,
                                               tuple(c.key for c in relabelled), reach="label",
                                               why="the sweep generator passes these fields to the jobs only as "
                                                   "result metadata"))
                else:
                    line = None if f.status == "removed" else (added or deleted_at or [None])[0]
                    out.append(BenchmarkChange(f.path, line, "master config", True,
                                               f"{f.path}: {_plural(len(gone), 'key')} removed ({listed(gone)})"))
                continue
            what = {"recipes": "recipe", "scripts": "script"}
            if head_kind in BENCHMARK_KINDS and f.status != "removed":
                kind = what[head_kind]
                if f.status == "renamed" and f.base == f.head and not added and not deleted_at:
                    # A pure move (same bytes): what runs is unchanged, so it is cleanup, not a new result.
                    detail = f"{f.path}: {kind} moved from {f.previous_path} unchanged"
                    out.append(BenchmarkChange(f.path, None, kind, True, detail))
                elif f.patch is not None and not added and f.status != "added":
                    out.append(BenchmarkChange(f.path, (deleted_at or [None])[0], kind, True,
                                               f"{f.path}: {kind} lines deleted only"))
                else:
                    if judge:
                        reach = script_reach(ctx, f) if head_kind == "scripts" else _recipe_reach(ctx, f)
                    else:  # the PR appends an entry: only the passed check lists the change
                        reach = Reach("proven", "")
                    if reach.kind == "none":
                        continue  # comments or whitespace only: nothing a benchmark runs changed
                    line = reach.line if reach.line in added else (added or [None])[0]
                    # (RR009 keeps its words for a proven change; RR024 says which file is harness)
                    harness = reach.kind == "unknown" and head_kind == "scripts" and is_harness(ctx, f.path)
                    what = "shared harness script" if harness else kind
                    out.append(BenchmarkChange(f.path, line, what, False, f"{f.path}: {kind} {f.status}",
                                               reach=reach.kind, why=reach.why, where=reach.where))
            elif base_kind in BENCHMARK_KINDS and (f.status == "removed" or head_kind == "deprecated"):
                kind = what[base_kind]
                moved = head_kind == "deprecated" and f.status != "removed"
                detail = f"{f.base_path}: {kind} moved to {f.path}" if moved else f"{f.path}: {kind} removed"
                out.append(BenchmarkChange(f.path, None, kind, True, detail))
        return out

    return ctx.memo(("changelog", "benchmark_changes"), compute)


def _recipe_reach(ctx: ReviewContext, f) -> Reach:
    """A changed recipe is what its benchmark runs, unless only comments or formatting changed, or
    nothing the review read names it: a YAML file under the benchmarks that no master config, no
    launcher or script read for the review and no other changed file mentions (by its file name) is
    read by no job the review can see (judged: a reference table nothing reads needs no sweep)."""
    if f.status == "modified" and f.base is not None and f.head is not None:
        base, berr = load_values(f.base_path, f.base)
        head, herr = load_values(f.path, f.head)
        if berr is None and herr is None and base == head:
            return Reach("none", f"{f.path}: comments and formatting only (the values are unchanged)")
    name = f.path.rsplit("/", 1)[-1].encode("utf-8", "replace")
    if any(mf._raw for mf in master_files(ctx, "head")):  # without a master config read, who names it is unknown
        # the master configs are among the context and the changed files
        texts = [raw for p, raw in ctx.changeset.context.items() if p != f.path and raw]
        texts += [o.head for o in ctx.changeset.files if o.path != f.path and o.head]
        if not any(name in t for t in texts):
            return Reach("unknown", f"{f.path}: nothing the review read names `{name.decode()}` (no master config, "
                                    "launcher or script)", where="in a file nothing the review read names")
    return Reach("proven", f"{f.path}: the recipe a benchmark runs is changed")


def entry_state(ctx: ReviewContext) -> tuple[int, str | None]:
    """(entries the PR appends to any changelog, reason the changelog could not be read or None)."""
    diffs = changelog_diffs(ctx)
    skipped = next((f"{d.path}: {d.skip_reason}" for d in diffs if d.skip_reason), None)
    return sum(len(d.new_entries) for d in diffs), skipped


def changelog_candidates(globs, changed_paths) -> tuple[str, ...] | None:
    """Where a changelog governing the changed files can live: each plain path of `globs`, and for each
    `**/<name>` its name at the root and in every directory above a changed path.

    None when a glob has another shape (nothing to probe: whether the base has one stays unknown).
    """
    out: list[str] = []
    for g in globs:
        name = g[3:] if g.startswith("**/") else g
        if any(ch in name for ch in "*?[]{}!") or (g.startswith("**/") and "/" in name):
            return None
        if not g.startswith("**/"):
            out.append(g)
            continue
        for p in changed_paths:
            d = p
            while d:
                d = d.rpartition("/")[0]
                out.append(f"{d}/{name}" if d else name)
    return tuple(sorted(set(out)))


def changelog_at_base(ctx: ReviewContext) -> bool | None:
    """Whether the base has a changelog this PR could append to: True, False (looked, none), None (unknown)."""
    if any(f.status != "added" for f in changelog_files(ctx)):
        return True
    known = ctx.changeset.base_changelogs
    return None if known is None else bool(known)


def cleanup_reason(ctx: ReviewContext, changes: list[BenchmarkChange]) -> str | None:
    """Why the PR counts as cleanup (revert title; only removals, moves to deprecated/ or unchanged moves), or None."""
    title = ctx.changeset.title or ""
    if REVERT_TITLE.match(title):
        return f"the PR title `{title[:80]}` marks a revert"
    if changes and all(c.removal for c in changes):
        return "the PR only removes or moves benchmark configs, recipes or scripts (e.g. into deprecated/)"
    return None


def recipe_keys(ctx: ReviewContext, path: str) -> list[str]:
    """Master keys whose block mentions the recipe at `path` (by its path below the recipe root)."""
    marker = "srt-slurm-recipes/"
    if marker not in path:
        return []
    rel = path.split(marker, 1)[1]
    return [k for k, info in master_keys(ctx, "head").items() if rel in info.text]


def suggested_entry(ctx: ReviewContext, keys: list[str]) -> str:
    cs = ctx.changeset
    repo = cs.repo or "SemiAnalysisAI/InferenceX"
    number = cs.pr_number if cs.pr_number is not None else "XXX"
    items = "".join(f"\n    - {k}" for k in keys) or "\n    - <config key>"
    return (f"Append an entry at the end of the changelog:\n\n- config-keys:{items}\n  description:\n"
            f"    - \"<what changed and why>\"\n  pr-link: https://github.com/{repo}/pull/{number}\n")
