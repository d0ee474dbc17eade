"""The review job: fetch the PR, run the rules, and write only what is missing.

Writes, each skipped when the current state already matches: one review (`COMMENT`) with the new
inline comments (single findings, or one per rule and file: `bot.present`); an edit of each kept
comment whose text changed (a group's list, a reworded finding); a resolve (or "fixed in <sha>"
reply) for threads whose finding is gone, and a resolve without it for threads replaced by another
(grouped, ignored with `/ignore`, a duplicate); the `recipe-review` check run on the head; the
summary comment (edited in place); the welcome comment (once per PR, on `opened`).

The check run's lifecycle (bot/lifecycle.py): it is started `in_progress` once the PR is read (or
set back to it by a forced re-run), completed with the verdict at the end, and, when the job fails
for good, concluded `neutral` with the reason and what to do (bot/jobs.py). A payload whose base
SHA GitHub does not know is reviewed against the PR's current base; a token that may not write
check runs (`checks: write` missing) still gets the review and the summary; a token that may not
write at all (a fork PR's read-only token) gets the computed review back as `forbidden`.
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any

from bot import diff, lifecycle, render, sweep
from bot.gather import SnapshotReader, Stop, gather
from bot.github import CommentInfo, FileInfo, GitHubError, GitHubPort, Snapshot
from bot.present import problem_key
from bot.reconcile import InlineComment, PostedComment, ReviewPlan, ignores_from, plan_review
from rules.changelog.analysis import changelog_diffs
from rules.changeset import ChangeSet
from rules.config import CONFIG_PATH, EngineConfig
from rules.context import ReviewContext
from rules.fix import has_fix
from rules.inputs import Changed, Target
from rules.runner import Report, run

log = logging.getLogger(__name__)

REVIEW_ACTIONS = ("opened", "reopened", "synchronize", "ready_for_review")
# Events that re-review a head without a push: a base change (`edited` with `changes.base`) and the
# check's Re-run button (`check_run` / `check_suite` `rerequested`).
RETARGET_ACTION = "edited"


@dataclass(frozen=True)
class ReviewJob:
    repo: str
    number: int
    head_sha: str
    base_sha: str
    action: str = "synchronize"
    installation_id: int | None = None
    delivery_id: str = ""
    force: bool = False  # `/review`: review even when nothing changed (still writes only differences)
    added_label: str | None = None  # set by a `labeled` event: this label is the most recent one
    config_path: str = ""  # the repository config file (read from the base); "" means CONFIG_PATH


@dataclass
class ReviewResult:
    status: str  # "reviewed" | "skipped" | "dropped"
    reason: str = ""
    report: Report | None = None
    writes: list[str] = field(default_factory=list)
    followup: tuple[str, str] | None = None  # (head_sha, base_sha) to review instead, when the head moved
    notes: list[str] = field(default_factory=list)  # what the job could not do, and why (logs, job summary)
    summary: str | None = None  # the summary comment's Markdown as computed (also in dry runs)
    blocking: int = 0  # blocking findings the verdict counts (ignored ones aside), as the check run says
    nits: int = 0
    check_run_id: int | None = None  # the `recipe-review` check run this job started or took over
    checks_forbidden: bool = False  # the token lacks `checks: write`: no check run is written
    base_sha: str | None = None  # the base actually reviewed (the PR's current one when the payload's was unknown)


def bot_comments(snap: Snapshot, bot_login: str) -> list[PostedComment]:
    """The bot's earlier inline findings, from the review threads (first comment carries the marker)."""
    me = bot_login.removesuffix("[bot]")
    out = []
    for t in snap.threads:
        if not t.comments or t.comments[0].author != me:
            continue
        first = t.comments[0]
        parsed = render.parse_finding_marker(first.body)
        if parsed is None:
            continue
        code, fingerprint = parsed
        path = t.path or ""
        # Comments written before problem keys existed: derive the key from the message they show.
        key = render.parse_problem_marker(first.body) or problem_key(code, path, render.message_of(first.body))
        noted = any(c.author == me and any(m in c.body for m in render.CLOSING_MARKERS) for c in t.comments[1:])
        out.append(PostedComment(first.id, fingerprint, code, path, t.id, t.resolved, noted, key, first.body))
    return out


def ignores_of(snap: Snapshot, bot_login: str) -> dict[str, Any]:
    """The `/ignore` state of the PR, read back from the bot's own replies (oldest first)."""
    me = bot_login.removesuffix("[bot]")
    return ignores_from(c.body for c in sorted(snap.issue_comments, key=lambda c: c.id) if c.author == me)


