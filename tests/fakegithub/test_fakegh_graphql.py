"""The fake GitHub's GraphQL endpoint, through PyGithub's `requester.graphql_query`."""
from __future__ import annotations

import pytest
from github import GithubException, UnknownObjectException

from fakegithub.graphql_api import BLOB_TEXT_LIMIT

REPO = "octo/bench"
VARS = {"owner": "octo", "name": "bench"}


def q(gh, query: str, variables: dict | None = None) -> dict:
    _, data = gh.requester.graphql_query(query, {**VARS, **(variables or {})})
    return data


def test_blobs_and_tree_by_alias_in_one_query(scene, git_repo, github_client):
    git_repo.commit({"dir/one.yaml": "one: 1\n", "dir/two.bin": b"\x00\x01", "dir/sub/three.yaml": "t: 3\n"},
                    "dir", branch="feature")
    data = q(github_client, """
      query($owner: String!, $name: String!, $b0: String!, $b1: String!, $b2: String!) {
        repository(owner: $owner, name: $name) {
          b0: object(expression: $b0) { ... on Blob { oid byteSize isBinary isTruncated text } }
          b1: object(expression: $b1) { ... on Blob { oid byteSize isBinary isTruncated text } }
          b2: object(expression: $b2) { ... on Blob { text } }
          t0: object(expression: "feature:dir") { ... on Tree { entries { name path type
                object { ... on Blob { byteSize isBinary text } } } } }
        }
      }""", {"b0": "main:config.yaml", "b1": "feature:dir/two.bin", "b2": "feature:no/such/file"})
    r = data["data"]["repository"]
    assert r["b0"]["text"] == scene.repo.git("show", "main:config.yaml") + "\n"
    assert r["b0"]["isBinary"] is False and r["b0"]["isTruncated"] is False
    assert r["b0"]["oid"] == scene.repo.git("rev-parse", "main:config.yaml")
    assert (r["b1"]["isBinary"], r["b1"]["text"], r["b1"]["byteSize"]) == (True, None, 2)
    assert r["b2"] is None  # a missing path is null, not an error
    entries = {e["path"]: e for e in r["t0"]["entries"]}
    assert set(entries) == {"dir/one.yaml", "dir/two.bin", "dir/sub"}
    assert entries["dir/sub"]["type"] == "tree" and entries["dir/one.yaml"]["object"]["text"] == "one: 1\n"
    assert "errors" not in data


@pytest.mark.parametrize("size,truncated", [(BLOB_TEXT_LIMIT, False), (BLOB_TEXT_LIMIT + 1, True)],
                         ids=["at-limit", "one-byte-over"])
def test_large_blob_text_is_truncated(git_repo, fake_github, github_client, size, truncated):
    git_repo.commit({"big.txt": b"a" * size}, "big")
    r = q(github_client, """query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
        object(expression: "main:big.txt") { ... on Blob { byteSize isTruncated text } } } }""")
    blob = r["data"]["repository"]["object"]
    assert blob["byteSize"] == size and blob["isTruncated"] is truncated
    assert len(blob["text"]) == BLOB_TEXT_LIMIT


