"""Flags a new perf-changelog entry that repeats another new entry's keys or copies an existing entry.

## Why it matters
Two new entries for the same PR that select the same keys (#327) describe one change twice:
the second runs nothing (the changelog processor skips a key an earlier entry of the PR already
ran), and the history reads as two changes. A new entry that is a copy of an existing one apart
from its pr-link is usually a template that was never edited; the merge helper also drops PR
entries whose content is already on main when it resolves a changelog conflict, so the PR's
contribution can vanish at merge. A nit: the sweep still runs.

## Example
    - config-keys:
        - gptoss-fp4-b200-vllm
      description:
        - "Bump vLLM to v0.11"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/327

    - config-keys:
        - gptoss-fp4-b200-vllm          # the same keys again, same PR
      description:
        - "Bump vLLM to v0.11 (b200)"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/327

## Fix
Merge the two entries into one, or select different keys; rewrite a copied entry to describe
this PR's change.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.changelog.analysis import base_entries, changelog_diffs, signature
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR020"
NAME = "changelog-entry-duplicate"
SEVERITY = Severity.NIT
MAX_BASE_ENTRIES = 20_000


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: duplicate entries not checked: {d.skip_reason}", path=d.path)
            continue
        if not d.new_entries:
            continue
        sigs = {}
        # Split the base only when, for some new entry, the longest line of its signature occurs in it:
        # every line of a copy's signature is in the base (a copy is rare; the base is big).
        probes = [max(signature(e.text).split("\n"), key=len).encode() for e in d.new_entries]
        if d.base and d.base.count(b"\n- ") < MAX_BASE_ENTRIES and any(pr in d.base for pr in probes):
            for b in base_entries(d):
                sigs.setdefault(signature(b.text), b)
        seen: dict[tuple, object] = {}
        found = 0
        for e in d.new_entries:
            copy = sigs.get(signature(e.text))
            if copy is not None:
                found += 1
                gn = note(ctx, d, contract="the documented contract (each entry documents this PR's change)")
                yield Problem(d.path, e.start_line,
                              gn.on(f"The new entry for `{e.summary}` is a copy of existing entry {copy.label} "
                                    f"(line {copy.start_line:,} of the base) apart from its pr-link."),
                              end_line=e.end_line,
                              evidence=(f"same config-keys and description as base lines "
                                        f"{copy.start_line:,}-{copy.end_line:,}", *gn.evidence))
                continue
            keys = e.config_keys
            if not keys:
                continue
            st = e.data.get("scenario-type") if isinstance(e.data.get("scenario-type"), list) else None
            key = frozenset(keys)
            ident = (key, frozenset(map(str, st)) if st else None, bool(e.data.get("evals-only")),
                     bool(e.data.get("all-evals")))
            first = seen.get(ident)
            if first is None:
                seen[ident] = e
                continue
            found += 1
            gn = note(ctx, d, contract="the documented contract (one entry per change)")
            yield Problem(d.path, e.start_line,
                          gn.on(f"The new entry at line {e.start_line:,} selects the same keys as the new entry at "
                                f"line {first.start_line:,} ({', '.join(f'`{k}`' for k in sorted(key)[:4])}"
                                f"{' …' if len(key) > 4 else ''}); it runs no additional sweep jobs."),
                          end_line=e.end_line,
                          evidence=(f"entries at lines {first.start_line:,} and {e.start_line:,}", *gn.evidence))
        if not found:
            yield Passed(f"{d.path}: {len(d.new_entries)} new entr{'y is' if len(d.new_entries) == 1 else 'ies are'} "
                         f"distinct from each other and from the {d.base_count:,} existing entries", path=d.path)
