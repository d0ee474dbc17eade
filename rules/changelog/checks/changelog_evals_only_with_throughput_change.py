"""Flags an `evals-only` / `all-evals` changelog entry selecting keys whose throughput this PR changes.

## Why it matters
`evals-only: true` and `all-evals: true` suppress the throughput jobs of the entry: only the
accuracy evals run. When the PR also adds the key or changes what it benchmarks (image, search
space, engine settings), the throughput of the new configuration is never measured, yet the
change ships and the dashboards keep showing numbers of the old one. The flag is right for a
PR that only touches eval wiring; a nit, because the author may run throughput separately.

## When it fires
On the entries this PR writes (rules/changelog/content.py): an entry whose pr-link names another
PR records that PR's work (#671's squashed merge of main carries #558's evals-only entry; #1283
runs the evals of #1236, whose own entry measured the throughput), and an existing entry moved
is history. A key counts as changed in throughput when the PR adds it or changes what one of its
points runs; a change that only takes points away (#911 deleted the 1k8k blocks of 52 keys, and
a one-off PR narrows a search space to steer the eval selection) leaves every remaining point as
it was measured, so there is nothing new to measure. A key another new entry of the PR selects
without the flag has its throughput measured by that entry.

## Example
    - config-keys:
        - dsr1-fp8-h100-dynamo-trt          # this PR bumps its image
      description:
        - "Bump TRT-LLM image"
      evals-only: true

## Fix
Drop `evals-only` / `all-evals` from an entry whose keys' throughput changed, or add a second
entry without it for those keys.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.changelog.content import accepted, own_entry_items
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import changed_keys, match_keys
from rules.master.matrix import removes_points_only

CODE = "RR021"
NAME = "changelog-evals-only-with-throughput-change"
SEVERITY = Severity.NIT


def _changed_fields(c) -> list[str]:
    if c.status == "added" or c.base is None:
        return ["(new key)"]
    hv, bv = c.head.value, c.base.value
    if not isinstance(hv, dict) or not isinstance(bv, dict):
        return ["(value)"]
    return sorted(k for k in set(hv) | set(bv) if hv.get(k) != bv.get(k))


def _flag(e) -> str | None:
    return (
        "evals-only" if e.data.get("evals-only") is True else "all-evals" if e.data.get("all-evals") is True else None
    )


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    changed = {
        c.key: c
        for c in changed_keys(ctx)
        if c.status != "removed"
        and c.head is not None
        and not (c.status == "changed" and c.base is not None and removes_points_only(c.base.value, c.head.value))
    }
    items = list(own_entry_items(ctx, "eval flags"))
    # Keys another new entry of the PR runs with throughput jobs are measured by that entry.
    measured = {k for it in items if isinstance(it, tuple) and _flag(it[1]) is None
                for key in it[1].config_keys for k in match_keys(key, changed)}
    for item in items:
        if isinstance(item, Skipped):
            yield item
            continue
        d, e = item
        flag = _flag(e)
        if flag is None:
            continue
        hit = [k for key in e.config_keys for k in match_keys(key, changed) if k not in measured]
        hit = list(dict.fromkeys(hit))
        if not hit:
            yield Passed(f"{d.path}: `{flag}` entry at line {e.start_line:,} selects no key whose throughput this PR "
                         f"changes", path=d.path, line=e.start_line)
            continue
        what = "; ".join(f"`{k}` ({', '.join(_changed_fields(changed[k])[:4])})" for k in hit[:4])
        yield Problem(d.path, e.key_lines.get(flag, e.start_line),
                      f"`{flag}: true` suppresses throughput jobs, but this PR changes {len(hit)} selected "
                      f"key(s): {what}. {accepted(ctx, d)}",
                      evidence=tuple(f"{k} changed in {changed[k].path} line {changed[k].line:,}" for k in hit[:4]))
