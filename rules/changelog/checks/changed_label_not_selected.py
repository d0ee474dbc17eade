"""Flags a master-config key whose only change is a results label and that no new changelog entry selects.

## Why it matters
The sweep generator copies every field of a key into the matrix rows the jobs run from, except
`router` and the `version` of `kv-offload-backend`: those reach the job only as metadata of its
results (`ROUTER_METADATA`, `KV_OFFLOAD_BACKEND_METADATA`), read by the result processing, not by
any launcher, script or engine command (`rules/changelog/reach.py`). A key whose change is
confined to them runs exactly the benchmark it ran before, so no written rule is broken when the
new entries do not select it — but its published results keep the old label until the key is
swept again, which is worth a word. (A change that reaches a job is changed-config-not-selected's,
blocking.)

## When it fires
On each master-config key whose only change is a field that labels its results (one no job's command
reads), when new entries exist and all parse: it fires when no `config-keys` item of a new entry
names or matches the key. Without a new entry, or with an unparsed one, it stays quiet (other rules
say so).

## Example
    dsv4-fp4-gb200-dynamo-vllm:
      router:
        name: dynamo
        version: 0.9.1             # was 0.9.0; nothing else changed

    # perf-changelog.yaml: the PR's entry selects other keys only

## Fix
Select the key in the new entry if its results should carry the new label now, or leave it to
the next sweep of the key.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.reach import label_keys
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.master.analysis import changed_keys, key_pattern

CODE = "RR025"
NAME = "changed-label-not-selected"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    labels = label_keys(ctx)
    if not labels:
        return
    entries = [e for d in changelog_diffs(ctx) for e in d.new_entries]
    if not entries or any(not isinstance(e.data, dict) for e in entries):
        return  # no entry: changelog-entry-missing's; unparsed entries: changed-config-not-selected says so
    items = [k for e in entries for k in e.config_keys]
    patterns = [(k, key_pattern(k)) for k in items]
    for c in changed_keys(ctx):
        if c.key not in labels:
            continue
        if any(("*" in item and pat.fullmatch(c.key)) or item == c.key for item, pat in patterns):
            continue
        fields = ", ".join(f"`{f}`" for f in labels[c.key][:5])
        yield Problem(c.path, c.line, f"config key `{c.key}` changes only {fields}, a label of its results that no "
                                      "job's command reads, and no new changelog entry selects it.",
                      evidence=(f"`{c.key}` changed in {c.path} (line {c.line}): only {fields}",
                                "the sweep generator passes these fields to the job only as result metadata",
                                f"new entries select: {', '.join(f'`{k}`' for k in items) or 'nothing'}"))
