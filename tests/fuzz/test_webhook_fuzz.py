"""Property: whatever arrives at POST /webhook, the answer is never a 5xx, and rejected input
(bad signature, missing headers, too large, not a JSON object, bad payload) runs no handler and
queues no job."""
from __future__ import annotations

import json
import os
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import Bot, create_app
from bot.handlers import events
from bot.handlers.review import REVIEW_ACTIONS
from bot.routing import Router
from bot.settings import Settings
from bot.store import SqliteStore
from bot.webhook import sign
from tests.fuzz.strategies import (
    EVENTS,
    HEADER_NAMES,
    header_values,
    mutated_payload,
    valid_like_payloads,
    webhook_bodies,
)

EXAMPLES = int(os.environ.get("RECIPE_REVIEW_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SECRET = b"fuzz-secret"
REJECTED = {"bad-signature", "missing-headers", "too-large", "bad-json", "bad-payload"}


class Spy:
    """A router handler and a queue that record every call."""

    def __init__(self):
        self.handled, self.jobs = [], []
        self.router = Router(events.router, self._router())

    def _router(self) -> Router:
        r = Router()

        @r.register("pull_request", *REVIEW_ACTIONS)
        def spy(payload, delivery_id):
            self.handled.append(delivery_id)
            return []

        return r

    def submit(self, job):
        assert isinstance(job["repo"], str) and isinstance(job["number"], int), job
        self.jobs.append(job)

    def depth(self):
        return len(self.jobs)

    def close(self):
        pass


class Harness:
    def __init__(self, directory, max_body_bytes: int = 256 * 1024):
        settings_ = Settings(webhook_secret=SECRET.decode(), store_path=directory / "s.db",
                             max_body_bytes=max_body_bytes, github_api_url="http://127.0.0.1:9")
        self.spy = Spy()
        self.app = create_app(settings_, Bot(settings_, self.spy.router, SqliteStore(settings_.store_path), self.spy))
        self.client = self.app.test_client()

    def post(self, body: bytes, headers: dict):
        before_h, before_j = len(self.spy.handled), len(self.spy.jobs)
        r = self.client.post("/webhook", data=body, headers=headers)
        assert r.status_code < 500, (r.status_code, r.get_data()[:200])
        outcome = (r.get_json(silent=True) or {}).get("outcome")
        if r.status_code in (400, 401, 413) or outcome in REJECTED:
            assert outcome in REJECTED, outcome
            assert len(self.spy.jobs) == before_j, "a rejected delivery queued a job"
            if outcome != "bad-payload":  # a payload is found bad by the handler reading it
                assert len(self.spy.handled) == before_h, "a handler ran on rejected input"
        else:
            assert r.status_code in (200, 202), r.status_code
        return r, outcome


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    return Harness(tmp_path_factory.mktemp("webhook-fuzz"))


def signed(event, body, delivery=None):
    return {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(SECRET, body), "Content-Type": "application/json"}


@FUZZ
@given(st.sampled_from(EVENTS), webhook_bodies(), st.dictionaries(st.sampled_from(HEADER_NAMES), header_values,
                                                                  max_size=4), st.booleans())
def test_random_deliveries_never_5xx_and_rejections_run_nothing(harness, event, body, overrides, keep_signature):
    headers = signed(event, body)
    if not keep_signature:
        headers["X-Hub-Signature-256"] = sign(b"forged", body)
    headers.update(overrides)
    headers = {k: v for k, v in headers.items() if "\x00" not in v}
    r, outcome = harness.post(body, headers)
    valid_sig = headers.get("X-Hub-Signature-256") == sign(SECRET, body)
    if not valid_sig and outcome != "too-large":
        assert r.status_code == 401


@FUZZ
@given(st.one_of(valid_like_payloads, mutated_payload()), st.sampled_from(["pull_request", "issue_comment"]))
def test_signed_payloads_of_any_shape_are_queued_or_refused_cleanly(harness, payload, event):
    body = json.dumps(payload).encode()
    r, outcome = harness.post(body, signed(event, body))
    assert outcome in REJECTED | {"queued", "ignored", "ignored-self", "duplicate", "pong"}, outcome
    if outcome == "queued":
        job = harness.spy.jobs[-1]
        assert job["repo"] == payload["repository"]["full_name"] and job["number"] == payload["pull_request"]["number"]


def test_body_over_the_limit_is_413_before_anything_else(tmp_path):
    h = Harness(tmp_path, max_body_bytes=1024)
    body = b"{" + b" " * 2048 + b"}"
    r, outcome = h.post(body, signed("pull_request", body))
    assert (r.status_code, outcome) == (413, "too-large")


def test_body_over_25_mb_is_refused_at_the_default_limit(tmp_path):
    h = Harness(tmp_path, max_body_bytes=25 * 1024 * 1024)
    body = b"[" + b"0," * (13 * 1024 * 1024) + b"0]"
    r, outcome = h.post(body, signed("pull_request", body))
    assert (r.status_code, outcome) == (413, "too-large")
