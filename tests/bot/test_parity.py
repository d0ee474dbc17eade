"""The App and `recipe-review check` see the same review (issue 19: one way in).

Each repository is reviewed twice: by the App's read (`bot.handlers.review.fetch`: PyGithub over
HTTP to the fake GitHub, GitHub's compare and GraphQL snapshot) and by `recipe-review check
--base main --head pr --format json` on the same git repository. Both reports must be equal:
findings (code, path, lines, message, fingerprint, …) and checks. The repositories: the seed PR
(a changelog entry and a master-config edit), a script PR whose launcher picks the script (the
second round of reads, `rules.inputs.more_reads`), and a PR that files a waiver and moves the
master configs with a repository config (the config's own round, `rules.inputs.config_reads`), and
the written-rule fixtures of tests/written (one violation per written rule, and a waiver: contents
beyond YAML and shell).
"""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from bot import demo
from bot.cli import main
from bot.github import PyGithubPort, client_for
from bot.handlers.review import ReviewJob, fetch
from bot.settings import Settings
from fakegithub import FakeGitHub
from rules.runner import run
from tests.conftest import GitRepo
from tests.rules.scripts_helpers import LAUNCHER, LIB, RUNNERS, key, master, sglang_script
from tests.written import harness

TITLE = "Tune the benchmark"


def app_report(fake_url: str, repo: str, number: int) -> dict:
    port = PyGithubPort(client_for(Settings(github_token="t", github_api_url=fake_url)))
    pull = port.get_pull(repo, number)
    got = fetch(port, ReviewJob(repo, number, pull.head_sha, pull.base_sha))
    assert not isinstance(got, type(None)) and hasattr(got, "changeset"), got
    out = run(got.changeset, got.config).to_dict()
    if got.config_errors:
        out["config_errors"] = got.config_errors
    return out


def check_report(path, number: int, title: str, repo: str, base: str = "main", head: str = "pr") -> dict:
    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = main(["check", "--repo", str(path), "--base", base, "--head", head, "--pr-number", str(number),
                   "--title", title, "--github-repo", repo, "--format", "json"])
    assert rc in (0, 1), rc
    return json.loads(buf.getvalue())


def assert_same(app: dict, cli: dict) -> None:
    assert app.get("config_errors") == cli.get("config_errors")
    assert [f["fingerprint"] for f in app["findings"]] == [f["fingerprint"] for f in cli["findings"]]
    assert app == cli


def both_ways(repo_dir, repo: str, number: int, title: str, base: str = "main", head: str = "pr") -> tuple[dict, dict]:
    """(the App's report through the fake GitHub, `check`'s report) of PR `number` from `head` into `base`."""
    fake = FakeGitHub(repo_dir, repo=repo)
    fake.add_pr(number, base=base, head=head, author="contributor", title=title)
    url = fake.start()
    try:
        app = app_report(url, repo, number)
    finally:
        fake.stop()
    return app, check_report(repo_dir, number, title, repo, base=base, head=head)


def test_the_seed_pr_reads_the_same_both_ways(tmp_path):
    base, head = demo.build_repo(tmp_path / "repo")
    app, cli = both_ways(tmp_path / "repo", demo.REPO, demo.PR_NUMBER, demo.TITLE, base=base, head=head)
    assert app["findings"], "the seed PR has findings: the comparison must compare something"
    assert_same(app, cli)


SCRIPT = "benchmarks/single_node/fixed_seq_len/glm5_fp8_b200_mtp.sh"


