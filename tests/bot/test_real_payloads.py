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
