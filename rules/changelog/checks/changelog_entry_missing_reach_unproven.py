"""Flags a PR without a changelog entry whose changes reach no benchmark command the review can see.

## Why it matters
The written rule (A1) asks for an entry for every change that can affect benchmark performance.
An edit of shared harness code outside the commands that start the serving engine and the
benchmark client — telemetry sampling, eval defaults, log collection, readiness checks, a revert
of such a change — and a change of result labels only (`router`, a backend's `version`) run the
same benchmarks as before as far as the code shows; maintainers merge such changes without an
entry. But the harness is shared by every benchmark, and what a sampling interval or a cleanup
step does to a run is not something this review can prove either way: a nit asks the author to
say which it is, and to add an entry if the numbers can move. Two more changes reach no
measurement the review can see: edits of a benchmark script that all come after the benchmark
client's last run (an eval or a summary added after the throughput run), and a YAML file under
the benchmarks that no master config, launcher or script the review read names.

## When it fires
When the PR changes something benchmark-related, appends no changelog entry, is not a cleanup, and
none of its changes is proven to reach a benchmark command (only result labels, a harness edit
outside the engine and client commands, a benchmark script whose changed lines all come after its
benchmark client's last run, or a recipe nothing the review read names). A change proven to reach
one is `changelog-entry-missing`'s; a PR that only removes is a cleanup
(`changelog-entry-missing-for-cleanup`).

## Example
A PR that only changes `start_gpu_monitor` in `benchmarks/benchmark_lib.sh` (the GPU telemetry
sampling interval), with no change to `perf-changelog.yaml`.

## Fix
If the change can move a benchmark's numbers, append an entry that selects the benchmarks it
reaches; otherwise say in the PR description why none is needed.
"""
from collections.abc import Iterator

from rules.changelog.changes import benchmark_changes, changelog_at_base, cleanup_reason, entry_state, listed
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity

CODE = "RR024"
NAME = "changelog-entry-missing-reach-unproven"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    changes = benchmark_changes(ctx)
    if not changes:
        return
    count, unreadable = entry_state(ctx)
    if count or unreadable or changelog_at_base(ctx) is False:
        return  # changelog-entry-missing reports these (passed / skipped)
    if cleanup_reason(ctx, changes):
        return  # changelog-entry-missing-for-cleanup's
    live = [c for c in changes if not c.removal]
    if not live or any(c.reach == "proven" for c in live):
        return  # changelog-entry-missing's
    first = live[0]
    if first.reach == "label":
        subject = f"changes only result labels of {listed(list(first.keys))}"
    else:
        subject = f"changes the {first.what} `{first.path}` {first.where}"
    yield Problem(first.path, first.line,
                  f"this PR {subject} and appends no perf-changelog entry: say why none is needed, or add one if "
                  "the benchmarks' numbers can move",
                  evidence=(*(c.evidence for c in live[:10]), "no changelog entry is added"))
