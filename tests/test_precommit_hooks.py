"""The hooks of .pre-commit-hooks.yaml, driven by `pre-commit try-repo` on a scratch repository: a
clone of a bare "upstream" whose default branch holds a changelog, and a feature branch to push.

`try-repo` installs this repository into a hook environment the way `pre-commit install` would
(one install per test session, ~a minute), then runs the hook at the pre-push stage."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # pre-commit's own dependency

from tests.rules.changelog_helpers import BASE, NEW, insert_before

ROOT = Path(__file__).resolve().parents[1]
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def scratch(tmp_path: Path, head_changelog: str) -> Path:
    up = tmp_path / "upstream.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(up)], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(up), str(work)], check=True, capture_output=True)
    _git(work, "checkout", "-q", "-b", "main")
    (work / "perf-changelog.yaml").write_text(BASE)
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "changelog")
    _git(work, "push", "-q", "origin", "main")
    _git(work, "remote", "set-head", "origin", "main")
    _git(work, "checkout", "-q", "-b", "feature")
    (work / "perf-changelog.yaml").write_text(head_changelog)
    _git(work, "commit", "-qam", "add an entry")
    return work


def try_repo(work: Path, home: Path, hook: str, stage: str = "pre-push") -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--hook-stage", stage,
                           "--all-files", "--verbose"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=900)


def test_the_pre_push_hook_fails_on_a_misplaced_entry(tmp_path, pre_commit_home):
    work = scratch(tmp_path, insert_before(BASE, 3))
    proc = try_repo(work, pre_commit_home, "recipe-review")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "recipe-review" in out and "Failed" in out
    assert "RR001 changelog-entry-misplaced" in out and "1 blocking" in out
    assert "checks passed:" not in out and "✓" not in out  # `--quiet`: the findings only


def test_the_pre_push_hook_passes_a_clean_append(tmp_path, pre_commit_home):
    work = scratch(tmp_path, BASE + "\n" + NEW)
    proc = try_repo(work, pre_commit_home, "recipe-review")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Passed" in out and "0 blocking" in out


def test_the_fix_hook_moves_the_misplaced_entry_to_the_end(tmp_path, pre_commit_home):
    """`recipe-review hook fix` runs `recipe-review fix --base auto` now that it exists (the check
    before): the entry is rebuilt at the physical end, and pre-commit fails because files changed."""
    work = scratch(tmp_path, insert_before(BASE, 3))
    proc = try_repo(work, pre_commit_home, "recipe-review-fix", stage="manual")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "files were modified by this hook" in out
    assert (work / "perf-changelog.yaml").read_text() == BASE + "\n" + NEW


def test_the_hook_file_names_the_contract_ids():
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"recipe-review", "recipe-review-fix"}
    assert hooks["recipe-review"]["stages"] == ["pre-push"]
    assert hooks["recipe-review"]["entry"] == "recipe-review check --base auto --quiet"
    assert all(h["language"] == "python" and h["pass_filenames"] is False for h in hooks.values())
