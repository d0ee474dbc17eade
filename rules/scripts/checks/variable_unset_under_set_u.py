"""Flags a variable read under `set -u` on a path where it is provably unset, so bash aborts the benchmark there.

## Why it matters
Under `set -u` (`set -euo pipefail`) bash aborts on the expansion of an unset variable
("unbound variable": bash's `subst.c` `err_unboundvar`). A read above the only assignment of a
script's own variable kills every run; a workflow variable read bare kills every run of a
launcher that does not pass it to the script (#2674: `$EVAL_ONLY` where the script used to read
`${EVAL_ONLY:-false}`).

## When it fires
Only what the review proves is reported (`rules.scripts.unset`), on lines the PR adds at the
top level of a script under `set -u`: the script first sets the variable further down and
nothing above the read sets it on any path (no assignment, `declare`, `read`, `mapfile`,
`getopts`, `printf -v`, `for`, `check_env_vars`, `${X:=…}` or `${X:?}` guard, sourced file,
function defined above; not in a loop; no `eval` or unknown `source` above), and neither the
workflow (`scripts.point_env`), the runner (`scripts.runtime_env`) nor a launcher that runs the
script passes it; or the base read it with a default and a launcher that runs the script
through a filtered environment (`docker run -e …`) does not pass that workflow variable. Reads
under a `set -u` this PR adds where the base's guidance forbids it are left to nounset-enabled
(removing that line fixes them). A read that might be unset — a default removed from a variable
nothing the review sees sets, a name one letter away from one that is set — is
variable-maybe-unset-under-set-u's (a nit): the container and the scheduler set variables a review
cannot see.

## Example
    set -euo pipefail
    echo "writing $SERVER_LOG"            # first set two lines below
    SERVER_LOG=/workspace/server.log

## Fix
Set it before the read, read it with a default (`${EVAL_ONLY:-false}`), or pass it from every
launcher.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.hygiene import nounset_reported
from rules.scripts.unset import unset_reads

CODE = "RR404"
NAME = "variable-unset-under-set-u"
SEVERITY = Severity.BLOCKING
PROOF = "engine"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for fr in unset_reads(ctx):
        if fr.skipped:
            yield Skipped(fr.skipped, path=fr.path)
            continue
        found = [r for r in fr.reads if r.proven and not nounset_reported(ctx, r.path, r.set_u_line)]
        for r in found:
            yield Problem(r.path, r.line, r.message, evidence=(f"`set -u` in force since line {r.set_u_line}",))
        if fr.checked and not found:
            yield Passed(f"{fr.path}: {fr.checked} reads on added lines under `set -u` are set, defaulted or not "
                         "provably unset", path=fr.path)
