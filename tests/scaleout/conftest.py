"""A real redis-server for the scale-out tests, and `recipe-review worker` subprocesses.

REDIS_URL, when set (CI starts a server), is used as is and FLUSHED before every test: point it at
a throwaway database. Otherwise a private `redis-server --save ''` is started on a free port. Without
the binary the tests skip, unless RECIPE_REVIEW_REQUIRE_REDIS=1 (then they fail).
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ping(url: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
            return
        except redis.exceptions.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture(scope="session")
def redis_url():
    url = os.environ.get("REDIS_URL")
    if url:
        _wait_ping(url)
        yield url
        return
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("RECIPE_REVIEW_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed and RECIPE_REVIEW_REQUIRE_REDIS=1")
        pytest.skip("redis-server is not installed (set RECIPE_REVIEW_REQUIRE_REDIS=1 to fail instead)")
    port = _free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        _wait_ping(url)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def redis_conn(redis_url):
    conn = redis.Redis.from_url(redis_url)
    conn.flushdb()
    yield conn
    conn.close()


class Workers:
    """`python -m bot.cli worker` subprocesses (the `recipe-review worker` command) sharing one Redis."""

    def __init__(self, env: dict, log_dir: Path):
        self.env, self.log_dir = env, log_dir
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, *extra: str) -> subprocess.Popen:
        log = open(self.log_dir / f"{name}.log", "ab")
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "worker", "--name", name, *extra], cwd=REPO,
                                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.procs[name] = proc
        return proc

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    def logs(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.log_dir.glob("*.log")))

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def worker_env(redis_url: str, **overrides: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RQ_", "WEBHOOK_"))}
    # A worker refuses to start without credentials; tests that talk to a fake GitHub set their own.
    env.update(QUEUE="rq", REDIS_URL=redis_url, PYTHONPATH=str(REPO), GITHUB_TOKEN="scaleout-token", RQ_LOCK_TTL_S="2",
               RQ_REAP_INTERVAL_S="0.2", RQ_RETRY_DELAYS_S="[0.2, 0.4]", WRITE_INTERVAL_S="0",
               LOG_LEVEL="INFO", STORE_PATH=os.devnull)
    env.update(overrides)
    return env


@pytest.fixture
def workers(redis_conn, redis_url, tmp_path):
    w = Workers(worker_env(redis_url), tmp_path)
    yield w
    w.stop_all()