def _marked(snap: Snapshot, marker: str, bot_login: str) -> CommentInfo | None:
    me = bot_login.removesuffix("[bot]")
    for c in snap.issue_comments:
        if c.author == me and marker in c.body:
            return c
    return None


@dataclass
class Fetched:
    """Everything one read of a PR gives the rules: the changeset, its config and GitHub's state."""

    snap: Snapshot
    files: list[FileInfo]
    merge_base: str
    changeset: ChangeSet
    config: EngineConfig
    config_errors: list[str]
    job: ReviewJob | None = None  # the job as read: its base is the PR's current one when the payload's was unknown


def _compare(
    port: GitHubPort, job: ReviewJob
) -> tuple[ReviewJob, str, list[FileInfo], int | None, int | None] | ReviewResult:
    """Compare base and head; when GitHub does not know the payload's base (404/422), review against
    the PR's current base instead; when it does not know the head, follow the PR's current head."""
    try:
        merge_base, files, base_time, tip_time = port.compare(job.repo, job.base_sha, job.head_sha, job.number)
        return job, merge_base, files, base_time, tip_time
    except GitHubError as err:
        if not err.permanent:
            raise
        pull = port.get_pull(job.repo, job.number)
        if pull.state != "open":
            return ReviewResult("skipped", f"PR is {pull.state}")
        if pull.head_sha != job.head_sha:
            return ReviewResult("dropped", f"head {job.head_sha[:7]} is unknown; the PR's head is {pull.head_sha[:7]}",
                           followup=(pull.head_sha, pull.base_sha))
        if pull.base_sha == job.base_sha:
            raise
        log.warning("base %s of the payload is unknown to GitHub (%s); reviewing against the PR's current base %s",
                    job.base_sha[:7], err, pull.base_sha[:7],
                    extra={"repo": job.repo, "pr": job.number, "head_sha": job.head_sha})
        job = dataclasses.replace(job, base_sha=pull.base_sha)
        merge_base, files, base_time, tip_time = port.compare(job.repo, job.base_sha, job.head_sha, job.number)
        return job, merge_base, files, base_time, tip_time


def fetch(port: GitHubPort, job: ReviewJob, drafts: bool = False) -> Fetched | ReviewResult:
    """Read the PR at `job.head_sha` (compare + GraphQL, `bot.gather`); a ReviewResult when there is
    nothing to review.

    A draft PR is read only when the repository reviews drafts, or `drafts` (a command) asks.
    """
    compared = _compare(port, job)
    if isinstance(compared, ReviewResult):
        return compared
    job, merge_base, files, base_time, tip_time = compared
    target = Target(head=job.head_sha, merge_base=merge_base, base=job.base_sha,
                    files=tuple(Changed(f.path, f.status, f.patch, f.previous_path) for f in files),
                    config_path=job.config_path or CONFIG_PATH, repo=job.repo, number=job.number,
                    base_time=base_time, base_tip_time=tip_time)
    reader = SnapshotReader(port, job.repo, job.number, job.head_sha)

    def checkpoint(config: EngineConfig) -> None:
        pull = reader.snap.pull
        if pull.state != "open":
            raise Stop(ReviewResult("skipped", f"PR is {pull.state}"))
        if pull.head_sha != job.head_sha:
            raise Stop(ReviewResult("dropped", f"head moved to {pull.head_sha[:7]}",
                                    followup=(pull.head_sha, pull.base_sha)))
        if pull.draft and not (config.repo.review_drafts or drafts):
            raise Stop(ReviewResult("skipped", "draft PR"))

    try:
        got = gather(reader, target, checkpoint)
    except Stop as stop:
        assert isinstance(stop.result, ReviewResult)
        return stop.result
    snap = reader.snap
    changeset = dataclasses.replace(got.changeset, title=snap.pull.title)
    return Fetched(snap, files, merge_base, changeset, got.config, got.config_errors, job)


