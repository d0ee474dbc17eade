"""Requests the fake refuses because GitHub's published API descriptions refuse them.

With `../shared/github/api/` present (always in CI) the whole suite runs every fake under GitHub's
GraphQL schema and REST OpenAPI description (tests/conftest.py); these tests pin what that means.
Without the descriptions they skip (and fail under RECIPE_REVIEW_REQUIRE_SHARED=1, in conftest).
"""
from __future__ import annotations

import pytest

from fakegithub import contract

REPO = "octo/bench"


@pytest.fixture(autouse=True)
def _needs_descriptions():
    if contract.default() is None:
        pytest.skip("GitHub's API descriptions are not present (../shared/github/api)")


def test_the_contract_is_in_force_for_every_fake(scene):
    assert scene.fake.contract is contract.default()
    assert scene.fake.contract.has_graphql and scene.fake.contract.has_rest


@pytest.mark.parametrize("body,fragment", [
    ({"name": "rr", "head_sha": "HEAD", "status": "completed", "conclusion": "passed",
      "output": {"title": "t", "summary": "s"}}, "For 'conclusion', 'passed' is not one of"),
    ({"head_sha": "HEAD", "conclusion": "success"}, "'name' is a required property"),
    ({"name": "rr", "head_sha": "HEAD", "output": {"title": "t"}}, "'summary' is a required property"),
    ({"name": 7, "head_sha": "HEAD"}, "For 'name', 7 is not of type 'string'"),
    ({"name": "rr", "head_sha": "HEAD", "status": "done"}, "For 'status', 'done' is not one of"),
], ids=["unknown-conclusion", "missing-name", "missing-summary", "wrong-type", "unknown-status"])
def test_check_run_bodies_github_rejects(scene, http, body, fragment):
    body = {**body, "head_sha": scene.head_sha}
    r = http.post(f"{scene.fake.url}/repos/{REPO}/check-runs", json=body)
    assert r.status_code == 422, r.text
    out = r.json()
    assert out["message"].startswith("Invalid request.\n\n") and fragment in out["message"]
    assert out["documentation_url"].startswith("https://docs.github.com/rest/")
    assert scene.fake.state()["check_runs"] == []  # refused before anything was written


@pytest.mark.parametrize("path,body,fragment", [
    ("pulls/1/reviews", {"event": "COMMENT", "body": "b", "comments": [{"path": "config.yaml", "line": "5",
                                                                         "body": "x"}]},
     "For 'comments/0/line', '5' is not of type 'integer'"),
    ("pulls/1/reviews", {"event": "COMMENTED", "body": "b"}, "For 'event', 'COMMENTED' is not one of"),
    ("issues/1/comments", {}, "'body' is a required property"),
    ("issues/1/labels", {"labels": []}, "is not valid under any of the given schemas"),
], ids=["line-as-string", "unknown-event", "comment-without-body", "no-labels"])
def test_other_bodies_github_rejects(scene, http, path, body, fragment):
    r = http.post(f"{scene.fake.url}/repos/{REPO}/{path}", json=body)
    assert r.status_code == 422 and fragment in r.json()["message"], r.text


def test_bodies_github_accepts_pass_through(scene, http):
    r = http.post(f"{scene.fake.url}/repos/{REPO}/check-runs", json={
        "name": "rr", "head_sha": scene.head_sha, "status": "in_progress", "output": {"title": "t", "summary": "s"}})
    assert r.status_code == 201 and r.json()["status"] == "in_progress"
    # The labels endpoint documents a bare array as equivalent to {"labels": [...]} (PyGithub sends it).
    assert http.post(f"{scene.fake.url}/repos/{REPO}/issues/1/labels", json=["a"]).status_code == 200


def test_graphql_documents_are_checked_against_githubs_schema(scene, http):
    def errors(query, variables=None):
        return http.post(f"{scene.fake.url}/graphql", json={"query": query, "variables": variables}).json()["errors"]

    # A field GitHub has but the fake's subset lacks is not the contract's business; a field neither has is.
    assert errors('query { repository(owner: "octo", name: "bench") { nope } }')[0]["message"] == \
        "Field 'nope' doesn't exist on type 'Repository'"
    # Variables must coerce to the types GitHub declares.
    bad = errors("query($n: Int!) { repository(owner: \"octo\", name: \"bench\") { pullRequest(number: $n) "
                 "{ number } } }", {"n": "seven"})
    assert "Int cannot represent non-integer value" in bad[0]["message"]
    # A deprecated field (GitHub removes it on a published date) is refused now.
    dep = errors('query { repository(owner: "octo", name: "bench") { pullRequest(number: 1) { '
                 'reviewThreads(first: 1) { nodes { comments(first: 1) { nodes { databaseId } } } } } } }')
    assert dep[0]["extensions"] == {"code": "deprecatedField"}
