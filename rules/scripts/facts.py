"""Facts several script rules share: changed scripts, touched lines, resolved points grouped.

Pure and memoized per review (through `ctx.memo`); rules read these, never each other.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rules.changeset import FileChange
from rules.comments import touched_lines
from rules.context import ReviewContext
from rules.master.analysis import changed_keys, master_keys
from rules.scripts.resolve import Resolution, resolutions


def changed_scripts(ctx: ReviewContext, kinds: tuple[str, ...] = ("scripts",)) -> list[FileChange]:
    """Changed (not removed) files of the given kinds, in changeset order."""
    return [f for f in ctx.changeset.files if f.status != "removed" and ctx.kind(f.path) in kinds]


def touched(ctx: ReviewContext, path: str) -> set[int] | None:
    """Head lines a changed file's patch adds (every line of an added file); None when unknown;
    an empty set for a file the PR does not change."""
    f = ctx.changeset.file(path)
    if f is None:
        return set()
    return touched_lines(f)


def changed_key_names(ctx: ReviewContext) -> set[str]:
    return {c.key for c in changed_keys(ctx) if c.head is not None}


def span(values: Iterable) -> str:
    """`4–64` for a set of concurrencies (or the single value)."""
    vals = sorted({v for v in values if isinstance(v, int)})
    if not vals:
        return "?"
    return str(vals[0]) if len(vals) == 1 else f"{vals[0]}–{vals[-1]}"


@dataclass(frozen=True)
class Group:
    """Resolved points of one key that share launcher, script and engine command."""

    key: str
    items: tuple[Resolution, ...]

    @property
    def first(self) -> Resolution:
        return self.items[0]

    @property
    def concs(self) -> str:
        return span(r.point.values.get("conc") for r in self.items)


def groups(ctx: ReviewContext, rs: Iterable[Resolution] | None = None) -> list[Group]:
    """Resolutions grouped by key, runner launcher, script and engine command (display order)."""
    buckets: dict[tuple, list[Resolution]] = {}
    for r in resolutions(ctx) if rs is None else rs:
        sig = (r.point.key, r.launcher_link or r.launcher, r.script, r.engine.display() if r.engine else None,
               tuple(r.unknown), r.no_script)
        buckets.setdefault(sig, []).append(r)
    return [Group(sig[0], tuple(v)) for sig, v in buckets.items()]


def key_line(ctx: ReviewContext, key: str) -> tuple[str, int] | None:
    """(master config path, line) of a head key."""
    ki = master_keys(ctx, "head").get(key)
    return (ki.path, ki.line) if ki is not None else None


def resolved_for(ctx: ReviewContext, script: str) -> list[Resolution]:
    return [r for r in resolutions(ctx) if r.script == script]


def spec_mtp(r: Resolution) -> bool:
    return str(r.point.values.get("spec_decoding") or "none") == "mtp"


def speculative(r: Resolution) -> bool:
    """The point asks for speculative decoding of any kind (`mtp`, `eagle3`, …)."""
    return str(r.point.values.get("spec_decoding") or "none") not in ("none", "false", "")


def iter_engine_flags(r: Resolution, prefixes: tuple[str, ...]) -> Iterator:
    """Words of a point's engine command that start with one of `prefixes`."""
    if r.engine is None:
        return
    for w in r.engine.argv:
        if w.text and w.text.startswith(prefixes):
            yield w