def review(port: GitHubPort, job: ReviewJob, bot_login: str, dry_run: bool = False) -> ReviewResult:
    """Run one review job end to end. Raises GitHubError when GitHub fails for good."""
    got = fetch(port, job)
    if isinstance(got, ReviewResult):
        return got
    snap, files, changeset, config, config_errors = got.snap, got.files, got.changeset, got.config, got.config_errors
    job = got.job or job
    outcome = ReviewResult("reviewed", base_sha=job.base_sha)
    if not dry_run:
        lifecycle.start(port, job, snap, outcome)  # `in_progress` while the rules run and the writes go out
    ctx = ReviewContext(changeset, config)
    report = run(changeset, config, ctx=ctx)
    facts = changelog_facts(ctx)
    posted = bot_comments(snap, bot_login)
    hunks = {f.path: diff.hunks(f.patch) for f in files}
    plan = plan_review(report.findings, hunks, posted, config.repo.max_inline_comments,
                       ignores=ignores_of(snap, bot_login), fix_offer=config.repo.fix.enabled)
    outcome.report = report
    view = plan.view()
    outcome.blocking, outcome.nits = len(view.blocking), len(view.nits)
    fixable = (frozenset(f.fingerprint for it in view.items for f in it.members if has_fix(f))
               if config.repo.fix.enabled else frozenset())
    if dry_run:
        outcome.summary = render.summary_comment(report, job.head_sha, view, config_errors, fixable)
        outcome.writes.append(f"dry-run: {len(plan.inline)} inline, {len(plan.edits)} edits, "
                              f"{len(plan.gone)} gone, {len(plan.replaced)} replaced")
        return outcome
    try:
        _write_review(port, job, report, plan, outcome)
        _write_edits(port, job, plan, outcome)
        _close_gone(port, job, plan, outcome)
        _write_check_run(port, job, snap, report, plan, config_errors, outcome)
        _write_summary(port, job, snap, report, plan, config_errors, bot_login, outcome, fixable)
        if job.action == "opened" and _marked(snap, render.WELCOME_MARKER, bot_login) is None:
            port.create_issue_comment(job.repo, job.number, render.WELCOME)
            outcome.writes.append("welcome")
        labels = reconcile_labels(port, job, list(snap.pull.labels), config, outcome)
        write_gate(port, job, snap, labels, config, facts, len(view.blocking), outcome)
    except GitHubError as err:
        if not err.forbidden:
            raise
        # The token may read but not write here (a fork PR's read-only token): the review is computed,
        # nothing more can be written. The caller reports it (the Action: annotations + job summary).
        outcome.status, outcome.reason = "forbidden", str(err)
        if outcome.summary is None:
            outcome.summary = render.summary_comment(report, job.head_sha, view, config_errors, fixable)
    return outcome


def changelog_facts(ctx: ReviewContext) -> sweep.ChangelogFacts:
    diffs = changelog_diffs(ctx)
    new = [e for d in diffs for e in d.new_entries]
    return sweep.ChangelogFacts(
        appends=any(d.appends_entry for d in diffs), new_entries=len(new),
        append_only=sum(1 for e in new if isinstance(e.data, dict) and e.data.get("append-only") is True))


def reconcile_labels(port: GitHubPort, job: ReviewJob, labels: list[str], config: EngineConfig,
                     outcome: ReviewResult) -> list[str]:
    """A second primary label: the most recent one wins, the bot removes the others and says so once."""
    wanted, removed = sweep.resolve_primaries(labels, job.added_label, config.repo.labels)
    for lb in removed:
        port.remove_label(job.repo, job.number, lb)
        outcome.writes.append(f"labels- {lb}")
    if removed:
        port.create_issue_comment(job.repo, job.number, render.primary_replaced(job.added_label, removed))
        outcome.writes.append("labels comment")
    return wanted


def write_gate(port: GitHubPort, job: ReviewJob, snap: Snapshot, labels: list[str], config: EngineConfig,
               facts: sweep.ChangelogFacts, blocking: int, outcome: ReviewResult) -> None:
    """The `sweep-gate` check run on the head: created once a sweep label appears, then kept current."""
    if outcome.checks_forbidden:
        return  # no `checks: write`: lifecycle.start has said so
    gate = sweep.evaluate(labels, config.repo.labels, facts, blocking)
    output = {"title": gate.title, "summary": gate.summary()}
    mine = [c for c in snap.check_runs if c.name == sweep.GATE_CHECK_NAME]
    if not mine:
        if gate.conclusion == "neutral":
            return  # no sweep requested and no gate to update: nothing to say
        port.create_check_run(job.repo, sweep.GATE_CHECK_NAME, job.head_sha, gate.conclusion, output)
        outcome.writes.append(f"gate {gate.conclusion}")
        return
    cr = mine[0]
    if cr.conclusion == gate.conclusion and cr.title == gate.title and (cr.summary or "") == output["summary"]:
        return
    port.update_check_run(job.repo, cr.id, gate.conclusion, output)
    outcome.writes.append(f"gate update {gate.conclusion}")


