"""A git-backed fake GitHub with the bundled #4867 example PR, and the bot serving webhooks over HTTP."""
from __future__ import annotations

import json
import os
import subprocess
import uuid

import requests

from bot import demo
from bot.app import build_bot, create_app
from bot.serving import BackgroundServer
from bot.settings import Settings
from bot.webhook import sign
from fakegithub.server import FakeGitHub

SECRET = "e2e-secret"
WRITE_METHODS = {"POST", "PATCH", "PUT", "DELETE"}


class BotHarness:
    """The bot (threads mode) serving webhooks over HTTP against a fake GitHub at `fake_url`."""

    def __init__(self, tmp_path, fake_url: str, number: int, **settings):
        self.fake_url = fake_url
        self.number = number
        opts = dict(github_api_url=fake_url, github_token="t", webhook_secret=SECRET,
                    store_path=tmp_path / "store.sqlite3", write_interval_s=0, max_retries=3)
        opts.update(settings)
        self.settings = Settings(**opts)
        self.bot = build_bot(self.settings)
        self.server = BackgroundServer(create_app(self.settings, self.bot)).start()
        self.http = requests.Session()

    def payload(self, action: str, number: int | None = None) -> dict:
        return self.http.get(f"{self.fake_url}/_fake/webhook/pull_request",
                             params={"action": action, "number": number or self.number}, timeout=10).json()

    def deliver(self, event: str, payload: dict, delivery: str | None = None) -> requests.Response:
        body = json.dumps(payload).encode()
        return self.http.post(f"{self.server.url}/webhook", data=body, timeout=10, headers={
            "X-GitHub-Event": event, "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(SECRET.encode(), body), "Content-Type": "application/json"})

    def settle(self) -> dict:
        assert self.bot.queue.join(120), "jobs did not finish"  # a loaded 2-core machine needs more than 30 s for #1709
        return self.http.get(f"{self.fake_url}/_fake/state", timeout=10).json()

    def close(self):
        self.server.stop()
        self.bot.queue.close()


class Scenario(BotHarness):
    """The bundled #4867 example on a fake GitHub, with the bot serving webhooks."""

    def __init__(self, tmp_path, collaborators: dict | None = None, **settings):
        self.repo_dir = tmp_path / "repo"
        self.base, self.head = demo.build_repo(self.repo_dir)
        self.fake = FakeGitHub(self.repo_dir, repo=demo.REPO, collaborators=collaborators or {})
        self.fake.add_pr(demo.PR_NUMBER, base=self.base, head=self.head, author="contributor", title=demo.TITLE)
        super().__init__(tmp_path, self.fake.start(), demo.PR_NUMBER, **settings)

    def close(self):
        super().close()
        self.fake.stop()

    def webhook(self, event: str, **params) -> dict:
        return self.http.get(f"{self.fake_url}/_fake/webhook/{event}", params={"number": demo.PR_NUMBER, **params},
                             timeout=10).json()

    def fake_post(self, path: str, payload: dict) -> dict:
        r = self.http.post(f"{self.fake_url}/_fake/{path}", json=payload, timeout=10)
        r.raise_for_status()
        return r.json()

    def comment(self, user: str, body: str, delivery: str | None = None) -> dict:
        """A user posts a PR comment; GitHub delivers `issue_comment.created`."""
        c = self.fake_post("comments", {"number": demo.PR_NUMBER, "user": user, "body": body, "kind": "issue"})
        self.deliver("issue_comment", self.webhook("issue_comment", action="created", comment_id=c["id"]),
                     delivery=delivery)
        return c

    def set_labels(self, user: str, labels: list[str], added: str | None = None) -> None:
        """A user edits labels; GitHub delivers `pull_request.labeled` for the added one."""
        self.fake_post(f"prs/{demo.PR_NUMBER}/labels", {"labels": labels, "user": user})
        if added:
            self.deliver("pull_request", self.webhook("pull_request", action="labeled", label=added, sender=user))

    def push_fix(self) -> str:
        """The contributor moves the changelog entry to the physical end; returns the new head SHA."""
        path = self.repo_dir / "inferencex-e2e/perf-changelog.yaml"
        git = ["git", "-C", str(self.repo_dir), "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run(git + ["checkout", "-q", self.head], check=True)
        blocks = path.read_text().rstrip("\n").split("\n\n")
        mine = next(b for b in blocks if "pull/4867" in b)
        blocks.remove(mine)
        path.write_text("\n\n".join(blocks + [mine]) + "\n")
        subprocess.run(git + ["commit", "-qam", "Move the changelog entry to the end"], check=True)
        subprocess.run(git + ["checkout", "-q", "main"], check=True)
        sha = self.fake.move_head(demo.PR_NUMBER, self.head)
        self.deliver("pull_request", self.payload("synchronize"))
        return sha

    def state(self) -> dict:
        return self.http.get(f"{self.fake_url}/_fake/state", timeout=10).json()


def writes(calls):
    return [c for c in calls if c["method"] in WRITE_METHODS and c["path"] != "/graphql"]


def label_writes(calls):
    return [c for c in writes(calls) if "/labels" in c["path"]]


class BundleScenario(BotHarness):
    """A real InferenceX PR state from the bundle (a `git clone --mirror` of it at `mirror`) on the fake
    GitHub, as repository SemiAnalysisAI/InferenceX, with the bot serving webhooks.

    The fake serves a cheap scratch clone (objects shared with `mirror`, which is never written):
    `main` as in the bundle and branch `pr-N` at `head`; `push` commits a change onto that branch.
    """

    REPO = "SemiAnalysisAI/InferenceX"

    def __init__(self, tmp_path, mirror, number: int, head: str, collaborators: dict | None = None, **settings):
        self.repo_dir = tmp_path / f"ix-{number}.git"
        subprocess.run(["git", "clone", "-q", "--mirror", "--shared", str(mirror), str(self.repo_dir)], check=True)
        self.branch = f"pr-{number}"
        self._git("update-ref", f"refs/heads/{self.branch}", head)
        self.fake = FakeGitHub(self.repo_dir, repo=self.REPO, collaborators=collaborators or {})
        self.fake.add_pr(number, base="main", head=self.branch, author="contributor", title=f"PR {number}")
        super().__init__(tmp_path, self.fake.start(), number, **settings)

    def _git(self, *args: str, input: bytes | None = None) -> str:
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_INDEX_FILE": str(self.repo_dir / "scratch-index")}
        return subprocess.run(["git", "-C", str(self.repo_dir), *args], check=True, capture_output=True,
                              input=input, env=env).stdout.decode().strip()

    def show(self, path: str, rev: str | None = None) -> bytes:
        return subprocess.run(["git", "-C", str(self.repo_dir), "show", f"{rev or self.branch}:{path}"],
                              check=True, capture_output=True).stdout

    def push(self, files: dict[str, bytes], message: str = "push") -> str:
        """Commit `files` (path → new content) on top of the PR branch, move the PR head, deliver `synchronize`."""
        self._git("read-tree", self.branch)
        for path, content in files.items():
            blob = self._git("hash-object", "-w", "--stdin", input=content)
            self._git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
        tree = self._git("write-tree")
        sha = self._git("commit-tree", tree, "-p", self.branch, "-m", message)
        self._git("update-ref", f"refs/heads/{self.branch}", sha)
        self.fake.move_head(self.number, self.branch)
        self.deliver("pull_request", self.payload("synchronize"))
        return sha

    def comment(self, user: str, body: str) -> dict:
        """A user posts a PR comment; GitHub delivers `issue_comment.created`."""
        r = self.http.post(f"{self.fake_url}/_fake/comments", timeout=10,
                           json={"number": self.number, "user": user, "body": body, "kind": "issue"})
        r.raise_for_status()
        c = r.json()
        payload = self.http.get(f"{self.fake_url}/_fake/webhook/issue_comment", timeout=10,
                                params={"number": self.number, "action": "created", "comment_id": c["id"]}).json()
        self.deliver("issue_comment", payload)
        return c

    def state(self) -> dict:
        return self.http.get(f"{self.fake_url}/_fake/state", timeout=10).json()

    def close(self):
        super().close()
        self.fake.stop()
