"""The check run's lifecycle and failure handling, end to end on the fake GitHub over real HTTP:
in_progress while a review runs, neutral with the reason when a job cannot finish, 404/422 never
retried, the PR's current base when the payload's is unknown; base changes and the Re-run button."""
from __future__ import annotations

import subprocess

import pytest

from bot import demo, lifecycle
from bot.github import GitHubError
from tests.bot.scenario import writes

UNKNOWN_SHA = "0123456789abcdef0123456789abcdef01234567"


def runs(state, name="recipe-review"):
    return [r for r in state["check_runs"] if r["name"] == name]


def calls(state, method, fragment):
    return [c for c in state["calls"] if c["method"] == method and fragment in c["path"]]


@pytest.mark.parametrize("status,permanent", [(404, True), (422, True), (500, False), (502, False), (None, False)])
def test_which_github_errors_are_permanent(status, permanent):
    assert GitHubError("x", status).permanent is permanent


def test_forbidden_means_a_missing_permission_not_a_rate_limit():
    assert GitHubError("creating the check run: 403 Resource not accessible by integration", 403).forbidden
    assert not GitHubError("posting: 403 You have exceeded a secondary rate limit", 403).forbidden


def test_a_payload_base_github_does_not_know_is_reviewed_against_the_prs_current_base(sc):
    payload = sc.payload("opened")
    payload["pull_request"]["base"]["sha"] = UNKNOWN_SHA
    assert sc.deliver("pull_request", payload).status_code == 202
    state = sc.settle()
    assert len(state["reviews"]) == 1 and any("`RR001`" in c["body"] for c in state["review_comments"])
    [run] = runs(state)
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    compares = calls(state, "GET", "/compare/")
    assert [c["status"] for c in compares] == [404, 200]  # not retried: one 404, then the PR's base
    assert (
        UNKNOWN_SHA in compares[0]["path"] and state["prs"][str(demo.PR_NUMBER)]["base"]["sha"] in compares[1]["path"]
    )
    assert len(calls(state, "GET", f"/pulls/{demo.PR_NUMBER}")) == 1


def test_a_review_that_cannot_finish_concludes_the_check_run_neutral_with_the_reason(sc):
    """Unknown base, and comparing fails for the PR's base too: no retry, a neutral run says why."""
    sc.fake_post("faults", {"fail": [{"method": "GET", "path": f"/repos/{demo.REPO}/compare/", "status": 404}]})
    payload = sc.payload("opened")
    payload["pull_request"]["base"]["sha"] = UNKNOWN_SHA
    sc.deliver("pull_request", payload)
    state = sc.settle()
    [run] = runs(state)
    assert (run["status"], run["conclusion"]) == ("completed", "neutral")
    assert run["head_sha"] == payload["pull_request"]["head"]["sha"]
    summary = run["output"]["summary"]
    assert "comparing commits: 404" in summary and "/review" in summary and "Re-run" in summary
    assert run["output"]["title"] == "Review could not finish"
    assert len(calls(state, "GET", "/compare/")) == 2  # the payload's base, then the PR's: never retried
    assert state["reviews"] == [] and state["issue_comments"] == []


def test_a_job_failing_mid_way_turns_its_in_progress_run_neutral(sc):
    """The run started in_progress is the one concluded: no second run, no stale in_progress."""
    sc.fake_post("faults", {"fail": [{"method": "POST", "path": f"/repos/{demo.REPO}/pulls/{demo.PR_NUMBER}/reviews",
                                      "status": 404}]})
    sc.deliver("pull_request", sc.payload("opened"))
    state = sc.settle()
    [run] = runs(state)
    assert (run["status"], run["conclusion"]) == ("completed", "neutral")
    assert "posting the review: 404" in run["output"]["summary"]
    assert len(calls(state, "POST", "/reviews")) == 1


def test_a_command_whose_comment_was_deleted_still_runs_and_its_review_concludes(sc):
    c = sc.fake_post("comments", {"number": demo.PR_NUMBER, "user": "writer", "body": "/review", "kind": "issue"})
    payload = sc.webhook("issue_comment", action="created", comment_id=c["id"])
    sc.http.delete(f"{sc.fake_url}/_fake/comments/{c['id']}", timeout=10).raise_for_status()
    sc.deliver("issue_comment", payload)
    state = sc.settle()
    reactions = calls(state, "POST", "/reactions")
    assert reactions and all(r["status"] == 404 for r in reactions)
    assert len(reactions) == 2  # 👀 and 👍 tried once each, never retried
    [run] = runs(state)
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    assert len(state["reviews"]) == 1


