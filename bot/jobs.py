"""Run a queued job: build the GitHub port for its installation and call the handler for its kind."""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot import metrics
from bot.github import GitHubPort, PyGithubPort, client_for
from bot.handlers import review as review_handler
from bot.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Deps:
    """What jobs need; tests and the demo build it around the fake GitHub."""

    settings: Settings
    port_for: Callable[[int | None], GitHubPort]
    submit: Callable[[dict], None] | None = None  # to enqueue follow-up jobs
    store: object | None = None  # bot.store.Store: heads a job learns (`/fix` pushes one)

    @classmethod
    def from_settings(cls, settings: Settings, submit=None, store=None) -> "Deps":
        return cls(settings, lambda inst: PyGithubPort(client_for(settings, inst)), submit, store)


def review_job(d: dict) -> review_handler.ReviewJob:
    return review_handler.ReviewJob(repo=d["repo"], number=int(d["number"]), head_sha=d["head_sha"],
                                    base_sha=d["base_sha"], action=d.get("action", "synchronize"),
                                    installation_id=d.get("installation_id"), delivery_id=d.get("delivery_id", ""),
                                    force=bool(d.get("force")), added_label=d.get("added_label"))


def execute(job: dict, deps: Deps) -> object:
    """Run one job; raises on failure so the queue can retry it."""
    start = time.monotonic()
    kind = job["kind"]
    extra = {"delivery_id": job.get("delivery_id"), "repo": job.get("repo"), "pr": job.get("number"),
             "head_sha": job.get("head_sha"), "job": kind}
    status = "error"
    try:
        port = deps.port_for(job.get("installation_id"))
        if kind == "review":
            out = review_handler.review(port, review_job(job), deps.settings.bot_login, deps.settings.dry_run)
            status = out.status
            if out.report is not None:
                for f in out.report.findings:
                    metrics.FINDINGS.labels(f.code, f.severity.value).inc()
            if out.status == "dropped" and out.followup is not None and deps.submit is not None:
                deps.submit(dict(job, head_sha=out.followup[0], base_sha=out.followup[1], attempt=0))
            after = getattr(deps, "after_review", None)
            if after is not None:
                after(port, job, out)
            log.info("review %s: %s %s", status, out.reason, ", ".join(out.writes), extra=extra)
            return out
        handler = HANDLERS.get(kind)
        if handler is None:
            status = "unknown"
            log.error("unknown job kind %s", kind, extra=extra)
            return None
        out = handler(port, job, deps)
        status = "done"
        return out
    finally:
        elapsed = time.monotonic() - start
        metrics.JOB_SECONDS.labels(kind, status).observe(elapsed)
        extra.update(duration_ms=round(elapsed * 1000, 1), status=status)
        log.info("job finished", extra=extra)


def _command(port, job, deps):
    from bot.handlers import commands

    return commands.handle(port, job, deps)


HANDLERS: dict[str, Callable] = {"command": _command}
