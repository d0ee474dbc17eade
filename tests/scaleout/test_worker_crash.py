"""SIGKILL a `recipe-review worker` mid-job: another worker re-runs the job, nothing is lost or doubled."""
from __future__ import annotations

import json
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


# -- the real review job, end to end on the fake GitHub --------------------------------------------------

def _scene(tmp_path, name):
    from bot import demo
    from fakegithub.server import FakeGitHub

    base, head = demo.build_repo(tmp_path / name)
    fake = FakeGitHub(tmp_path / name, repo=demo.REPO)
    fake.add_pr(demo.PR_NUMBER, base=base, head=head, author="contributor", title=demo.TITLE)
    fake.start()
    return fake


def _end_state(fake) -> dict:
    from bot import render

    s = fake.state()
    return {"reviews": sorted((r["state"], r["commit_id"]) for r in s["reviews"]),
            "inline": sorted(render.parse_finding_marker(c["body"]) for c in s["review_comments"]),
            "check_runs": sorted((r["name"], r["head_sha"], r["conclusion"]) for r in s["check_runs"]),
            "comments": sorted(c["body"].rsplit("<!--", 1)[-1] for c in s["issue_comments"]),
            "labels": s["labels"]}


def _writes(fake) -> list[str]:
    return [f"{c['method']} {c['path']}" for c in fake.state()["calls"]
            if c["method"] in ("POST", "PATCH", "PUT", "DELETE") and c["path"] != "/graphql"]


def _review_through_the_webhook(fake, redis_url, workers, tmp_path, kill: bool):
    import uuid

    import requests

    from bot.app import build_bot, create_app
    from bot.serving import BackgroundServer
    from bot.webhook import sign

    secret = "crash-secret"
    # Production write spacing (1 s between content writes) makes "mid-job" a wide, reliable window.
    workers.env.pop("RQ_EXECUTOR", None)
    workers.env.update(GITHUB_API_URL=fake.url, GITHUB_TOKEN="t", WEBHOOK_SECRET=secret, WRITE_INTERVAL_S="1")
    settings = Settings(queue="rq", redis_url=redis_url, webhook_secret=secret, github_api_url=fake.url,
                        github_token="t", store_path=tmp_path / "unused.db")
    bot = build_bot(settings)
    server = BackgroundServer(create_app(settings, bot)).start()
    try:
        victim = workers.start("victim")
        time.sleep(1.0)  # the victim is up and will take the job
        body = requests.get(f"{fake.url}/_fake/webhook/pull_request", timeout=10,
                            params={"action": "opened", "number": 4867}).content
        r = requests.post(f"{server.url}/webhook", data=body, timeout=10, headers={
            "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(secret.encode(), body), "Content-Type": "application/json"})
        assert r.status_code == 202, r.text
        if kill:
            wait_for(lambda: any(w.endswith("/reviews") for w in _writes(fake)), timeout=30)
            workers.start("survivor")
            workers.kill("victim")
            assert victim.returncode == -9
        assert bot.queue.join(60), workers.logs()
    finally:
        server.stop()
        bot.queue.close()
    return _end_state(fake), _writes(fake)


def test_worker_killed_mid_review_leaves_the_same_end_state_without_duplicate_writes(
        redis_conn, redis_url, workers, tmp_path):
    from tests.scaleout.conftest import Workers, worker_env

    clean_fake, crash_fake = _scene(tmp_path, "clean"), _scene(tmp_path, "crash")
    try:
        (tmp_path / "clean-logs").mkdir()
        clean_workers = Workers(worker_env(redis_url), tmp_path / "clean-logs")
        try:
            clean, clean_writes = _review_through_the_webhook(clean_fake, redis_url, clean_workers, tmp_path, False)
        finally:
            clean_workers.stop_all()
        redis_conn.flushdb()
        crashed, crash_writes = _review_through_the_webhook(crash_fake, redis_url, workers, tmp_path, True)
    finally:
        clean_fake.stop()
        crash_fake.stop()
    shas = {clean["reviews"][0][1]: "HEAD", crashed["reviews"][0][1]: "HEAD"}

    def norm(state):  # the two scenes are separate git repositories: compare modulo the head SHA
        return json.loads(json.dumps(state).replace(next(k for k in shas if k in json.dumps(state)), "HEAD"))

    assert clean["reviews"] and clean["inline"] and clean["check_runs"]
    assert norm(crashed) == norm(clean)
    assert sorted(crash_writes) == sorted(clean_writes), "no write happened twice"
    assert "re-queued orphaned jobs" in workers.logs()