def test_truncation_never_splits_a_utf8_character(git_repo, fake_github, github_client):
    git_repo.commit({"v.txt": "a" + "é" * (BLOB_TEXT_LIMIT // 2 + 10)}, "multibyte")
    r = q(github_client, """query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
        object(expression: "main:v.txt") { ... on Blob { isTruncated text } } } }""")
    text = r["data"]["repository"]["object"]["text"]
    assert r["data"]["repository"]["object"]["isTruncated"] is True
    assert "\ufffd" not in text and len(text.encode()) <= BLOB_TEXT_LIMIT


def test_pull_request_comments_and_review_threads(scene, github_client, http):
    pr = github_client.get_repo(REPO).get_pull(1)
    pr.create_issue_comment("bot says")
    http.post(f"{scene.fake.url}/_fake/comments", json={"kind": "issue", "number": 1, "user": "alice",
                                                         "body": "human says"})
    pr.create_review(body="", event="COMMENT", comments=[{"path": "config.yaml", "line": 5, "body": "t1"},
                                                         {"path": "new.yaml", "line": 2, "body": "t2"}])
    root = next(c for c in pr.get_review_comments() if c.body == "t1")
    pr.create_review_comment_reply(root.id, "t1 reply")
    data = q(github_client, """query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
        pullRequest(number: 1) { number state isDraft title headRefOid baseRefOid baseRefName headRefName
          author { login } labels(first: 10) { nodes { name } }
          comments(first: 10) { nodes { id databaseId body author { login } createdAt }
                                pageInfo { hasNextPage endCursor } }
          reviewThreads(first: 10) { nodes { id isResolved path line
              comments(first: 10) { nodes { id fullDatabaseId body author { login } path } } }
            pageInfo { hasNextPage endCursor } } } } }""")
    p = data["data"]["repository"]["pullRequest"]
    assert (p["state"], p["headRefOid"], p["baseRefOid"], p["author"]["login"]) == (
        "OPEN", scene.head_sha, scene.base_sha, "dana")
    assert [(c["body"], c["author"]["login"]) for c in p["comments"]["nodes"]] == [
        ("bot says", "recipe-review"), ("human says", "alice")]  # GraphQL: a Bot's login has no [bot]
    threads = p["reviewThreads"]["nodes"]
    assert [(t["path"], t["line"], [c["body"] for c in t["comments"]["nodes"]]) for t in threads] == [
        ("config.yaml", 5, ["t1", "t1 reply"]), ("new.yaml", 2, ["t2"])]
    assert threads[0]["comments"]["nodes"][0]["fullDatabaseId"] == str(root.id)  # a BigInt: a string
    rest_ids = {c["id"] for c in scene.fake.state()["issue_comments"]}
    assert {c["databaseId"] for c in p["comments"]["nodes"]} == rest_ids


def test_resolve_review_thread(scene, github_client):
    pr = github_client.get_repo(REPO).get_pull(1)
    pr.create_review(body="", event="COMMENT", comments=[{"path": "config.yaml", "line": 5, "body": "t1"}])
    threads = q(github_client, """query($owner: String!, $name: String!) { repository(owner: $owner, name: $name)
        { pullRequest(number: 1) { reviewThreads(first: 5) { nodes { id isResolved } } } } }""")
    tid = threads["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"][0]["id"]
    _, out = github_client.requester.graphql_query(
        "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } } }",
        {"id": tid})
    assert out["data"]["resolveReviewThread"]["thread"] == {"id": tid, "isResolved": True}
    assert scene.fake.state()["review_threads"][0]["is_resolved"] is True
    with pytest.raises(UnknownObjectException):
        github_client.requester.graphql_query(
            "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id } } }", {"id": "PRRT_x"})


def test_connections_page_with_cursors(scene, github_client):
    pr = github_client.get_repo(REPO).get_pull(1)
    for i in range(5):
        pr.create_issue_comment(f"c{i}")
    query = """query($owner: String!, $name: String!, $after: String) { repository(owner: $owner, name: $name) {
        pullRequest(number: 1) { comments(first: 2, after: $after) { totalCount nodes { body }
          pageInfo { hasNextPage endCursor } } } } }"""
    seen, after = [], None
    while True:
        page = q(github_client, query, {"after": after})["data"]["repository"]["pullRequest"]["comments"]
        seen += [n["body"] for n in page["nodes"]]
        assert page["totalCount"] == 5
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [f"c{i}" for i in range(5)]


@pytest.mark.parametrize("args,kind", [
    ("", "MISSING_PAGINATION_BOUNDARIES"), ("first: 101", "EXCESSIVE_PAGINATION"),
    ("last: 101", "EXCESSIVE_PAGINATION"), ('first: 1, after: "bogus"', "INVALID_CURSOR_ARGUMENTS"),
], ids=["no-first-or-last", "first-over-100", "last-over-100", "bad-cursor"])
def test_connection_rules(scene, http, args, kind):
    query = ("query { repository(owner: \"octo\", name: \"bench\") { pullRequest(number: 1) { comments%s "
             "{ nodes { body } } } } }" % (f"({args})" if args else ""))
    r = http.post(f"{scene.fake.url}/graphql", json={"query": query})
    assert r.status_code == 200
    err = r.json()["errors"][0]
    assert err["type"] == kind and err["path"] == ["repository", "pullRequest", "comments"]
    assert "locations" in err and err["message"]


def test_first_100_is_allowed(scene, http):
    r = http.post(f"{scene.fake.url}/graphql", json={"query": 'query { repository(owner: "octo", name: "bench") '
                                                              '{ pullRequest(number: 1) { comments(first: 100) '
                                                              '{ totalCount } } } }'})
    assert "errors" not in r.json()


def test_not_found_errors_in_github_format(scene, github_client, http):
    with pytest.raises(UnknownObjectException):
        q(github_client, """query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
            pullRequest(number: 99) { number } } }""")
    r = http.post(f"{scene.fake.url}/graphql", json={"query": 'query { repository(owner: "nobody", name: "x") '
                                                              '{ name } }'})
    body = r.json()
    assert body["data"] == {"repository": None}
    assert body["errors"][0]["type"] == "NOT_FOUND" and body["errors"][0]["path"] == ["repository"]
    assert body["errors"][0]["message"] == "Could not resolve to a Repository with the name 'nobody/x'."


def test_unknown_field_is_a_validation_error(scene, github_client, http):
    r = http.post(f"{scene.fake.url}/graphql", json={"query": 'query { repository(owner: "octo", name: "bench") '
                                                              '{ nope } }'})
    body = r.json()
    assert r.status_code == 200 and "data" not in body
    assert body["errors"][0]["message"] == "Field 'nope' doesn't exist on type 'Repository'"
    with pytest.raises(GithubException) as err:
        q(github_client, "query { repository(owner: \"octo\", name: \"bench\") { nope } }")
    assert err.value.status == 400


def test_check_runs_on_a_commit_by_oid(scene, github_client):
    repo = github_client.get_repo(REPO)
    repo.create_check_run(name="recipe-review", head_sha=scene.head_sha, conclusion="failure",
                          output={"title": "1 blocking", "summary": "see review"})
    repo.create_check_run(name="ci", head_sha=scene.head_sha, status="in_progress")
    data = q(github_client, """
      query($owner: String!, $name: String!, $check: String!, $head: GitObjectID!) {
        repository(owner: $owner, name: $name) {
          checks: object(oid: $head) { ... on Commit { checkSuites(first: 20) { nodes {
            checkRuns(first: 20, filterBy: {checkName: $check}) {
              nodes { databaseId name status conclusion title summary } } } } } } } }""",
             {"check": "recipe-review", "head": scene.head_sha})
    suites = data["data"]["repository"]["checks"]["checkSuites"]["nodes"]
    runs = [r for s in suites for r in s["checkRuns"]["nodes"]]
    assert [(r["name"], r["status"], r["conclusion"], r["title"]) for r in runs] == [
        ("recipe-review", "COMPLETED", "FAILURE", "1 blocking")]


def test_graphql_has_its_own_rate_limit_resource(scene, http):
    r = http.post(f"{scene.fake.url}/graphql", json={"query": "query { rateLimit { limit remaining cost } }"})
    assert r.headers["x-ratelimit-resource"] == "graphql"
    assert r.json()["data"]["rateLimit"]["limit"] == 5000


def test_graphql_rejects_bad_json(scene, http):
    r = http.post(f"{scene.fake.url}/graphql", data=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["message"] == "Problems parsing JSON"


def test_deprecated_review_comment_database_id_is_refused_under_githubs_schema(scene, http):
    """`PullRequestReviewComment.databaseId` is deprecated for removal; under GitHub's published schema
    the fake refuses it now (GitHub will on the removal date). Without the schema it still answers."""
    from fakegithub import contract

    query = ('query { repository(owner: "octo", name: "bench") { pullRequest(number: 1) { '
             'reviewThreads(first: 5) { nodes { comments(first: 5) { nodes { databaseId } } } } } } }')
    body = http.post(f"{scene.fake.url}/graphql", json={"query": query}).json()
    if contract.default() is None:
        assert "errors" not in body
        pytest.skip("GitHub's API descriptions are not present (../shared)")
    assert "data" not in body and body["errors"][0]["extensions"]["code"] == "deprecatedField"
    assert "PullRequestReviewComment.databaseId is deprecated" in body["errors"][0]["message"]
