"""The CLI conventions a ruff / ShellCheck / yamllint user expects (contracts of issue 20): `--version`,
`rule CODE|NAME` and `rule --all`, `--select` / `--ignore`, `check --quiet`, `--format github` within
GitHub's annotation limits with the job summary, colour on a terminal, and `fix --dry-run`'s exit status.
Every case runs the real command on a real git repository."""
from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from bot import __version__
from rules.registry import ALL_RULES
from tests.rules.changelog_helpers import BASE, insert_before
from tests.rules.mc_helpers import entry as mc_entry
from tests.rules.mc_helpers import master, row

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "benchmarks/single_node/dsv4_fp4_b200_vllm.sh"
# RR407 (curl without --fail), RR408 (a hard-coded size), RR409 (benchmark_serving.py run directly).
BAD_SCRIPT = ("#!/usr/bin/env bash\nuntil curl -s http://localhost:8000/health; do sleep 1; done\n"
              'python3 benchmark_serving.py --model "$MODEL" --num-prompts 10\n')


def rr(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, env=env)


def codes(proc: subprocess.CompletedProcess) -> list[str]:
    return [f["code"] for f in json.loads(proc.stdout)["findings"]]


@pytest.fixture
def script_pr(git_repo):
    """A base with a changelog and a config that disables RR409 and makes RR408 blocking; a PR that adds
    a benchmark script with three script findings (RR407, RR408, RR409) and no changelog entry (RR009, made
    blocking by the config)."""
    git_repo.commit({"perf-changelog.yaml": BASE,
                     ".github/recipe-review.yml": "rules:\n  RR409: {enabled: false}\n  RR408: {severity: blocking}\n"
                                                     "  RR009: {severity: blocking}\n"},
                    "base")
    git_repo.commit({SCRIPT: BAD_SCRIPT}, "a new script", branch="feature")
    return git_repo


