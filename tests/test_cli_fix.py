"""`recipe-review fix` on a real git checkout: it rewrites the working tree, never commits, and the
committed result passes `recipe-review check`."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rules.changelog_helpers import BASE, entry, insert_before

ROOT = Path(__file__).resolve().parents[1]
LOG = "perf-changelog.yaml"


def cli(repo_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args[:1], "--repo", str(repo_path), *args[1:]],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.fixture
def pr_repo(git_repo):
    git_repo.commit({LOG: BASE}, "changelog with eight entries")
    git_repo.commit({LOG: insert_before(BASE, 3, entry("dsv4-fp4-b200-vllm", "XXX"))}, "add an entry mid-file",
                    branch="feature")
    return git_repo


def fixed_text(number=4867):
    return BASE + "\n" + entry("dsv4-fp4-b200-vllm", number)


def test_dry_run_prints_a_diff_that_git_applies_and_writes_nothing(pr_repo):
    before = (pr_repo.path / LOG).read_bytes()
    proc = cli(pr_repo.path, "fix", "--base", "main", "--pr-number", "4867", "--dry-run")
    assert proc.returncode == 1, proc.stderr  # ruff's --diff: a file would be rewritten
    assert proc.stdout.startswith(f"diff --git a/{LOG} b/{LOG}\n--- a/{LOG}\n+++ b/{LOG}\n@@ ")
    assert "would fix perf-changelog.yaml" in proc.stderr and "RR001" in proc.stderr
    assert (pr_repo.path / LOG).read_bytes() == before
    subprocess.run(["git", "-C", str(pr_repo.path), "apply", "-"], input=proc.stdout.encode(), check=True)
    assert (pr_repo.path / LOG).read_text() == fixed_text()


def test_fix_rewrites_never_commits_is_idempotent_and_passes_check(pr_repo):
    head = pr_repo.sha("HEAD")
    proc = cli(pr_repo.path, "fix", "--base", "main", "--pr-number", "4867")
    assert proc.returncode == 0, proc.stderr
    assert "fixed perf-changelog.yaml:" in proc.stdout and "moved 1 new entry" in proc.stdout
    assert "nothing was committed" in proc.stdout.splitlines()[-1]
    assert (pr_repo.path / LOG).read_text() == fixed_text()
    assert pr_repo.sha("HEAD") == head
    again = cli(pr_repo.path, "fix", "--base", "main", "--pr-number", "4867")
    assert again.returncode == 0 and "nothing to fix automatically" in again.stdout
    assert (pr_repo.path / LOG).read_text() == fixed_text()
    pr_repo.commit({LOG: fixed_text()}, "fix", branch="feature")
    check = cli(pr_repo.path, "check", "--base", "main", "--pr-number", "4867", "--format", "json")
    assert check.returncode == 0, check.stdout
    assert not [f for f in json.loads(check.stdout)["findings"] if f["code"].startswith("RR00")]


def test_the_pr_number_is_optional(pr_repo):
    proc = cli(pr_repo.path, "fix", "--base", "main")
    assert proc.returncode == 0
    text = (pr_repo.path / LOG).read_text()
    assert text == BASE + "\n" + entry("dsv4-fp4-b200-vllm", "XXX")  # moved; the placeholder stays
    assert "RR005" in proc.stdout  # the nit that needs the number is listed, not guessed


def test_uncommitted_edits_are_what_gets_fixed(pr_repo):
    (pr_repo.path / LOG).write_text(insert_before(BASE, 5, entry("dsv4-fp4-b200-vllm", "XXX")))
    proc = cli(pr_repo.path, "fix", "--base", "main", "--pr-number", "4867")
    assert proc.returncode == 0 and (pr_repo.path / LOG).read_text() == fixed_text()


def test_only(pr_repo):
    proc = cli(pr_repo.path, "fix", "--base", "main", "--pr-number", "4867", "--only", "changelog-pr-link-placeholder")
    # `--only` is `--select`: the misplaced entry is neither fixed nor reported, it was not selected.
    assert proc.returncode == 0 and "RR001" not in proc.stdout and "RR005" in proc.stdout
    text = (pr_repo.path / LOG).read_text()
    assert text == insert_before(BASE, 3, entry("dsv4-fp4-b200-vllm", 4867))


def test_blocking_findings_that_need_a_person_exit_1(git_repo):
    git_repo.commit({LOG: BASE}, "base")
    bad = entry("dsv4-fp4-b200-vllm", 4867).replace("  description:", "  descripton:")  # schema error (RR003)
    git_repo.commit({LOG: insert_before(BASE, 2, bad)}, "typo", branch="feature")
    proc = cli(git_repo.path, "fix", "--base", "main", "--pr-number", "4867")
    assert proc.returncode == 1
    assert "not fixable automatically (needs a person):" in proc.stdout and "RR003" in proc.stdout
    assert (git_repo.path / LOG).read_text() == BASE + "\n" + bad  # placement fixed all the same


def test_refused_changelog_is_explained_and_left_as_it_is(git_repo):
    git_repo.commit({LOG: BASE}, "base")
    git_repo.commit({LOG: None}, "delete the changelog", branch="feature")
    proc = cli(git_repo.path, "fix", "--base", "main")
    # RR002 is a nit (judged below the blocking bar: notes/proof.md), so nothing blocking is left
    assert proc.returncode == 0, proc.stdout
    assert "not fixed automatically: perf-changelog.yaml: the PR deletes" in proc.stdout
    assert "0 blocking findings left, 1 nit(s)" in proc.stdout
    assert not (git_repo.path / LOG).exists()


@pytest.mark.parametrize("args,message", [
    (("--base", "nope"), "unknown revision"),
    (("--base", "main", "--only", "RR999"), "--only: no rule has the code"),
    (("--base", "main", "--select", "RR999"), "--select: no rule has the code"),
], ids=["unknown-base", "unknown-code", "unknown-selected-code"])
def test_errors_exit_2(pr_repo, args, message):
    proc = cli(pr_repo.path, "fix", *args)
    assert proc.returncode == 2 and message in proc.stderr


def test_a_bare_repository_is_refused(pr_repo, tmp_path):
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(pr_repo.path), str(bare)], check=True)
    proc = cli(bare, "fix", "--base", "main")
    assert proc.returncode == 2 and "bare repository" in proc.stderr


def test_help_lists_exactly_the_contract_flags():
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "fix", "--help"], capture_output=True, text=True,
                          cwd=ROOT)
    flags = {w.strip(",.;:()") for w in proc.stdout.replace("[", " ").replace("]", " ").split() if w.startswith("--")}
    assert flags == {"--help", "--repo", "--base", "--pr-number", "--dry-run", "--only", "--select", "--ignore"}

