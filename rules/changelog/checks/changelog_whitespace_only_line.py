"""Flags whitespace-only lines inside new perf-changelog entries or after the last one.

## Why it matters
A line of spaces inside an entry (between `description` items, before `pr-link`) or after the
final entry parses fine, and neither of the repository's gates rejects it; but it is how the
41 historical `"  "` separators crept into the file, and once merged those bytes are immutable:
every later PR must preserve them exactly, and the next entry appended after a trailing
`"  \n"` line must add one more empty line after it. (A whitespace-only line *between* entries
is a separator the merge path rejects: changelog-separator-irregular reports those.) No written
rule forbids these lines (the repository's instructions ask to preserve existing whitespace, not
to avoid new), so the message names no contract: it is a nit of cleanliness.

## When it fires
On the entries this PR adds: it fires for each line inside a new entry that holds only spaces or
tabs, and for whitespace-only lines after the last new entry at the end of the file. Lines of
existing entries stay quiet. A changelog the review cannot read or compare is skipped with the
reason.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      description:
        - "Bump vLLM image"
    ␠␠
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867

## Fix
Make the line empty, or remove it.
"""
from collections.abc import Iterator

from rules.changelog.analysis import anchored, changelog_diffs, show_bytes
from rules.changelog.content import accepted
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR016"
NAME = "changelog-whitespace-only-line"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: whitespace-only lines not checked: {d.skip_reason}", path=d.path)
            continue
        if not d.new_entries:
            continue
        found = 0
        last = d.new_entries[-1]
        for e in d.new_entries:
            lines = e.text.split("\n")
            places = [(e.start_line + k, t, "in") for k, t in enumerate(lines) if t and not t.strip()]
            rest = (d.head or b"")[e.span[1]:]
            if e is last and rest and not rest.strip():  # the bytes after the file's last entry
                tail = rest.decode("utf-8", "replace").split("\n")[1:]
                places += [(e.end_line + 1 + k, t, "after") for k, t in enumerate(tail) if t and not t.strip()]
            for line, text, where in places:
                found += 1
                ln, end, sug = anchored(d.head_lines(), line, line, [""])
                what = (f"Line {line:,} in new entry `{e.summary}`" if where == "in" else
                        f"Line {line:,} after the last new entry `{e.summary}`")
                yield Problem(d.path, line, f"{what} is whitespace-only (`{show_bytes(text.encode())}`). "
                                            f"{accepted(ctx, d)}",
                              end_line=end, suggestion=sug if where == "in" else None,
                              fix="Make the line empty, or remove it." if where == "in" else
                                  "Remove the line: the file must end right after the last entry's newline.",
                              evidence=(f"entry {e.label} spans lines {e.start_line:,}-{e.end_line:,}",))
        if not found:
            yield Passed(f"{d.path}: no whitespace-only lines in the {len(d.new_entries)} new entr"
                         f"{'y' if len(d.new_entries) == 1 else 'ies'}", path=d.path)