def check(repo, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return rr("check", "--repo", str(repo.path), "--base", "main", "--head", "feature", *args, env=env)


# -- --version and rule ---------------------------------------------------------------------------------

def test_version():
    proc = rr("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"recipe-review {__version__}\n", "")


@pytest.mark.parametrize(
    "key", ["RR001", "rr001", "changelog-entry-misplaced"], ids=["code", "lower-case code", "name"]
)
def test_rule_prints_one_rules_documentation(key):
    proc = rr("rule", key)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# RR001 changelog-entry-misplaced\n")
    assert "- **Severity**: 🔴 blocking" in proc.stdout and "- **Proof**: `written:A2`" in proc.stdout
    from bot.docs import RULE_PAGES
    from rules.registry import by_code

    assert (by_code("RR001").__doc__ or "").strip() in proc.stdout  # the docstring is the documentation
    assert "## Why it matters" in proc.stdout and "## When it fires" in proc.stdout and "## Fix" in proc.stdout
    page = Path(__file__).resolve().parents[1] / RULE_PAGES / "RR001.md"
    assert proc.stdout == page.read_text(encoding="utf-8")  # the same text as the rule's page


def test_rule_json():
    proc = rr("rule", "RR301", "--format", "json")
    d = json.loads(proc.stdout)
    assert set(d) == {"code", "name", "severity", "summary", "fixable", "documentation"}
    assert (d["code"], d["name"], d["severity"], d["fixable"]) == ("RR301", "header-comment-block", "nit", False)
    assert d["summary"].startswith("Flags ") and "## Why it matters" in d["documentation"]


def test_rule_all_lists_every_rule_in_text_and_json():
    text = rr("rule", "--all")
    lines = text.stdout.splitlines()
    assert text.returncode == 0 and len(lines) == len(ALL_RULES)
    for line, rule in zip(lines, ALL_RULES, strict=True):
        code, name, severity, summary = line.split(None, 3)
        assert (code, name, severity) == (rule.CODE, rule.NAME, rule.SEVERITY.value) and summary.startswith("Flags")
    js = json.loads(rr("rule", "--all", "--format", "json").stdout)
    assert [d["code"] for d in js] == [r.CODE for r in ALL_RULES]
    assert {d["fixable"] for d in js if d["code"] in ("RR001", "RR224")} == {True}


@pytest.mark.parametrize("args, message", [
    (("rule", "RR999"), "no rule has the code or name `RR999`"),
    (("rule",), "give one rule code or name"),
    (("rule", "RR001", "--all"), "give one rule code or name"),
], ids=["unknown", "neither", "both"])
def test_rule_usage_errors_exit_2(args, message):
    proc = rr(*args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


# -- --select / --ignore ----------------------------------------------------------------------------------

def test_without_a_selection_the_config_decides(script_pr):
    proc = check(script_pr, "--format", "json")
    assert sorted(codes(proc)) == ["RR009", "RR407", "RR408"]  # RR409 is off in the config


def test_select_a_code_prefix_runs_every_rule_of_the_family(script_pr):
    proc = check(script_pr, "--select", "RR4", "--format", "sarif")
    sarif = json.loads(proc.stdout)
    ran = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert ran == [r.CODE for r in ALL_RULES if r.CODE.startswith("RR4")]  # RR409 too: --select chooses from all
    found = sorted(r["ruleId"] for r in sarif["runs"][0]["results"])
    assert found == ["RR407", "RR408", "RR409"]  # no RR009: not selected
    assert proc.returncode == 1


def test_select_keeps_the_configs_severity_and_ignore_removes(script_pr):
    proc = check(script_pr, "--select", "RR4,changelog-entry-missing", "--ignore", "RR407", "--format", "json")
    out = json.loads(proc.stdout)
    assert sorted(f["code"] for f in out["findings"]) == ["RR009", "RR408", "RR409"]
    assert next(f for f in out["findings"] if f["code"] == "RR408")["severity"] == "blocking"  # the config's
    assert all(c["code"] is None or c["code"].startswith("RR4") or c["code"] == "RR009" for c in out["checks"])


def test_ignore_alone_removes_from_the_configured_rules(script_pr):
    proc = check(script_pr, "--ignore", "RR0,RR408", "--format", "json")
    assert codes(proc) == ["RR407"] and proc.returncode == 0  # RR407 is a nit


@pytest.mark.parametrize("args, message", [
    (("--select", "RR999"), "--select: no rule has the code, name or code prefix `RR999`"),
    (("--select", "RR9"), "--select: no rule has the code, name or code prefix `RR9`"),
    (("--ignore", "no-such-rule"), "--ignore: no rule has the code, name or code prefix `no-such-rule`"),
    (("--select", ","), "--select needs at least one rule"),
    (("--select", "RR001", "--ignore", "RR0"), "leave no rule to run"),
], ids=["unknown code", "unknown prefix", "unknown name", "empty", "nothing left"])
def test_bad_selections_exit_2(script_pr, args, message):
    proc = check(script_pr, *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


# -- --quiet and colour ------------------------------------------------------------------------------------

def test_quiet_prints_findings_and_the_count_only(script_pr):
    loud = check(script_pr)
    quiet = check(script_pr, "--quiet")
    assert "checks passed:" in loud.stdout and "✓" in loud.stdout
    assert "checks passed:" not in quiet.stdout and "✓" not in quiet.stdout and "checks not run" not in quiet.stdout
    assert [ln for ln in quiet.stdout.splitlines() if "RR4" in ln and ": " in ln and not ln.startswith(" ")]
    assert quiet.stdout.splitlines()[-1] == loud.stdout.splitlines()[-1] == "2 blocking, 1 nit(s), " + \
        loud.stdout.splitlines()[-1].split(", ")[-1]
    assert quiet.returncode == loud.returncode == 1


def _env(**kv: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    return {**env, **kv}


def _on_a_terminal(args: list[str], env: dict) -> str:
    """Run the command with stdout on a pseudo-terminal; what it wrote there."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", *args], stdout=follower, stderr=subprocess.DEVNULL,
                            cwd=ROOT, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_on_a_terminal_only_and_honouring_no_color_and_force_color(script_pr):
    args = ["check", "--repo", str(script_pr.path), "--base", "main", "--head", "feature", "--quiet"]
    assert "\x1b[" not in check(script_pr, "--quiet", env=_env()).stdout  # a pipe: no colour
    assert "\x1b[1;31m" in _on_a_terminal(args, _env(TERM="xterm"))  # a terminal: blocking in red
    assert "\x1b[" not in _on_a_terminal(args, _env(TERM="xterm", NO_COLOR="1"))
    assert "\x1b[" not in _on_a_terminal(args, _env(TERM="dumb"))
    forced = check(script_pr, "--quiet", env=_env(FORCE_COLOR="1"))
    assert "\x1b[1;31m" in forced.stdout and "\x1b[33m" in forced.stdout
    assert "\x1b[" not in check(script_pr, "--quiet", env=_env(FORCE_COLOR="1", NO_COLOR="1")).stdout
    assert "\x1b[" not in check(script_pr, "--format", "json", env=_env(FORCE_COLOR="1")).stdout


# -- --format github ---------------------------------------------------------------------------------------

@pytest.fixture
def many_findings(git_repo):
    """13 master-config keys changed and one selected by the new entry: 12 RR011 findings, blocking
    because the repository's config makes RR011 (a nit by default) blocking."""
    keys = [f"dsv4-fp4-b200-vllm-k{i:02d}" for i in range(13)]
    git_repo.commit({"perf-changelog.yaml": mc_entry(keys[0], pr="1"),
                     ".github/recipe-review.yml": "rules:\n  RR011: {severity: blocking}\n",
                     "configs/nvidia-master.yaml": master(*[row(k) for k in keys])}, "main")
    git_repo.commit({"perf-changelog.yaml": mc_entry(keys[0], pr="1") + "\n" + mc_entry(keys[0]),
                     "configs/nvidia-master.yaml": master(*[row(k, image="vllm/vllm-openai:v0.21.0") for k in keys])},
                    "pr", branch="feature")
    return git_repo


def test_github_annotates_at_most_10_per_level_and_counts_the_rest(many_findings, tmp_path):
    everything = json.loads(check(many_findings, "--format", "json").stdout)
    blocking = [f for f in everything["findings"] if f["severity"] == "blocking"]
    nits = [f for f in everything["findings"] if f["severity"] == "nit"]
    assert len(blocking) > 10
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    proc = check(many_findings, "--format", "github", env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    errors = [ln for ln in lines if ln.startswith("::error ")]
    warnings = [ln for ln in lines if ln.startswith("::warning ")]
    notices = [ln for ln in lines if ln.startswith("::notice ")]
    assert len(errors) == 10 and len(warnings) == min(10, len(nits)) and len(notices) == 1
    left = len(blocking) - 10 + max(0, len(nits) - 10)
    assert f"{left} more finding{'s' if left != 1 else ''} not annotated ({len(blocking) - 10} blocking" in notices[0]
    assert "job summary" in notices[0]
    assert len(lines) == len(errors) + len(warnings) + len(notices)  # no annotation for a passed check
    md = summary.read_text()
    assert md.startswith("earlier step\n## recipe-review\n")  # appended, as GitHub asks
    for f in everything["findings"]:
        assert f"`{f['path']}:{f['line']}`" in md and f["code"] in md
    passed = [c for c in everything["checks"] if c["status"] == "passed"]
    assert f"{len(passed)} check(s) passed" in md and all(c["name"] in md for c in passed)


def test_github_without_a_job_summary_says_where_the_rest_is(many_findings):
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    proc = check(many_findings, "--format", "github", env=env)
    notice = [ln for ln in proc.stdout.splitlines() if ln.startswith("::notice ")]
    assert len(notice) == 1 and "--format text" in notice[0]


def test_github_under_the_limit_has_no_notice(script_pr):
    proc = check(script_pr, "--format", "github")
    lines = proc.stdout.splitlines()
    assert [ln.split(" ", 1)[0] for ln in lines] == ["::error", "::warning", "::error"] or \
        sorted(ln.split(" ", 1)[0] for ln in lines) == ["::error", "::error", "::warning"]
    assert not [ln for ln in lines if ln.startswith("::notice")]


# -- fix: --select and --dry-run's exit status -----------------------------------------------------------------

@pytest.fixture
def misplaced(git_repo):
    git_repo.commit({"perf-changelog.yaml": BASE}, "base")
    git_repo.commit({"perf-changelog.yaml": insert_before(BASE, 3)}, "an entry mid-file", branch="feature")
    git_repo.git("checkout", "-q", "feature")
    return git_repo


def fix(repo, *args: str) -> subprocess.CompletedProcess:
    return rr("fix", "--repo", str(repo.path), "--base", "main", "--pr-number", "4867", *args)


def test_dry_run_exits_1_when_it_would_rewrite_and_0_when_nothing_is_left(misplaced):
    would = fix(misplaced, "--dry-run")
    assert would.returncode == 1 and would.stdout.startswith("diff --git")
    assert "0 blocking findings left" in would.stderr  # the rewrite alone makes it 1
    assert fix(misplaced).returncode == 0  # rewrite
    again = fix(misplaced, "--dry-run")
    assert (again.returncode, again.stdout) == (0, "")


def test_dry_run_exits_1_on_a_blocking_finding_it_cannot_fix(git_repo):
    git_repo.commit(
        {"perf-changelog.yaml": BASE, ".github/recipe-review.yml": "rules:\n  RR009: {severity: blocking}\n"}, "base"
    )  # RR009 is a nit by default: the repository makes it blocking
    git_repo.commit({SCRIPT: BAD_SCRIPT}, "a script without an entry (RR009)", branch="feature")
    git_repo.git("checkout", "-q", "feature")
    proc = fix(git_repo, "--dry-run")
    assert (proc.returncode, proc.stdout) == (1, "") and "RR009" in proc.stderr


@pytest.mark.parametrize("flag", ["--select", "--only"])
def test_fix_select_fixes_and_reports_the_selection_only(misplaced, flag):
    proc = fix(misplaced, "--dry-run", flag, "RR0")
    assert proc.returncode == 1 and "would fix perf-changelog.yaml" in proc.stderr
    other = fix(misplaced, "--dry-run", flag, "RR3")  # no RR3xx finding here: nothing to do
    assert (other.returncode, other.stdout) == (0, "") and "nothing to fix automatically" in other.stderr
    ignored = fix(misplaced, "--dry-run", "--ignore", "RR001")
    assert ignored.returncode == 1 and "RR001" not in ignored.stderr.split("resolves:")[0]


def test_fix_select_errors_exit_2(misplaced):
    for args, message in (
        (("--select", "RR999"), "--select: no rule has"),
        (("--only", "RR999"), "--only: no rule has"),
        (("--only", "RR001", "--select", "RR002"), "--only is another name for --select"),
    ):
        proc = fix(misplaced, *args)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
