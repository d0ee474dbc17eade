"""Flags a fallback the PR adds to a variable the workflow passes (`${TP:-8}`) where the base forbids it.

## Why it matters
The benchmark workflow passes each point's configuration to the script (`MODEL`, `TP`, `CONC`,
`EP_SIZE`, … as environment variables). A fallback (`${EP_SIZE:-1}`) hides a caller that forgot to
pass one: the script benchmarks a configuration nobody asked for and labels it with the requested
one. Where the repository's guidance makes its bash conventions mandatory and forbids these
fallbacks (F9), the script should validate its inputs (`check_env_vars`) instead.

## When it fires
On the lines the PR adds to benchmark scripts: `${VAR:-default}`, `${VAR:=default}` (and `-` / `=`)
with a non-empty default, where `VAR` is one of the variables the workflow passes per point
(`scripts.point_env`). Not flagged: defaults of the script's own variables and of variables the
workflow does not pass (`${PORT:-8888}`, `${HF_HUB_CACHE:-…}`), empty defaults (`${VAR:-}`, a
test whether it is set), and lines the PR does not add. The rule is read from the base revision's
guidance: a sentence forbidding fallbacks for caller-supplied configuration (or saying to avoid
them under a heading or line that makes the conventions mandatory); a base without it is
Skipped. It is a nit: whether a given launcher passes the variable to this script (a filtered
`docker run -e …` environment may not) is not always known to the review, and there the default
is what keeps the run going.

## Example
    EP_SIZE="${EP_SIZE:-1}"

## Fix
Read the variable bare and list it in `check_env_vars` (or make the launcher pass it).
"""
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.hygiene import fallback_rule, point_defaults, said
from rules.scripts.parse import Unreadable, text_of
from rules.scripts.resolve import parsed

CODE = "RR435"
NAME = "point-variable-defaulted"
SEVERITY = Severity.NIT
ENFORCES = ("F9",)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    cs = ctx.changeset
    files = changed_scripts(ctx)
    if not files:
        return
    rule = fallback_rule(cs)
    if rule is None:
        yield Skipped("the base revision's guidance was not read, so whether it forbids fallbacks for "
                      "caller-supplied configuration is unknown")
        return
    if rule is False:
        yield Skipped("the base revision's guidance (AGENTS.md, CONTRIBUTING.md, the review checklist) does not "
                      "forbid fallbacks for caller-supplied configuration yet")
        return
    names = set(ctx.config.repo.scripts.point_env)
    for f in files:
        added = touched(ctx, f.path)
        if added is not None and not added:
            continue
        script = parsed(ctx, f.path)
        if isinstance(script, Unreadable):
            yield Skipped(f"{f.path}: {script.reason}; fallbacks not checked", path=f.path)
            continue
        found = point_defaults(script, added, names)
        for r, default in found:
            yield Problem(f.path, r.line,
                          f"`{text_of(r.node)}` gives the workflow's per-point variable `{r.name}` a fallback "
                          f"(`{default}`), which the repository's bash conventions forbid",
                          fix=f"Read `${r.name}` bare and list it in `check_env_vars`.",
                          evidence=(said(rule), f"`{r.name}` is passed by the workflow for each point "
                                                "(`scripts.point_env`)"))
        if not found:
            yield Passed(f"{f.path}: no fallback for a per-point variable on the lines the PR adds", path=f.path)
