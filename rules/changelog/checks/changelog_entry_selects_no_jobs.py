"""Flags a new perf-changelog entry whose selection expands to no sweep job at all.

## Why it matters
The changelog processor runs, for each new entry, the generator over the keys it selects, with
its `scenario-type` filter and its `evals-only` / `all-evals` switches. An entry whose keys have
no rows for the requested scenarios (`scenario-type: [agentic-coding]` on fixed-seq-len-only
keys) or whose evals-only selection has no 8k1k row produces nothing: both gates accept it, the
sweep is green, and the change it describes is never measured. (Keys an earlier entry of the same
PR already runs are not a problem: they run once.) The passed check shows the arithmetic for every entry (rows ×
concurrencies = jobs).

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
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.conventions import conventions
from rules.master.analysis import master_files, master_keys
from rules.master.matrix import entry_jobs
from rules.master.schema import validate_key

CODE = "RR022"
NAME = "changelog-entry-selects-no-jobs"
SEVERITY = Severity.BLOCKING
PROOF = "engine"
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
    for d in diffs:
        for ej in entry_jobs(ctx, d):
            e = ej.entry
            if not ej.keys:
                continue  # nothing resolved: changelog-config-key-unknown
            if any(k.error for k in ej.per_key):
                continue  # the generator fails: master-config-sweep-generation-fails
            invalid = [k for k in ej.keys if validate_key(keys[k].value, conv)] if not ej.jobs else []
            if invalid:
                yield Skipped(f"{d.path}: entry at line {e.start_line:,}: `{invalid[0]}` does not pass the master-config "
                              f"schema, so its sweep jobs were not counted", path=d.path)
                continue
            if ej.jobs:
                parts = [k.arithmetic() for k in ej.per_key if k.jobs][:MAX_SHOWN]
                more = len([k for k in ej.per_key if k.jobs]) - len(parts)
                yield Passed(f"{d.path}: entry at line {e.start_line:,} selects {len(ej.keys)} key(s), "
                             f"{ej.jobs:,} sweep jobs: " + "; ".join(parts) + (f"; and {more} more key(s)" if more else ""),
                             path=d.path, line=e.start_line)
                continue
            if ej.repeated and len(ej.repeated) == len(ej.keys):
                yield Passed(f"{d.path}: entry at line {e.start_line:,} selects only keys an earlier new entry "
                             f"already runs ({', '.join(f'`{k}`' for k in ej.keys[:MAX_SHOWN])})", path=d.path,
                             line=e.start_line)
                continue
            if ej.throughput_suppressed:
                why = (f"`{'evals-only' if e.data.get('evals-only') else 'all-evals'}` suppresses the throughput jobs "
                       f"and the keys have no eval rows (8k1k) for {', '.join(ej.scenarios)}")
            else:
                why = f"the selected keys have no search-space rows for {', '.join(ej.scenarios)}"
            n = note(ctx, d, contract="the documented contract (an entry triggers the sweep of what it describes)")
            yield Problem(d.path, e.start_line,
                          n.on(f"The entry for `{e.summary}` selects {len(ej.keys)} key(s) but expands to no sweep "
                               f"job: {why}."),
                          end_line=e.end_line,
                          evidence=(*(k.arithmetic() for k in ej.per_key[:MAX_SHOWN]),
                                    f"scenario filter: {', '.join(ej.scenarios)}", *n.evidence))
