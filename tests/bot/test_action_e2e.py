"""`recipe-review action` run the way GitHub Actions runs the step: an event file, the environment
Actions sets (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_TOKEN, GITHUB_API_URL, GITHUB_STEP_SUMMARY,
GITHUB_OUTPUT, …) plus the INPUT_* variables action.yml maps the step's inputs to, the fake GitHub
as the API, and no webhook server. The token is registered with the fake as a workflow's
`GITHUB_TOKEN` is on GitHub: it acts as github-actions[bot] with the workflow's `permissions:`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from bot import demo
from fakegithub.server import FakeGitHub
from tests.bot.scenario import writes

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW_PERMISSIONS = {"contents": "read", "pull_requests": "write", "issues": "write", "checks": "write",
                        "actions": "read", "metadata": "read"}  # examples/workflows/recipe-review.yml
READ_ONLY = {k: "read" for k in WORKFLOW_PERMISSIONS}  # what a fork PR gets under `pull_request`


class ActionRun:
    """One fake GitHub on the seed repository, and workflow steps run against it."""

    def __init__(self, tmp_path: Path, repo_dir: Path | None = None, collaborators=None):
        self.tmp = tmp_path
        if repo_dir is None:
            repo_dir = tmp_path / "repo"
            base, head = demo.build_repo(repo_dir)
        else:
            base, head = "main", "kimik3.1-cpu2700"
        self.fake = FakeGitHub(repo_dir, repo=demo.REPO, collaborators=collaborators or {"writer": "write"})
        self.fake.add_pr(demo.PR_NUMBER, base=base, head=head, author="contributor", title=demo.TITLE)
        self.url = self.fake.start()
        self.http = requests.Session()
        self.runs = 0

    def token(self, permissions=WORKFLOW_PERMISSIONS, login="github-actions[bot]") -> str:
        token = f"ghs_workflow{len(self.fake.scoped_tokens)}"
        self.fake.add_token(token, login, permissions)
        return token

    def event(self, event: str, **params) -> dict:
        return self.http.get(f"{self.url}/_fake/webhook/{event}", params={"number": demo.PR_NUMBER, **params},
                             timeout=10).json()

    def state(self) -> dict:
        return self.http.get(f"{self.url}/_fake/state", timeout=10).json()

    def step(self, event_name: str, payload, token: str | None, inputs: dict | None = None,
             event_path: Path | None = None) -> subprocess.CompletedProcess:
        """Run the action's review step: `recipe-review action` with the environment Actions gives it."""
        self.runs += 1
        work = self.tmp / f"run{self.runs}"
        work.mkdir(parents=True)
        if event_path is None:
            event_path = work / "event.json"
            event_path.write_text(payload if isinstance(payload, str) else json.dumps(payload))
        self.summary, self.outputs = work / "step_summary.md", work / "github_output"
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(work), "GITHUB_ACTIONS": "true", "CI": "true",
               "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event_path),
               "GITHUB_API_URL": self.url, "GITHUB_REPOSITORY": demo.REPO, "GITHUB_RUN_ID": str(1000 + self.runs),
               "GITHUB_RUN_ATTEMPT": "1", "GITHUB_STEP_SUMMARY": str(self.summary), "GITHUB_OUTPUT": str(self.outputs),
               "GITHUB_WORKSPACE": str(work), "RUNNER_TEMP": str(work),
               "WRITE_INTERVAL_S": "0",  # GitHub asks for 1 s between writes; the fake does not need it
               "INPUT_CONFIG": ".github/recipe-review.yml", "INPUT_FAIL_ON": "blocking", "INPUT_DRY_RUN": "false",
               "INPUT_APP_TOKEN": "", "INPUT_BOT_LOGIN": ""}
        if token is not None:
            env["GITHUB_TOKEN"] = token
        env.update({f"INPUT_{k.upper().replace('-', '_')}": v for k, v in (inputs or {}).items()})
        return subprocess.run([sys.executable, "-m", "bot.cli", "action"], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=120)

    def step_outputs(self) -> dict:
        if not self.outputs.exists():
            return {}
        return dict(line.split("=", 1) for line in self.outputs.read_text().splitlines() if "=" in line)

    def close(self):
        self.fake.stop()


@pytest.fixture
def act(tmp_path):
    a = ActionRun(tmp_path)
    yield a
    a.close()


def shape(state: dict) -> dict:
    """What a contributor sees, without ids, timestamps and who wrote it."""
    return {
        "reviews": [(r["state"], r["body"], r["commit_id"]) for r in state["reviews"]],
        "review_comments": sorted((c["path"], c.get("start_line"), c["line"], c["side"], c["body"])
                                  for c in state["review_comments"]),
        "check_runs": [(r["name"], r["head_sha"], r["status"], r["conclusion"], r["output"]["title"],
                        r["output"]["summary"]) for r in state["check_runs"]],
        "issue_comments": [c["body"] for c in state["issue_comments"]],
        "labels": state["labels"],
    }


