"""Scale-out throughput: review jobs per second with 1 and with 4 RQ workers, and webhook acks meanwhile.

Usage: python benchmarks/throughput.py [--jobs 60] [--workers 1 4] [--repeats 1] [--latency-ms 0]

Everything runs as the product runs it, each in its own process: a private redis-server (or
REDIS_URL, flushed), the fake GitHub (`recipe-review fake-github`, no faults), the bot
(`recipe-review serve`, QUEUE=rq, gunicorn) and N `recipe-review worker` processes. For each worker
count, N workers are started and idle, then `--jobs` signed `pull_request.opened` deliveries for
fresh PRs (each a 3-file PR: changelog, master config, recipe) are sent at concurrency 8, and while
the workers review them a paced stream of redeliveries (20/s: signature check, parse, dedupe in
Redis) keeps hitting the webhook. With `--latency-ms`, the fake runs in the benchmark process and
answers every GitHub call that much later, as real GitHub round trips do: that is when more workers
pay off (without it, on a small machine, the fake's own CPU is the bottleneck). Reported per worker
count: jobs/s from the first delivery to the last finished review, CPU seconds per process class,
and the webhook acknowledgement p50/p99 of both streams; then the ratio.
"""
from __future__ import annotations

import argparse
import os
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from netutil import free_port, wait_http  # noqa: E402
from soak import build_repo  # noqa: E402

from bot import demo  # noqa: E402
from bot.webhook import sign  # noqa: E402

