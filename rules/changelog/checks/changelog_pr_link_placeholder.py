"""Flags a new perf-changelog entry whose `pr-link` is still the placeholder `XXX`.

## Why it matters
The placeholder is accepted on PR runs and the merge path rewrites it to the canonical link, so
nothing breaks; but a placeholder that slips past that path has reached `main` before (#2533),
and the PR number is known by now.

## When it fires
On the `pr-link` of every entry this PR adds: it fires when the link is a placeholder
(`.../pull/XXX` and similar), which the merge path rewrites to the canonical link; the finding
suggests that link when the PR number is known. Any other link is `changelog-pr-link-wrong`'s. A
changelog the review cannot read or compare is skipped with the reason.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      description:
        - "Bump vLLM image"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX

## Fix
Optional: write this PR's canonical link now. The merge path canonicalizes `XXX` otherwise.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs, pr_link_line, pr_link_suggestion, pr_link_verdict
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.conventions import conventions
from rules.finding import Problem, Severity, Skipped

CODE = "RR005"
NAME = "changelog-pr-link-placeholder"
SEVERITY = Severity.NIT


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Skipped]:
    repo, number = ctx.changeset.repo, ctx.changeset.pr_number
    old = tuple(r for r in conventions(ctx).canonical_repos if r != repo)  # before the org rename
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: pr-links not checked: {d.skip_reason}", path=d.path)
            continue
        for entry in d.new_entries:
            link = entry.data.get("pr-link") if isinstance(entry.data, dict) else None
            if not isinstance(link, str):
                continue
            v = pr_link_verdict(link, repo, number, also=old)
            if v.kind != "placeholder":
                continue
            line, text = pr_link_line(entry)
            suggestion = pr_link_suggestion(text, v.canonical)
            gn = note(ctx, d, merge=("added-pr-link",), lines=(line, line),
                      contract="the documented contract (the PR number is known by now)")
            yield Problem(
                d.path, line,
                gn.on(f"pr-link `{link}` is a placeholder; the merge path canonicalizes it"
                      + (f" to `{v.canonical}`." if v.canonical else ".")),
                end_line=line, suggestion=suggestion,
                fix=(f"Optionally write `{v.canonical}` now." if v.canonical else
                     "Optionally write this PR's canonical link now."),
                evidence=(f"entry `{entry.summary}` at line {entry.start_line:,}", *gn.evidence))
