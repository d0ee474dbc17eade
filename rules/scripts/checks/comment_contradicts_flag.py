"""Flags a comment that states an engine flag's value which the PR's new command line no longer passes.

## Why it matters
Benchmark scripts explain their tuning in comments, and reviewers read the comment to know what
a run measured. When a PR changes a flag and leaves the comment that states its old value, the
comment now documents a configuration the script does not run, and the next reader reasons from
the wrong number (#1170: a comment kept explaining that `max-num-seqs=4` caps the running batch
below the search space's top concurrency, while the PR made the cap follow `CONC`, 32 at the top).

## When it fires
A comment line counts when it spells the flag's name (with or without `--`) followed by `=`,
`:` or a space and a number, is not a line the PR adds or edits, and does not read as history or
as a default (`default`, `was`, `previously`, `instead`, `used to`, `originally`, `before`,
`old`). The flag must be on the engine command of a resolved benchmark point, the PR must edit
the line that passes it (or the assignment its value comes from), and the value must differ
from the comment's number at one of the points. The finding sits on the edited line the new
value is written on (a review can comment there; the comment may be outside the diff) and names
the comment's line and the point.

## Example
    # max-num-seqs=4 keeps the batch below the max concurrency (32)
    MAX_NUM_SEQS=$(( CONC < 4 ? 4 : CONC ))
    python3 -m atom.entrypoints.openai_server --max-num-seqs $MAX_NUM_SEQS ...

## Fix
Update the comment to the new value (or to the rule that computes it), or delete it.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Problem, Severity
from rules.scripts.facts import changed_scripts, resolved_for, touched
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed

CODE = "RR421"
NAME = "comment-contradicts-flag"
SEVERITY = Severity.NIT
_HISTORY = re.compile(r"\b(?:default|defaults|was|were|previously|instead|used to|originally|before|old|formerly)\b",
                      re.I)


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None and re.fullmatch(r"-?\d+(?:\.\d+)?", text) else None
    except ValueError:
        return None


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem]:
    for f in changed_scripts(ctx):
        script = parsed(ctx, f.path)
        if not isinstance(script, Script) or f.status == "added":
            continue  # an added script's comments are new text, written with its flags
        lines = touched(ctx, f.path) or set()
        if not lines:
            continue
        # flag → (point label, value, line) for the flags whose passing the PR edits
        values: dict[str, list[tuple[str, str, int]]] = {}
        for r in resolved_for(ctx, f.path):
            eng = r.engine
            if eng is None or eng.path != f.path:
                continue
            label = f"`{r.point.key}` at conc {r.point.values.get('conc')}"
            for flag, vals in eng.flags().items():  # the value the engine gets: the last one
                value, word = (vals[-1] if vals else None), eng.has_flag(flag)
                if value is None or word is None or _number(value.text) is None:
                    continue
                from_edit = value.path == f.path and value.line in lines
                if word.line not in lines and not from_edit:
                    continue
                # where the new value is written: the assignment it comes from, else the flag's line
                values.setdefault(flag[2:], []).append((label, value.text, value.line if from_edit else word.line))
        if not values:
            continue
        seen: set[tuple[int, str]] = set()
        for n, raw in enumerate(script.lines, 1):
            s = raw.strip()
            if not s.startswith("#") or n in lines or _HISTORY.search(s):
                continue
            for flag, vals in values.items():
                spelled = re.escape(flag).replace(r"\-", "[-_]")
                m = re.search(r"(?<![\w-])(?:--)?" + spelled + r"\s*[=: ]\s*(-?\d+(?:\.\d+)?)(?![\w.])", s, re.I)
                if not m or (n, flag) in seen:
                    continue
                stated = float(m.group(1))
                off = [(label, v, line) for label, v, line in vals if _number(v) != stated]
                if not off:
                    continue
                seen.add((n, flag))
                label, v, line = max(off, key=lambda x: abs((_number(x[1]) or 0) - stated))
                # On the line the PR edits (a review can comment there; the comment's own line may
                # lie outside the diff), naming the comment.
                yield Problem(f.path, line,
                              f"`--{flag}` is {v} here for {label}, but the comment at line {n} still says "
                              f"`{flag}` {m.group(1)}",
                              fix=f"Update the comment at line {n} to the new value (or the rule that computes it).",
                              evidence=(f"comment line {n}: `{s[:100]}`",
                                        f"{len(off)} of {len(vals)} resolved point(s) pass another value"))
