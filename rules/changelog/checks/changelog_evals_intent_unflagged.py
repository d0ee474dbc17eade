"""Flags a new changelog entry whose description speaks only of evals but that sets neither `evals-only` nor `all-evals`.

## Why it matters
`process_changelog.py` turns every new entry into jobs: without `evals-only: true` it schedules
the full throughput sweep of each selected key as well as the evals. An entry written to rerun
accuracy evals after an eval-side fix (#1119: two H100 multinode keys, nothing about throughput
in the PR) then spends a whole sweep re-measuring numbers nobody changed, and publishes them
again.

## When it fires
An entry is reported when every line of its description mentions evals (eval, evals,
evaluation, accuracy, gsm8k, lm-eval) and none mentions what a throughput change is written as
(throughput, performance, benchmark, image, search space, concurrency, parallelism, a bump, an
update, upgrade or change, tuning, a flag, a recipe, a version, add, new, enable, disable), and
this PR changes none of the keys it selects in the master configs. On the repository's main, one
entry of 630 is of this kind.

On the entries this PR writes (rules/changelog/content.py): an existing entry a history
"cleanup" moves or re-links (#1161 moved #1119's entry) and an entry whose pr-link names another
PR are not this PR's to flag.

## Example
    - config-keys:
        - dsr1-fp8-h100-dynamo-trt
      description:
        - "Rerun the evals after the timeout fixes"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1119

## Fix
Add `evals-only: true` to the entry (or `all-evals: true` to rerun every eval of the keys).
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from rules.changelog.content import accepted, own_entry_items
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity, Skipped
from rules.master.analysis import changed_keys, match_keys

CODE = "RR023"
NAME = "changelog-evals-intent-unflagged"
SEVERITY = Severity.NIT
EVAL_WORDS = re.compile(r"\beval(?:s|uation|uations)?\b|\baccuracy\b|\bgsm8k\b|\blm[-_ ]?eval", re.I)
THROUGHPUT_WORDS = re.compile(
    r"throughput|\bperf\b|performance|benchmark|\bimage|search[- ]space|\bconc|concurrency|parallel|\btp\d|\bep\d|"
    r"\bbump|\bupdate|\bupgrade|\bchang|\btun(?:e|ing)|\bflag|\brecipe|\bversion|\badd|\bnew\b|\benable|\bdisable",
    re.I,
)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Skipped]:
    changed = {c.key: c for c in changed_keys(ctx) if c.status != "removed" and c.head is not None}
    for item in own_entry_items(ctx, "eval intent"):
        if isinstance(item, Skipped):
            yield item
            continue
        d, e = item
        if e.data.get("evals-only") is True or e.data.get("all-evals") is True:
            continue
        desc = e.data.get("description")
        lines = [x for x in desc if isinstance(x, str) and x.strip()] if isinstance(desc, list) else []
        if not lines or not all(EVAL_WORDS.search(x) for x in lines) or any(THROUGHPUT_WORDS.search(x) for x in lines):
            continue
        if any(match_keys(k, changed) for k in e.config_keys):
            continue  # a selected key changes: its throughput is measured on purpose
        keys = ", ".join(f"`{k}`" for k in e.config_keys[:4]) + (" …" if len(e.config_keys) > 4 else "")
        yield Problem(d.path, e.key_lines.get("description", e.start_line),
                      f"The description of the entry for {keys} speaks only of evals, but without "
                      f"`evals-only: true` the sweep also reruns their throughput benchmarks. {accepted(ctx, d)}",
                      fix="Add `evals-only: true` to the entry (or `all-evals: true`).",
                      evidence=(f"description: {' / '.join(x[:80] for x in lines[:3])}",
                                "this PR changes none of the selected keys in the master configs"))
