"""Flags a bare read under `set -u` of a variable that might be unset: a default the PR removed, or a likely misspelling.

## Why it matters
Under `set -u` an unset variable aborts the script. When the base read a variable with a
default (`${HICACHE_RATIO:-2}`) and the PR reads it bare while nothing the review sees sets it,
every run that does not export it now dies; a read of a name one letter away from one the
script sets (`$SERVER_LGO` beside `SERVER_LOG`) is most likely a typo that kills all of them.
Neither is proven: the container, the scheduler or the person who runs the benchmark may set
the variable, so this is a nit (variable-unset-under-set-u reports the proven cases).

## When it fires
Lines the PR adds at the top level of a script under `set -u` (`rules.scripts.unset`). A
variable counts as set when the script or a file it sources sets it in any way (assignments,
`declare`, `read`, `mapfile`, `getopts`, `printf -v`, `for`, `${X:=…}`, a `${X:?}` guard),
`check_env_vars` validates it, the workflow or the runner provides it, or a launcher that runs
the script passes it. Reads under a `set -u` this PR adds where the base's guidance forbids it
are left to nounset-enabled (removing that line fixes them).

## Example
    set -euo pipefail
    if [ "$HICACHE_RATIO" = 2 ]; then ...      # the base read "${HICACHE_RATIO:-2}"

## Fix
Keep the default, set the variable, list it in `check_env_vars`, or fix the spelling.
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.hygiene import nounset_reported
from rules.scripts.unset import unset_reads

CODE = "RR423"
NAME = "variable-maybe-unset-under-set-u"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for fr in unset_reads(ctx):
        for r in fr.reads:
            if not r.proven and not nounset_reported(ctx, r.path, r.set_u_line):
                yield Problem(r.path, r.line, r.message, evidence=(f"`set -u` in force since line {r.set_u_line}",))
