"""The webhook over real HTTP: every rejection happens before any handler or job."""
import json

import pytest

from bot.app import Bot, create_app
from bot.handlers import router
from bot.job_types import ReviewJob
from bot.serving import BackgroundServer
from bot.store import SqliteStore
from tests.bot.conftest import Deliverer

PR_PAYLOAD = {
    "action": "opened",
    "number": 7,
    "pull_request": {"number": 7, "head": {"sha": "a" * 40}, "base": {"sha": "b" * 40, "ref": "main"}},
    "repository": {"full_name": "octo/bench"},
    "installation": {"id": 42},
}


class RecordingQueue:
    """A JobQueue that keeps what it is given (the webhook's output) instead of running it."""

    def __init__(self):
        self.jobs = []

    def submit(self, job):
        self.jobs.append(job)

    def depth(self):
        return len(self.jobs)

    def close(self):
        pass


@pytest.fixture
def hook(settings):
    settings = settings.model_copy(update={"max_body_bytes": 64 * 1024})
    queue = RecordingQueue()
    bot = Bot(settings, router, SqliteStore(settings.store_path), queue)
    server = BackgroundServer(create_app(settings, bot)).start()
    yield Deliverer(server.url), queue
    server.stop()


def test_ping(hook):
    d, q = hook
    r = d.send("ping", {"zen": "Keep it logically awesome."})
    assert r.status_code == 200 and r.json()["outcome"] == "pong" and q.jobs == []


def test_pull_request_opened_queues_one_review_job(hook):
    d, q = hook
    r = d.send("pull_request", PR_PAYLOAD, delivery="d-1")
    assert r.status_code == 202 and r.json() == {"outcome": "queued", "jobs": 1}
    assert q.jobs == [ReviewJob(repo="octo/bench", number=7, delivery_id="d-1", installation_id=42,
                                head_sha="a" * 40, base_sha="b" * 40, action="opened")]


def test_redelivery_is_acknowledged_and_ignored(hook):
    d, q = hook
    assert d.send("pull_request", PR_PAYLOAD, delivery="same").status_code == 202
    r = d.send("pull_request", PR_PAYLOAD, delivery="same")
    assert r.status_code == 200 and r.json()["outcome"] == "duplicate" and len(q.jobs) == 1


@pytest.mark.parametrize("kwargs,status,outcome", [
    ({"secret": b"wrong"}, 401, "bad-signature"),
    ({"headers": {"X-Hub-Signature-256": None}}, 401, "bad-signature"),
    ({"headers": {"X-Hub-Signature-256": "sha1=abc"}}, 401, "bad-signature"),
    ({"headers": {"X-GitHub-Delivery": None}}, 400, "missing-headers"),
], ids=["forged signature", "missing signature", "wrong algorithm", "missing delivery id"])
def test_rejections_run_no_handler(hook, kwargs, status, outcome):
    d, q = hook
    r = d.send("pull_request", PR_PAYLOAD, **kwargs)
    assert (r.status_code, r.json()["outcome"]) == (status, outcome) and q.jobs == []


def test_missing_event_header(hook):
    d, q = hook
    r = d.send(None, PR_PAYLOAD, headers={"X-GitHub-Event": None})
    assert r.status_code == 400 and q.jobs == []


@pytest.mark.parametrize(
    "body", [b"{not json", b"[1, 2]", b"\xff\xfe", b""], ids=["malformed", "array", "binary", "empty"]
)
def test_bad_json_is_400(hook, body):
    d, q = hook
    r = d.send("pull_request", body)
    assert r.status_code == 400 and r.json()["outcome"] == "bad-json" and q.jobs == []


def test_oversized_body_is_413_before_signature(hook):
    d, q = hook
    r = d.send("pull_request", b"x" * (64 * 1024 + 1), secret=b"wrong")
    assert r.status_code == 413 and q.jobs == []


def test_unknown_event_and_action_are_ignored(hook):
    d, q = hook
    assert d.send("star", {"action": "created"}).json()["outcome"] == "ignored"
    assert d.send("pull_request", dict(PR_PAYLOAD, action="assigned")).json()["outcome"] == "ignored"
    assert q.jobs == []


@pytest.mark.parametrize("mutate", [
    lambda p: p.pop("repository"),
    lambda p: p["pull_request"].pop("head"),
    lambda p: p["pull_request"].update(number="7"),
    lambda p: p["repository"].update(full_name="noslash"),
], ids=["no repository", "no head", "string number", "bad full_name"])
def test_payload_missing_fields_is_400_and_does_not_burn_the_delivery(hook, mutate):
    d, q = hook
    p = json.loads(json.dumps(PR_PAYLOAD))
    mutate(p)
    r = d.send("pull_request", p, delivery="dx")
    assert r.status_code == 400 and r.json()["outcome"] == "bad-payload" and q.jobs == []
    assert d.send("pull_request", PR_PAYLOAD, delivery="dx").status_code == 202


def test_healthz_and_metrics(hook):
    d, _ = hook
    d.send("ping", {})
    assert d.session.get(f"{d.url}/healthz").json()["ok"] is True
    text = d.session.get(f"{d.url}/metrics").text
    assert 'recipe_review_deliveries_total{event="ping",outcome="pong"}' in text


def test_empty_secret_refuses_everything(settings, tmp_path):
    s = settings.model_copy(update={"webhook_secret": settings.webhook_secret.__class__("")})
    q = RecordingQueue()
    server = BackgroundServer(create_app(s, Bot(s, router, SqliteStore(tmp_path / "x.db"), q))).start()
    try:
        r = Deliverer(server.url, secret="").send("ping", {})
        assert r.status_code == 401
    finally:
        server.stop()