def test_a_script_pr_needs_the_second_round_and_reads_the_same(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    files = {"configs/runners.yaml": RUNNERS, "runners/launch_b200-nb.sh": LAUNCHER,
             "benchmarks/benchmark_lib.sh": LIB,
             "configs/nvidia-master.yaml": master(key("glm5-fp8-b200-sglang-mtp", spec="mtp"))}
    for p in ("fp4", "bf16"):
        files[f"benchmarks/single_node/fixed_seq_len/glm5_{p}_b200_mtp.sh"] = sglang_script(
            mtp=True, env="export SGLANG_ENABLE_SPEC_V2=1")
    repo.commit(files, "main")
    repo.commit({SCRIPT: sglang_script(mtp=True)}, "glm5 fp8 b200 mtp", branch="pr")
    app, cli = both_ways(repo.path, "octo/bench", 31, TITLE)
    # The launcher resolved the script: the rules that read the resolved command ran on it.
    assert any(f["path"] == SCRIPT for f in app["findings"]), app["findings"]
    assert_same(app, cli)


WAIVER_MASTER = """\
dsr1-fp8-b200-sglang:
  image: lmsysorg/sglang:v0.5.2
  model: deepseek-ai/DeepSeek-R1
  model-prefix: dsr1
  runner: b200
  precision: fp8
  framework: sglang
  multinode: false
  seq-len-configs:
  - isl: 1024
    osl: 1024
    search-space:
    - { tp: 8, conc-start: 4, conc-end: 64 }
"""


def test_a_pr_with_a_waiver_and_moved_configs_reads_the_same(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({
        ".github/recipe-review.yml": "paths:\n  master_configs: ['sweeps/*-master.yaml']\n",
        "sweeps/nvidia-master.yaml": WAIVER_MASTER,
        "configs/runners.yaml": RUNNERS,
        "docs/PR_REVIEW_CHECKLIST.md": "# Checklist\n\nA waiver must say what is patched and the removal plan.\n",
    }, "main")
    repo.commit({
        "sweeps/nvidia-master.yaml": WAIVER_MASTER.replace("v0.5.2", "v0.5.3"),
        "docs/waiver/77.md": "# Waiver\n\nPatched: nothing yet.\n",
        "notes.py": "print('not read')\n",
    }, "bump", branch="pr")
    app, cli = both_ways(repo.path, "octo/bench", 77, TITLE)
    assert_same(app, cli)


@pytest.mark.parametrize("broken", ["paths: [unclosed\n"])
def test_a_config_that_does_not_parse_is_reported_the_same(tmp_path, broken):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({".github/recipe-review.yml": broken, "configs/nvidia-master.yaml": WAIVER_MASTER}, "main")
    repo.commit({"configs/nvidia-master.yaml": WAIVER_MASTER.replace("v0.5.2", "v0.5.3")}, "bump", branch="pr")
    app, cli = both_ways(repo.path, "octo/bench", 5, TITLE)
    assert app["config_errors"] and "does not parse (line" in app["config_errors"][0]
    assert_same(app, cli)


WRITTEN = [c for c in harness.cases() if c.name == "violation" or c.label == "F4/control"]


@pytest.mark.parametrize("case", WRITTEN, ids=lambda c: c.label)
def test_the_written_rule_fixtures_read_the_same(tmp_path, case):
    meta = harness.pr_meta(case)
    number = meta.get("number", harness.DEFAULT_PR)
    title = meta.get("title") or TITLE
    when = str(meta.get("created_at") or "2026-11-20T12:00:00Z")
    repo = tmp_path / "repo"
    repo.mkdir()
    harness._git(repo, "init", "-q", "-b", "main")
    harness._commit(repo, case.path / "base", "base", when)
    harness._git(repo, "checkout", "-q", "-b", "pr")
    harness._commit(repo, case.path / "head", "head", when)
    app, cli = both_ways(repo, "SemiAnalysisAI/InferenceX", number, title)
    assert_same(app, cli)


def test_a_changelog_pr_reads_master_configs_under_dot_github_the_same(tmp_path):
    """Older trees keep `configs/` under `.github/`: a PR that changes only the changelog still reads
    them (the config-keys resolve), on both ways in."""
    entry = ("- config-keys:\n    - dsr1-fp8-b200-sglang\n  description:\n    - \"Bump\"\n"
             "  pr-link: https://github.com/octo/bench/pull/9\n")
    repo = GitRepo(tmp_path / "repo")
    repo.commit({".github/configs/nvidia-master.yaml": WAIVER_MASTER, ".github/configs/runners.yaml": RUNNERS,
                 "perf-changelog.yaml": entry.replace("/pull/9", "/pull/8")}, "main")
    repo.commit({"perf-changelog.yaml": entry.replace("/pull/9", "/pull/8") + "\n" + entry}, "entry", branch="pr")
    app, cli = both_ways(repo.path, "octo/bench", 9, TITLE)
    resolved = [c for c in app["checks"] if c["code"] == "RR008" and c["status"] == "passed"]
    assert resolved and "dsr1-fp8-b200-sglang" in resolved[0]["detail"], app["checks"]
    assert_same(app, cli)
