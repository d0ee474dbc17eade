"""Flags a new perf-changelog entry that repeats another new entry, or copies an existing one in a PR that changes more.

## Why it matters
Two new entries of one PR that select the same keys and say the same thing record one change
twice: the second runs nothing (the changelog processor skips a key an earlier entry of the PR
already ran) and the history reads as two changes. A new entry that copies an existing one, in
a PR that also changes configs, scripts or tooling, describes the old PR's change instead of
this one's (#1172 reused #1158's description for a new `--max-running-requests` floor); the
merge helper also drops PR entries whose content is already on main when it resolves a
changelog conflict, so the PR's own record can vanish at merge. A nit: the sweep still runs.

## When it fires
Not on what the repository does on purpose. A PR that changes nothing but the changelog and
appends copies of existing entries re-runs their sweeps: a retrigger (#1790), an ingest
recovery, whose written procedure says to copy each original description verbatim with the
recovery PR's link (#1893), or the re-append of an entry whose original lacks a valid link
(#1148); the copy is the point. An entry the base already holds as many times as the head is
an existing entry moved or re-linked (#1161), which changelog-history-changed reports. Two new
entries for the same keys that describe different changes are one entry per change (#1229: a
kernel overlay and shorter smoke runs), which the processor runs once: only the same or a
nearly identical description twice (difflib ratio ≥ 0.8; and the same pr-link, scenarios and
eval flags) is reported (#327's two nearly identical entries).

## Example
    - config-keys:
        - dsv4-fp4-b300-sglang
      description:
        - "Bump SGLang to v0.5.12"          # #1158's entry, word for word
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1172   # this PR changes a script

## Fix
Rewrite a copied entry to describe this PR's change; merge two entries that say the same thing
into one.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterator

from rules.changelog.analysis import Entry, changelog_diffs
from rules.changelog.content import accepted, base_copy, changelog_only
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR020"
NAME = "changelog-entry-duplicate"
SEVERITY = Severity.NIT
# Two descriptions at least this similar (difflib's ratio, case and spacing ignored) say the same thing.
# On the bundle, two entries of one PR for the same keys that describe different changes reach 0.44.
SAME_SAID = 0.8


def _said(e: Entry) -> tuple[str, ...]:
    """The description items, compared case- and whitespace-insensitively."""
    desc = e.data.get("description") if isinstance(e.data, dict) else None
    items = desc if isinstance(desc, list) else [desc]
    return tuple(" ".join(str(x).split()).casefold() for x in items if x is not None and str(x).strip())


def same_said(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if a == b:
        return True
    x, y = " ".join(a), " ".join(b)
    return bool(x and y) and difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() >= SAME_SAID


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    only = changelog_only(ctx)
    others = len([f for f in ctx.changeset.files if f.path not in {d.path for d in changelog_diffs(ctx)}])
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: duplicate entries not checked: {d.skip_reason}", path=d.path)
            continue
        if not d.new_entries:
            continue
        seen: dict[tuple, list[Entry]] = {}
        found = reruns = 0
        for e in d.new_entries:
            hit = base_copy(ctx, d, e)
            if hit is not None:
                copy, added = hit
                if not added:
                    continue  # an existing entry moved or re-linked: changelog-history-changed's
                if only:
                    reruns += 1  # a changelog-only PR re-runs the copied entry's sweep on purpose
                    continue
                found += 1
                link = "apart from its pr-link" if copy.pr_link != e.pr_link else "pr-link included"
                yield Problem(d.path, e.start_line,
                              f"The new entry for `{e.summary}` is a copy of existing entry {copy.label} (line "
                              f"{copy.start_line:,} of the base), {link}, while this PR also changes {others} other "
                              f"file{'s' if others != 1 else ''}: it describes that entry's change, not this PR's. "
                              f"{accepted(ctx, d)}",
                              end_line=e.end_line,
                              evidence=(f"same config-keys and description as base lines "
                                        f"{copy.start_line:,}-{copy.end_line:,}",))
                continue
            keys = e.config_keys
            if not keys or not isinstance(e.data, dict):
                continue
            st = e.data.get("scenario-type") if isinstance(e.data.get("scenario-type"), list) else None
            key = frozenset(keys)
            ident = (key, frozenset(map(str, st)) if st else None, bool(e.data.get("evals-only")),
                     bool(e.data.get("all-evals")), e.pr_link)
            said = _said(e)
            first = next((f for f in seen.get(ident, []) if same_said(_said(f), said)), None)
            if first is None:
                seen.setdefault(ident, []).append(e)
                continue
            found += 1
            yield Problem(
                d.path,
                e.start_line,
                f"The new entry at line {e.start_line:,} selects the same keys as the new entry at line "
                f"{first.start_line:,} ({', '.join(f'`{k}`' for k in sorted(key)[:4])}"
                f"{' …' if len(key) > 4 else ''}) with {'the same' if _said(first) == said else 'a nearly identical'} "
                f"description; it runs no additional sweep "
                f"jobs. {accepted(ctx, d)}",
                end_line=e.end_line,
                evidence=(f"entries at lines {first.start_line:,} and {e.start_line:,}",),
            )
        if reruns:
            yield Passed(
                f"{d.path}: {reruns} new entr{'y copies' if reruns == 1 else 'ies copy'} existing entries in a "
                f"PR that changes only the changelog: a re-run of their sweeps",
                path=d.path,
            )
        if not found and not reruns:
            yield Passed(f"{d.path}: {len(d.new_entries)} new entr{'y is' if len(d.new_entries) == 1 else 'ies are'} "
                         f"distinct from each other and from the {d.base_count:,} existing entries", path=d.path)
