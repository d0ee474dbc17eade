"""Flags a `config-keys` item of a new changelog entry that is only a wildcard, selecting every key.

## Why it matters
`*` (or `*-*`, `**`) matches every master-config key: the entry benchmarks the whole fleet,
hundreds of sweep jobs, usually by accident (#339: a test entry with `config-keys: ["*"]`). It
passes both gates, and the shared cluster runs the lot. A nit, because a deliberate full re-run
is legitimate; the finding names how many keys and jobs it selects.

## Example
    - config-keys:
        - "*"
      description:
        - "test"

## Fix
Select the keys this PR changes, exactly or with a narrow pattern (`dsv4-fp4-*-vllm`).
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import master_keys, match_keys
from rules.master.matrix import entry_jobs

CODE = "RR019"
NAME = "changelog-wildcard-selection"
SEVERITY = Severity.NIT


def wildcard_only(item: str) -> bool:
    return "*" in item and not item.replace("*", "").strip("-_. ")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    keys = master_keys(ctx, "head")
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: wildcard selections not checked: {d.skip_reason}", path=d.path)
            continue
        jobs = {id(ej.entry): ej for ej in entry_jobs(ctx, d)} if keys else {}
        narrow = 0
        for e in d.new_entries:
            items = e.data.get("config-keys") if isinstance(e.data, dict) else None
            if not isinstance(items, list):
                continue
            flagged = False
            for item in items:
                if not isinstance(item, str) or not wildcard_only(item):
                    continue
                flagged = True
                n_keys = len(match_keys(item, keys)) if keys else None
                ej = jobs.get(id(e))
                selects = (f"selects all {n_keys:,} master-config keys" if n_keys is not None
                           else "selects every master-config key")
                if ej is not None and ej.jobs:
                    selects += f" ({ej.jobs:,} sweep jobs)"
                gn = note(ctx, d, contract="the documented contract (select the configs the PR changes)")
                yield Problem(d.path, e.key_lines.get("config-keys", e.start_line),
                              gn.on(f"`config-keys` item `{item}` of the entry at line {e.start_line:,} {selects}."),
                              evidence=(f"{len(keys):,} keys at head" if keys else "no master config available",
                                        *gn.evidence))
            if not flagged:
                narrow += 1
        if narrow:
            yield Passed(f"{d.path}: {narrow} new entr{'y selects' if narrow == 1 else 'ies select'} keys without a "
                         f"wildcard-only item", path=d.path)
