"""Fixtures for the bot: settings, a bot app served over real HTTP, signed deliveries."""
from __future__ import annotations

import json
import uuid

import pytest
import requests

from bot.app import build_bot, create_app
from bot.serving import BackgroundServer
from bot.settings import Settings
from bot.webhook import sign

SECRET = "test-secret"


@pytest.fixture
def settings(tmp_path):
    return Settings(webhook_secret=SECRET, store_path=tmp_path / "store.sqlite3", write_interval_s=0,
                    github_token="test-token", github_api_url="http://127.0.0.1:9", worker_threads=2,
                    max_retries=2)


class Deliverer:
    """Sends signed deliveries to a bot over HTTP, the way GitHub does."""

    def __init__(self, url: str, secret: str = SECRET):
        self.url = url
        self.secret = secret.encode()
        self.session = requests.Session()

    def send(self, event: str, payload, delivery: str | None = None, secret: bytes | None = None,
             headers: dict | None = None) -> requests.Response:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        h = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
             "X-Hub-Signature-256": sign(secret if secret is not None else self.secret, body),
             "Content-Type": "application/json"}
        h.update(headers or {})
        h = {k: v for k, v in h.items() if v is not None}
        return self.session.post(f"{self.url}/webhook", data=body, headers=h, timeout=10)


@pytest.fixture
def bot_server(settings):
    """The bot app on a real loopback port; yields (url, bot)."""
    bot = build_bot(settings)
    server = BackgroundServer(create_app(settings, bot)).start()
    yield server.url, bot
    server.stop()
    bot.queue.close()


@pytest.fixture
def deliver(bot_server):
    return Deliverer(bot_server[0])


@pytest.fixture
def sc(tmp_path):
    """The bundled #4867 example PR on the fake GitHub, with the bot serving webhooks (tests/bot/scenario.py)."""
    from tests.bot.scenario import Scenario

    s = Scenario(tmp_path, collaborators={"maintainer": "maintain", "writer": "write", "triager": "triage"})
    yield s
    s.close()
