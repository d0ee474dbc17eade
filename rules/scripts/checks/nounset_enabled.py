"""Flags a line the PR adds to a benchmark script that turns on `set -u` where the base's guidance forbids it.

## Why it matters
Under `set -u` bash aborts the whole benchmark on the first read of a variable nobody set, so a
variable one launcher or scheduler does not pass kills that point's run instead of falling back to
the checks the scripts share (`check_env_vars`). Where the repository's guidance makes its bash
conventions mandatory and forbids `set -u` (F9), a script that turns it on breaks a written rule.

## When it fires
On the lines the PR adds to benchmark scripts: `set -u`, `set -o nounset` or any `set` whose
short options include `u` (`set -euo pipefail`, `set -eux`), and a shebang that passes `-u` to
bash. `set -e`, `set -o pipefail` and `set +u` are fine; a `set -u` the base already had is not
this PR's. The rule is read from the base revision's guidance (AGENTS.md, CLAUDE.md,
CONTRIBUTING.md, `docs/PR_REVIEW_CHECKLIST.md`): a sentence that forbids `set -u` (or says to avoid
it under a heading or line that makes the conventions mandatory). A base whose guidance does not
forbid it yet is Skipped with that reason, and so is a review that did not read it. Where this
rule reports the added `set -u`, the reads it would abort on (variable-unset-under-set-u,
variable-maybe-unset-under-set-u) are not reported again: removing the line fixes them all.

## Example
    #!/usr/bin/env bash
    set -euo pipefail

## Fix
Drop `u` from the options (`set -eo pipefail`, or `set -e`), and validate the variables the script
needs with `check_env_vars`.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.hygiene import nounset_lines, nounset_rule, said
from rules.scripts.parse import Unreadable
from rules.scripts.resolve import parsed

CODE = "RR434"
NAME = "nounset-enabled"
SEVERITY = Severity.BLOCKING
PROOF = "written:F9"
ENFORCES = ("F9",)


def _fixed(text: str) -> str:
    if "nounset" in text:
        return "drop `-o nounset`"
    return "drop `u` from the options"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    cs = ctx.changeset
    files = changed_scripts(ctx)
    if not files:
        return
    rule = nounset_rule(cs)
    if rule is None:
        yield Skipped("the base revision's guidance was not read, so whether it forbids `set -u` is unknown")
        return
    if rule is False:
        yield Skipped("the base revision's guidance (AGENTS.md, CONTRIBUTING.md, the review checklist) does not "
                      "make forbidding `set -u` a mandatory convention yet")
        return
    for f in files:
        added = touched(ctx, f.path)
        if added is not None and not added:
            continue
        script = parsed(ctx, f.path)
        if isinstance(script, Unreadable):
            yield Skipped(f"{f.path}: {script.reason}; `set -u` not checked", path=f.path)
            continue
        found = nounset_lines(script, added)
        for n in found:
            yield Problem(f.path, n.line,
                          f"`{n.text}` turns on `set -u`, which the repository's bash conventions forbid",
                          fix=f"Keep the other options and {_fixed(n.text)} (`set -eo pipefail`); validate the "
                              "variables the script needs with `check_env_vars`.",
                          evidence=(said(rule),))
        if not found:
            yield Passed(f"{f.path}: no `set -u` on the lines the PR adds", path=f.path)

