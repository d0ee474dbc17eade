"""Flags ShellCheck errors on lines the PR adds to a benchmark script or launcher (curated codes).

## Why it matters
These ShellCheck findings are bugs, not style: the script does something other than what it
says (a test that is always true, an array expanded into one word, a comparison done as a
redirect), so a benchmark runs a different configuration or fails late.

A nit, not a blocker: ShellCheck reads the text, not the run. On the bundle, judges found the
flagged scripts unreachable by any launcher, or the flagged expansion unable to change what runs
(SC2068 over integers split from a list), as often as a real failure (notes/proof.md).

## When it fires
ShellCheck runs on each benchmark script and launcher the PR adds or changes (symlinks aside; at
most `max_files` of them, those with the most added lines first), and the rule fires for each
comment of one of `codes` on a line the PR adds, once per line and code. Codes (the ShellCheck code
is named in each message): SC1xxx parse errors (SC1009, SC1072, SC1073, SC1089, SC1136, SC1141);
SC2068 unquoted array expansion re-splits elements; SC2070 `-n` on an unquoted expansion is always
true; SC2071/SC2072 `>`/`<` compare strings or redirect instead of comparing numbers; SC2076 a
quoted regex in `=~` matches literally; SC2050/SC2078 a constant test expression; SC2157 an
argument to `-z`/`-n` that is always set; SC2194/SC2195 a `case` that cannot match; SC2198/SC2199
arrays in `[ ]` / `[[ ]]`; SC2200/SC2201 brace expansion or globs in a test; SC2242 `exit` with an
invalid code; SC2288/SC2289 a line break or tab inside a command name. A script that cannot be
decoded as text, one ShellCheck could not check (binary missing, time-out, failure) and the
scripts beyond `max_files` are Skipped with the reason; the rule reports no passed check.

## Example
    if [ -n $EVAL_ARGS ]; then ...        # SC2070: always true

## Fix
Follow ShellCheck's advice in the message (`[ -n "$EVAL_ARGS" ]` here).

## Options
`codes`: the ShellCheck codes this rule reports. `timeout_s`: per-script limit. `max_files`:
scripts checked per review, those with the most added lines first (the rest are Skipped).
"""
from collections.abc import Iterator

from pydantic import Field

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity, Skipped
from rules.scripts.facts import changed_scripts
from rules.scripts.parse import decode_script
from rules.scripts.shellcheck import ERROR_CODES, added_line_comments

CODE = "RR414"
NAME = "shellcheck-error"
SEVERITY = Severity.NIT
CODES = ERROR_CODES


class Options(RuleOptions):
    codes: tuple[int, ...] = CODES  # ShellCheck codes reported
    timeout_s: float = Field(default=10.0, gt=0, le=120)  # per-script ShellCheck limit
    max_files: int = Field(default=20, ge=1, le=1000)  # scripts checked per review (most added lines first)


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Skipped]:
    files = []
    for f in changed_scripts(ctx, ("scripts", "launchers")):
        text, why = decode_script(f.head)
        if text is None:
            yield Skipped(f"{f.path}: {why}; ShellCheck not run", path=f.path)
        elif ctx.changeset.mode(f.path) != "120000":
            files.append(f.path)
    if not files:
        return
    for path, error, comments in added_line_comments(ctx, files, options.codes, options.timeout_s, options.max_files):
        if error is not None:
            yield Skipped(f"{path}: {error}; ShellCheck errors not checked", path=path)
            continue
        for c in comments:
            yield Problem(path, c.line, f"ShellCheck {c.name}: {c.message}",
                          end_line=c.end_line if c.end_line != c.line else None,
                          evidence=(f"https://www.shellcheck.net/wiki/{c.name}",))