def test_the_action_gives_the_same_review_check_run_and_summary_as_the_app(sc, tmp_path):
    """The App (webhook → queue) and the Action (event file → one step) on the same repository and PR."""
    sc.deliver("pull_request", sc.payload("opened"))
    app_state = sc.settle()
    action = ActionRun(tmp_path / "action", repo_dir=sc.repo_dir)
    try:
        proc = action.step("pull_request", action.event("pull_request", action="opened"), action.token())
        action_state = action.state()
        assert shape(action_state) == shape(app_state)
        assert shape(action_state)["reviews"] and shape(action_state)["check_runs"]
        # Both within 7 API calls for the seed PR, and the same calls in the same order.
        assert len(app_state["calls"]) <= 7 and len(action_state["calls"]) <= 7
        assert [(c["method"], c["path"]) for c in action_state["calls"]] == \
               [(c["method"], c["path"]) for c in app_state["calls"]]
        # Written as the workflow's token acts: github-actions[bot].
        assert {c["user"]["login"] for c in action_state["issue_comments"]} == {"github-actions[bot]"}
        # The job summary is the same report as the summary comment; outputs for later steps.
        summary = next(c["body"] for c in action_state["issue_comments"] if "recipe-review:summary" in c["body"])
        assert action.summary.read_text().strip() == summary.strip()
        out = action.step_outputs()
        assert out["result"] == "reviewed" and int(out["blocking"]) >= 1
        assert proc.returncode == 1, proc.stdout + proc.stderr  # fail-on: blocking, and there are blocking findings
        # The same event again (a re-run of the workflow) posts nothing twice.
        before = len(action.state()["calls"])
        again = action.step("pull_request", action.event("pull_request", action="synchronize"), action.token())
        assert again.returncode == 1 and writes(action.state()["calls"][before:]) == []
    finally:
        action.close()


