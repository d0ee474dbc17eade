"""`recipe-review worker` processes on a real Redis: per-PR exclusivity, follow-ups, retries, burst mode."""
from __future__ import annotations

import time
from collections import defaultdict

import pytest

from bot.rq_mode import RQQueue, RQTuning
from bot.settings import Settings
from tests.scaleout.executors import RAN, STARTED, read


def job(n=1, head="h1", action="synchronize", kind="review", **kw):
    return {"kind": kind, "repo": "o/r", "number": n, "head_sha": head, "base_sha": "b", "action": action, **kw}


def make_queue(redis_conn, redis_url) -> RQQueue:
    return RQQueue(Settings(queue="rq", redis_url=redis_url), connection=redis_conn, tuning=RQTuning(lock_ttl_s=2))


def wait_for(cond, timeout=20.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def workers(workers):
    workers.env["RQ_EXECUTOR"] = "tests.scaleout.executors.record"
    return workers


def test_four_workers_never_overlap_on_one_pr_and_end_on_the_newest_head(redis_conn, redis_url, workers):
    q = make_queue(redis_conn, redis_url)
    for name in ("w1", "w2", "w3", "w4"):
        workers.start(name)
    newest = {}
    for burst in range(3):
        for n in range(1, 9):
            for i in range(4):
                head = f"h{burst}-{i}"
                q.submit(job(n=n, head=head, sleep=0.05))
                newest[n] = head
        time.sleep(0.1)
    assert q.join(60), workers.logs()
    ran = read(redis_conn)
    by_pr = defaultdict(list)
    for r in ran:
        by_pr[r["job"]["number"]].append(r)
    assert sorted(by_pr) == list(range(1, 9))
    for n, runs in by_pr.items():
        runs.sort(key=lambda r: r["t0"])
        assert runs[-1]["job"]["head_sha"] == newest[n]
        for a, b in zip(runs, runs[1:], strict=False):
            assert a["t1"] <= b["t0"], f"PR {n}: two jobs overlapped"
    assert len(ran) < 8 * 12  # bursts collapsed
    assert len({r["pid"] for r in ran}) > 1  # the work was shared


def test_follow_up_submitted_by_a_worker_goes_back_to_redis(redis_conn, redis_url, workers):
    q = make_queue(redis_conn, redis_url)
    workers.start("w1")
    q.submit(job(head="old", followup="new"))
    assert q.join(30), workers.logs()
    assert [r["job"]["head_sha"] for r in read(redis_conn)] == ["old", "new"]


def test_failing_job_is_retried_with_backoff(redis_conn, redis_url, workers):
    q = make_queue(redis_conn, redis_url)
    workers.start("w1")
    workers.start("w2")
    q.submit(job(fail_until=2))
    assert q.join(30), workers.logs()
    assert [r["job"].get("attempt", 0) for r in read(redis_conn, STARTED)] == [0, 1, 2]
    assert [r["job"]["attempt"] for r in read(redis_conn, RAN)] == [2]


def test_burst_worker_exits_when_everything_is_done(redis_conn, redis_url, workers):
    q = make_queue(redis_conn, redis_url)
    for n in range(1, 4):
        q.submit(job(n=n, fail_until=1))
    proc = workers.start("burst", "--burst")
    assert proc.wait(30) == 0, workers.logs()
    assert q.outstanding() == 0 and len(read(redis_conn)) == 3


def test_worker_logs_are_json_lines(redis_conn, redis_url, workers):
    import json

    q = make_queue(redis_conn, redis_url)
    q.submit(job())
    proc = workers.start("burst", "--burst")
    assert proc.wait(30) == 0
    lines = [ln for ln in workers.logs().splitlines() if ln.strip()]
    assert lines and all(json.loads(ln)["level"] for ln in lines), lines


def test_worker_serves_its_own_metrics(redis_conn, redis_url, workers):
    import requests

    from tests.scaleout.conftest import _free_port

    port = _free_port()
    workers.env.update(RQ_METRICS_PORT=str(port), RQ_EXECUTOR="tests.scaleout.executors.through_jobs_execute")
    q = make_queue(redis_conn, redis_url)
    q.submit(job(kind="noop"))
    workers.start("w1")
    assert q.join(30), workers.logs()
    text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    assert 'recipe_review_job_seconds_count{kind="noop",status="unknown"} 1.0' in text
