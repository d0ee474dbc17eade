"""Flags a master-config key the sweep generator cannot expand into jobs, although the schema accepts it.

## Why it matters
`generate_sweep_configs.py` turns each key into matrix rows and validates each row; some
configurations pass the schema and still fail there: DRAM KV offload on a runner without
`available-cpu-dram-mib` / `gpus-per-node` in `runners.yaml`, or a topology that does not fit or
tile the node (`tp × pp × pcp-size` above `gpus-per-node`, a worker that does not divide it). The
PR-run changelog check (`process_changelog.py` → `generate_sweep_configs.py test-config`) fails
when a changelog entry selects such a key.

## When it fires
Without a readable `runners.yaml` at the head the check is skipped: the generator reads it before
it expands any key, so nothing about the expansion is known.

## Example
    dsv4-fp4-b300-vllm-agentic:
      runner: cluster:b300-nv            # runners.yaml has no `hardware:` entry for it
      scenarios:
        agentic-coding:
          - dram-utilization: 0.5
            search-space:
              - { tp: 8, kv-offloading: dram, kv-offload-backend: {name: lmcache}, conc-list: [8, 16] }

## Fix
Add the runner's hardware facts to `runners.yaml`, or pick a topology that fits the node.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.conventions import schema_modelled
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import changed_keys
from rules.master.matrix import expand_key, runners_config, schema_failures

CODE = "RR105"
NAME = "master-config-sweep-generation-fails"
SEVERITY = Severity.BLOCKING
PROOF = "gate"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    live = [c for c in changed_keys(ctx) if c.head is not None and isinstance(c.head.value, dict)
            and schema_modelled(c.head.path)]  # the newer layout's planner (`infx.matrix.plan`) is not modelled
    if not live:
        return
    invalid = {info.key for info, _ in schema_failures(ctx)}
    runners = runners_config(ctx)
    if runners is None:
        # The generator reads runners.yaml before it expands anything: without it nothing here is known.
        yield Skipped(f"{len(live)} changed key(s): `runners.yaml` was not read (absent or unreadable), so whether "
                      "the sweep generator expands them was not checked")
        return
    ok = []
    for c in live:
        if c.key in invalid:
            continue  # master-config-schema-invalid
        kj = expand_key(c.key, c.head.value, runners=runners)
        if kj.error:
            yield Problem(c.path, c.line, f"`{c.key}`: the sweep generator fails: {kj.error}. Rejected by the PR-run "
                                          "`check-changelog` when an entry selects this key.",
                          evidence=(f"`generate_sweep_configs.py test-config --config-keys {c.key}`",
                                    "runners.yaml " + ("read" if runners is not None else "not available")))
            continue
        ok.append(kj)
    if ok:
        shown = "; ".join(k.arithmetic() for k in ok[:4]) + (f"; and {len(ok) - 4} more" if len(ok) > 4 else "")
        yield Passed(f"{len(ok)} changed key(s) expand into sweep jobs: {shown}")
