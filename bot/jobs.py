"""Run a queued job: build the GitHub port for its installation and call the handler for its kind.

Failures: a GitHub error that cannot go better on a retry — 404 or 422 (a deleted comment, a
vanished commit, a request GitHub refuses as sent) or a 403 for a missing permission — is not
retried: the job logs why and returns. Anything else raises, and the queue retries it with backoff
(`Deps.max_attempts` in all). When a review job fails for good (a permanent error, or the last
attempt), its `recipe-review` check run is concluded `neutral` with the reason and what to do
(bot/lifecycle.py), so the author is never left with nothing.
"""
from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from bot import lifecycle, metrics
from bot.github import GitHubError, GitHubPort, PyGithubPort, client_for
from bot.handlers import review as review_handler
from bot.job_types import AnyJob, CommandJob, Job, OtherJob, RerequestJob, ReviewJob, as_job
from bot.queue import MAX_ATTEMPTS
from bot.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Deps:
    """What jobs need; tests and the demo build it around the fake GitHub."""

    settings: Settings
    port_for: Callable[[int | None], GitHubPort]
    submit: Callable[[Job], None] | None = None  # to enqueue follow-up jobs
    max_attempts: int = MAX_ATTEMPTS  # the queue's attempts per job: the last one reports a failure
    # Whether labels the bot sets start other workflows (`labeled`). Not with a workflow's
    # GITHUB_TOKEN (GitHub starts no workflow for events it causes): `/sweep` then says so instead.
    labels_start_workflows: bool = True
    config_path: str = ""  # the repository config file, when not `.github/recipe-review.yml` (the Action's input)
    store: object | None = None  # bot.store.DeliveryStore: heads a job learns (`/fix` pushes one)

    @classmethod
    def from_settings(cls, settings: Settings, submit: Callable[[Job], None] | None = None,
                      store: object | None = None) -> Deps:
        return cls(settings, lambda inst: PyGithubPort(client_for(settings, inst)), submit, store=store)


def review_job(job: ReviewJob | Mapping[str, Any]) -> review_handler.ReviewJob:
    """What the review handler needs of a queued review job."""
    d = as_job(job)
    if not isinstance(d, ReviewJob):
        raise ValueError(f"not a review job: {getattr(d, 'problem', '') or d.kind}")
    return review_handler.ReviewJob(repo=d.repo, number=d.number, head_sha=d.head_sha, base_sha=d.base_sha,
                                    action=d.action, installation_id=d.installation_id, delivery_id=d.delivery_id,
                                    force=d.force, added_label=d.added_label, config_path=d.config_path)


def not_retryable(err: BaseException) -> TypeGuard[GitHubError]:
    return isinstance(err, GitHubError) and (err.permanent or err.forbidden)


def _ours(job: AnyJob, settings: Settings) -> bool:
    """A check run / suite event names the App that owns it; only our own re-runs are ours to serve."""
    app_id, slug = getattr(job, "app_id", None), getattr(job, "app_slug", None)
    if settings.github_app_id is not None and app_id is not None:
        return bool(app_id == settings.github_app_id)
    if slug is not None:
        return bool(slug == settings.bot_login.removesuffix("[bot]"))
    return True  # token auth and a payload without the app's slug: nothing to tell it by


def execute(job: Job | Mapping[str, Any], deps: Deps) -> object:
    """Run one job (typed, or a queued payload); raises on a failure worth retrying so the queue can retry it."""
    start = time.monotonic()
    job = as_job(job)
    kind = job.kind
    extra = {"delivery_id": job.delivery_id, "repo": job.repo, "pr": job.number,
             "head_sha": job.get("head_sha"), "job": kind}
    status = "error"
    port = None
    try:
        if not _ours(job, deps.settings):
            status = "ignored"
            log.info("check event of another app (%s): ignored", job.get("app_slug") or job.get("app_id"), extra=extra)
            return None
        if isinstance(job, OtherJob):
            status = "unknown"
            log.error("job not run: %s", job.problem, extra=extra)
            return None
        port = deps.port_for(job.installation_id)
        if isinstance(job, ReviewJob):
            out = _review(port, job, deps, extra)
            status = out.status
            return out
        handler = HANDLERS.get(kind)
        if handler is None:
            status = "unknown"
            log.error("unknown job kind %s", kind, extra=extra)
            return None
        result = handler(port, job, deps)
        status = "done"
        return result
    except Exception as err:
        if not_retryable(err):
            status = "failed"
            log.warning("%s job not retried (GitHub answered %s): %s", kind, err.status, err, extra=extra)
            return None
        raise
    finally:
        elapsed = time.monotonic() - start
        metrics.JOB_SECONDS.labels(kind, status).observe(elapsed)
        extra.update(duration_ms=round(elapsed * 1000, 1), status=status)
        log.info("job finished", extra=extra)


def _review(port: GitHubPort, job: ReviewJob, deps: Deps, extra: dict[str, Any]) -> review_handler.ReviewResult:
    if deps.config_path and not job.config_path:
        job = dataclasses.replace(job, config_path=deps.config_path)
    try:
        out = review_handler.review(port, review_job(job), deps.settings.bot_login, deps.settings.dry_run)
    except Exception as err:
        permanent = not_retryable(err)
        if (permanent or job.attempt + 1 >= deps.max_attempts) and not deps.settings.dry_run:
            reason = str(err) if isinstance(err, GitHubError) else f"an internal error ({type(err).__name__})"
            done = lifecycle.conclude_failed(port, job.repo, job.head_sha, reason)
            log.error("review failed for good: %s; %s", err, done, extra=extra)
        if permanent:  # not retried: the outcome says why
            return review_handler.ReviewResult("failed", str(err))
        raise
    if out.report is not None:
        for f in out.report.findings:
            metrics.FINDINGS.labels(f.code, f.severity.value).inc()
    if out.status == "forbidden" and not deps.settings.dry_run:
        done = lifecycle.conclude_failed(port, job.repo, job.head_sha, out.reason)
        log.error("review computed but not written, the token may not write: %s; %s", out.reason, done, extra=extra)
    if out.status == "dropped" and out.followup is not None and deps.submit is not None:
        deps.submit(dataclasses.replace(job, head_sha=out.followup[0], base_sha=out.followup[1], attempt=0))
    after = getattr(deps, "after_review", None)
    if after is not None:
        after(port, job, out)
    for note in out.notes:
        log.warning(note, extra=extra)
    log.info("review %s: %s %s", out.status, out.reason, ", ".join(out.writes), extra=extra)
    return out


def _command(port: GitHubPort, job: CommandJob, deps: Deps) -> list[str]:
    from bot.handlers import commands

    return commands.handle(port, job, deps)


def _rerequest(port: GitHubPort, job: RerequestJob, deps: Deps) -> list[ReviewJob]:
    """A Re-run of a head whose PR the event did not name (a fork PR): find its open PRs, review each."""
    jobs = []
    for pull in port.pulls_for_commit(job.repo, job.head_sha):
        jobs.append(ReviewJob(repo=job.repo, number=pull.number, head_sha=job.head_sha, base_sha=pull.base_sha,
                              action="synchronize", force=True, installation_id=job.installation_id,
                              delivery_id=job.delivery_id))
    if not jobs:
        log.info("re-run of %s: no open pull request has it as head", job.head_sha[:7],
                 extra={"repo": job.repo, "head_sha": job.head_sha})
    for j in jobs:
        if deps.submit is not None:
            deps.submit(j)
    return jobs


HANDLERS: dict[str, Callable[[GitHubPort, Any, Deps], object]] = {"command": _command, "rerequest": _rerequest}
