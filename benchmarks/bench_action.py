"""The seed PR (`recipe-review demo`'s #4867) reviewed twice on the fake GitHub, over real HTTP:
by the App (a signed `pull_request.opened` delivery → webhook → queue → job) and by the Action
(`recipe-review action` as Actions runs the step: an event file, GITHUB_* and INPUT_* variables, a
token registered as github-actions[bot] with the example workflow's permissions, no webhook server).

Prints the API calls of each, whether the fake's state (reviews, inline comments, check runs,
comments, labels; ids, timestamps and authors aside) is the same, and the wall time of each.

    python benchmarks/bench_action.py
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from bot import demo  # noqa: E402
from bot.app import build_bot, create_app  # noqa: E402
from bot.serving import BackgroundServer  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.webhook import sign  # noqa: E402
from fakegithub.server import FakeGitHub  # noqa: E402

PERMISSIONS = {"contents": "read", "pull_requests": "write", "issues": "write", "checks": "write", "actions": "read"}


def shape(state: dict) -> dict:
    return {"reviews": [(r["state"], r["body"], r["commit_id"]) for r in state["reviews"]],
            "review_comments": sorted((c["path"], c.get("start_line"), c["line"], c["body"])
                                      for c in state["review_comments"]),
            "check_runs": [(r["name"], r["status"], r["conclusion"], r["output"]["title"], r["output"]["summary"])
                           for r in state["check_runs"]],
            "issue_comments": [c["body"] for c in state["issue_comments"]], "labels": state["labels"]}


def fake_on(repo: Path) -> FakeGitHub:
    fake = FakeGitHub(repo, repo=demo.REPO)
    fake.add_pr(demo.PR_NUMBER, base="main", head="kimik3.1-cpu2700", author="contributor", title=demo.TITLE)
    fake.start()
    return fake


def app_run(tmp: Path, repo: Path) -> tuple[dict, float]:
    fake = fake_on(repo)
    secret = secrets.token_hex(8)
    settings = Settings(github_api_url=fake.url, github_token="t", webhook_secret=secret, write_interval_s=0,
                        store_path=tmp / "store.sqlite3")
    bot = build_bot(settings)
    server = BackgroundServer(create_app(settings, bot)).start()
    try:
        payload = requests.get(f"{fake.url}/_fake/webhook/pull_request",
                               params={"action": "opened", "number": demo.PR_NUMBER}, timeout=10).json()
        body = json.dumps(payload).encode()
        t0 = time.perf_counter()
        requests.post(f"{server.url}/webhook", data=body, timeout=10, headers={
            "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": "d1", "Content-Type": "application/json",
            "X-Hub-Signature-256": sign(secret.encode(), body)}).raise_for_status()
        assert bot.queue.join(60)
        return fake.state(), time.perf_counter() - t0
    finally:
        server.stop()
        bot.queue.close()
        fake.stop()


def action_run(tmp: Path, repo: Path) -> tuple[dict, float, int, str]:
    fake = fake_on(repo)
    try:
        fake.add_token("ghs_bench", "github-actions[bot]", PERMISSIONS)
        event = tmp / "event.json"
        event.write_text(json.dumps(requests.get(f"{fake.url}/_fake/webhook/pull_request", timeout=10, params={
            "action": "opened", "number": demo.PR_NUMBER}).json()))
        summary = tmp / "summary.md"
        env = {"PATH": os.environ.get("PATH", ""), "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
               "GITHUB_EVENT_PATH": str(event), "GITHUB_TOKEN": "ghs_bench", "GITHUB_API_URL": fake.url,
               "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(tmp / "out"), "GITHUB_RUN_ID": "1",
               "INPUT_CONFIG": ".github/recipe-review.yml", "INPUT_FAIL_ON": "blocking", "INPUT_DRY_RUN": "false",
               "WRITE_INTERVAL_S": "0"}
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "bot.cli", "action"], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        return fake.state(), time.perf_counter() - t0, proc.returncode, summary.read_text()
    finally:
        fake.stop()


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-action-") as d:
        tmp = Path(d)
        repo = tmp / "repo"
        demo.build_repo(repo)
        (tmp / "app").mkdir()
        (tmp / "action").mkdir()
        app_state, app_s = app_run(tmp / "app", repo)
        act_state, act_s, code, summary = action_run(tmp / "action", repo)
    same = shape(app_state) == shape(act_state)
    comment = next(c["body"] for c in act_state["issue_comments"] if "recipe-review:summary" in c["body"])
    for name, st, secs in (("App", app_state, app_s), ("Action", act_state, act_s)):
        calls = st["calls"]
        print(f"{name:6} {len(calls)} API calls in {secs * 1000:.0f} ms: "
              + ", ".join(f"{c['method']} {c['path'].split('/')[-1] or c['path']}" for c in calls))
    print(f"same reviews, inline comments, check runs, comments and labels: {same}; "
          f"job summary == summary comment: {summary.strip() == comment.strip()}; action exit status {code}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