SECRET = "throughput-secret"
BUSY_RATE = 20  # redeliveries per second while the workers are busy


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its live children (gunicorn's workers), from /proc (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    own = sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(int(c)) for c in children)


def pct(values: list[float], p: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


class Procs:
    def __init__(self):
        self.procs: list[subprocess.Popen] = []

    def start(self, args: list[str], env: dict, log: Path) -> subprocess.Popen:
        with open(log, "ab") as f:
            p = subprocess.Popen([sys.executable, "-m", "bot.cli", *args], cwd=ROOT, env=env, stdout=f,
                                 stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    @staticmethod
    def stop(procs: list[subprocess.Popen]) -> None:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)

    def stop_all(self) -> None:
        self.stop(self.procs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=60, help="reviews per round")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--repeats", type=int, default=1, help="rounds per worker count (median reported)")
    ap.add_argument("--latency-ms", type=float, default=0,
                    help="GitHub round-trip latency to simulate (runs the fake in this process); 0: none")
    args = ap.parse_args()
    import redis

    from bot.rq_mode import RQQueue
    from bot.settings import Settings

    rounds = [w for w in args.workers for _ in range(args.repeats)]
    first_pr = 1001
    prs = list(range(first_pr, first_pr + args.jobs * len(rounds)))
    procs = Procs()
    redis_proc = fake_obj = None
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        try:
            redis_url = os.environ.get("REDIS_URL")
            if not redis_url:
                port = free_port()
                redis_proc = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(port),
                                               "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                redis_url = f"redis://127.0.0.1:{port}/0"
            conn = redis.Redis.from_url(redis_url)
            for _ in range(100):
                try:
                    conn.flushdb()
                    break
                except redis.exceptions.ConnectionError:
                    time.sleep(0.05)
            build_repo(tmp / "repo", prs)
            fport, bport = free_port(), free_port()
            base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RQ_"))}
            if args.latency_ms:
                fake_obj = in_process_fake(tmp / "repo", prs, fport, args.latency_ms / 1000)
                fake_pid = os.getpid()
            else:
                fake_pid = procs.start(["fake-github", "--port", str(fport), "--repo", demo.REPO, "--repo-dir",
                                        str(tmp / "repo"), *[f"--pr={n}:main..pr-{n}" for n in prs]], base_env,
                                       tmp / "fake.log").pid
            fake = f"http://127.0.0.1:{fport}"
            env = dict(base_env, QUEUE="rq", REDIS_URL=redis_url, GITHUB_API_URL=fake, GITHUB_TOKEN="bench",
                       WEBHOOK_SECRET=SECRET, WRITE_INTERVAL_S="0", LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT))
            serve_pid = procs.start(["serve", "--host", "127.0.0.1", "--port", str(bport), "--workers", "2",
                                     "--threads", "16"], env, tmp / "serve.log").pid
            wait_http(f"{fake}/_fake/state")
            wait_http(f"http://127.0.0.1:{bport}/healthz")
            queue = RQQueue(Settings(queue="rq", redis_url=redis_url))
            url = f"http://127.0.0.1:{bport}/webhook"
            where = (f"fake GitHub in the benchmark process with {args.latency_ms:g} ms latency per call"
                     if args.latency_ms else "fake GitHub in its own process, no added latency")
            print(f"machine: {os.cpu_count()} CPUs; {args.jobs} reviews per round; {where}; bot and workers in "
                  f"their own processes")
            results: dict[int, list[dict]] = {}
            for i, w in enumerate(rounds):
                mine = prs[i * args.jobs:(i + 1) * args.jobs]
                results.setdefault(w, []).append(one_round(w, mine, fake, url, queue, procs, env, tmp,
                                                           (fake_pid, serve_pid)))
        finally:
            procs.stop_all()
            if fake_obj is not None:
                fake_obj.stop()
            if redis_proc is not None:
                redis_proc.terminate()
                redis_proc.wait(10)
    rate = {}
    for w, rs in results.items():
        rate[w] = statistics.median(r["jobs_per_s"] for r in rs)
        jobs_acks = [a for r in rs for a in r["job_acks"]]
        busy_acks = [a for r in rs for a in r["busy_acks"]]
        each = ", ".join(f"{r['jobs_per_s']:.2f}" for r in rs)
        print(f"{w} worker(s): {rate[w]:.2f} jobs/s ({each}); "
              f"webhook ack of the job deliveries p50 {pct(jobs_acks, 50):.1f} ms p99 {pct(jobs_acks, 99):.1f} ms; "
              f"of {len(busy_acks)} redeliveries while busy p50 {pct(busy_acks, 50):.1f} ms "
              f"p99 {pct(busy_acks, 99):.1f} ms")
    if len(rate) >= 2:
        lo, hi = min(rate), max(rate)
        print(f"ratio {hi} vs {lo} workers: {rate[hi] / rate[lo]:.2f}x")
    return 0 if all(r["complete"] for rs in results.values() for r in rs) else 1


def in_process_fake(repo: Path, prs: list[int], port: int, latency_s: float):
    """The fake GitHub in this process, answering every API call `latency_s` late (as GitHub's round
    trips do; the sleep holds no CPU and no GIL)."""
    from fakegithub.server import FakeGitHub

    fake = FakeGitHub(repo, repo=demo.REPO)
    for n in prs:
        fake.add_pr(n, base="main", head=f"pr-{n}")
    inner = fake.app.wsgi_app

    def delayed(environ, start_response):
        if not environ.get("PATH_INFO", "").startswith("/_fake/"):
            time.sleep(latency_s)
        return inner(environ, start_response)

    fake.app.wsgi_app = delayed
    fake.start(port=port)
    return fake


def one_round(workers: int, prs: list[int], fake: str, url: str, queue, procs: Procs, env: dict, tmp: Path,
              pids: tuple[int, int]) -> dict:
    started = [procs.start(["worker", "--name", f"bench-{workers}-{i}-{uuid.uuid4().hex[:6]}"], env,
                           tmp / f"worker-{workers}-{i}.log") for i in range(workers)]
    time.sleep(3)  # imports done, workers idle
    http = requests.Session()
    bodies = {n: http.get(f"{fake}/_fake/webhook/pull_request", params={"action": "opened", "number": n},
                          timeout=10).content for n in prs}
    local = threading.local()

    def post(body: bytes, delivery: str) -> float:
        s = getattr(local, "s", None) or requests.Session()
        local.s = s
        t0 = time.perf_counter()
        r = s.post(url, data=body, timeout=30, headers={
            "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": sign(SECRET.encode(), body), "Content-Type": "application/json"})
        dt = (time.perf_counter() - t0) * 1000
        assert r.status_code in (200, 202), r.text
        return dt

    ids = {n: f"{n}-{uuid.uuid4()}" for n in prs}
    fake_pid, serve_pid = pids
    cpu0 = {"fake": cpu_seconds(fake_pid), "bot": cpu_seconds(serve_pid),
            "workers": sum(cpu_seconds(p.pid) for p in started)}
    t_start = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        job_acks = list(pool.map(lambda n: post(bodies[n], ids[n]), prs))
    busy_acks: list[float] = []
    stop = threading.Event()

    def redeliver():  # paced: a busy repository's delivery rate, not a load test of the webhook
        i = 0
        while not stop.wait(1 / BUSY_RATE):
            n = prs[i % len(prs)]
            busy_acks.append(post(bodies[n], ids[n]))
            i += 1

    streams = [threading.Thread(target=redeliver)]
    for s in streams:
        s.start()
    complete = queue.join(600, poll_s=0.02)
    elapsed = time.perf_counter() - t_start
    stop.set()
    for s in streams:
        s.join()
    cpu = {"fake": cpu_seconds(fake_pid) - cpu0["fake"], "bot": cpu_seconds(serve_pid) - cpu0["bot"],
           "workers": sum(cpu_seconds(p.pid) for p in started) - cpu0["workers"]}
    state = http.get(f"{fake}/_fake/state", timeout=30).json()
    heads = {str(n): state["prs"][str(n)]["head"]["sha"] for n in prs}
    reviewed = {r["head_sha"] for r in state["check_runs"] if r["name"] == "recipe-review"}
    complete = complete and all(h in reviewed for h in heads.values())
    Procs.stop(started)
    print(f"  round with {workers} worker(s): {len(prs)} reviews in {elapsed:.1f} s, all posted: {complete}; "
          f"CPU seconds: workers {cpu['workers']:.1f}, fake GitHub {cpu['fake']:.1f}, bot (webhook) {cpu['bot']:.1f}")
    return {"jobs_per_s": len(prs) / elapsed, "job_acks": job_acks, "busy_acks": busy_acks, "complete": complete}


if __name__ == "__main__":
    sys.exit(main())
