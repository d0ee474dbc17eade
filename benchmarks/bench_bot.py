"""Bot latency and API-call budget on the fake GitHub (issue targets in brackets).

1. Webhook acknowledgement latency [p99 ≤ 20 ms at 200 concurrent signed deliveries]: the bot runs
   as `recipe-review serve` (gunicorn, QUEUE=threads) in its own process, against a fake GitHub in
   another; 200 client threads fire signed `pull_request.synchronize` deliveries (distinct delivery
   ids, 20 PRs, so the workers are busy reviewing while the webhook answers). Reported: p50/p95/p99
   for the 200-at-once burst, and for a sustained stream at concurrency 8.
2. Delivery → review posted [median ≤ 300 ms] and API calls per review [≤ 7: six, plus the check run
   started in_progress] for a 3-file PR (the
   bundled #4867 example: changelog, master config, recipe), in-process, repeated on fresh PRs.

    python benchmarks/bench_bot.py [--rounds 15]
"""
from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from netutil import free_port, wait_http  # noqa: E402

from bot import demo  # noqa: E402
from bot.webhook import sign  # noqa: E402


def pct(values: list[float], p: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


WRK_SCRIPT = """
local body, sig = ...
counter = 0
setup = function(thread) thread:set("tid", tostring(math.random(1, 1e9))) end
init = function(args)
  local f = io.open(args[1], "rb"); body = f:read("*a"); f:close()
  sig = args[2]
  wrk.method = "POST"; wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["X-GitHub-Event"] = "pull_request"
  wrk.headers["X-Hub-Signature-256"] = sig
end
request = function()
  counter = counter + 1
  wrk.headers["X-GitHub-Delivery"] = tid .. "-" .. counter
  return wrk.format(nil, "/webhook")
end
"""


def wrk_run(tmp: Path, url: str, body: bytes, secret: str) -> dict:
    """200 open connections for 10 s with `wrk` (a C client, so the client costs no Python CPU)."""
    (tmp / "body.json").write_bytes(body)
    (tmp / "deliver.lua").write_text(WRK_SCRIPT)
    base = url.rsplit("/webhook", 1)[0]
    r = subprocess.run(["wrk", "-t2", "-c200", "-d10s", "--latency", "-s", str(tmp / "deliver.lua"), base, "--",
                        str(tmp / "body.json"), sign(secret.encode(), body)], capture_output=True, text=True)
    lines = {ln.strip().split()[0]: ln.strip().split()[1] for ln in r.stdout.splitlines()
             if ln.strip()[:3] in ("50%", "75%", "90%", "99%")}
    rps = next((ln.split(":")[1].strip() for ln in r.stdout.splitlines() if ln.startswith("Requests/sec")), "?")
    print(f"wrk -c200 (reviews running): latency p50 {lines.get('50%')}, p90 {lines.get('90%')}, "
          f"p99 {lines.get('99%')}, {rps} deliveries/s")
    return {}


def ack_latency(tmp: Path) -> dict:
    repo = tmp / "repo"
    base, head = demo.build_repo(repo)
    fport, bport = free_port(), free_port()
    secret = secrets.token_hex(8)
    exe = [sys.executable, "-m", "bot.cli"]
    prs = [f"--pr={n}:{base}..{head}" for n in range(1, 21)]
    fake = subprocess.Popen(exe + ["fake-github", "--port", str(fport), "--repo", demo.REPO, "--repo-dir", str(repo),
                                   *prs], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = dict(os.environ, GITHUB_API_URL=f"http://127.0.0.1:{fport}", GITHUB_TOKEN="bench", WEBHOOK_SECRET=secret,
               STORE_PATH=str(tmp / "store.sqlite3"), WRITE_INTERVAL_S="0", LOG_LEVEL="WARNING", QUEUE="threads")
    bot = subprocess.Popen(exe + ["serve", "--host", "127.0.0.1", "--port", str(bport), "--threads", "32"], cwd=ROOT,
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{fport}/_fake/state")
        wait_http(f"http://127.0.0.1:{bport}/healthz")
        payloads = [requests.get(f"http://127.0.0.1:{fport}/_fake/webhook/pull_request",
                                 params={"action": "synchronize", "number": n}, timeout=10).content
                    for n in range(1, 21)]
        url = f"http://127.0.0.1:{bport}/webhook"
        local = threading.local()

        def send(i: int, event: str = "pull_request") -> float:
            s = getattr(local, "s", None) or requests.Session()
            local.s = s
            body = payloads[i % len(payloads)] if event == "pull_request" else b'{"zen": "idle"}'
            headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": str(uuid.uuid4()),
                       "X-Hub-Signature-256": sign(secret.encode(), body), "Content-Type": "application/json"}
            t0 = time.perf_counter()
            r = s.post(url, data=body, headers=headers, timeout=30)
            dt = (time.perf_counter() - t0) * 1000
            assert r.status_code in (200, 202), r.text
            return dt

        out = {}
        with ThreadPoolExecutor(8) as pool:  # no review work running: the receiver's own cost
            out["idle ping, concurrency 8"] = list(pool.map(lambda i: send(i, "ping"), range(400)))
        for i in range(20):  # warm connections and imports
            send(i)
        barrier = threading.Barrier(200)

        def burst(i: int) -> float:
            barrier.wait()
            return send(i)

        with ThreadPoolExecutor(200) as pool:
            lat = list(pool.map(burst, range(200)))
        out["200 at once, reviews running"] = lat
        with ThreadPoolExecutor(8) as pool:
            out["concurrency 8, reviews running"] = list(pool.map(send, range(400)))
        if shutil.which("wrk"):
            out.update(wrk_run(tmp, url, payloads[0], secret))
        return out
    finally:
        for p in (bot, fake):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def review_latency(tmp: Path, rounds: int) -> tuple[list[float], list[int]]:
    from bot.app import build_bot, create_app
    from bot.serving import BackgroundServer
    from bot.settings import Settings
    from fakegithub.server import FakeGitHub

    repo = tmp / "repo2"
    base, head = demo.build_repo(repo)
    fake = FakeGitHub(repo, repo=demo.REPO)
    for n in range(rounds + 1):
        fake.add_pr(n + 1, base=base, head=head, author="contributor", title=demo.TITLE)
    furl = fake.start()
    secret = "s"
    settings = Settings(github_api_url=furl, github_token="t", webhook_secret=secret,
                        store_path=tmp / "store2.sqlite3", write_interval_s=0, log_level="WARNING")
    bot = build_bot(settings)
    server = BackgroundServer(create_app(settings, bot)).start()
    http = requests.Session()
    times, calls = [], []
    try:
        for n in range(1, rounds + 2):
            payload = http.get(f"{furl}/_fake/webhook/pull_request", params={"action": "opened", "number": n}).content
            before = len(http.get(f"{furl}/_fake/state").json()["calls"])
            t0 = time.perf_counter()
            http.post(f"{server.url}/webhook", data=payload, headers={
                "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4()),
                "X-Hub-Signature-256": sign(secret.encode(), payload), "Content-Type": "application/json"})
            assert bot.queue.join(30)
            dt = (time.perf_counter() - t0) * 1000
            state = http.get(f"{furl}/_fake/state").json()
            assert any(r["commit_id"] for r in state["reviews"])
            if n > 1:  # the first round pays for imports
                times.append(dt)
                calls.append(len(state["calls"]) - before)
    finally:
        server.stop()
        bot.queue.close()
        fake.stop()
    return times, calls


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        times, calls = review_latency(tmp, args.rounds)
        print(f"delivery → review posted (3-file PR, {len(times)} runs): median {statistics.median(times):.0f} ms, "
              f"p95 {pct(times, 95):.0f} ms   [target: median ≤ 300 ms]")
        print(f"API calls per review of an opened PR: {sorted(set(calls))}   [target: ≤ 7]")
        ack = ack_latency(tmp)
        for name, lat in ack.items():
            print(f"webhook ack, {name}: p50 {pct(lat, 50):.1f} ms, p95 {pct(lat, 95):.1f} ms, "
                  f"p99 {pct(lat, 99):.1f} ms, max {max(lat):.1f} ms   [target: p99 ≤ 20 ms]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
