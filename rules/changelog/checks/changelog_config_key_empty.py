"""Flags a new perf-changelog entry with an empty `config-keys` list or an empty item in it.

## Why it matters
`config-keys` is what the sweep runs. A bare `- config-keys:` line (a stray list item, #1791),
an empty list or a blank item (`-` alone, `""`) selects nothing: a null item fails
`ChangelogEntry` validation on both gates, and an empty string passes the schema but fails the
PR-run check's key resolution ("Config key '' not found in master configs"), so no sweep runs for
the whole PR.

## When it fires
On every parsed entry this PR adds that has a `config-keys` key: it fires when the list is empty or
null, and for each item that is null or a blank string. An entry that does not parse, lacks the key,
or has a `config-keys` that is not a list is left to `yaml-invalid` and `changelog-entry-invalid`. A
changelog the review cannot read or compare is skipped with the reason.

## Example
    - config-keys:
        -
        - dsr1-fp4-gb200-dynamo-sglang
      description:
        - "Enable power monitoring"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1791

## Fix
List at least one master-config key (or a `*` pattern) under `config-keys`, one per line, and
delete blank items and stray `- config-keys:` lines.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.changelog.analysis import Entry, changelog_diffs
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR018"
NAME = "changelog-config-key-empty"
SEVERITY = Severity.BLOCKING
PROOF = "gate"


def _item_line(e: Entry, index: int) -> int:
    key_line = e.key_lines.get("config-keys", e.start_line)
    lines = e.text.split("\n")
    seen = -1
    for k in range(key_line - e.start_line + 1, len(lines)):
        t = lines[k]
        if t.strip() and not t.startswith("   "):
            break
        if t.lstrip().startswith("-"):
            seen += 1
            if seen == index:
                return e.start_line + k
    return key_line


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: config-keys items not checked: {d.skip_reason}", path=d.path)
            continue
        ok = 0
        for e in d.new_entries:
            if not isinstance(e.data, dict) or "config-keys" not in e.data:
                continue  # unparsed (yaml-invalid) or missing key (changelog-entry-invalid)
            keys = e.data["config-keys"]
            line = e.key_lines.get("config-keys", e.start_line)
            if keys is None or keys == []:
                n = note(ctx, d, pr_run=("entry-schema",), merge=("entry-schema",), lines=(e.start_line, e.end_line))
                yield Problem(d.path, line, n.on(f"The entry at line {e.start_line:,} has "
                                                 f"{'no' if keys is None else 'an empty'} `config-keys` list."),
                              end_line=e.end_line,
                              fix="List the master-config keys this entry benchmarks, or delete the stray entry.",
                              evidence=(f"`config-keys` is `{keys!r}`", *n.evidence))
                continue
            if not isinstance(keys, list):
                continue  # wrong type: changelog-entry-invalid
            bad = 0
            for k, item in enumerate(keys):
                if item is None or (isinstance(item, str) and not item.strip()):
                    bad += 1
                    stage = ("entry-schema",) if item is None else ("config-key",)
                    n = note(ctx, d, pr_run=stage, merge=("entry-schema",), lines=(e.start_line, e.end_line))
                    yield Problem(d.path, _item_line(e, k),
                                  n.on(f"`config-keys` item {k + 1} of the entry for `{e.summary}` is "
                                       f"{'empty' if item is None else 'a blank string'}."),
                                  fix="Delete the blank item, or write the master-config key it was meant to be.",
                                  evidence=(f"items: {keys!r}", *n.evidence))
            if not bad:
                ok += 1
        if ok:
            yield Passed(f"{d.path}: {ok} new entr{'y lists' if ok == 1 else 'ies list'} only non-empty config-keys "
                         f"items", path=d.path)
