"""CONTRACT: every REST response body the bot may read validates against GitHub's published
schemas (the pydantic models of `githubkit_schemas.latest.models`, generated from GitHub's
OpenAPI description). A missing required field or a wrong type fails here."""
from __future__ import annotations

import pytest
from githubkit_schemas.latest import models as gh
from pydantic import ValidationError

REPO = "octo/bench"


@pytest.fixture(scope="module")
def busy(tmp_path_factory, private_key_pem):
    """One scene for the module with one of everything written: (api url, session, ids, scene).
    The cases only add state, so sharing it keeps ~40 validations to one setup."""
    import requests

    from fakegithub import FakeGitHub
    from tests.conftest import GitRepo
    from tests.fakegithub.conftest import BASE_CONFIG, HEAD_CONFIG, Scene

    git_repo = GitRepo(tmp_path_factory.mktemp("contract") / "repo")
    base = git_repo.commit({"config.yaml": BASE_CONFIG, "old.txt": "one\ntwo\n"}, "base configs")
    head = git_repo.commit({"config.yaml": HEAD_CONFIG, "new.yaml": "a: 1\n", "old.txt": None}, "tune",
                           branch="feature")
    fake = FakeGitHub(git_repo.path, collaborators={"alice": "admin"})
    fake.add_pr(1, base="main", head="feature", author="dana")
    fake.start()
    scene = Scene(fake, git_repo, base, head)
    http = requests.Session()
    http.headers["Authorization"] = "token x"
    url = f"{fake.url}/repos/{REPO}"
    ids = {}
    review = http.post(f"{url}/pulls/1/reviews", json={
        "body": "summary", "event": "COMMENT",
        "comments": [{"path": "config.yaml", "line": 5, "body": "inline"},
                     {"path": "config.yaml", "start_line": 38, "line": 41, "body": "range"}]})
    ids["review"] = review.json()["id"]
    ids["review_comment"] = http.get(f"{url}/pulls/1/comments").json()[0]["id"]
    ids["issue_comment"] = http.post(f"{url}/issues/1/comments", json={"body": "hello"}).json()["id"]
    ids["check_run"] = http.post(f"{url}/check-runs", json={
        "name": "recipe-review", "head_sha": scene.head_sha, "status": "completed", "conclusion": "failure",
        "output": {"title": "t", "summary": "s", "annotations": [
            {"path": "config.yaml", "start_line": 5, "end_line": 5, "annotation_level": "failure",
             "message": "m"}]}}).json()["id"]
    http.post(f"{url}/issues/1/labels", json={"labels": ["sweep-enabled"]})
    http.post(f"{url}/issues/comments/{ids['issue_comment']}/reactions", json={"content": "heart"})
    http.post(f"{fake.url}/_fake/workflow-runs", json={"id": 77, "head_sha": scene.head_sha,
                                                      "status": "completed", "conclusion": "success"})
    try:
        yield url, http, ids, scene
    finally:
        http.close()
        fake.stop()


@pytest.fixture(scope="module")
def private_key_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def _one(model, body):
    return model.model_validate(body)


def _many(model, body):
    assert isinstance(body, list) and body, "expected a non-empty list"
    return [model.model_validate(item) for item in body]


