"""SIGKILL a `recipe-review worker` mid-job: another worker re-runs the job, nothing is lost or doubled."""
from __future__ import annotations

import time
from collections import Counter

import pytest

from bot.rq_mode import RQQueue, RQTuning
from bot.settings import Settings
from tests.scaleout.executors import RAN, STARTED, read


@pytest.fixture
def workers(workers):
    workers.env["RQ_EXECUTOR"] = "tests.scaleout.executors.record"
    return workers


def job(n, head="h1", **kw):
    return {"kind": "review", "repo": "o/r", "number": n, "head_sha": head, "base_sha": "b", "action": "opened", **kw}


def wait_for(cond, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.parametrize("prs", [1, 6], ids=["one PR", "six PRs in flight"])
def test_killed_worker_job_is_rerun_by_another_worker(redis_conn, redis_url, workers, prs):
    q = RQQueue(Settings(queue="rq", redis_url=redis_url), connection=redis_conn, tuning=RQTuning(lock_ttl_s=2))
    victim = workers.start("victim")
    time.sleep(1.0)  # let the victim take the first jobs
    for n in range(1, prs + 1):
        q.submit(job(n, sleep=1.5))
    wait_for(lambda: len(read(redis_conn, STARTED)) >= 1)
    workers.start("survivor")
    started_by_victim = [r for r in read(redis_conn, STARTED) if r["pid"] == victim.pid]
    assert started_by_victim, "the victim should be mid-job"
    killed_at = time.monotonic()
    workers.kill("victim")
    assert q.join(60), workers.logs()
    recovered_in = time.monotonic() - killed_at
    ran = read(redis_conn, RAN)
    assert Counter(r["job"]["number"] for r in ran) == {n: 1 for n in range(1, prs + 1)}  # each exactly once
    assert all(r["pid"] != victim.pid for r in ran if r["job"]["number"] == started_by_victim[0]["job"]["number"])
    assert q.outstanding() == 0
    assert recovered_in < 30
    assert "re-queued orphaned jobs of o/r#" in workers.logs()