def _post(port: GitHubPort, job: ReviewJob, body: str, comments: list[InlineComment], outcome: ReviewResult,
          rejected: list[InlineComment]) -> None:
    """Post a review; on 422 split it to isolate the comments GitHub rejects (never lose the rest)."""
    try:
        port.create_review(job.repo, job.number, job.head_sha, body, [c.to_api() for c in comments])
        outcome.writes.append(f"review COMMENT {len(comments)} inline")
    except GitHubError as err:
        if err.status != 422 or not comments:
            raise
        if len(comments) == 1:
            log.warning("GitHub rejected a review comment on %s:%s: %s", comments[0].path, comments[0].line, err)
            rejected.append(comments[0])
            return
        mid = len(comments) // 2
        _post(port, job, body, comments[:mid], outcome, rejected)
        _post(port, job, body, comments[mid:], outcome, rejected)


def _write_review(port: GitHubPort, job: ReviewJob, report: Report, plan: ReviewPlan, outcome: ReviewResult) -> None:
    if not plan.inline:
        return
    rejected: list[InlineComment] = []
    body = render.review_body(report, plan.view())
    _post(port, job, body, plan.inline, outcome, rejected)
    for c in rejected:  # it goes to the summary instead
        plan.inline_fingerprints.discard(c.item.fingerprint)
        plan.outside.append(c.item)


def _write_edits(port: GitHubPort, job: ReviewJob, plan: ReviewPlan, outcome: ReviewResult) -> None:
    for e in plan.edits:
        port.edit_review_comment(job.repo, e.comment_id, e.body)
        outcome.writes.append(f"edit {e.code}")


def _close_gone(port: GitHubPort, job: ReviewJob, plan: ReviewPlan, outcome: ReviewResult) -> None:
    closings = [(p, render.fixed_reply(job.head_sha), "fixed") for p in plan.gone]
    closings += [(c.comment, render.replaced_reply(c.why), "replaced") for c in plan.replaced]
    for p, reply, kind in closings:
        try:
            if p.thread_id is None:
                raise GitHubError("no thread id")
            port.resolve_thread(p.thread_id)
            outcome.writes.append(f"resolve {p.code}" + ("" if kind == "fixed" else " (replaced)"))
        except GitHubError:
            try:
                port.reply_to_review_comment(job.repo, job.number, p.comment_id, reply)
            except GitHubError as err:
                if err.status != 404:
                    raise
                outcome.notes.append(f"{p.code}: its comment {p.comment_id} was deleted; nothing to mark {kind}")
                continue
            outcome.writes.append(f"reply {kind} {p.code}")


def _write_check_run(port: GitHubPort, job: ReviewJob, snap: Snapshot, report: Report, plan: ReviewPlan,
                     config_errors: list[str], outcome: ReviewResult) -> None:
    if outcome.checks_forbidden:
        return  # said once by lifecycle.start; the summary comment carries the verdict
    view = plan.view()
    conclusion = "failure" if view.blocking else "success"
    output = render.check_run_output(report, job.head_sha, view, config_errors)
    if outcome.check_run_id is not None:  # started (or taken over) `in_progress` by this job: complete it
        port.update_check_run(job.repo, outcome.check_run_id, conclusion, output)
        outcome.writes.append(f"check-run complete {conclusion}")
        return
    mine = [c for c in snap.check_runs if c.name == render.CHECK_RUN_NAME]
    if mine:
        cr = mine[-1]  # the newest, as lifecycle.start reads it
        if cr.status == "completed" and cr.conclusion == conclusion and cr.title == output["title"] \
                and (cr.summary or "") == output["summary"]:
            return
        port.update_check_run(job.repo, cr.id, conclusion, output)
        outcome.writes.append(f"check-run update {conclusion}")
        return
    port.create_check_run(job.repo, render.CHECK_RUN_NAME, job.head_sha, conclusion, output)
    outcome.writes.append(f"check-run {conclusion}")


def _write_summary(port: GitHubPort, job: ReviewJob, snap: Snapshot, report: Report, plan: ReviewPlan,
                   config_errors: list[str], bot_login: str, outcome: ReviewResult,
                   fixable: frozenset[str] = frozenset()) -> None:
    body = render.summary_comment(report, job.head_sha, plan.view(), config_errors, fixable)
    outcome.summary = body
    existing = _marked(snap, render.SUMMARY_MARKER, bot_login)
    if existing is not None and existing.body.strip() != body.strip():
        try:
            port.edit_issue_comment(job.repo, existing.id, body)
            outcome.writes.append("summary edit")
            return
        except GitHubError as err:
            if err.status != 404:
                raise
            # Deleted since the snapshot was read: post it again rather than lose it.
            outcome.notes.append(f"the summary comment {existing.id} was deleted meanwhile; posted a new one")
            existing = None
    if existing is None:
        port.create_issue_comment(job.repo, job.number, body)
        outcome.writes.append("summary create")


__all__ = ["CONFIG_PATH", "Fetched", "ReviewJob", "ReviewResult", "bot_comments", "fetch", "ignores_of", "review"]
