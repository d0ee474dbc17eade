"""Flags ShellCheck warnings on lines the PR adds to a benchmark script or launcher (curated codes).

## Why it matters
These are the shell slips that bite benchmark scripts most: an unquoted expansion that splits a
flag's value or drops an empty one, a variable read that nothing assigns (often a misspelling),
an array built from a word-split string. Each may change the command line for some points.

## When it fires
ShellCheck runs on each benchmark script and launcher the PR adds or changes that decodes as text
(symlinks aside; at most `max_files` of them, those with the most added lines first), and the rule
fires for each comment of one of `codes` on a line the PR adds, once per line and code. Codes (the
ShellCheck code is named in each message): SC2128 an array expanded without an index; SC2066 a
quoted `for` list that loops once; SC2088 a quoted tilde. Left out by default, and available
through `codes`: SC2154 (a variable read that nothing assigns: judged wrong on the bundle where the
assignment sits in a `trap` string or a sourced file), SC2145 (arguments mixed with a string:
inside `echo` it prints the same text, which is where the scripts use it), SC2086/SC2046 and
SC2206/SC2207 (unquoted expansions and arrays built by splitting: the scripts split `$EXTRA_ARGS`
on purpose, so they fire on most command lines; on InferenceX #1709 they were the only ShellCheck
nits) and SC2034 (variables read by sourced files look unused). A script with none of them on its
added lines passes; one ShellCheck could not check (binary missing, time-out, failure) and the
scripts beyond `max_files` are Skipped with the reason.

## Example
    for f in "$DIR/*.yaml"; do   # SC2066: the quoted glob makes one iteration

## Fix
Follow ShellCheck's advice in the message (here: leave the glob unquoted, `"$DIR"/*.yaml`).

## Options
`codes`: the ShellCheck codes this rule reports. `timeout_s`: per-script limit. `max_files`:
scripts checked per review, those with the most added lines first (the rest are Skipped).
"""
from collections.abc import Iterator

from pydantic import Field

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts
from rules.scripts.parse import decode_script
from rules.scripts.shellcheck import WARNING_CODES, added_line_comments

CODE = "RR415"
NAME = "shellcheck-warning"
SEVERITY = Severity.NIT
CODES = WARNING_CODES


class Options(RuleOptions):
    codes: tuple[int, ...] = CODES  # ShellCheck codes reported as nits
    timeout_s: float = Field(default=10.0, gt=0, le=120)  # per-script ShellCheck limit
    max_files: int = Field(default=20, ge=1, le=1000)  # scripts checked per review (most added lines first)


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    files = [f.path for f in changed_scripts(ctx, ("scripts", "launchers"))
             if decode_script(f.head)[0] is not None and ctx.changeset.mode(f.path) != "120000"]
    if not files:
        return
    for path, error, comments in added_line_comments(ctx, files, options.codes, options.timeout_s, options.max_files):
        if error is not None:
            yield Skipped(f"{path}: {error}; ShellCheck warnings not checked", path=path)
            continue
        for c in comments:
            yield Problem(path, c.line, f"ShellCheck {c.name}: {c.message}",
                          evidence=(f"https://www.shellcheck.net/wiki/{c.name}",))
        if not comments:
            yield Passed(f"{path}: ShellCheck reports none of {len(set(options.codes))} curated warning codes on "
                         "added lines", path=path)
