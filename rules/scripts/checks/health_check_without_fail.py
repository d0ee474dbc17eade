"""Flags a readiness loop that polls an endpoint with `curl` but without `--fail`.

## Why it matters
Without `--fail` (`-f`) curl exits 0 on any HTTP answer, including the 503 a server returns while
it loads: the loop ends at once and the benchmark starts against a server that is not ready
(#2207, `wait_server.sh`; `benchmark_lib.sh` uses `--fail`).

## When it fires
A `curl` counts as a health check when it sits in a `while`/`until`/`for` loop and its URL names
a health, readiness or model-list endpoint. Only lines the PR adds are checked.

A `curl` to a health or readiness endpoint, inside a loop, on a line the PR touched, without
`-f`/`--fail`/`--fail-with-body`. A probe whose status code is captured (`$(curl -w
'%{http_code}' …)`) and compared with 200 in the loop is not flagged.

## Example
    until curl -s -o /dev/null http://localhost:$PORT/health; do sleep 5; done

## Fix
Add `--fail` (or `-f`): `until curl -sf http://localhost:$PORT/health; do sleep 5; done`.
"""
import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.facts import changed_scripts, touched
from rules.scripts.parse import Script, in_loop
from rules.scripts.resolve import parsed

CODE = "RR407"
NAME = "health-check-without-fail"
SEVERITY = Severity.NIT
_ENDPOINT = re.compile(r"/(?:health\w*|ready|readiness|v1/models|ping)\b")
_FAIL = re.compile(r"^(?:--fail(?:-with-body|-early)?|-[a-zA-Z]*f[a-zA-Z]*)$")


def _captured(node) -> bool:
    """Whether the command's output is captured by a command substitution (`$(…)` or backticks)."""
    n = node.parent
    while n is not None:
        if n.type == "command_substitution":
            return True
        n = n.parent
    return False


def _compares_200(node) -> bool:
    """Whether the loop around the command compares something with 200."""
    n = node.parent
    while n is not None and n.type not in ("while_statement", "for_statement", "c_style_for_statement"):
        n = n.parent
    return n is not None and b"200" in (n.text or b"")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in changed_scripts(ctx, ("scripts", "launchers")):
        script = parsed(ctx, f.path)
        if not isinstance(script, Script):
            continue
        lines = touched(ctx, f.path) or set()
        for c in script.commands_named("curl"):
            if c.line not in lines or not in_loop(c.node):
                continue
            words = [a.text.decode("utf-8", "replace") for a in c.args]
            if not any(_ENDPOINT.search(w) for w in words):
                continue
            if any(_FAIL.match(w.strip("\"'")) for w in words if not w.startswith("-w") and not w.startswith("-o")):
                continue
            if any("http_code" in w for w in words) and _captured(c.node) and _compares_200(c.node):
                continue  # `$(curl -w '%{http_code}' …)` that the loop compares with 200 itself
            url = next(w for w in words if _ENDPOINT.search(w))
            yield Problem(
                f.path,
                c.line,
                f"health check `curl … {url}` has no `--fail`: any HTTP answer counts as ready",
                evidence=(c.text[:120],),
            )
