"""ThreadQueue: one job per PR at a time, bursts collapse to the newest head, failures retry."""
import threading
import time

from bot.queue import ThreadQueue, merge_jobs


def job(n=1, head="h1", action="synchronize", kind="review", **kw):
    return {"kind": kind, "repo": "o/r", "number": n, "head_sha": head, "base_sha": "b", "action": action, **kw}


def test_burst_collapses_to_newest_head_and_never_overlaps_per_pr():
    ran, active, overlap = [], set(), []
    gate = threading.Event()

    def execute(j):
        key = j["number"]
        if key in active:
            overlap.append(key)
        active.add(key)
        if j["head_sha"] == "h0":
            gate.wait(5)
        ran.append((key, j["head_sha"], j["action"]))
        active.discard(key)

    q = ThreadQueue(execute, workers=4)
    q.submit(job(head="h0", action="opened"))
    time.sleep(0.1)  # h0 is running now
    for i in range(1, 20):
        q.submit(job(head=f"h{i}"))
    q.submit(job(n=2, head="other"))
    gate.set()
    assert q.join(10)
    q.close()
    assert overlap == []
    assert [r for r in ran if r[0] == 1] == [(1, "h0", "opened"), (1, "h19", "synchronize")]
    assert (2, "other", "synchronize") in ran


def test_merge_keeps_opened_and_force():
    m = merge_jobs(job(action="opened"), job(head="h2", force=False))
    assert m["head_sha"] == "h2" and m["action"] == "opened"
    assert merge_jobs(job(force=True), job(head="h3"))["force"] is True


def test_failed_job_is_retried_then_succeeds():
    calls = []

    def execute(j):
        calls.append(j.get("attempt", 0))
        if len(calls) < 3:
            raise RuntimeError("GitHub said 502")

    q = ThreadQueue(execute, workers=1, retry_delays=(0.05,))
    q.submit(job())
    assert q.join(5)
    q.close()
    assert calls == [0, 1, 2]


def test_jobs_of_different_kinds_for_one_pr_all_run():
    ran = []
    q = ThreadQueue(lambda j: ran.append(j["kind"]), workers=2)
    q.submit(job(kind="review"))
    q.submit(job(kind="labels"))
    q.submit(job(kind="command", comment_id=1))
    q.submit(job(kind="command", comment_id=2))
    assert q.join(5)
    q.close()
    assert sorted(ran) == ["command", "command", "labels", "review"]