def test_the_summary_deleted_between_read_and_edit_is_posted_again(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    first = sc.settle()
    [summary] = [c for c in first["issue_comments"] if "recipe-review:summary" in c["body"]]
    sc.fake_post("faults", {"fail": [{"method": "PATCH", "path": f"/repos/{demo.REPO}/issues/comments/",
                                      "status": 404, "times": 1}]})
    sc.push_fix()
    state = sc.settle()
    summaries = [c for c in state["issue_comments"] if "recipe-review:summary" in c["body"]]
    assert len(summaries) == 2 and summaries[-1]["id"] != summary["id"]
    assert summaries[-1]["body"].count("recipe-review:summary") == 1


def test_forced_review_restarts_the_run_then_completes_it(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    sc.fake.reset_calls()
    sc.comment("writer", "/review")
    state = sc.settle()
    patches = calls(state, "PATCH", "/check-runs/")
    assert len(patches) == 2 and len(runs(state)) == 1  # back to in_progress, then the verdict
    assert runs(state)[0]["status"] == "completed"


def test_a_label_change_does_not_flicker_the_check_run(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    [run] = runs(sc.settle())
    sc.fake.reset_calls()
    sc.set_labels("writer", ["full-sweep-fail-fast"], added="full-sweep-fail-fast")
    state = sc.settle()
    assert calls(state, "GET", "/compare/")  # it did re-review
    assert calls(state, "PATCH", f"/check-runs/{run['id']}") == []  # the verdict did not change: untouched
    assert [r["status"] for r in runs(state)] == ["completed"]


def test_retargeting_the_pr_is_a_new_review(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    git = ["git", "-C", str(sc.repo_dir), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["checkout", "-q", "-b", "release", "main"], check=True)
    (sc.repo_dir / "NOTES.md").write_text("release notes\n")
    subprocess.run(git + ["add", "NOTES.md"], check=True)
    subprocess.run(git + ["commit", "-qm", "release branch"], check=True)
    subprocess.run(git + ["checkout", "-q", "main"], check=True)
    release = subprocess.run(git + ["rev-parse", "release"], check=True, capture_output=True, text=True).stdout.strip()
    sc.fake_post(f"prs/{demo.PR_NUMBER}/base", {"base": "release"})
    sc.fake.reset_calls()
    payload = sc.payload("edited")
    assert payload["changes"]["base"]["ref"]["from"] == "main"
    assert payload["pull_request"]["base"]["sha"] == release
    r = sc.deliver("pull_request", payload)
    assert r.status_code == 202 and r.json()["outcome"] == "queued"
    state = sc.settle()
    [compare] = calls(state, "GET", "/compare/")
    assert release in compare["path"]  # reviewed against the new base
    # A title edit is not a review.
    title_edit = sc.webhook("pull_request", action="edited", from_title="old title")
    title_edit["changes"] = {"title": {"from": "old title"}}
    assert sc.deliver("pull_request", title_edit).json()["outcome"] == "ignored"


def test_the_rerun_button_on_our_check_run_is_a_forced_review(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    first = sc.settle()
    [run] = runs(first)
    sc.fake.reset_calls()
    r = sc.deliver("check_run", sc.webhook("check_run", action="rerequested", check_run_id=run["id"]))
    assert r.json()["outcome"] == "queued"
    state = sc.settle()
    assert len(calls(state, "PATCH", f"/check-runs/{run['id']}")) == 2  # in_progress, then the verdict
    assert writes(state["calls"]) and len(state["reviews"]) == 1  # nothing posted twice


def test_rerun_all_checks_on_a_fork_pr_finds_the_pr_by_its_head(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    [run] = runs(sc.settle())
    sc.fake.reset_calls()
    payload = sc.webhook("check_suite", action="rerequested", check_run_id=run["id"])
    payload["check_suite"]["pull_requests"] = []  # GitHub names no PR when the head branch is in a fork
    sc.deliver("check_suite", payload)
    state = sc.settle()
    assert calls(state, "GET", f"/commits/{run['head_sha']}/pulls")
    assert len(calls(state, "PATCH", f"/check-runs/{run['id']}")) == 2


def test_check_events_of_other_apps_and_checks_are_ignored(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    [run] = runs(sc.settle())
    sc.fake.reset_calls()
    theirs = sc.webhook("check_suite", action="rerequested", check_run_id=run["id"])
    theirs["check_suite"]["app"] = {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"}
    sc.deliver("check_suite", theirs)
    other_check = sc.webhook("check_run", action="rerequested", check_run_id=run["id"])
    other_check["check_run"]["name"] = "lint"
    assert sc.deliver("check_run", other_check).json()["outcome"] == "ignored"
    assert sc.settle()["calls"] == []


def test_conclude_failed_never_raises(sc):
    """The failure path reports what it could not write instead of raising over the original error."""
    from bot.github import PyGithubPort, client_for

    port = PyGithubPort(client_for(sc.settings))
    assert lifecycle.conclude_failed(port, demo.REPO, UNKNOWN_SHA, "boom").startswith("check-run not written")
