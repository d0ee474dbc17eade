"""Shared fixtures: a real git repository, the fake GitHub server on it, and a PyGithub client.

- `git_repo` — a `GitRepo` factory over a fresh repository in `tmp_path / "repo"` whose base
  branch `main` has one commit (README.md). Build history with
  `git_repo.commit({"path": "text" | b"bytes" | None}, "message", branch="feature")`:
  `None` deletes a file; a new branch starts from `main` (or `start=REV`). `commit` returns the
  new SHA; `git_repo.sha(rev)` resolves a revision and `git_repo.path` is the directory.
- `fake_github` — a started `fakegithub.FakeGitHub` on `git_repo` for repository `octo/bench`
  with collaborators {"alice": "admin", "bob": "write", "carol": "triage"} (anyone else has
  read). No PR exists yet: `fake_github.add_pr(1, base="main", head="feature")`. Its base URL is
  `fake_github.url`; `fake_github.state()` returns everything written; stopped after the test.
- `github_client` — `github.Github(base_url=fake_github.url, auth=Auth.Token("x"), retry=None)`,
  with PyGithub's client-side throttling off (`seconds_between_requests/writes=None`, or every
  write waits a second), closed after the test. No retries: a fault surfaces as an exception.

GitHub's own API descriptions (`../shared/github/api/`: the GraphQL schema and the REST OpenAPI
description) are the contract of every fake GitHub the suite starts, in-process or not: REST request
bodies and GraphQL documents are validated against them (`fakegithub.contract`). Without `../shared`
the contract is off, as the replay tests skip; `RECIPE_REVIEW_REQUIRE_SHARED=1` makes it mandatory.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GITHUB_API_DESCRIPTIONS = ROOT.parent / "shared" / "github" / "api"


def _enable_github_contract() -> None:
    from fakegithub import contract

    if (GITHUB_API_DESCRIPTIONS / contract.GRAPHQL_FILE).exists() and \
            (GITHUB_API_DESCRIPTIONS / contract.OPENAPI_FILE).exists():
        contract.use_dir(GITHUB_API_DESCRIPTIONS)  # loaded by the first fake that gets a request
    elif os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
        raise RuntimeError(f"RECIPE_REVIEW_REQUIRE_SHARED=1 but GitHub's API descriptions are missing at "
                           f"{GITHUB_API_DESCRIPTIONS}")


_enable_github_contract()

# The fast lane is `pytest -m "not shared and not slow"` (README, "Tests"): these modules are `slow`
# as a whole, each for its reason; `tests/bot/test_*_e2e.py` are too (the fake GitHub over HTTP).
# A single slow test elsewhere carries `@pytest.mark.slow` itself. CI runs everything.
SLOW_MODULES = {
    "tests/scaleout": "a redis-server and `recipe-review worker` processes",
    "tests/fakegithub": "the fake GitHub served over real HTTP",
    "tests/fuzz": "hypothesis: many examples per test",
    "tests/test_image.py": "the container image's environment, built and started",
    "tests/test_cli_check.py": "real git repositories and a CLI process per test",
    "tests/test_cli_conventions.py": "real git repositories and a CLI process per test",
    "tests/test_cli_fix.py": "real git repositories and a CLI process per test",
    "tests/bot/test_startup_settings.py": "a `serve` or `worker` process per test",
    "tests/bot/test_github_graphql_contract.py": "every GraphQL document against GitHub's schema",
    "tests/test_real_reviews_scoring.py": "a worker pool over a scratch repository",
    "tests/bot/test_real_payloads.py": "recorded webhook payloads reviewed through the fake GitHub",
    "tests/bot/test_parity.py": "each repository reviewed through the fake GitHub over HTTP and by `check`",
}


def _slow_reason(rel: str) -> str | None:
    for prefix, why in SLOW_MODULES.items():
        if rel == prefix or rel.startswith(prefix + "/"):
            return why
    if rel.startswith("tests/bot/") and rel.endswith("_e2e.py"):
        return "the fake GitHub served over real HTTP"
    return None


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        try:
            rel = Path(str(item.fspath)).resolve().relative_to(ROOT).as_posix()
        except ValueError:
            continue
        if _slow_reason(rel) is not None:
            item.add_marker(pytest.mark.slow)

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
           "GIT_COMMITTER_NAME": "Test Author", "GIT_COMMITTER_EMAIL": "author@example.com"}


class GitRepo:
    """A small builder for real git histories (see the module docstring)."""

    def __init__(self, path: Path, base: str = "main"):
        self.path = Path(path)
        self.base = base
        self.path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", base)
        self.commit({"README.md": "# bench\n"}, "initial commit", branch=base)

    def git(self, *args: str) -> str:
        import os

        env = {**os.environ, **GIT_ENV, "HOME": str(self.path)}
        proc = subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
                              cwd=self.path, capture_output=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}")
        return proc.stdout.decode("utf-8", "replace").strip()

    def sha(self, rev: str = "HEAD") -> str:
        return self.git("rev-parse", "--verify", f"{rev}^{{commit}}")

    def has_branch(self, name: str) -> bool:
        return bool(subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{name}"],
                                   cwd=self.path, capture_output=True).stdout.strip())

    def commit(self, files: dict[str, bytes | str | None], message: str = "change", branch: str | None = None,
               start: str | None = None) -> str:
        branch = branch or self.base
        unborn = not subprocess.run(["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=self.path,
                                    capture_output=True).stdout.strip()
        if not unborn:
            if self.has_branch(branch):
                self.git("checkout", "-q", branch)
            else:
                self.git("checkout", "-q", "-b", branch, start or self.base)
        removed, written = [], []
        for rel, content in files.items():
            target = self.path / rel
            if content is None:
                if target.exists():
                    removed.append(rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
            written.append(rel)
        if removed:
            self.git("rm", "-q", "--", *removed)
        if written:
            self.git("add", "--", *written)
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.sha("HEAD")


@pytest.fixture
def git_repo(tmp_path) -> GitRepo:
    return GitRepo(tmp_path / "repo")


@pytest.fixture
def fake_github(git_repo):
    from fakegithub import FakeGitHub

    fake = FakeGitHub(git_repo.path, repo="octo/bench",
                      collaborators={"alice": "admin", "bob": "write", "carol": "triage"})
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def github_client(fake_github):
    from github import Auth, Github

    gh = Github(base_url=fake_github.url, auth=Auth.Token("x"), retry=None,
                seconds_between_requests=None, seconds_between_writes=None)
    try:
        yield gh
    finally:
        gh.close()


@pytest.fixture(scope="session")
def rsa_private_key() -> str:
    """A fresh 2048-bit RSA key in PEM (PKCS#8), the kind GitHub issues for an App."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()
