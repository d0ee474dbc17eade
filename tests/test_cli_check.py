"""`recipe-review check` on a real git repository: a PR branch that inserts a changelog entry mid-file."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rules.changelog_helpers import BASE, NEW, insert_before, starts

ROOT = Path(__file__).resolve().parents[1]


def _check(repo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", "check", "--repo", str(repo.path), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.fixture
def pr_repo(git_repo):
    git_repo.commit({"perf-changelog.yaml": BASE}, "changelog with eight entries")
    git_repo.commit({"perf-changelog.yaml": insert_before(BASE, 3)}, "add dsv4 entry (after a merge from main)",
                    branch="feature")
    return git_repo


def test_json_reports_the_misplaced_entry_and_exits_1(pr_repo):
    proc = _check(pr_repo, "--base", "main", "--head", "feature", "--pr-number", "4867", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    rr001 = [f for f in out["findings"] if f["code"] == "RR001"]
    line = insert_before(BASE, 3).split(NEW)[0].count("\n") + 1
    assert len(rr001) == 1
    f = rr001[0]
    assert (f["path"], f["line"], f["end_line"], f["severity"]) == ("perf-changelog.yaml", line, line + 4, "blocking")
    assert "five existing entries (#4833, #4852, #4857, #4799, #4720) sit below it" in f["message"]
    assert "physical end of the file" in f["fix"] and any("@@ -" in e for e in f["evidence"])
    assert not [f for f in out["findings"] if f["code"] in ("RR002", "RR007")]


def test_text_format(pr_repo):
    proc = _check(pr_repo, "--base", "main", "--head", "feature", "--pr-number", "4867")
    assert proc.returncode == 1
    assert "perf-changelog.yaml:" in proc.stdout and "RR001 changelog-entry-misplaced" in proc.stdout
    assert "blocking" in proc.stdout.splitlines()[-1]


def test_github_format(pr_repo):
    proc = _check(pr_repo, "--base", "main", "--head", "feature", "--pr-number", "4867", "--format", "github")
    assert proc.returncode == 1
    line = next(ln for ln in proc.stdout.splitlines() if "RR001" in ln)
    assert line.startswith("::error file=perf-changelog.yaml,line=") and "endLine=" in line


def test_clean_append_exits_0_for_the_changelog_rules(git_repo):
    git_repo.commit({"perf-changelog.yaml": BASE}, "base")
    git_repo.commit({"perf-changelog.yaml": BASE + "\n" + NEW}, "append", branch="feature")
    proc = _check(git_repo, "--base", "main", "--head", "feature", "--pr-number", "4867", "--format", "json")
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert not codes & {"RR001", "RR002", "RR003", "RR004", "RR006", "RR007", "RR014"}


def test_unknown_revision_exits_2(pr_repo):
    proc = _check(pr_repo, "--base", "no-such-branch", "--head", "feature")
    assert proc.returncode == 2 and "unknown revision `no-such-branch`" in proc.stderr


SCRIPT = "benchmarks/single_node/dsv4_fp4_b200_vllm.sh"


@pytest.mark.parametrize("changelog, required", [(None, False), ("perf-changelog.yaml", True),
                                                  ("inferencex-e2e/perf-changelog.yaml", True)],
                         ids=["base without any changelog", "changelog at the root", "changelog above the script"])
def test_entry_required_only_where_the_base_has_a_changelog(git_repo, changelog, required):
    prefix = "inferencex-e2e/" if changelog and changelog.startswith("inferencex-e2e/") else ""
    git_repo.commit({prefix + SCRIPT: "vllm serve m\n", **({changelog: BASE} if changelog else {})}, "main")
    git_repo.commit({prefix + SCRIPT: "vllm serve m --tp 8\n"}, "tune", branch="feature")
    proc = _check(git_repo, "--base", "main", "--head", "feature", "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # RR009 is a nit (notes/proof.md)
    out = json.loads(proc.stdout)
    assert [(f["code"], f["severity"]) for f in out["findings"]] == ([("RR009", "nit")] if required else [])
    said = [c for c in out["checks"] if c.get("code") == "RR009" and "no entry required" in c["detail"]]
    assert bool(said) is (not required)


def test_json_keeps_one_entry_per_problem_where_the_app_groups(git_repo):
    """The App posts one comment for eight `RR011`; `--format json` still lists all eight, same shape."""
    from tests.rules.mc_helpers import entry, master, row

    keys = [f"dsv4-fp4-b200-vllm-k{i}" for i in range(9)]
    git_repo.commit({"perf-changelog.yaml": entry(keys[0], pr="1"),
                     "configs/nvidia-master.yaml": master(*[row(k) for k in keys])}, "main")
    git_repo.commit({"perf-changelog.yaml": entry(keys[0], pr="1") + "\n" + entry(keys[0]),
                     "configs/nvidia-master.yaml": master(*[row(k, image="vllm/vllm-openai:v0.21.0") if i else row(k)
                                                            for i, k in enumerate(keys)])}, "pr", branch="feature")
    proc = _check(git_repo, "--base", "main", "--head", "feature", "--format", "json")
    out = json.loads(proc.stdout)
    rr011 = [f for f in out["findings"] if f["code"] == "RR011"]
    assert len(rr011) == 8 and len({f["fingerprint"] for f in rr011}) == 8
    assert set(out) == {"findings", "checks"}
    assert all(set(f) == {"code", "name", "severity", "path", "line", "end_line", "message", "why", "fix",
                          "suggestion", "evidence", "fingerprint"} for f in out["findings"])


def test_title_marks_a_revert_that_may_delete_its_entry(git_repo):
    """`--title` is the PR title the App reads: a `Revert ...` PR may delete the entry it reverts."""
    at = starts(BASE)
    git_repo.commit({"perf-changelog.yaml": BASE}, "changelog with eight entries")
    git_repo.commit({"perf-changelog.yaml": BASE[:at[4]] + BASE[at[5]:]}, "revert", branch="feature")
    plain = json.loads(_check(git_repo, "--base", "main", "--head", "feature", "--format", "json").stdout)
    assert [f["code"] for f in plain["findings"] if f["code"] == "RR002"] == ["RR002"]
    proc = _check(git_repo, "--base", "main", "--head", "feature", "--format", "json",
                  "--title", 'Revert "Bump the qwen image"')
    titled = json.loads(proc.stdout)
    assert [f for f in titled["findings"] if f["code"] == "RR002"] == []
    assert any(c["code"] == "RR002" and "revert" in c["detail"] for c in titled["checks"])
