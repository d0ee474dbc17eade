"""Fault soak: 500 signed deliveries over 50 PRs against a fake GitHub that fails 20 % of its calls.

Usage:
    python benchmarks/soak.py --mode threads            # embedded mode: worker threads + SQLite
    python benchmarks/soak.py --mode rq [--workers 4]   # scale-out: RQ on redis-server + worker processes
    python benchmarks/soak.py --mode rq --chaos 10      # ... and SIGKILL a random worker every 10 s

The scene: a git repository (the bundled demo layout) with 50 PR branches of 6 commits each. Each PR
gets 10 deliveries: `opened`, five `synchronize` (one per push), one `reopened` and three
redeliveries of an earlier delivery id. A third of the PRs push in bursts (three pushes, then their
three deliveries), a third get one `synchronize` delivered after a later one (out of order). The
PRs' schedules are interleaved at random (seeded). The fake injects faults on 20 % of the bot's
calls (500, 502, 403 secondary rate limit, 429, both with Retry-After, and 0.5-2 s slow answers);
never on /_fake/*.

Checked from /_fake/state when the queue is idle (the final head of every PR is known):
every PR has exactly one summary comment (naming its final head) and one welcome comment; at most
one check run per head and name, exactly one `recipe-review` run on the final head with the gate the
rules give for that head (computed locally from git); no finding marker posted twice; every finding
of the final head is posted inline or listed in the summary; every redelivery was answered
"duplicate". Exit 1 when any check fails.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import demo, render  # noqa: E402
from bot.webhook import sign  # noqa: E402

SECRET = "soak-secret"
VERSIONS = 6  # v0 (opened) + five pushes
FIRST_PR = 101


# -- the repository -------------------------------------------------------------------------------

def _variant(n: int, k: int) -> str:
    """Which content PR n has at version k: misplaced entry (blocking), fixed, or changelog-only."""
    return random.Random(n * 100 + k).choice("ABC")


def _files(n: int, k: int, base_log: str) -> dict[str, str]:
    entry = demo._data("new-entry.yaml").rstrip("\n").replace("/pull/4867", f"/pull/{n}")
    entry = entry.replace('conc 4-48."', f'conc 4-48 (rev {k})."')
    blocks = base_log.rstrip("\n").split("\n\n")
    variant = _variant(n, k)
    log = "\n\n".join(blocks[:2] + [entry] + blocks[2:]) if variant == "A" else "\n\n".join(blocks + [entry])
    files = {f"{demo.ROOT}/perf-changelog.yaml": log + "\n"}
    if variant in "AB":
        files[f"{demo.ROOT}/configs/amd-master.yaml"] = demo._data("amd-master.head.yaml")
        files[demo.RECIPE] = demo._data("agentic.head.yaml")
    return files


def build_repo(path: Path, prs: list[int]) -> dict[int, list[str]]:
    """`main` from the demo, and for each PR a linear branch of VERSIONS commits (one git fast-import)."""
    demo.build_repo(path)
    base_log = (path / demo.ROOT / "perf-changelog.yaml").read_text()
    main = subprocess.run(["git", "-C", str(path), "rev-parse", "main"], capture_output=True, text=True,
                          check=True).stdout.strip()
    out, mark = [], 0
    marks: dict[tuple[int, int], int] = {}
    for n in prs:
        for k in range(VERSIONS):
            mark += 1
            marks[(n, k)] = mark
            msg = f"PR {n} revision {k}".encode()
            out.append(f"commit refs/heads/pr-{n}\nmark :{mark}\n"
                       f"committer Soak <soak@example.com> {1_700_000_000 + mark} +0000\n"
                       f"data {len(msg)}\n".encode() + msg + b"\n")
            out.append((f"from {main}\n" if k == 0 else f"from :{marks[(n, k - 1)]}\n").encode())
            for p, text in _files(n, k, base_log).items():
                raw = text.encode()
                out.append(f"M 100644 inline {p}\ndata {len(raw)}\n".encode() + raw + b"\n")
            out.append(b"\n")
    export = path / "marks"
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet", f"--export-marks={export}"],
                   input=b"".join(out), check=True)
    by_mark = dict(line.split() for line in export.read_text().splitlines())
    return {n: [by_mark[f":{marks[(n, k)]}"] for k in range(VERSIONS)] for n in prs}


def expected_report(repo: Path, n: int, head: str):
    from bot.localgit import changeset_from_git
    from rules.runner import run

    return run(changeset_from_git(repo, "main", head, n))


# -- the schedule ---------------------------------------------------------------------------------

def schedule(prs: list[int], rng: random.Random) -> list[tuple]:
    """Interleaved actions: ("push", n, k), ("deliver", n, action, k|None), ("redeliver", n, index)."""
    per_pr = {}
    for i, n in enumerate(prs):
        acts: list[tuple] = [("deliver", n, "opened", None)]
        if i % 3 == 0:  # burst: three pushes, then their deliveries
            acts += [("push", n, 1), ("deliver", n, "synchronize", 1)]
            acts += [("push", n, k) for k in (2, 3, 4)] + [("deliver", n, "synchronize", k) for k in (2, 3, 4)]
            acts += [("push", n, 5), ("deliver", n, "synchronize", 5)]
        elif i % 3 == 1:  # out of order: the delivery for push 2 arrives after the one for push 4
            for k in range(1, 6):
                acts.append(("push", n, k))
                if k != 2:
                    acts.append(("deliver", n, "synchronize", k))
                if k == 4:
                    acts.append(("deliver", n, "synchronize", 2))
        else:
            for k in range(1, 6):
                acts += [("push", n, k), ("deliver", n, "synchronize", k)]
        acts.insert(rng.randrange(1, len(acts) + 1), ("deliver", n, "reopened", None))
        for _ in range(3):  # redeliveries of something already delivered
            pos = rng.randrange(2, len(acts) + 1)
            delivered = sum(1 for a in acts[:pos] if a[0] == "deliver")
            acts.insert(pos, ("redeliver", n, rng.randrange(delivered)))
        per_pr[n] = acts
    out = []
    while per_pr:
        n = rng.choice(sorted(per_pr))
        out.append(per_pr[n].pop(0))
        if not per_pr[n]:
            del per_pr[n]
    return out


# -- the bot in each mode -------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Redis:
    """REDIS_URL when set (flushed!), else a private redis-server on a free port."""

    def __init__(self):
        self.proc = None
        self.url = os.environ.get("REDIS_URL")
        if not self.url:
            binary = shutil.which("redis-server")
            if binary is None:
                raise SystemExit("redis-server is not installed (apt-get install redis-server) and REDIS_URL is unset")
            port = free_port()
            self.proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                          "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.url = f"redis://127.0.0.1:{port}/0"
        import redis

        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url).flushdb()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)


class WorkerPool:
    """`recipe-review worker` processes (python -m bot.cli worker)."""

    def __init__(self, env: dict, log_dir: Path):
        self.env, self.log_dir, self.procs, self.kills = env, log_dir, {}, 0

    def start(self, name: str):
        log = open(self.log_dir / f"{name}.log", "ab")
        self.procs[name] = subprocess.Popen([sys.executable, "-m", "bot.cli", "worker", "--name", name], cwd=ROOT,
                                            env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def kill_one(self, rng: random.Random) -> str:
        name = rng.choice(sorted(self.procs))
        self.procs[name].send_signal(signal.SIGKILL)
        self.procs[name].wait(10)
        self.kills += 1
        self.start(f"{name.split('+')[0]}+{self.kills}")
        del self.procs[name]
        return name

    def stop(self):
        for p in self.procs.values():
            p.terminate()
        for p in self.procs.values():
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()


def start_bot(mode: str, fake_url: str, tmp: Path, workers: int):
    from bot.app import build_bot, create_app
    from bot.serving import BackgroundServer
    from bot.settings import Settings

    common = dict(github_api_url=fake_url, github_token="soak-token", webhook_secret=SECRET, write_interval_s=0,
                  log_level="WARNING", store_path=tmp / "store.sqlite3")
    extra = {"redis": None, "pool": None}
    if mode == "threads":
        settings = Settings(queue="threads", worker_threads=workers, **common)
    else:
        extra["redis"] = Redis()
        settings = Settings(queue="rq", redis_url=extra["redis"].url, **common)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RQ_"))}
        env.update(QUEUE="rq", REDIS_URL=extra["redis"].url, GITHUB_API_URL=fake_url, GITHUB_TOKEN="soak-token",
                   WEBHOOK_SECRET=SECRET, WRITE_INTERVAL_S="0", LOG_LEVEL="INFO", PYTHONPATH=str(ROOT),
                   RQ_LOCK_TTL_S="5", RQ_REAP_INTERVAL_S="0.5")
        pool = extra["pool"] = WorkerPool(env, tmp)
        for i in range(workers):
            pool.start(f"w{i + 1}")
    import logging

    from bot import logs

    logs.configure("WARNING")
    for name in ("werkzeug", "github", "urllib3"):
        logging.getLogger(name).setLevel(logging.ERROR)
    root = logging.getLogger()
    root.setLevel(logging.WARNING)
    for h in root.handlers:  # job retries are counted (RETRIES), not printed; errors still print
        h.setLevel(logging.ERROR)
    root.addHandler(RETRIES)
    bot = build_bot(settings)
    server = BackgroundServer(create_app(settings, bot)).start()
    return bot, server, extra


class _RetryCounter(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("job failed"):
            self.count += 1


RETRIES = _RetryCounter()


# -- the run --------------------------------------------------------------------------------------

def main() -> int:  # noqa: C901 (the soak driver: set-up, the action plan, the drain loop and teardown)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("threads", "rq"), default="threads")
    ap.add_argument("--prs", type=int, default=50)
    ap.add_argument("--workers", type=int, default=4, help="worker threads (threads) or processes (rq)")
    ap.add_argument("--fault-rate", type=float, default=0.2)
    ap.add_argument("--fault-seed", type=int, default=7)
    ap.add_argument("--seed", type=int, default=2026, help="schedule seed")
    ap.add_argument("--chaos", type=float, default=0, help="rq: SIGKILL a random worker every N seconds")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--keep", type=Path, help="on failure, copy the fake's state and the worker logs here")
    args = ap.parse_args()
    from fakegithub.server import FakeGitHub

    rng = random.Random(args.seed)
    prs = list(range(FIRST_PR, FIRST_PR + args.prs))
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        t0 = time.perf_counter()
        heads = build_repo(tmp / "repo", prs)
        fake = FakeGitHub(tmp / "repo", repo=demo.REPO, fault_rate=args.fault_rate, fault_seed=args.fault_seed)
        for n in prs:
            fake.add_pr(n, base="main", head=heads[n][0], author="contributor", title=f"Kimi-K3.1 sweep #{n}")
        fake_url = fake.start()
        print(f"scene: {len(prs)} PRs × {VERSIONS} commits built in {time.perf_counter() - t0:.1f} s; "
              f"mode {args.mode}, {args.workers} workers, fault rate {args.fault_rate:.0%}")
        bot, server, extra = start_bot(args.mode, fake_url, tmp, args.workers)
        http = requests.Session()
        plan = schedule(prs, rng)
        sent: dict[int, list[tuple[str, bytes]]] = defaultdict(list)  # PR -> [(delivery id, body)]
        captured: dict[tuple[int, int], bytes] = {}
        outcomes, acks = Counter(), []
        redeliveries = 0
        last_kill = time.monotonic()
        start = time.perf_counter()

        def post(body: bytes, delivery: str) -> str:
            t1 = time.perf_counter()
            r = http.post(f"{server.url}/webhook", data=body, timeout=30, headers={
                "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": delivery,
                "X-Hub-Signature-256": sign(SECRET.encode(), body), "Content-Type": "application/json"})
            acks.append((time.perf_counter() - t1) * 1000)
            if r.status_code >= 500:
                raise SystemExit(f"webhook answered {r.status_code}: {r.text}")
            return r.json()["outcome"]

        def payload(n: int, action: str) -> bytes:
            return http.get(f"{fake_url}/_fake/webhook/pull_request", params={"action": action, "number": n},
                            timeout=10).content

        for act in plan:
            kind, n = act[0], act[1]
            if kind == "push":
                fake.move_head(n, heads[n][act[2]])
                captured[(n, act[2])] = payload(n, "synchronize")
            elif kind == "deliver":
                body = captured[(n, act[3])] if act[2] == "synchronize" else payload(n, act[2])
                delivery = str(uuid.uuid4())
                sent[n].append((delivery, body))
                outcomes[post(body, delivery)] += 1
            else:
                delivery, body = sent[n][act[2]]
                redeliveries += 1
                outcomes[f"re:{post(body, delivery)}"] += 1
            if args.chaos and extra["pool"] and time.monotonic() - last_kill > args.chaos:
                extra["pool"].kill_one(rng)
                last_kill = time.monotonic()
        sent_s = time.perf_counter() - start
        deadline = time.monotonic() + args.timeout
        while True:
            idle = bot.queue.join(min(5.0, max(0.1, deadline - time.monotonic())))
            if idle or time.monotonic() > deadline:
                break
            if args.chaos and extra["pool"] and time.monotonic() - last_kill > args.chaos:
                extra["pool"].kill_one(rng)
                last_kill = time.monotonic()
        elapsed = time.perf_counter() - start
        state = http.get(f"{fake_url}/_fake/state", timeout=30).json()
        server.stop()
        bot.queue.close()
        if extra["pool"]:
            extra["pool"].stop()
            worker_logs = "".join(p.read_text(errors="replace") for p in tmp.glob("w*.log"))
            extra["worker_retries"] = worker_logs.count('"msg": "job failed (attempt')
        else:
            worker_logs = ""
        if extra["redis"]:
            extra["redis"].stop()
        fake.stop()
        problems = verify(state, prs, heads, tmp / "repo", redeliveries, outcomes)
        report(args, state, outcomes, acks, sent_s, elapsed, idle, problems, len(plan), extra)
        if problems and worker_logs:
            errors = [ln for ln in worker_logs.splitlines() if '"level": "ERROR"' in ln]
            print(f"worker log: {len(errors)} ERROR lines; first: {errors[:2]}")
        if problems and args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / "state.json").write_text(json.dumps(state, indent=1))
            (args.keep / "workers.log").write_text(worker_logs)
            print(f"state and logs kept in {args.keep}")
        return 1 if problems or not idle else 0


def verify(state: dict, prs: list[int], heads: dict, repo: Path, redeliveries: int, outcomes: Counter) -> list[str]:  # noqa: C901 (one branch per invariant checked on each PR)
    problems = []
    me = "recipe-review"
    comments = defaultdict(list)
    for c in state["issue_comments"]:
        if c["user"]["login"].removesuffix("[bot]") == me:
            comments[c["number"]].append(c["body"])
    review_commit = {r["id"]: r["commit_id"] for r in state["reviews"]}
    resolved = {cid: t["is_resolved"] for t in state["review_threads"] for cid in t["comment_ids"]}
    review_comments = defaultdict(list)  # PR -> [(marker, review commit, thread resolved)]
    for c in state["review_comments"]:
        if c["user"]["login"].removesuffix("[bot]") == me and not c.get("in_reply_to_id"):
            review_comments[int(c["pull_request_url"].rsplit("/", 1)[1])].append(
                (render.parse_finding_marker(c["body"]), review_commit.get(c.get("pull_request_review_id")),
                 resolved.get(c["id"], False)))
    runs = Counter((r["name"], r["head_sha"]) for r in state["check_runs"])
    for (name, sha), count in runs.items():
        if count > 1:
            problems.append(f"{count} `{name}` check runs on {sha[:7]}")
    for n in prs:
        final = heads[n][-1]
        pr_state = state["prs"][str(n)]
        if pr_state["head"]["sha"] != final:
            problems.append(f"#{n}: the fake's head is not the final one")
        summaries = [b for b in comments[n] if render.SUMMARY_MARKER in b]
        welcomes = [b for b in comments[n] if render.WELCOME_MARKER in b]
        if len(summaries) != 1:
            problems.append(f"#{n}: {len(summaries)} summary comments")
        elif final[:7] not in summaries[0]:
            problems.append(f"#{n}: the summary does not describe the final head {final[:7]}")
        if len(welcomes) != 1:
            problems.append(f"#{n}: {len(welcomes)} welcome comments")
        # A finding is posted once per occurrence: never twice on one commit, never two open threads.
        # (Fixed, resolved, then brought back by a later push is a new occurrence: a new comment.)
        posts = review_comments[n]
        twice = [m for m, c in Counter((m, sha) for m, sha, _ in posts if m).items() if c > 1]
        open_twice = [m for m, c in Counter(m for m, _, res in posts if m and not res).items() if c > 1]
        if twice or open_twice:
            problems.append(f"#{n}: findings posted more than once: {twice or open_twice}")
        markers = [m for m, _, _ in posts]
        mine = [r for r in state["check_runs"] if r["name"] == render.CHECK_RUN_NAME and r["head_sha"] == final]
        expected = expected_report(repo, n, final)
        gate = "failure" if expected.blocking else "success"
        if len(mine) != 1:
            problems.append(f"#{n}: {len(mine)} `{render.CHECK_RUN_NAME}` check runs on the final head (lost review)")
        elif mine[0]["conclusion"] != gate:
            problems.append(f"#{n}: gate {mine[0]['conclusion']} on the final head, the rules say {gate}")
        posted = {m[1] for m in markers if m}
        summary = summaries[0] if summaries else ""
        for f in expected.findings:
            if f.fingerprint not in posted and f"`{f.code}`" not in summary and f.code not in summary:
                problems.append(f"#{n}: finding {f.code} ({f.message[:60]}) is neither inline nor in the summary")
    dup_answers = outcomes.get("re:duplicate", 0)
    if dup_answers != redeliveries:
        problems.append(f"{redeliveries - dup_answers} of {redeliveries} redeliveries were not answered 'duplicate'")
    return problems


def report(args, state, outcomes, acks, sent_s, elapsed, idle, problems, actions, extra) -> None:
    calls = state["calls"]
    faults = Counter(c.get("fault") for c in calls if c.get("fault"))
    deliveries = sum(outcomes.values())
    writes = Counter(f"{c['method']} " + re.sub(r"/\d+", "/N", c["path"].split("/", 4)[-1])
                     for c in calls if c["method"] != "GET" and c["path"] != "/graphql" and not c.get("fault"))
    gates = Counter(r["conclusion"] for r in state["check_runs"] if r["name"] == render.CHECK_RUN_NAME)
    acks_sorted = sorted(acks)
    p99 = acks_sorted[min(len(acks_sorted) - 1, int(0.99 * len(acks_sorted)))]
    print(f"deliveries: {deliveries} ({dict(sorted(outcomes.items()))}); {actions} scheduled actions sent in "
          f"{sent_s:.1f} s")
    print(f"webhook ack: median {statistics.median(acks):.1f} ms, p99 {p99:.1f} ms, max {max(acks):.1f} ms")
    print(f"GitHub calls: {len(calls)}, faults injected: {sum(faults.values())} ({dict(sorted(faults.items()))}, "
          f"{sum(faults.values()) / max(1, len(calls)):.1%})")
    print(f"successful writes: {dict(sorted(writes.items()))}; recipe-review check runs: {dict(gates)}")
    retries = RETRIES.count + extra.get("worker_retries", 0)
    print(f"job attempts that failed and were retried: {retries}")
    if extra.get("pool"):
        print(f"worker processes SIGKILLed: {extra['pool'].kills}")
    print(f"all jobs done: {idle}; wall time {elapsed:.1f} s")
    if problems:
        print(f"FAIL: {len(problems)} problem(s)")
        for p in problems[:40]:
            print(f"  - {p}")
    else:
        print(f"PASS: {args.prs} PRs — one summary and one welcome each, one check run per head, the right gate "
              f"on every final head, no finding posted twice, every redelivery ignored")


if __name__ == "__main__":
    sys.exit(main())
