"""POST /webhook: verify the delivery, dedupe it, turn it into jobs, answer in milliseconds.

Order of checks (no handler runs unless all pass): body size (413), signature over the raw body
(401), X-GitHub-Event and X-GitHub-Delivery headers (400), JSON object (400). `ping` answers 200;
an event or action we do not handle answers 202 "ignored"; a delivery id seen before answers 200
"duplicate" and does nothing.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import logging
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, jsonify, request

from bot import metrics
from bot.handlers.events import PayloadError
from bot.job_types import CommandJob, Job, ReviewJob

if TYPE_CHECKING:
    from bot.store import DeliveryStore

log = logging.getLogger(__name__)
bp = Blueprint("webhook", __name__)

# Events the bot causes itself (its label writes, its comments): never a reason to act.
SELF_IGNORED = ("issue_comment", "pull_request_review_comment", "pull_request_review", "pull_request")


def signature_ok(secret: bytes, body: bytes, header: str | None) -> bool:
    if not secret or not header or not header.startswith("sha256="):
        return False
    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header.encode())


def sign(secret: bytes, body: bytes) -> str:
    """The X-Hub-Signature-256 header value GitHub would send (tests, demo, soak)."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def _answer(status: int, event: str, outcome: str, **extra: object) -> Response:
    metrics.DELIVERIES.labels(event or "-", outcome).inc()
    resp = jsonify({"outcome": outcome, **extra})
    resp.status_code = status
    return resp


def _track_head(store: DeliveryStore, job: Job) -> Job:
    """Remember each PR's newest announced head; give a command the head its author could see.

    Issue comments carry no head SHA, so a command job gets (as a new copy) the head of the last
    `pull_request` event; `/fix` refuses when the PR's head is no longer that one (it moved since
    the command).
    """
    if isinstance(job, ReviewJob) and job.head_sha:
        store.set_head(job.repo, job.number, job.head_sha)
    elif isinstance(job, CommandJob):
        if job.head_sha:
            store.set_head(job.repo, job.number, job.head_sha)
        else:
            known = store.head(job.repo, job.number)
            if known:
                return dataclasses.replace(job, head_sha=known)
    return job


def _track_self_push(store: DeliveryStore, payload: dict[str, Any]) -> None:
    pr: Any = payload.get("pull_request")
    repo: Any = payload.get("repository")
    try:
        store.set_head(repo["full_name"], int(pr["number"]), str(pr["head"]["sha"]))
    except (KeyError, TypeError, ValueError):
        pass  # a malformed payload of our own event: nothing to remember


@bp.post("/webhook")
def webhook() -> Response:
    bot = current_app.extensions["recipe_review"]
    settings = bot.settings
    event = request.headers.get("X-GitHub-Event", "")
    length = request.content_length
    if length is not None and length > settings.max_body_bytes:
        return _answer(413, event, "too-large")
    body = request.stream.read(settings.max_body_bytes + 1)
    if len(body) > settings.max_body_bytes:
        return _answer(413, event, "too-large")
    if not signature_ok(settings.webhook_secret.get_secret_value().encode(), body,
                        request.headers.get("X-Hub-Signature-256")):
        return _answer(401, event, "bad-signature")
    delivery = request.headers.get("X-GitHub-Delivery", "")
    if not event or not delivery:
        return _answer(400, event, "missing-headers", error="X-GitHub-Event and X-GitHub-Delivery are required")
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: hostile nesting depth
        return _answer(400, event, "bad-json", error="body is not JSON")
    if not isinstance(payload, dict):
        return _answer(400, event, "bad-json", error="body is not a JSON object")
    extra = {"delivery_id": delivery, "event": event, "action": payload.get("action")}
    if event == "ping":
        return _answer(200, event, "pong", zen=payload.get("zen"))
    if not bot.router.handlers(event, payload.get("action")):
        return _answer(202, event, "ignored")
    sender = (payload.get("sender") or {}).get("login") if isinstance(payload.get("sender"), dict) else None
    if sender == settings.bot_login and event in SELF_IGNORED:
        if event == "pull_request":  # our own push (`/fix`) still moves the head
            _track_self_push(bot.store, payload)
        return _answer(202, event, "ignored-self")
    try:
        jobs = bot.router.dispatch(event, payload, delivery)
    except PayloadError as err:
        log.warning("bad payload: %s", err, extra=extra)
        return _answer(400, event, "bad-payload", error=str(err))
    if not jobs:  # e.g. a comment without a command, or on a plain issue
        return _answer(202, event, "ignored")
    if not bot.store.claim_delivery(delivery):
        log.info("duplicate delivery", extra=extra)
        return _answer(200, event, "duplicate")
    for job in jobs:
        bot.queue.submit(_track_head(bot.store, job))
    log.info("accepted %d job(s)", len(jobs), extra=extra)
    return _answer(202, event, "queued", jobs=len(jobs))
