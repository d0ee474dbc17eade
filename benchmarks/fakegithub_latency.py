"""Median latency of the fake GitHub for the calls the bot makes most (real HTTP, one session).

    python benchmarks/fakegithub_latency.py

Builds a throwaway git repository with a 40-file PR, starts the fake on a free port and times
30 rounds of each call after one warm-up (the warm-up pays git's first reads; later reads hit the
SHA-keyed cache).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import requests  # noqa: E402

from fakegithub import FakeGitHub  # noqa: E402

ROUNDS = 30


def build_repo(path: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.com", "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args):
        subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=path, env=env, check=True,
                       capture_output=True)
    path.mkdir(parents=True)
    git("init", "-q", "-b", "main")
    for i in range(40):
        (path / f"f{i}.yaml").write_text(f"a: {i}\n")
    git("add", ".")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "feature")
    for i in range(40):
        (path / f"f{i}.yaml").write_text(f"a: {i + 1}\n")
    git("commit", "-qam", "head")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        build_repo(repo)
        fake = FakeGitHub(repo)
        fake.add_pr(1, "main", "feature")
        url = fake.start()
        s = requests.Session()
        s.headers["Authorization"] = "token x"
        blobs = " ".join(f'b{i}: object(expression: "feature:f{i}.yaml") {{ ... on Blob {{ text }} }}'
                         for i in range(40))
        query = {"query": 'query { repository(owner: "octo", name: "bench") { pullRequest(number: 1) { headRefOid '
                          'comments(first: 100) { nodes { body } } reviewThreads(first: 100) { nodes { id } } } '
                          f'{blobs} }} }}'}
        api = f"{url}/repos/octo/bench"
        calls = [("GET pulls/1", lambda: s.get(f"{api}/pulls/1")),
                 ("GET pulls/1/files?per_page=100", lambda: s.get(f"{api}/pulls/1/files?per_page=100")),
                 ("POST /graphql (PR + 40 aliased blobs)", lambda: s.post(f"{url}/graphql", json=query)),
                 ("POST issues/1/comments", lambda: s.post(f"{api}/issues/1/comments", json={"body": "x"}))]
        try:
            for name, call in calls:
                call()
                times = []
                for _ in range(ROUNDS):
                    t = time.perf_counter()
                    r = call()
                    times.append(time.perf_counter() - t)
                    assert r.status_code < 300, r.text
                print(f"{name}: median {statistics.median(times) * 1000:.1f} ms over {ROUNDS}")
        finally:
            s.close()
            fake.stop()


if __name__ == "__main__":
    main()
