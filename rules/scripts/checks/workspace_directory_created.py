"""Flags a line the PR adds to a benchmark script that creates a new directory under `/workspace/`.

## Why it matters
`/workspace` is the repository checkout the runner mounts into the benchmark container. The
repository's guidance allows files there but no new directories during a benchmark (F6): a
directory a root container leaves in the checkout is owned by root, the runner user cannot
remove it, and the next job's checkout on that runner fails until someone cleans it by hand.

## When it fires
On the lines the PR adds to what a benchmark runs (the scripts under `benchmarks/` and the
launchers under `runners/`; not `experimental/` or other tooling, whose `/workspace` may be
another mount): a `mkdir`, `install -d`, `git clone … <dir>` or download `--local-dir` whose
directory is a literal `/workspace/<name>` path, or a variable the script assigns such a literal
above the command (`DIR=/workspace/x`, `DIR="${OTHER:-/workspace/x}"`; the same value on every
assignment above). Not flagged: `/workspace` itself (the checkout), directories the workflow
itself names in the environment it passes (`RESULT_DIR`, from `scripts.point_env`) and anything
under them, a default of a variable the workflow or the runner supplies
(`${RESULT_DIR:-/workspace/x}`: their value wins), files written into existing directories
(`> /workspace/server.log`, `cp … /workspace/x.json`), paths the review cannot read as a literal
(a variable the caller sets), and commands on lines the PR does not add.

The rule is read from the base revision's guidance (AGENTS.md, CLAUDE.md, CONTRIBUTING.md,
`docs/PR_REVIEW_CHECKLIST.md`): a base whose guidance does not forbid new `/workspace`
directories is Skipped with that reason, and so is a review that did not read it.

## Example
    mkdir -p /workspace/traces
    OUT=/workspace/speedbench_out; mkdir -p "$OUT"

## Fix
Write the files into a directory that already exists (`$RESULT_DIR`), or into a scratch directory
outside the checkout (`/tmp/…`), and copy only the result files into `/workspace`.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.hygiene import said, workflow_dirs, workspace_dirs, workspace_rule
from rules.scripts.parse import Unreadable
from rules.scripts.resolve import parsed

CODE = "RR433"
NAME = "workspace-directory-created"
SEVERITY = Severity.BLOCKING
PROOF = "written:F6"
ENFORCES = ("F6",)


KINDS = ("scripts", "launchers")  # what a benchmark runs: benchmarks/**, runners/launch_*.sh


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    cs = ctx.changeset
    files = changed_scripts(ctx, KINDS)
    if not files:
        return
    rule = workspace_rule(cs)
    if rule is None:
        yield Skipped("the base revision's guidance was not read, so whether it forbids new /workspace "
                      "directories is unknown")
        return
    if rule is False:
        yield Skipped("the base revision's guidance (AGENTS.md, CONTRIBUTING.md, the review checklist) does not "
                      "forbid new directories under /workspace yet")
        return
    cfg = ctx.config.repo.scripts
    known, supplied = workflow_dirs(cfg.point_env), set(cfg.point_env) | set(cfg.runtime_env)
    for f in files:
        if f.head_text is None:
            continue
        added = touched(ctx, f.path)
        if added is not None and not added:
            continue
        script = parsed(ctx, f.path)
        if isinstance(script, Unreadable):
            yield Skipped(f"{f.path}: {script.reason}; /workspace directories not checked", path=f.path)
            continue
        found = workspace_dirs(script, added, known, supplied)
        for d in found:
            via = f" (`${d.via}`)" if d.via else ""
            yield Problem(d.path, d.line,
                          f"`{d.command}` creates the directory `{d.target}`{via} in the `/workspace` checkout: "
                          "the repository allows no new directories there during a benchmark",
                          fix="Write into a directory that exists (`$RESULT_DIR`) or a scratch directory outside "
                              "the checkout (`/tmp/…`), and copy only result files into `/workspace`.",
                          evidence=(said(rule),))
        if not found:
            yield Passed(f"{f.path}: no new /workspace directory on the lines the PR adds", path=f.path)
