"""`recipe-review demo`: the whole bot on a bundled example PR, with no token and no network.

It builds a small git repository in a temporary directory (a benchmark repo in the Nov-2026
`inferencex-e2e/` layout), opens PR #4867 on the built-in fake GitHub — a changelog entry that a
merge from main left five entries above the end, a recipe whose offload pool shrinks to 2700
blocks per rank with a header comment above its overrides, and the master config's new
`dram-utilization` — starts the bot, sends a signed `pull_request.opened`, waits for the job and
prints what the bot posted.
"""
from __future__ import annotations

import argparse
import json
import secrets
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import IO, Any, cast

PR_NUMBER = 4867
REPO = "demo-org/inferencex"
ROOT = "inferencex-e2e"
RECIPE = f"{ROOT}/benchmarks/single_node/srt-slurm-recipes/kimik3.1/vllm/mi355x-fp4-mtp/agentic.yaml"
TITLE = "perf(amd): Kimi-K3.1 MI355X vLLM agentic: 898 GB CPU offload, mbt 8192, capture cap 8192"


def _data(name: str) -> str:
    return resources.files("bot").joinpath("demo_data", name).read_text(encoding="utf-8")


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "Demo", "GIT_AUTHOR_EMAIL": "demo@example.com", "GIT_COMMITTER_NAME": "Demo",
           "GIT_COMMITTER_EMAIL": "demo@example.com", "HOME": str(repo), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def _write(repo: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        p = repo / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def build_repo(repo: Path, new_entry: str | None = None) -> tuple[str, str]:
    """The example repository: `main` and the PR branch `kimik3.1-cpu2700`. Returns (base, head) refs.

    `new_entry` replaces the PR's changelog entry (`demo_data/new-entry.yaml`), e.g. with
    `demo_data/seed-entry.yaml`, whose description itemizes the change the way the real seed PR did."""
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    base_log = _data("perf-changelog.base.yaml")
    _write(repo, {
        "AGENTS.md": _data("AGENTS.md"),  # the written guidance the review holds the PR to (rules/policy.py)
        f"{ROOT}/perf-changelog.yaml": base_log,
        f"{ROOT}/configs/nvidia-master.yaml": _data("nvidia-master.yaml"),
        f"{ROOT}/configs/amd-master.yaml": _data("amd-master.base.yaml"),
        RECIPE: _data("agentic.base.yaml"),
    })
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "main: benchmark configs and changelog")
    _git(repo, "checkout", "-q", "-b", "kimik3.1-cpu2700")
    # The PR's entry sits after the #4806 entry (the second block: its separator above is irregular, "  \n",
    # as in the real history): the merge from main put five newer entries below it.
    entries = base_log.split("\n\n")
    entry = new_entry if new_entry is not None else _data("new-entry.yaml")
    head_log = "\n\n".join(entries[:2] + [entry.rstrip("\n")] + entries[2:])
    _write(repo, {
        f"{ROOT}/perf-changelog.yaml": head_log,
        f"{ROOT}/configs/amd-master.yaml": _data("amd-master.head.yaml"),
        RECIPE: _data("agentic.head.yaml"),
    })
    _git(repo, "commit", "-q", "-am", "Kimi-K3.1 MI355X vLLM agentic: 898 GB CPU offload, mbt 8192")
    _git(repo, "checkout", "-q", "main")
    return "main", "kimik3.1-cpu2700"


def run_demo(workdir: Path, timeout: float = 60.0) -> dict[str, Any]:
    """Run the scenario; returns the fake GitHub's state after the bot's job finished."""
    import requests
    from pydantic import SecretStr

    from bot.app import build_bot, create_app
    from bot.queue import ThreadQueue
    from bot.serving import BackgroundServer
    from bot.settings import Settings
    from bot.webhook import sign
    from fakegithub.server import FakeGitHub

    base, head = build_repo(workdir / "repo")
    fake = FakeGitHub(workdir / "repo", repo=REPO)
    fake.add_pr(PR_NUMBER, base=base, head=head, author="contributor", title=TITLE)
    fake_url = fake.start()
    secret = secrets.token_hex(16)
    settings = Settings(github_api_url=fake_url, github_token=SecretStr("demo-token"), webhook_secret=SecretStr(secret),
                        store_path=workdir / "store.sqlite3", write_interval_s=0, bot_login="recipe-review[bot]")
    bot = build_bot(settings)
    queue = cast(ThreadQueue, bot.queue)  # the default QUEUE=threads
    server = BackgroundServer(create_app(settings, bot)).start()
    try:
        params: dict[str, str | int] = {"action": "opened", "number": PR_NUMBER}
        payload = requests.get(f"{fake_url}/_fake/webhook/pull_request", params=params, timeout=10).json()
        body = json.dumps(payload).encode()
        r = requests.post(f"{server.url}/webhook", data=body, timeout=10, headers={
            "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": secrets.token_hex(8),
            "X-Hub-Signature-256": sign(secret.encode(), body), "Content-Type": "application/json"})
        r.raise_for_status()
        if not queue.join(timeout):
            raise RuntimeError(f"the review did not finish within {timeout:.0f} s")
        state: dict[str, Any] = requests.get(f"{fake_url}/_fake/state", timeout=10).json()
        return state
    finally:
        server.stop()
        bot.queue.close()
        fake.stop()


def print_state(state: dict[str, Any], out: IO[str] = sys.stdout) -> None:
    w = out.write
    for rv in state.get("reviews", []):
        w(f"── review #{rv['id']} ({rv['state']}) by {rv['user']['login']} on {rv['commit_id'][:7]}\n")
        w(f"{rv.get('body') or ''}\n\n")
    for c in state.get("review_comments", []):
        where = f"{c['path']}:{c.get('start_line') or c['line']}" + (f"-{c['line']}" if c.get("start_line") else "")
        w(f"── inline comment on {where}\n{c['body']}\n\n")
    for cr in state.get("check_runs", []):
        w(f"── check run `{cr['name']}` on {cr['head_sha'][:7]}: {cr['status']} / {cr.get('conclusion')}\n")
        w(f"{(cr.get('output') or {}).get('title')}\n\n")
    for c in state.get("issue_comments", []):
        w(f"── comment by {c['user']['login']}\n{c['body']}\n\n")
    calls = state.get("calls", [])
    w(f"── {len(calls)} API calls: " + ", ".join(f"{c['method']} {c['path']}" for c in calls) + "\n")


def cmd_demo(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="recipe-review-demo-") as tmp:
        t0 = time.monotonic()
        state = run_demo(Path(tmp), timeout=args.timeout)
        if args.format == "json":
            sys.stdout.write(json.dumps(state, indent=2, ensure_ascii=False) + "\n")
        else:
            print_state(state)
            sys.stdout.write(f"── demo finished in {time.monotonic() - t0:.2f} s\n")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser("demo", help="run the bot on a bundled example PR against the built-in fake GitHub",
                       description=__doc__.split("\n\n")[0])
    d.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: the review as a contributor sees it; json: the fake GitHub's whole state")
    d.add_argument("--timeout", type=float, default=60.0)
    d.set_defaults(func=cmd_demo)
