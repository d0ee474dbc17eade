"""No secret ever reaches a log line: the token, the webhook secret, the App private key, App JWTs and
installation tokens — on the happy path, on forged deliveries, on GitHub failures, at DEBUG level,
in the webhook process and in `recipe-review worker` processes."""
from __future__ import annotations

import io
import json
import logging
import re
import uuid

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot import demo, logs
from bot.app import build_bot, create_app
from bot.jobs import Deps, execute
from bot.serving import BackgroundServer
from bot.settings import Settings
from bot.webhook import sign
from fakegithub.server import FakeGitHub

TOKEN = "ghp_" + "S3cretT0kenValue" * 2
WEBHOOK_SECRET = "whsec-Sup3rS3cretValue-9f3a"


@pytest.fixture(scope="module")
def private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


@pytest.fixture
def captured():
    """Every log record, formatted as the bot formats it, at DEBUG level."""
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield buf
    root.removeHandler(handler)
    root.setLevel(old)


@pytest.fixture
def fake(tmp_path):
    base, head = demo.build_repo(tmp_path / "repo")
    f = FakeGitHub(tmp_path / "repo", repo=demo.REPO)
    f.add_pr(demo.PR_NUMBER, base=base, head=head, author="contributor", title=demo.TITLE)
    f.start()
    yield f
    f.stop()


def secrets_in(text: str, private_key: str, fake: FakeGitHub | None = None) -> list[str]:
    found = [s for s in (TOKEN, WEBHOOK_SECRET) if s in text]
    body = "".join(ln for ln in private_key.splitlines() if "-----" not in ln)
    found += [f"private key chunk {i}" for i in range(0, len(body) - 24, 24) if body[i:i + 24] in text]
    found += re.findall(r"eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{10,}", text)  # a JWT
    if fake is not None:
        found += [t for t in fake.tokens if t in text]
    return found


def deliver(url: str, payload: dict, secret: str = WEBHOOK_SECRET) -> requests.Response:
    body = json.dumps(payload).encode()
    return requests.post(f"{url}/webhook", data=body, timeout=10, headers={
        "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(secret.encode(), body), "Content-Type": "application/json"})


def test_threads_mode_app_auth_review_and_failures_log_no_secret(fake, tmp_path, private_key, captured):
    settings = Settings(github_api_url=fake.url, github_app_id=1, github_private_key=private_key,
                        github_token=TOKEN, webhook_secret=WEBHOOK_SECRET, store_path=tmp_path / "s.db",
                        write_interval_s=0, max_retries=1, log_level="DEBUG")
    bot = build_bot(settings)
    server = BackgroundServer(create_app(settings, bot)).start()
    try:
        payload = requests.get(f"{fake.url}/_fake/webhook/pull_request",
                               params={"action": "opened", "number": demo.PR_NUMBER}, timeout=10).json()
        assert deliver(server.url, payload).status_code == 202
        assert deliver(server.url, payload, secret="forged").status_code == 401
        assert bot.queue.join(60)
        assert fake.tokens, "the job should have authenticated as the App installation"
        assert any(c["path"].endswith("/reviews") for c in fake.state()["calls"])
        # GitHub failing for good: the traceback is logged, the secrets are not.
        dead = settings.model_copy(update={"github_api_url": "http://127.0.0.1:9", "github_app_id": None})
        try:
            execute({"kind": "review", "repo": demo.REPO, "number": demo.PR_NUMBER, "head_sha": "a" * 40,
                     "base_sha": "b" * 40, "installation_id": None}, Deps.from_settings(dead))
        except Exception:  # as the queues log it
            logging.getLogger("bot.queue").exception("job failed for good")
        else:
            pytest.fail("the job against a dead GitHub should fail")
        logging.getLogger("test").info("settings: %r %s", settings, settings)
    finally:
        server.stop()
        bot.queue.close()
    text = captured.getvalue()
    assert '"level": "DEBUG"' in text and "Traceback" in text  # the capture saw the noisy paths
    assert secrets_in(text, private_key, fake) == []


def test_worker_process_logs_no_secret(fake, redis_conn, redis_url, workers, private_key):
    from bot.rq_mode import RQQueue

    workers.env.update(GITHUB_API_URL=fake.url, GITHUB_APP_ID="1", GITHUB_PRIVATE_KEY=private_key,
                       GITHUB_TOKEN=TOKEN, WEBHOOK_SECRET=WEBHOOK_SECRET, LOG_LEVEL="DEBUG", MAX_RETRIES="1")
    q = RQQueue(Settings(queue="rq", redis_url=redis_url), connection=redis_conn)
    payload = requests.get(f"{fake.url}/_fake/webhook/pull_request",
                           params={"action": "opened", "number": demo.PR_NUMBER}, timeout=10).json()
    pr = payload["pull_request"]
    q.submit({"kind": "review", "repo": demo.REPO, "number": demo.PR_NUMBER, "head_sha": pr["head"]["sha"],
              "base_sha": pr["base"]["sha"], "action": "opened", "installation_id": payload["installation"]["id"],
              "delivery_id": "d-1"})
    q.submit({"kind": "review", "repo": demo.REPO, "number": 999, "head_sha": "a" * 40, "base_sha": "b" * 40,
              "installation_id": 12345, "delivery_id": "d-2"})  # fails: no such installation / PR
    workers.start("w1")
    assert q.join(60), workers.logs()
    text = workers.logs()
    assert '"level": "DEBUG"' in text and "review reviewed" in text
    assert secrets_in(text, private_key, fake) == []


def test_the_detector_would_notice_a_leak(private_key):
    pem_line = private_key.splitlines()[3]
    for leak in (
        TOKEN,
        WEBHOOK_SECRET,
        pem_line,
        "Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxIiwiZXhwIjoxfQ.c2lnbmF0dXJlZm9v",
    ):
        assert secrets_in(f"msg {leak} end", private_key), leak
