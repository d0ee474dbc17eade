"""Flags new perf-changelog entries not separated by exactly one empty line, or with whitespace-only lines.

## Why it matters
The strict validator requires each appended entry to be preceded by exactly one empty line
(after history: `- config-keys:` directly if the base already ends with an empty line, else
`\n- config-keys:`), and no whitespace-only lines in appended text. Irregular separators in new
text are how the 41 historical `"  "` separators crept in; those historical bytes are immutable and
are never flagged here.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2707
    ␠␠                               # whitespace-only separator line (new text)
    - config-keys:
        - dsv4-fp4-b300-vllm
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867

## Fix
Separate each new entry from the previous one by exactly one empty line (no spaces), and leave
historical separators exactly as they are.
"""
from collections.abc import Iterator

from rules.changelog.analysis import anchored, changelog_diffs, show_bytes
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR007"
NAME = "changelog-separator-irregular"
SEVERITY = Severity.NIT


def _describe(lines: tuple[str, ...]) -> str:
    if not lines:
        return "no empty line"
    return show_bytes(("\n".join(lines) + "\n").encode())


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: separators not checked: {d.skip_reason}", path=d.path)
            continue
        if not d.new_entries:
            continue
        bad = 0
        for s in d.separators:
            if s.ok:
                continue
            bad += 1
            want = s.allowed[0]
            line, end, text = anchored(d.head_lines(), s.first_line, s.anchor_line, [*want, s.anchor_text])
            above = "above" if s.anchor_line == s.entry.start_line else "below"
            kept = f" (keeping the historical `{_describe(s.history)}`)" if s.history else ""
            if s.history and s.actual == s.history:
                message = (f"New entry `{s.entry.summary}` directly follows the historical whitespace-only separator "
                           f"`{_describe(s.history)}`; one empty line must follow it.")
            else:
                message = (f"New entry `{s.entry.summary}` has no empty line {above} it{kept}." if not s.actual else
                           f"The separator {above} new entry `{s.entry.summary}` is `{_describe(s.actual)}`, "
                           f"not one empty line{kept}.")
            yield Problem(
                d.path, line, message,
                end_line=end, suggestion=text,
                fix=f"Use exactly one empty line (no spaces) between entries{kept}.",
                evidence=(f"lines {s.first_line:,}-{s.anchor_line - 1:,} between entries" if s.anchor_line > s.first_line
                          else f"no line between line {s.first_line - 1:,} and the entry at line {s.anchor_line:,}",
                          f"expected separator lines {list(want)!r}, found {list(s.actual)!r}"))
        for e in d.new_entries:
            for k, text in enumerate(e.text.split("\n")):
                if text and not text.strip():
                    bad += 1
                    line = e.start_line + k
                    ln, end, sug = anchored(d.head_lines(), line, line, [""])
                    yield Problem(d.path, line, f"Line {line:,} in new entry `{e.summary}` is whitespace-only "
                                                f"(`{show_bytes(text.encode())}`).",
                                  end_line=end, suggestion=sug, fix="Make the line empty, or remove it.",
                                  evidence=(f"entry {e.label} spans lines {e.start_line:,}-{e.end_line:,}",))
        if not bad:
            yield Passed(f"{d.path}: {len(d.separators)} separator(s) around new entries are one empty line; "
                         f"no whitespace-only lines in new text", path=d.path)
