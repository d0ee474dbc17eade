"""Flags a new perf-changelog entry whose `pr-link` is not this PR's canonical link.

## Why it matters
The `pr-link` ties each sweep result to the PR that caused it; the merge path and the strict
validator require exactly `https://github.com/<owner>/<repo>/pull/<this PR>`. A link copied from
another entry, `TBD`, the old `InferenceMAX/InferenceMAX` URL or a `/changes` / `/files` suffix
misattributes results and fails validation on `main`.

Conventions by base revision: the repository is `SemiAnalysisAI/InferenceX` from 2026-02-17
(`521d19951`, the first new-org link on `main`); a PR branched before that may link this PR under
the old `InferenceMAX/InferenceMAX` name. The merge path that checks links exists from 2026-06-18
(#1821); each finding names which gate rejects it.

## When it fires
On the `pr-link` of every entry this PR adds: it fires when the link is not this PR's canonical link
(another PR's number, another repository, not a pull-request URL); links under the repository's name
before its rename still count as canonical. A placeholder (`XXX`) is
`changelog-pr-link-placeholder`'s, a missing or non-string link `changelog-entry-invalid`'s. When
the PR number is unknown, canonical-looking links are skipped rather than judged. When neither a
gate nor the guidance at the merge base proves the convention (older bases), it is not flagged here:
`changelog-convention-unwritten` reports it as a nit.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      description:
        - "Bump vLLM image"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867/changes

## Fix
Write this PR's canonical link (`https://github.com/SemiAnalysisAI/InferenceX/pull/<number>`),
or the placeholder `XXX`, which the merge path canonicalizes.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs, pr_link_line, pr_link_suggestion, pr_link_verdict, short
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.conventions import conventions
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR004"
NAME = "changelog-pr-link-wrong"
SEVERITY = Severity.BLOCKING
PROOF = "written:A11"
ENFORCES = ("A11",)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    repo, number = ctx.changeset.repo, ctx.changeset.pr_number
    old = tuple(r for r in conventions(ctx).canonical_repos if r != repo)  # before the org rename
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: pr-links not checked: {d.skip_reason}", path=d.path)
            continue
        ok, unknown = 0, 0
        for entry in d.new_entries:
            link = entry.data.get("pr-link") if isinstance(entry.data, dict) else None
            if not isinstance(link, str):
                continue  # missing / not a string: RR003; unparsable: RR012
            v = pr_link_verdict(link, repo, number, also=old)
            if v.kind == "ok":
                ok += 1
                continue
            if v.kind == "ok-number-unknown":
                unknown += 1
                continue
            if v.kind != "wrong":
                continue
            line, text = pr_link_line(entry)
            suggestion = pr_link_suggestion(text, v.canonical)
            target = v.canonical or ("https://github.com/<owner>/<repo>/pull/<this PR>" if repo is None
                                     else f"https://github.com/{repo}/pull/<this PR>")
            gn = note(ctx, d, merge=("added-pr-link",), lines=(line, line),
                      contract="the documented contract (the pr-link is this PR's canonical link)",
                      written="own-pr-link")
            problem = Problem(
                d.path, line, gn.on(f"pr-link `{short(link, 120)}` is not this PR's link: {v.reason}."),
                end_line=line, suggestion=suggestion,
                fix=f"Use `{target}`, or the placeholder `XXX` until the PR number is known.",
                evidence=(f"entry `{entry.summary}` at line {entry.start_line:,}",
                          f"PR number: {number if number is not None else 'unknown'}; repository: {repo or 'unknown'}",
                          *gn.evidence))
            if gn.unproven:
                yield Skipped(f"{d.path}:{line}: pr-link `{short(link, 120)}` is not flagged here: {gn.unproven}",
                              path=d.path, unproven=problem)
                continue
            yield problem
        if ok:
            yield Passed(f"{d.path}: {ok} new pr-link(s) = this PR's canonical link "
                         f"https://github.com/{repo or '<owner>/<repo>'}/pull/{number}", path=d.path)
        if unknown:
            yield Skipped(f"{d.path}: {unknown} pr-link(s) are canonical links, but the PR number is unknown, "
                          f"so they were not compared with it (give --pr-number)", path=d.path)
