"""Flags a master-config key the PR adds or changes that no new changelog entry selects.

## Why it matters
The sweep runs exactly the keys the new changelog entries select. A key changed in the master
config but left out of `config-keys` is never benchmarked by this PR, so the change merges
unmeasured while the sweep reports green for the keys it did run; the published results then
silently describe the old config.

## When it fires
On each master-config key the PR adds or changes (not removed, not a results-label-only change): it
fires when no `config-keys` item of a new entry names it or matches it by `*`. A change that only
removes search-space rows needs no entry and passes. Without a new entry the rule is skipped
(`changelog-entry-missing` covers that), and a key not matched while some new entry does not parse
is skipped too.

## Example
    # configs/nvidia-master.yaml: image bumped for two keys
    dsv4-fp4-b200-vllm:
      image: vllm/vllm-openai:v0.21.0
    dsv4-fp4-b300-vllm:
      image: vllm/vllm-openai:v0.21.0

    # perf-changelog.yaml: the new entry selects only one of them
    - config-keys:
        - dsv4-fp4-b200-vllm

A key whose head value is its base value minus whole scenarios or search-space rows (nothing
added or changed) is a removal, not a change: the sweep has nothing new to measure, so no entry is
asked for; the passed check lists such keys with their row counts. Any other edit (a row changed,
a field edited, a row added beside the removals) still needs an entry.

Only a change that reaches a job is this rule's: the sweep generator puts every field of a key
into the matrix rows the jobs run from, except `router` and the `version` of
`kv-offload-backend`, which travel only as labels of the results (`rules/changelog/reach.py`).
A key whose only change is to those labels runs the same benchmark as before, so leaving it
unselected is changed-label-not-selected's nit, not this rule's finding.

## Why a nit
Judged as blocking on ten sampled InferenceX PRs (benchmarks/precision.py), seven findings were
right and blocking and three were not the PR's own change: a branch that copied the base's files
in without a merge, and branches built on an integration branch whose keys came with it. A review
sees the PR's diff against the merge base, not which branch's work a changed key is, so it cannot
prove the change is this PR's; until it can (the base tip's value, the PR's own commits), the
finding says what will go unmeasured and does not fail the check. (Its message keeps the
wording it was judged under: the fingerprint, and with it the judgement, follows the message.)

## Fix
Add the key (or a `*` pattern that matches it) to the `config-keys` of the new entry, or revert
the change to the key if it was not meant to be part of this PR.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.reach import label_keys
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import changed_keys, key_pattern, only_removes_rows

CODE = "RR011"
NAME = "changed-config-not-selected"
SEVERITY = Severity.NIT
ENFORCES = ("A14",)
PLURAL = "changed keys are selected by no new entry"  # the App's grouped comment: "38 changed keys …"
MAX_LISTED = 8


def _removal(c):
    if c.status != "changed" or c.head is None or c.base is None or c.head.error or c.base.error:
        return None
    return only_removes_rows(c.base.value, c.head.value)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    labels = label_keys(ctx)  # changes no job reads: changed-label-not-selected's
    live = [c for c in changed_keys(ctx) if c.status != "removed" and c.key not in labels]
    removals = [(c, r) for c in live for r in [_removal(c)] if r is not None]
    if removals:
        shown = "; ".join(f"`{c.key}`: {r.base_rows} → {r.head_rows} rows in {r.base_scenarios} → {r.head_scenarios} "
                          "scenario blocks" for c, r in removals[:MAX_LISTED])
        more = f" and {len(removals) - MAX_LISTED} more" if len(removals) > MAX_LISTED else ""
        yield Passed(f"{len(removals)} changed key(s) only remove rows (nothing added or changed, nothing new to "
                     f"sweep), so no changelog entry needs to select them: {shown}{more}")
        gone = {c.key for c, _ in removals}
        live = [c for c in live if c.key not in gone]
    if not live:
        return
    entries = [(d, e) for d in changelog_diffs(ctx) for e in d.new_entries]
    if not entries:
        yield Skipped("no new changelog entry, so selection of the changed keys was not checked "
                      "(changelog-entry-missing covers this)")
        return
    unparsed = [e for _, e in entries if not isinstance(e.data, dict)]
    items = [k for _, e in entries for k in e.config_keys]
    patterns = [(k, key_pattern(k)) for k in items]
    covered: list[str] = []
    for c in live:
        by = next((item for item, pat in patterns if ("*" in item and pat.fullmatch(c.key)) or item == c.key), None)
        if by is not None:
            covered.append(c.key if by == c.key else f"{c.key} (by `{by}`)")
            continue
        if unparsed:
            yield Skipped(f"config key `{c.key}` is not selected by the parsed entries, but "
                          f"{len(unparsed)} new entr{'y' if len(unparsed) == 1 else 'ies'} could not be parsed",
                          path=c.path)
            continue
        diff, entry = entries[-1]
        line = entry.key_lines.get("config-keys", entry.start_line)
        yield Problem(c.path, c.line, f"config key `{c.key}` is {c.status} here but no new changelog entry selects it. "
                                      "Both gates accept this; only the documented contract (every changed key is "
                                      "benchmarked by its PR) forbids it.",
                      fix=f"Add `{c.key}` to `config-keys` of the new entry ({diff.path} line {line}), "
                          "or undo the change to this key.",
                      evidence=(f"`{c.key}` {c.status} in {c.path} (line {c.line})",
                                f"new entries select: {', '.join(f'`{k}`' for k in items) or 'nothing'}"))
    if covered:
        shown = ", ".join(covered[:MAX_LISTED]) + (
            f" and {len(covered) - MAX_LISTED} more" if len(covered) > MAX_LISTED else ""
        )
        yield Passed(f"{len(covered)} changed key(s) are selected by new changelog entries: {shown}")
