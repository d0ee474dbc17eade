"""Flags a new perf-changelog entry whose selection expands to no sweep job at all.

## Why it matters
The changelog processor (`utils/process_changelog.py` `main()`) runs, for each new entry, the
sweep generator (`utils/matrix_logic/generate_sweep_configs.py` `generate_test_config_sweep`)
over the keys it selects, with its `scenario-type` filter, then an eval pass with
`--evals-only` (`mark_eval_entries`, and `mark_all_eval_entries` for an `all-evals` entry);
`evals-only` / `all-evals` drop the throughput pass. `run-sweep.yml` runs exactly the jobs it
prints. An entry whose keys have no rows for the requested scenarios (`scenario-type:
[agentic-coding]` on fixed-seq-len-only keys), or whose evals-only selection has no row the eval
pass marks, produces nothing: both gates accept it, the sweep is green, and the change it
describes is never benchmarked. (Keys an earlier entry of the same PR already runs are not a
problem: they run once.) The passed check shows the arithmetic for every entry (rows ×
concurrencies = jobs).

Blocking by the harness's own behaviour (`PROOF = "engine"`: the processor and generator, as
they execute, decide which benchmark runs; no gate rejects the entry, so it is not a gate
finding). Because that proof is an emulation of the repository's tooling, it is claimed only
where the emulation is that tooling: a PR that changes the processor or the generator
(`paths.gate_tooling`) runs its own version, and the finding is skipped (#1189 lowers
`MIN_EVAL_CONC` to 8, so its conc-8 row gets an eval job). Single-node agentic rows count for
the eval pass from 2026-07-16 on (#1947: one SWE-bench eval per key; #2295's evals-only agentic
entry runs one). Where the eval selection decides (the keys have rows but evals-only leaves
them no eval row), the finding needs the eval selection modelled here, that of the tooling of
2026-06-21 on (#1879); older tooling is skipped.

## When it fires
On every entry this PR adds, with the head's master configs: it fires when the entry's keys resolve
and expand, under its `scenario-type` and eval flags, to no sweep job (no search-space row for the
scenarios, or `evals-only` / `all-evals` with no row the eval pass marks). Entries whose keys do not
resolve (`changelog-config-key-unknown`), whose generation fails
(`master-config-sweep-generation-fails`), that only repeat keys an earlier new entry runs, or whose
key fails the schema are not judged; without a master config, or when the eval selection of the
base's convention is not modelled, it is skipped. A PR that changes the repository's sweep tooling
is not judged by this emulation.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm                  # has only fixed-seq-len scenarios
      scenario-type:
        - agentic-coding
      description:
        - "Enable the agentic arm"

## Fix
Select keys that have rows for the scenarios the entry names, drop the `scenario-type` filter,
or add the rows to the master config.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.content import accepted
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.conventions import EVAL_SELECTION, conventions, date_of
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import master_files, master_keys
from rules.master.matrix import entry_jobs, eval_policy
from rules.master.schema import validate_key

CODE = "RR022"
NAME = "changelog-entry-selects-no-jobs"
SEVERITY = Severity.NIT
# What it proves is the output of the repository's tooling: a PR that changes that tooling
# (`paths.gate_tooling`) is not judged by the emulation (rules/runner.py skips the findings).
EMULATES_TOOLING = True
MAX_SHOWN = 6


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    diffs = [d for d in changelog_diffs(ctx) if d.new_entries and not d.skip_reason]
    if not diffs:
        return
    if not master_files(ctx, "head"):
        yield Skipped("no master config is available to the review, so the sweep jobs were not counted")
        return
    keys = master_keys(ctx, "head")
    conv = conventions(ctx)
    modelled, agentic = eval_policy(ctx)
    for d in diffs:
        for ej in entry_jobs(ctx, d):
            e = ej.entry
            if not ej.keys:
                continue  # nothing resolved: changelog-config-key-unknown
            if any(k.error for k in ej.per_key):
                continue  # the generator fails: master-config-sweep-generation-fails
            invalid = [k for k in ej.keys if validate_key(keys[k].value, conv)] if not ej.jobs else []
            if invalid:
                yield Skipped(
                    f"{d.path}: entry at line {e.start_line:,}: `{invalid[0]}` does not pass the master-config "
                    f"schema, so its sweep jobs were not counted",
                    path=d.path,
                )
                continue
            if ej.jobs:
                parts = [k.arithmetic() for k in ej.per_key if k.jobs][:MAX_SHOWN]
                more = len([k for k in ej.per_key if k.jobs]) - len(parts)
                yield Passed(
                    f"{d.path}: entry at line {e.start_line:,} selects {len(ej.keys)} key(s), "
                    f"{ej.jobs:,} sweep jobs: " + "; ".join(parts) + (f"; and {more} more key(s)" if more else ""),
                    path=d.path,
                    line=e.start_line,
                )
                continue
            if ej.repeated and len(ej.repeated) == len(ej.keys):
                yield Passed(f"{d.path}: entry at line {e.start_line:,} selects only keys an earlier new entry "
                             f"already runs ({', '.join(f'`{k}`' for k in ej.keys[:MAX_SHOWN])})", path=d.path,
                             line=e.start_line)
                continue
            rows = sum(k.rows for k in ej.per_key)
            flag = 'evals-only' if e.data.get('evals-only') else 'all-evals'
            if ej.throughput_suppressed and rows and not modelled:
                yield Skipped(
                    f"{d.path}: entry at line {e.start_line:,}: `{flag}` leaves the eval selection to decide, "
                    f"and the eval selection of {conv.label} (before {date_of(EVAL_SELECTION)}) is not "
                    f"modelled, so its eval jobs were not counted",
                    path=d.path,
                )
                continue
            if ej.throughput_suppressed and rows:
                kinds = "8k1k rows at concurrency 16 or more" + (", or single-node agentic rows" if agentic else "")
                why = (f"`{flag}` suppresses the throughput jobs and the keys have no row the eval pass marks "
                       f"({kinds}) for {', '.join(ej.scenarios)}")
            else:
                why = f"the selected keys have no search-space rows for {', '.join(ej.scenarios)}"
            yield Problem(d.path, e.start_line,
                          f"The entry for `{e.summary}` selects {len(ej.keys)} key(s) but expands to no sweep "
                          f"job: {why}. {accepted(ctx, d)}",
                          end_line=e.end_line,
                          evidence=(*(k.arithmetic() for k in ej.per_key[:MAX_SHOWN]),
                                    f"scenario filter: {', '.join(ej.scenarios)}"))
