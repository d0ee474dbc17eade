"""RedisStore (the shared store of QUEUE=rq) and the webhook wired to Redis by build_bot."""
from __future__ import annotations

import json
import threading

import pytest

from bot.app import build_bot, create_app
from bot.rq_mode import RQQueue, redis_store
from bot.serving import BackgroundServer
from bot.settings import Settings
from bot.store import RedisStore
from tests.bot.conftest import SECRET, Deliverer

PR_PAYLOAD = {
    "action": "synchronize",
    "number": 7,
    "pull_request": {"number": 7, "head": {"sha": "a" * 40}, "base": {"sha": "b" * 40, "ref": "main"}},
    "repository": {"full_name": "octo/bench"},
    "installation": {"id": 42},
}


def test_delivery_is_claimed_once_across_threads_and_connections(redis_conn, redis_url):
    stores = [RedisStore(redis_conn), redis_store(Settings(redis_url=redis_url))]
    wins = []
    threads = [threading.Thread(target=lambda i=i: wins.append(stores[i % 2].claim_delivery("d-1")))
               for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1
    assert 0 < redis_conn.ttl("recipe-review:delivery:d-1") <= 7 * 24 * 3600


def test_head_round_trip(redis_conn):
    store = RedisStore(redis_conn)
    assert store.head("o/r", 1) is None
    store.set_head("o/r", 1, "abc")
    store.set_head("o/r", 1, "def")
    assert store.head("o/r", 1) == "def" and store.head("o/r", 2) is None


@pytest.fixture
def rq_bot(redis_conn, redis_url, tmp_path):
    settings = Settings(queue="rq", redis_url=redis_url, webhook_secret=SECRET, store_path=tmp_path / "unused.db",
                        github_token="t", github_api_url="http://127.0.0.1:9")
    bot = build_bot(settings)
    server = BackgroundServer(create_app(settings, bot)).start()
    yield Deliverer(server.url), bot, server.url
    server.stop()
    bot.queue.close()


def test_webhook_in_rq_mode_queues_to_redis_and_dedupes_there(rq_bot, redis_conn):
    deliver, bot, url = rq_bot
    assert isinstance(bot.queue, RQQueue) and isinstance(bot.store, RedisStore)
    assert deliver.send("pull_request", PR_PAYLOAD, delivery="d-1").status_code == 202
    assert deliver.send("pull_request", PR_PAYLOAD, delivery="d-1").json()["outcome"] == "duplicate"
    newer = json.loads(json.dumps(PR_PAYLOAD))
    newer["pull_request"]["head"]["sha"] = "c" * 40
    assert deliver.send("pull_request", newer, delivery="d-2").status_code == 202
    pending = redis_conn.hgetall("recipe-review:pending:octo/bench#7")
    assert list(pending) == [b"review"]
    assert json.loads(pending[b"review"])["job"]["head_sha"] == "c" * 40
    assert bot.queue.depth() == 1 and bot.queue.rq.count == 1
    health = deliver.session.get(f"{url}/healthz").json()
    assert health["queue"] == "rq" and health["depth"] == 1
    metrics = deliver.session.get(f"{url}/metrics").text
    assert "recipe_review_queue_depth 1.0" in metrics
