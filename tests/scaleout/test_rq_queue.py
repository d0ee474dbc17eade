"""RQQueue + Drainer semantics on a real Redis, driven in-process (no worker subprocess)."""
from __future__ import annotations

import json
import time

import pytest

from bot.queue import MAX_ATTEMPTS
from bot.rq_mode import Drainer, Keys, RQQueue, RQTuning, reap, slot_kind
from bot.settings import Settings

PR = "o/r#1"
TUNING = RQTuning(lock_ttl_s=2, reap_interval_s=0.1, retry_delays_s=(0.2,))


def job(n=1, head="h1", action="synchronize", kind="review", **kw):
    return {"kind": kind, "repo": "o/r", "number": n, "head_sha": head, "base_sha": "b", "action": action, **kw}


@pytest.fixture
def queue(redis_conn, redis_url):
    q = RQQueue(Settings(queue="rq", redis_url=redis_url), connection=redis_conn, tuning=TUNING)
    yield q


class Recorder:
    def __init__(self, fail_until=0, during=None, fail_heads=()):
        self.ran, self.fail_until, self.during, self.fail_heads = [], fail_until, during, fail_heads

    def __call__(self, j):
        self.ran.append(j)
        if self.during is not None:
            self.during, during = None, self.during
            during()
        if int(j.get("attempt", 0)) < self.fail_until or j["head_sha"] in self.fail_heads:
            raise RuntimeError("GitHub answered 502")


def drain_until_idle(queue, drainer, pr=PR, timeout=10.0):
    """What the workers' reapers do: drain again whenever the PR is unlocked, until it is settled."""
    deadline = time.monotonic() + timeout
    outcomes = [drainer.drain(pr)]
    while queue.r.sismember(queue.keys.active, pr):
        assert time.monotonic() < deadline, "PR never settled"
        time.sleep(0.05)
        if not queue.r.exists(queue.keys.lock(pr)):
            outcomes.append(drainer.drain(pr))
    return outcomes


def test_burst_collapses_to_newest_head_keeping_opened(queue):
    queue.submit(job(head="h0", action="opened"))
    for i in range(1, 20):
        queue.submit(job(head=f"h{i}"))
    queue.submit(job(n=2, head="other"))
    assert queue.depth() == 2 and queue.rq.count == 2  # one drain job per PR, not one per event
    rec = Recorder()
    assert Drainer(queue.r, rec, TUNING).drain(PR) == "done"
    assert [(j["head_sha"], j["action"]) for j in rec.ran] == [("h19", "opened")]
    assert queue.depth() == 1 and not queue.r.sismember(queue.keys.active, PR)


def test_every_kind_of_one_pr_runs_in_submit_order(queue):
    for j in (job(kind="labels"), job(), job(kind="command", comment_id=2), job(kind="command", comment_id=1)):
        queue.submit(j)
    rec = Recorder()
    Drainer(queue.r, rec, TUNING).drain(PR)
    assert [slot_kind(j) for j in rec.ran] == ["labels", "review", "command:2", "command:1"]


def test_job_submitted_while_the_holder_runs_is_run_by_the_holder(queue):
    queue.submit(job(head="h1"))
    rec = Recorder(during=lambda: queue.submit(job(head="h2")))
    drainer = Drainer(queue.r, rec, TUNING)
    assert drainer.drain(PR) == "done"
    assert [j["head_sha"] for j in rec.ran] == ["h1", "h2"]
    assert drainer.drain(PR) == "done" and len(rec.ran) == 2  # the second queued drain finds nothing


def test_drain_that_finds_the_lock_held_loses_nothing(queue):
    holder = queue.r.lock(queue.keys.lock(PR), timeout=5, blocking=False, thread_local=False)
    assert holder.acquire(blocking=False)
    queue.submit(job())
    rec = Recorder()
    drainer = Drainer(queue.r, rec, TUNING)
    assert drainer.drain(PR) == "busy" and rec.ran == []
    assert queue.depth() == 1
    holder.release()
    assert reap(queue.r, queue) == 1  # nobody holds the PR and no drain is queued: the reaper queues one
    assert reap(queue.r, queue) == 0  # ... once
    assert drainer.drain(PR) == "done" and len(rec.ran) == 1


def test_failed_job_waits_out_the_backoff_then_retries(queue):
    queue.submit(job())
    rec = Recorder(fail_until=2)
    drainer = Drainer(queue.r, rec, TUNING)
    assert drainer.drain(PR) == "retry"
    ttl = queue.r.pttl(queue.keys.lock(PR))
    assert 0 < ttl <= 200  # the lock is kept for the backoff
    stored = json.loads(queue.r.hget(queue.keys.inflight(PR), "review"))
    assert stored["job"]["attempt"] == 1
    assert drain_until_idle(queue, drainer)[-1] == "done"
    assert [j.get("attempt", 0) for j in rec.ran] == [0, 1, 2]


def test_newer_job_supersedes_a_retry(queue):
    queue.submit(job(head="h1", action="opened"))
    rec = Recorder(fail_heads=("h1",))
    drainer = Drainer(queue.r, rec, TUNING)
    assert drainer.drain(PR) == "retry"
    queue.submit(job(head="h2"))
    drain_until_idle(queue, drainer)
    assert [(j["head_sha"], j["action"], j.get("attempt", 0)) for j in rec.ran] == [
        ("h1", "opened", 0), ("h2", "opened", 0)]


def test_job_failing_for_good_is_dropped_after_max_attempts(queue, caplog):
    queue.submit(job())
    rec = Recorder(fail_until=99)
    drain_until_idle(queue, Drainer(queue.r, rec, RQTuning(lock_ttl_s=2, retry_delays_s=(0.05,))))
    assert len(rec.ran) == MAX_ATTEMPTS
    assert queue.outstanding() == 0
    assert any("failed for good" in r.getMessage() for r in caplog.records)


def test_job_of_a_dead_holder_is_rerun_after_its_lock_expires(queue):
    queue.submit(job(head="h1"))
    dead = Drainer(queue.r, Recorder(), RQTuning(lock_ttl_s=0.3))
    lock = queue.r.lock(queue.keys.lock(PR), timeout=0.3, blocking=False, thread_local=False)
    assert lock.acquire(blocking=False)
    assert [k for k, _ in dead._take(PR)] == ["review"]  # taken, then the process "dies" holding the lock
    queue.r.delete(queue.keys.marker(PR))
    assert queue.depth() == 0 and queue.outstanding() == 1
    assert reap(queue.r, queue) == 0  # still locked
    time.sleep(0.4)
    assert reap(queue.r, queue) == 1
    rec = Recorder()
    assert Drainer(queue.r, rec, TUNING).drain(PR) == "done"
    assert [j["head_sha"] for j in rec.ran] == ["h1"] and queue.outstanding() == 0


def test_keys_are_namespaced_per_pr():
    k = Keys("p")
    assert (k.pending(PR), k.lock(PR), k.active) == ("p:pending:o/r#1", "p:lock:o/r#1", "p:active")