def test_pull_request_target_is_the_same_review(act):
    proc = act.step("pull_request_target", act.event("pull_request", action="opened"), act.token(),
                    {"fail-on": "never"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    state = act.state()
    assert len(state["reviews"]) == 1 and [r["conclusion"] for r in state["check_runs"]] == ["failure"]


@pytest.mark.parametrize("event_path,content,fragment", [
    ("missing.json", None, "cannot read the event file"),
    ("event.json", "{not json", "is not JSON"),
    ("event.json", "[1, 2]", "does not hold a JSON object"),
], ids=["missing", "not-json", "not-an-object"])
def test_an_unusable_event_file_is_one_clear_line_and_a_neutral_exit(act, event_path, content, fragment):
    path = act.tmp / event_path
    if content is not None:
        path.write_text(content)
    proc = act.step("pull_request", None, act.token(), event_path=path)
    assert proc.returncode == 0
    [line] = proc.stdout.splitlines()
    assert line.startswith("::warning::recipe-review: ") and fragment in line
    assert act.state()["calls"] == []


def test_an_event_the_action_does_not_handle_is_a_neutral_exit(act):
    proc = act.step("push", {"ref": "refs/heads/main", "repository": {"full_name": demo.REPO}}, act.token())
    assert proc.returncode == 0 and "the `push` event (action `None`) is not one this action handles" in proc.stdout
    closed = act.step("pull_request", act.event("pull_request", action="closed"), act.token())
    assert closed.returncode == 0 and "is not one this action handles" in closed.stdout
    assert act.state()["calls"] == []


def test_a_token_without_checks_write_still_reviews_and_says_why_there_is_no_check_run(act):
    token = act.token({**WORKFLOW_PERMISSIONS, "checks": "read"})
    proc = act.step("pull_request", act.event("pull_request", action="opened"), token, {"fail-on": "never"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "::warning::recipe-review: no check run: the token may not write checks" in proc.stdout
    state = act.state()
    assert state["check_runs"] == [] and len(state["reviews"]) == 1
    assert any("recipe-review:summary" in c["body"] for c in state["issue_comments"])
    refused = [c for c in state["calls"] if c["status"] == 403]
    assert [c["path"].rsplit("/", 1)[-1] for c in refused] == ["check-runs"]  # asked once, then not again
    before = len(state["calls"])
    again = act.step("pull_request", act.event("pull_request", action="synchronize"), token, {"fail-on": "never"})
    assert again.returncode == 0
    new = act.state()["calls"][before:]
    assert [c for c in writes(new) if c["status"] < 400] == []  # nothing posted twice


def test_a_fork_prs_read_only_token_writes_nothing_and_shows_the_findings_as_annotations(act):
    token = act.token(READ_ONLY)
    proc = act.step("pull_request", act.event("pull_request", action="opened"), token, {"fail-on": "never"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the token may read this repository but not write to it" in proc.stdout
    assert "pull_request_target" in proc.stdout
    assert "::error file=inferencex-e2e/perf-changelog.yaml,line=" in proc.stdout  # the findings, as annotations
    assert "### Checks that passed" in act.summary.read_text()
    assert act.step_outputs()["result"] == "read-only"
    state = act.state()
    assert state["reviews"] == [] and state["issue_comments"] == [] and state["check_runs"] == []
    assert all(c["status"] == 403 for c in writes(state["calls"]))
    # Blocking findings still fail the step when asked to (they are the author's to fix).
    assert act.step("pull_request", act.event("pull_request", action="synchronize"), token).returncode == 1
    assert act.state()["reviews"] == []


def test_dry_run_writes_nothing_and_shows_the_report(act):
    proc = act.step("pull_request", act.event("pull_request", action="opened"), act.token(),
                    {"dry-run": "true", "fail-on": "never"})
    assert proc.returncode == 0, proc.stderr
    assert writes(act.state()["calls"]) == []
    assert "<!-- recipe-review:summary -->" in act.summary.read_text()


def test_a_review_command_runs_its_review_in_the_same_step(act):
    c = act.fake.create_issue_comment(demo.PR_NUMBER, "/review", "writer")
    proc = act.step("issue_comment", act.event("issue_comment", action="created", comment_id=c["id"]), act.token(),
                    {"fail-on": "never"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    state = act.state()
    assert len(state["reviews"]) == 1 and [r["conclusion"] for r in state["check_runs"]] == ["failure"]
    assert [r["content"] for r in state["reactions"]] == ["eyes", "+1"]
    assert "**Commands:** `ran review`" in act.summary.read_text()


def test_sweep_with_the_workflows_token_says_labels_would_start_nothing(act):
    """GitHub starts no workflow for events the workflow's GITHUB_TOKEN causes, and the sweep workflow
    starts on `labeled`: the command says so instead of setting labels that start nothing."""
    c = act.fake.create_issue_comment(demo.PR_NUMBER, "/sweep fail-fast", "writer")
    proc = act.step("issue_comment", act.event("issue_comment", action="created", comment_id=c["id"]), act.token())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    state = act.state()
    assert state["labels"][str(demo.PR_NUMBER)] == []
    [reply] = [x for x in state["issue_comments"] if "recipe-review:reply:" in x["body"]]
    assert "start no workflow" in reply["body"] and "`GITHUB_TOKEN`" in reply["body"] and "app-token" in reply["body"]


def test_sweep_with_an_app_token_sets_the_labels(act):
    app_token = act.token(None, login="recipe-review[bot]")  # an installation token: all the App's permissions
    c = act.fake.create_issue_comment(demo.PR_NUMBER, "/sweep fail-fast", "writer")
    proc = act.step("issue_comment", act.event("issue_comment", action="created", comment_id=c["id"]),
                    act.token(), {"app-token": app_token, "fail-on": "never"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    state = act.state()
    assert state["labels"][str(demo.PR_NUMBER)] == ["full-sweep-fail-fast"]
    assert {e["actor"] for e in state["label_events"]} == {"recipe-review[bot]"}
    # Who the App token acts as came from GitHub (GraphQL `viewer`), so its own comments are recognised.
    assert any(c["method"] == "POST" and c["path"] == "/graphql" for c in state["calls"])
    assert [r["name"] for r in state["check_runs"]] == ["recipe-review", "sweep-gate"]


def test_an_event_the_bot_caused_itself_is_ignored(act):
    payload = act.event("pull_request", action="labeled", label="full-sweep-fail-fast", sender="github-actions[bot]")
    proc = act.step("pull_request", payload, act.token())
    assert proc.returncode == 0 and "caused by github-actions[bot] itself" in proc.stdout
    assert act.state()["calls"] == []


def test_a_bad_fail_on_input_is_the_workflow_authors_error(act):
    proc = act.step("pull_request", act.event("pull_request", action="opened"), act.token(), {"fail-on": "sometimes"})
    assert proc.returncode == 2 and "`fail-on` must be one of blocking, never" in proc.stdout
    assert act.state()["calls"] == []


def test_a_review_that_cannot_finish_in_the_action_leaves_a_neutral_run_and_a_neutral_step(act):
    act.fake.fail_rules = [{"method": "POST", "path": f"/repos/{demo.REPO}/pulls/{demo.PR_NUMBER}/reviews",
                            "status": 422}]
    proc = act.step("pull_request", act.event("pull_request", action="opened"), act.token())
    # A 422 on the review splits it to find the comment GitHub refuses; refused whole, the findings go
    # to the summary instead, and the run carries the verdict.
    state = act.state()
    assert [r["conclusion"] for r in state["check_runs"]] == ["failure"] and proc.returncode == 1
    act.fake.fail_rules = [{"method": "PATCH", "path": f"/repos/{demo.REPO}/issues/comments/", "status": 404},
                           {"method": "POST", "path": f"/repos/{demo.REPO}/issues/{demo.PR_NUMBER}/comments",
                            "status": 404}]
    proc = act.step("pull_request", act.event("pull_request", action="synchronize"), act.token())
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the review could not finish: nothing to fail on
    assert "::warning::recipe-review: review failed: posting a comment: 404" in proc.stdout
    assert act.step_outputs()["result"] == "error"
    [run] = act.state()["check_runs"]
    assert (run["conclusion"], run["output"]["title"]) == ("neutral", "Review could not finish")