# (id, method, path under /repos/octo/bench (or absolute when starting with "/"), body, model, list?)
CASES = [
    ("repository", "GET", "", None, gh.FullRepository, False),
    ("pull", "GET", "/pulls/1", None, gh.PullRequest, False),
    ("pull-files", "GET", "/pulls/1/files", None, gh.DiffEntry, True),
    ("pull-commits", "GET", "/pulls/1/commits", None, gh.Commit, True),
    ("compare", "GET", "/compare/main...feature", None, gh.CommitComparison, False),
    ("commit", "GET", "/commits/feature", None, gh.Commit, False),
    ("content-file", "GET", "/contents/config.yaml?ref=feature", None, gh.ContentFile, False),
    ("content-dir", "GET", "/contents/?ref=feature", None, gh.ContentDirectoryItems, True),
    ("issue", "GET", "/issues/1", None, gh.Issue, False),
    ("issue-comments", "GET", "/issues/1/comments", None, gh.IssueComment, True),
    ("issue-comment", "GET", "/issues/comments/{issue_comment}", None, gh.IssueComment, False),
    ("issue-comment-edit", "PATCH", "/issues/comments/{issue_comment}", {"body": "edited"}, gh.IssueComment, False),
    ("issue-comment-create", "POST", "/issues/1/comments", {"body": "another"}, gh.IssueComment, False),
    ("reviews", "GET", "/pulls/1/reviews", None, gh.PullRequestReview, True),
    ("review", "GET", "/pulls/1/reviews/{review}", None, gh.PullRequestReview, False),
    ("review-create", "POST", "/pulls/1/reviews", {"body": "again", "event": "COMMENT"}, gh.PullRequestReview,
     False),
    ("review-comments", "GET", "/pulls/1/comments", None, gh.PullRequestReviewComment, True),
    ("review-comments-of-review", "GET", "/pulls/1/reviews/{review}/comments", None, gh.ReviewComment, True),
    ("review-comment", "GET", "/pulls/comments/{review_comment}", None, gh.PullRequestReviewComment, False),
    ("review-reply", "POST", "/pulls/1/comments/{review_comment}/replies", {"body": "reply"},
     gh.PullRequestReviewComment, False),
    ("check-run-create", "POST", "/check-runs", {"name": "x", "head_sha": "{head}", "status": "queued"},
     gh.CheckRun, False),
    ("check-run", "GET", "/check-runs/{check_run}", None, gh.CheckRun, False),
    ("check-run-update", "PATCH", "/check-runs/{check_run}", {"conclusion": "success",
                                                             "output": {"title": "t", "summary": "s"}},
     gh.CheckRun, False),
    ("check-runs-for-ref", "GET", "/commits/{head}/check-runs", None,
     gh.ReposOwnerRepoCommitsRefCheckRunsGetResponse200, False),
    ("labels", "GET", "/issues/1/labels", None, gh.Label, True),
    ("labels-add", "POST", "/issues/1/labels", {"labels": ["full-sweep"]}, gh.Label, True),
    ("labels-set", "PUT", "/issues/1/labels", {"labels": ["a"]}, gh.Label, True),
    ("reaction-issue-comment", "POST", "/issues/comments/{issue_comment}/reactions", {"content": "eyes"},
     gh.Reaction, False),
    ("reaction-review-comment", "POST", "/pulls/comments/{review_comment}/reactions", {"content": "+1"},
     gh.Reaction, False),
    ("reactions-list", "GET", "/issues/comments/{issue_comment}/reactions", None, gh.Reaction, True),
    ("permission", "GET", "/collaborators/alice/permission", None, gh.RepositoryCollaboratorPermission, False),
    ("permission-anyone", "GET", "/collaborators/zed/permission", None, gh.RepositoryCollaboratorPermission,
     False),
    ("workflow-runs", "GET", "/actions/runs?head_sha={head}", None, gh.ReposOwnerRepoActionsRunsGetResponse200,
     False),
    ("workflow-run", "GET", "/actions/runs/77", None, gh.WorkflowRun, False),
    ("rate-limit", "GET", "/rate_limit", None, gh.RateLimitOverview, False),
]


@pytest.mark.parametrize("method,path,body,model,many", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rest_response_matches_githubs_schema(busy, method, path, body, model, many):
    url, http, ids, scene = busy
    subst = {**ids, "head": scene.head_sha}
    path = path.format(**subst)
    if body is not None:
        body = {k: (v.format(**subst) if isinstance(v, str) else v) for k, v in body.items()}
    full = f"{scene.fake.url}{path}" if path.startswith("/rate_limit") else f"{url}{path}"
    r = http.request(method, full, json=body)
    assert r.status_code in (200, 201), r.text
    (_many if many else _one)(model, r.json())


def test_blob_matches_githubs_schema(busy):
    url, http, ids, scene = busy
    sha = scene.repo.git("rev-parse", "feature:config.yaml")
    gh.Blob.model_validate(http.get(f"{url}/git/blobs/{sha}").json())


def test_app_endpoints_match_githubs_schema(busy, private_key_pem):
    import time

    import jwt

    url, http, ids, scene = busy
    now = int(time.time())
    token = jwt.encode({"iat": now - 60, "exp": now + 300, "iss": "1"}, private_key_pem, algorithm="RS256")
    auth = {"Authorization": f"Bearer {token}"}
    gh.Integration.model_validate(http.get(f"{scene.fake.url}/app", headers=auth).json())
    gh.Installation.model_validate(http.get(f"{url}/installation", headers=auth).json())
    r = http.post(f"{scene.fake.url}/app/installations/1/access_tokens", headers=auth)
    assert r.status_code == 201
    gh.InstallationToken.model_validate(r.json())


def test_large_content_file_matches_githubs_schema(busy):
    url, http, ids, scene = busy
    scene.repo.commit({"big.bin": b"\x01" * (1024 * 1024 + 1)}, "big", branch="feature")
    body = http.get(f"{url}/contents/big.bin?ref=feature").json()
    assert (body["encoding"], body["content"]) == ("none", "")
    gh.ContentFile.model_validate(body)


def test_the_contract_check_has_teeth(busy):
    """Dropping a required field, or a wrong type, must fail validation."""
    url, http, ids, scene = busy
    pr = http.get(f"{url}/pulls/1").json()
    gh.PullRequest.model_validate(pr)
    with pytest.raises(ValidationError):
        gh.PullRequest.model_validate({k: v for k, v in pr.items() if k != "head"})
    with pytest.raises(ValidationError):
        gh.PullRequest.model_validate({**pr, "number": "one"})
    comment = http.get(f"{url}/pulls/comments/{ids['review_comment']}").json()
    with pytest.raises(ValidationError):
        gh.PullRequestReviewComment.model_validate({k: v for k, v in comment.items() if k != "diff_hunk"})
