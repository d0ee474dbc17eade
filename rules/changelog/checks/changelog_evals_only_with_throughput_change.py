"""Flags an `evals-only` / `all-evals` changelog entry selecting keys whose throughput this PR changes.

## Why it matters
`evals-only: true` and `all-evals: true` suppress the throughput jobs of the entry: only the
accuracy evals run. When the PR also adds the key or changes what it benchmarks (image, search
space, engine settings), the throughput of the new configuration is never measured, yet the
change ships and the dashboards keep showing numbers of the old one. The flag is right for a
PR that only touches eval wiring; a nit, because the author may run throughput separately.

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

from rules.changelog.analysis import new_entry_items
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import changed_keys, match_keys

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


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    changed = {c.key: c for c in changed_keys(ctx) if c.status != "removed" and c.head is not None}
    for item in new_entry_items(ctx, "eval flags"):
        if isinstance(item, Skipped):
            yield item
            continue
        d, e = item
        flag = "evals-only" if e.data.get("evals-only") is True else "all-evals" if e.data.get("all-evals") is True else None
        if flag is None:
            continue
        hit = [k for key in e.config_keys for k in match_keys(key, changed)]
        hit = list(dict.fromkeys(hit))
        if not hit:
            yield Passed(f"{d.path}: `{flag}` entry at line {e.start_line:,} selects no key whose throughput this PR "
                         f"changes", path=d.path, line=e.start_line)
            continue
        what = "; ".join(f"`{k}` ({', '.join(_changed_fields(changed[k])[:4])})" for k in hit[:4])
        n = note(ctx, d, contract="the documented contract (a throughput change is measured by its PR)")
        yield Problem(d.path, e.key_lines.get(flag, e.start_line),
                      n.on(f"`{flag}: true` suppresses throughput jobs, but this PR changes {len(hit)} selected "
                           f"key(s): {what}."),
                      evidence=(*(f"{k} changed in {changed[k].path} line {changed[k].line:,}" for k in hit[:4]),
                                *n.evidence))
