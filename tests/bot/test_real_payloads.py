"""GitHub's own example webhook payloads (../shared/github/webhook-examples), adapted to the fake's
repository and PR, drive the bot end to end: the bot reads only fields real payloads carry."""
from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from bot import demo

EXAMPLES = Path(__file__).resolve().parents[2] / ".." / "shared" / "github" / "webhook-examples"

if not EXAMPLES.is_dir():
    if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
        raise RuntimeError(f"RECIPE_REVIEW_REQUIRE_SHARED=1 but {EXAMPLES} is missing")
    pytest.skip("../shared/github/webhook-examples is absent", allow_module_level=True)


def load(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text())


def adapt_pr(example: dict, sc, action: str) -> dict:
    """Keep GitHub's example, change only what points at the repository and the PR."""
    p = copy.deepcopy(example)
    ours = sc.payload(action)
    p["action"] = action
    p["repository"]["full_name"] = demo.REPO
    p["repository"]["name"] = demo.REPO.split("/")[1]
    p["number"] = demo.PR_NUMBER
    pr = p["pull_request"]
    pr["number"] = demo.PR_NUMBER
    pr["head"]["sha"] = ours["pull_request"]["head"]["sha"]
    pr["base"]["sha"] = ours["pull_request"]["base"]["sha"]
    pr["base"]["ref"] = "main"
    pr["draft"] = False
    pr["state"] = "open"
    p.setdefault("installation", {"id": 1})
    return p


@pytest.mark.parametrize("name", sorted(f.name for f in EXAMPLES.glob("pull_request.opened.*.json")))
def test_real_pull_request_opened_payload_gets_a_review(sc, name):
    payload = adapt_pr(load(name), sc, "opened")
    assert sc.deliver("pull_request", payload).status_code == 202
    state = sc.settle()
    assert len(state["reviews"]) == 1
    assert any("`RR001`" in c["body"] for c in state["review_comments"])


@pytest.mark.parametrize("name", sorted(f.name for f in EXAMPLES.glob("issue_comment.created.*.json")))
def test_real_issue_comment_payload_runs_a_command(sc, name):
    c = sc.fake_post("comments", {"number": demo.PR_NUMBER, "user": "contributor", "body": "/help", "kind": "issue"})
    p = copy.deepcopy(load(name))
    p["repository"]["full_name"] = demo.REPO
    p["issue"]["number"] = demo.PR_NUMBER
    p["issue"]["pull_request"] = {"url": f"{sc.fake_url}/repos/{demo.REPO}/pulls/{demo.PR_NUMBER}"}
    p["comment"]["id"] = c["id"]
    p["comment"]["body"] = "/help"
    p["comment"]["user"]["login"] = "contributor"
    p["sender"]["login"] = "contributor"
    p.setdefault("installation", {"id": 1})
    assert sc.deliver("issue_comment", p).status_code == 202
    state = sc.settle()
    assert any("recipe-review:reply:" in x["body"] and "/reuse-sweep-run" in x["body"] for x in state["issue_comments"])


@pytest.mark.parametrize("name", sorted(f.name for f in EXAMPLES.glob("issue_comment.created.*.json")))
def test_real_issue_comment_on_a_plain_issue_is_ignored(sc, name):
    p = load(name)
    p.pop("installation", None)
    p["issue"].pop("pull_request", None)
    r = sc.deliver("issue_comment", p)
    assert r.status_code == 202 and r.json()["outcome"] == "ignored"
    assert sc.settle()["calls"] == []


@pytest.mark.parametrize("name", ["ping.1.json", "ping.4.json", "check_run.completed.1.json",
                                  "installation.created.1.json", "label.created.1.json"])
def test_other_real_events_are_acknowledged(sc, name):
    event = name.split(".")[0]
    r = sc.deliver(event, load(name))
    assert r.status_code in (200, 202)
    assert sc.settle()["calls"] == []


def _our_run(sc) -> dict:
    sc.deliver("pull_request", sc.payload("opened"))
    return next(r for r in sc.settle()["check_runs"] if r["name"] == "recipe-review")


@pytest.mark.parametrize("name", sorted(f.name for f in EXAMPLES.glob("check_run.rerequested.*.json")))
def test_real_check_run_rerequested_payload_rereviews_the_head(sc, name):
    run = _our_run(sc)
    sc.fake.reset_calls()
    p = copy.deepcopy(load(name))
    p["repository"]["full_name"] = demo.REPO
    p["check_run"].update(name="recipe-review", head_sha=run["head_sha"], id=run["id"])
    p["check_run"]["app"]["id"] = 1  # GitHub's example is another App's run; ours has the fake's id
    p["installation"] = {"id": 1}
    assert sc.deliver("check_run", p).json()["outcome"] == "queued"
    state = sc.settle()
    # The example names no PR (a fork's head): the bot finds it by the head SHA, then re-runs the review.
    assert any(c["path"].endswith(f"/commits/{run['head_sha']}/pulls") for c in state["calls"])
    assert [c["method"] for c in state["calls"] if c["path"].endswith(f"/check-runs/{run['id']}")] == ["PATCH", "PATCH"]


@pytest.mark.parametrize("name", sorted(f.name for f in EXAMPLES.glob("check_suite.rerequested.*.json")))
def test_real_check_suite_rerequested_payload_rereviews_its_prs(sc, name):
    run = _our_run(sc)
    sc.fake.reset_calls()
    p = copy.deepcopy(load(name))
    p["repository"]["full_name"] = demo.REPO
    suite = p["check_suite"]
    suite["head_sha"] = run["head_sha"]
    suite["app"]["id"] = 1
    for pr in suite["pull_requests"]:
        pr["number"] = demo.PR_NUMBER
        pr["head"]["sha"] = run["head_sha"]
        pr["base"]["sha"] = sc.payload("opened")["pull_request"]["base"]["sha"]
    p["installation"] = {"id": 1}
    assert sc.deliver("check_suite", p).json()["outcome"] == "queued"
    state = sc.settle()
    assert [c["method"] for c in state["calls"] if c["path"].endswith(f"/check-runs/{run['id']}")] == ["PATCH", "PATCH"]
