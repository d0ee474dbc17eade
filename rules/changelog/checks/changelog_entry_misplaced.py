"""Flags a new perf-changelog entry that sits above existing entries instead of at the physical end.

## Why it matters
The changelog is append-only and the strict validator compares base and head entries index by
index: an entry inserted mid-file (typically after resolving a merge conflict with main) shifts
every later entry, reads as "entry N changed", and is rejected on the merge path at merge. The
PR-run check passes it (it only reads the added lines), so only the merge path and the
documented contract (AGENTS.md: new entries go at the end) stop it. It also puts this PR's
sweep trigger between entries that were merged after it.

## When it fires
On each changed perf-changelog: it fires for every entry this PR adds that has existing (base)
entries below it, naming them; new entries that all follow the last existing entry pass. When
neither a gate nor the guidance at the merge base proves the convention (older bases), it is not
flagged here: `changelog-convention-unwritten` reports it as a nit. A changelog the review cannot
read or compare is skipped with the reason.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm          # this PR's entry, inserted here
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867

    - config-keys:
        - glm5.2-fp4-b300-sglang      # entries merged to main meanwhile, below it
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4833

## Fix
Restore the base branch's bytes of the file and re-append this PR's entries at the physical end,
after the last existing entry, separated by exactly one empty line; never 3-way-merge the file.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs, count_word, hunk_of
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR001"
NAME = "changelog-entry-misplaced"
SEVERITY = Severity.BLOCKING
PROOF = "written:A2"
ENFORCES = ("A2",)
MAX_NAMED = 8


def _short_link(link: str | None) -> str:
    if not link:
        return "pr-link: …"
    at = link.find("/pull/")
    return f"pr-link: …{link[at:]}" if at >= 0 else f"pr-link: {link}"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: placement not checked: {d.skip_reason}", path=d.path)
            continue
        for entry, below in d.misplaced:
            n = len(below)
            named = ", ".join(b.label for b in below[:MAX_NAMED])
            if n > MAX_NAMED:
                named += f" and {n - MAX_NAMED:,} more"
            last = below[-1]
            noun = "entry" if n == 1 else "entries"
            verb = "sits" if n == 1 else "sit"
            first_line = entry.text.split("\n", 1)[0].strip()
            if first_line == "- config-keys:":
                first_line = f"- config-keys: {entry.summary}"
            evidence = []
            hunk = hunk_of(d, entry.start_line)
            if hunk:
                evidence.append(f"patch hunk `{hunk}` adds this entry mid-file")
            evidence.append(f"below it: {', '.join(f'{b.label} (line {b.start_line:,})' for b in below[:MAX_NAMED])}"
                            + (f" and {n - MAX_NAMED:,} more" if n > MAX_NAMED else ""))
            evidence.append(f"head has {d.head_line_count:,} lines; the last existing entry ends at line "
                            f"{last.end_line:,}")
            gn = note(ctx, d, merge=("entry-changed",),
                      contract="the documented contract (new entries are appended at the end, AGENTS.md)",
                      written="append-at-end")
            evidence.extend(gn.evidence)
            problem = Problem(
                d.path, entry.start_line,
                gn.on(f"This entry (`{entry.summary}`) is at line {entry.start_line:,} of {d.head_line_count:,}; "
                      f"{count_word(n)} existing {noun} ({named}) {verb} below it."),
                end_line=entry.end_line,
                fix=(f"Move this {entry.line_count}-line block (`{first_line}` … `{_short_link(entry.pr_link)}`) "
                     f"to the physical end of the file, after the {last.label} entry, leaving every existing "
                     f"byte and separator unchanged."),
                evidence=tuple(evidence))
            if gn.unproven:
                yield Skipped(f"{d.path}:{entry.start_line}: an entry above existing ones is not flagged here: "
                              f"{gn.unproven}", path=d.path, unproven=problem)
                continue
            yield problem
        if d.new_entries and not d.misplaced:
            first, last = d.new_entries[0], d.new_entries[-1]
            yield Passed(f"{d.path}: {len(d.new_entries)} new entr{'y' if len(d.new_entries) == 1 else 'ies'} "
                         f"at lines {first.start_line:,}-{last.end_line:,} follow all {d.base_count:,} "
                         f"existing entries", path=d.path, line=first.start_line)
