"""Every benchmark point a review judges: the changed recipes' and the scripts' (`engine_points`)."""
from __future__ import annotations

from collections.abc import Iterator

from rules.context import ReviewContext
from rules.serving.script_points import script_points
from rules.serving.settings import BenchmarkPoint, changed_settings


def engine_points(ctx: ReviewContext) -> Iterator[tuple[str, list[BenchmarkPoint]]]:
    """`changed_settings`, then the single-node benchmark points the review resolved to an engine
    command (`rules/serving/script_points.py`): the source for the rules that read only the engine and the
    point's concurrency and labels (the recipe-only rules — pools, nodes, MTP recipe conventions —
    keep `changed_settings`)."""
    yield from changed_settings(ctx)
    yield from script_points(ctx)
