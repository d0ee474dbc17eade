"""Flags a `source` (or `.`) in a changed script whose file does not exist at the path it resolves to.

## Why it matters
Scripts source the shared `benchmarks/benchmark_lib.sh` relative to their own directory
(`source "$(dirname "$0")/../../benchmark_lib.sh"`). Copy a script one directory deeper or
shallower and the relative path points nowhere: the job dies on its first line (#1633: new
scripts under `fixed_seq_len/` sourcing `../benchmark_lib.sh`; #1709: agentic disagg scripts
under `multi_node/agentic/` doing the same).

## When it fires
The path is interpreted (`$0`, `dirname`, `${BASH_SOURCE[0]}`, variables) with the working
directory at the repository root, as the launchers run scripts; a path the review cannot know is
not reported, and neither is a file under a directory the repository does not track (a checkout
or virtualenv the launcher creates at run time, `source .venv/bin/activate` after `uv venv`): it is
skipped with the reason. Only `source` lines the PR adds are checked.

## Example
    # benchmarks/single_node/fixed_seq_len/x.sh
    source "$(dirname "$0")/../benchmark_lib.sh"   # → benchmarks/single_node/benchmark_lib.sh

## Fix
Point the path at the file (here `../../benchmark_lib.sh`); the message names where it resolves.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.resolve import standalone

CODE = "RR403"
NAME = "source-path-unresolved"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for f in changed_scripts(ctx, ("scripts", "launchers")):
        result = standalone(ctx, f.path)
        if isinstance(result, str):
            yield Skipped(f"{f.path}: {result}; source paths not checked", path=f.path)
            continue
        lines = touched(ctx, f.path)
        seen = set()
        for ev in result.sources:
            if ev.path != f.path or ev.line in seen:
                continue
            seen.add(ev.line)
            if lines is not None and ev.line not in lines:
                continue
            if ev.target is None:
                continue  # unknown or outside what the review can see: not a finding
            parent = ev.target.rsplit("/", 1)[0] if "/" in ev.target else ""
            if ev.exists is False and ctx.changeset.is_dir(parent) is not True:
                # A directory the repository does not track (a clone, a virtualenv the launcher makes at
                # run time): the file may well exist when the line runs, so nothing is proven.
                yield Skipped(f"{f.path}:{ev.line}: `source {ev.shape}` resolves to `{ev.target}` under `{parent}/`, "
                              "which the repository does not track (made at run time?), so it was not judged",
                              path=f.path)
                continue
            if ev.exists is False:
                yield Problem(f.path, ev.line, f"`source {ev.shape}` resolves to `{ev.target}`, which does not exist",
                              evidence=(f"`{ev.shape}` from {f.path}", "relative to the repository root, where the "
                                        "launchers run benchmark scripts"))
            elif ev.exists:
                yield Passed(f"{f.path}:{ev.line}: sources `{ev.target}`", path=f.path, line=ev.line)
