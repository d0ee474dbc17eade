"""Job executors the scale-out tests hand to RQQueue(executor=...): they record what ran in Redis.

A job dict may ask for: `sleep` (seconds), `fail_until` (raise while attempt < fail_until),
`followup` (submit a follow-up job for this head from inside the worker, as a stale review does).
"""
from __future__ import annotations

import json
import os
import time

import redis

from bot.rq_mode import worker_queue

STARTED, RAN = "test:started", "test:ran"


def _conn() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"])


def record(job) -> None:
    job = dict(job)  # the typed job as its payload (what the queue carries), to record as JSON
    r = _conn()
    t0 = time.time()
    r.rpush(STARTED, json.dumps({"job": job, "pid": os.getpid(), "t0": t0}))
    if int(job.get("attempt", 0)) < int(job.get("fail_until", 0)):
        raise RuntimeError("GitHub answered 502")
    time.sleep(float(job.get("sleep", 0)))
    if job.get("followup"):
        worker_queue().submit(dict(job, head_sha=job["followup"], followup=None, sleep=0))
    r.rpush(RAN, json.dumps({"job": job, "pid": os.getpid(), "t0": t0, "t1": time.time()}))


def read(conn: redis.Redis, key: str = RAN) -> list[dict]:
    return [json.loads(x) for x in conn.lrange(key, 0, -1)]


def through_jobs_execute(job: dict) -> object:
    """bot.jobs.execute without GitHub (for kinds that need no port): records the job metrics."""
    from bot.jobs import Deps, execute
    from bot.settings import Settings

    return execute(job, Deps(Settings(), port_for=lambda installation_id: None))
