"""Shared state that must survive restarts and be seen by every worker.

- delivery ids already accepted (a redelivery is acknowledged and ignored);
- the newest head SHA announced for each PR (a job for an older head is dropped).

`SqliteStore` is the embedded default (one process); `RedisStore` is shared by RQ workers.
"""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import redis

DELIVERY_TTL_S = 7 * 24 * 3600  # GitHub redelivers for a few days at most
PRUNE_EVERY = 1000


class DeliveryStore(Protocol):
    def claim_delivery(self, delivery_id: str) -> bool: ...
    def set_head(self, repo: str, number: int, head_sha: str) -> None: ...
    def head(self, repo: str, number: int) -> str | None: ...


class SqliteStore:
    """SQLite store (WAL), safe across threads of one process."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        self._local = threading.local()
        self._claims = 0
        with self._conn() as c:
            c.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: no fsync per delivery id (the webhook answers in milliseconds); a power
            # loss can forget the last ids, and a redelivery of those is still planned idempotently.
            c.execute("PRAGMA synchronous=NORMAL")
            c.execute("CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, at REAL NOT NULL)")
            c.execute("CREATE TABLE IF NOT EXISTS heads (pr TEXT PRIMARY KEY, sha TEXT NOT NULL, at REAL NOT NULL)")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def claim_delivery(self, delivery_id: str) -> bool:
        """True the first time a delivery id is seen, False for a redelivery."""
        now = time.time()
        c = self._conn()
        cur = c.execute("INSERT OR IGNORE INTO deliveries (id, at) VALUES (?, ?)", (delivery_id, now))
        self._claims += 1
        if cur.rowcount and self._claims % PRUNE_EVERY == 0:  # keep the table bounded
            c.execute("DELETE FROM deliveries WHERE at < ?", (now - DELIVERY_TTL_S,))
        return cur.rowcount == 1

    def set_head(self, repo: str, number: int, head_sha: str) -> None:
        self._conn().execute("INSERT INTO heads (pr, sha, at) VALUES (?, ?, ?) ON CONFLICT(pr) DO UPDATE SET "
                             "sha = excluded.sha, at = excluded.at", (f"{repo}#{number}", head_sha, time.time()))

    def head(self, repo: str, number: int) -> str | None:
        row = self._conn().execute("SELECT sha FROM heads WHERE pr = ?", (f"{repo}#{number}",)).fetchone()
        return row[0] if row else None


class RedisStore:
    """The same contract on Redis, shared by every RQ worker and webhook process."""

    def __init__(self, redis_client: redis.Redis, prefix: str = "recipe-review"):
        self.r = redis_client
        self.prefix = prefix

    def claim_delivery(self, delivery_id: str) -> bool:
        return bool(self.r.set(f"{self.prefix}:delivery:{delivery_id}", 1, nx=True, ex=DELIVERY_TTL_S))

    def set_head(self, repo: str, number: int, head_sha: str) -> None:
        self.r.set(f"{self.prefix}:head:{repo}#{number}", head_sha, ex=DELIVERY_TTL_S)

    def head(self, repo: str, number: int) -> str | None:
        v = self.r.get(f"{self.prefix}:head:{repo}#{number}")
        return v.decode() if isinstance(v, bytes) else v
