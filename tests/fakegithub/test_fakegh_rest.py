"""The fake GitHub's REST endpoints, driven with PyGithub over real HTTP."""
from __future__ import annotations

import contextlib

import pytest
from github import GithubException

REPO = "octo/bench"


def test_get_pull_reads_like_github(scene, github_client):
    pr = github_client.get_repo(REPO).get_pull(1)
    assert (pr.number, pr.title, pr.state, pr.draft, pr.user.login) == (1, "Tune keys", "open", False, "dana")
    assert pr.head.sha == scene.head_sha and pr.head.ref == "feature"
    assert pr.base.ref == "main" and pr.base.sha == scene.base_sha
    assert (pr.changed_files, pr.additions, pr.deletions, pr.commits) == (3, 5, 4, 1)
    assert pr.url == f"{scene.fake.url}/repos/{REPO}/pulls/1"


def test_unknown_pull_and_unknown_route_are_github_404s(scene, github_client, http):
    with pytest.raises(GithubException) as err:
        github_client.get_repo(REPO).get_pull(99)
    assert err.value.status == 404
    r = http.get(f"{scene.fake.url}/repos/{REPO}/no-such-thing")
    assert r.status_code == 404
    assert r.json()["message"] == "Not Found" and "documentation_url" in r.json()
    assert http.get(f"{scene.fake.url}/repos/other/repo/pulls/1").status_code == 404


def test_files_have_github_patch_and_status(scene, github_client):
    files = {f.filename: f for f in github_client.get_repo(REPO).get_pull(1).get_files()}
    assert {k: f.status for k, f in files.items()} == {"config.yaml": "modified", "new.yaml": "added",
                                                       "old.txt": "removed"}
    cfg = files["config.yaml"]
    assert cfg.patch.startswith("@@ -2,7 +2,7 @@") and "\n@@ -37,7 +37,7 @@" in cfg.patch
    assert (cfg.additions, cfg.deletions, cfg.changes) == (2, 2, 4)
    assert files["new.yaml"].patch == "@@ -0,0 +1,3 @@\n+a: 1\n+b: 2\n+c: 3"
    assert cfg.raw_url.endswith(f"/raw/{scene.head_sha}/config.yaml")


def test_files_paginate_past_thirty_with_link_header(fake_github, git_repo, github_client, http):
    git_repo.commit({f"recipes/r{i:02d}.yaml": f"n: {i}\n" for i in range(45)}, "many", branch="wide")
    fake_github.add_pr(2, "main", "wide")
    files = list(github_client.get_repo(REPO).get_pull(2).get_files())
    assert len(files) == 45 and len({f.filename for f in files}) == 45
    r = http.get(f"{fake_github.url}/repos/{REPO}/pulls/2/files")
    assert len(r.json()) == 30
    assert r.headers["Link"] == (f'<{fake_github.url}/repos/{REPO}/pulls/2/files?page=2>; rel="next", '
                                 f'<{fake_github.url}/repos/{REPO}/pulls/2/files?page=2>; rel="last"')
    r2 = http.get(f"{fake_github.url}/repos/{REPO}/pulls/2/files", params={"per_page": 20, "page": 2})
    assert len(r2.json()) == 20
    assert r2.headers["Link"] == ", ".join([
        f'<{fake_github.url}/repos/{REPO}/pulls/2/files?per_page=20&page=1>; rel="prev"',
        f'<{fake_github.url}/repos/{REPO}/pulls/2/files?per_page=20&page=3>; rel="next"',
        f'<{fake_github.url}/repos/{REPO}/pulls/2/files?per_page=20&page=3>; rel="last"',
        f'<{fake_github.url}/repos/{REPO}/pulls/2/files?per_page=20&page=1>; rel="first"'])


def test_rename_and_binary_files(fake_github, git_repo, github_client):
    body = "".join(f"line {i}\n" for i in range(30))
    git_repo.commit({"a/conf.yaml": body, "img.bin": b"\x00\x01\x02"}, "base")
    git_repo.commit({"a/conf.yaml": None, "b/conf.yaml": body.replace("line 3\n", "line three\n"),
                     "img.bin": b"\x00\x09\x09"}, "move", branch="mv")
    fake_github.add_pr(3, "main", "mv")
    files = {f.filename: f for f in github_client.get_repo(REPO).get_pull(3).get_files()}
    assert files["b/conf.yaml"].status == "renamed"
    assert files["b/conf.yaml"].previous_filename == "a/conf.yaml"
    assert "+line three" in files["b/conf.yaml"].patch
    assert files["img.bin"].status == "modified" and files["img.bin"].patch is None


@pytest.mark.parametrize("lines,has_patch", [(19_999, True), (20_001, False)],
                         ids=["just-under-20000-lines", "over-20000-lines"])
def test_patch_is_omitted_for_very_large_diffs(fake_github, git_repo, github_client, lines, has_patch):
    git_repo.commit({"huge.txt": "".join(f"{i}\n" for i in range(lines))}, "huge", branch="huge")
    fake_github.add_pr(9, "main", "huge")
    (f,) = list(github_client.get_repo(REPO).get_pull(9).get_files())
    assert (f.patch is not None) is has_patch and f.additions == lines
    with pytest.raises(GithubException) if not has_patch else contextlib.nullcontext():
        github_client.get_repo(REPO).get_pull(9).create_review(
            body="", event="COMMENT", comments=[{"path": "huge.txt", "line": 1, "body": "x"}])


def test_diff_is_against_the_merge_base(fake_github, git_repo, github_client):
    git_repo.commit({"x.yaml": "x: 1\n"}, "feature work", branch="topic")
    git_repo.commit({"main-only.yaml": "m: 1\n"}, "main moves on", branch="main")
    fake_github.add_pr(4, "main", "topic")
    assert [f.filename for f in github_client.get_repo(REPO).get_pull(4).get_files()] == ["x.yaml"]
    cmp = github_client.get_repo(REPO).compare("main", "topic")
    assert (cmp.status, cmp.ahead_by, cmp.behind_by) == ("diverged", 1, 1)
    assert [f.filename for f in cmp.files] == ["x.yaml"]


def test_compare_reports_merge_base_files_and_commits(scene, github_client):
    cmp = github_client.get_repo(REPO).compare("main", scene.head_sha)
    assert cmp.merge_base_commit.sha == scene.base_sha
    assert (cmp.status, cmp.ahead_by, cmp.behind_by, cmp.total_commits) == ("ahead", 1, 0, 1)
    assert [c.sha for c in cmp.commits] == [scene.head_sha]
    assert sorted(f.filename for f in cmp.files) == ["config.yaml", "new.yaml", "old.txt"]


def test_contents_small_large_and_raw(scene, git_repo, github_client, http):
    repo = github_client.get_repo(REPO)
    small = repo.get_contents("config.yaml", ref="feature")
    assert small.encoding == "base64" and small.decoded_content == scene.repo.path.joinpath(
        "config.yaml").read_bytes()
    big_bytes = b"x" * (1024 * 1024 + 10)
    git_repo.commit({"big.txt": big_bytes}, "big file", branch="feature")
    big = repo.get_contents("big.txt", ref="feature")
    assert (big.encoding, big.content, big.size) == ("none", "", len(big_bytes))
    raw = http.get(f"{scene.fake.url}/repos/{REPO}/contents/big.txt", params={"ref": "feature"},
                   headers={"Accept": "application/vnd.github.raw"})
    assert raw.status_code == 200 and raw.content == big_bytes
    listing = repo.get_contents("", ref="main")
    assert sorted(c.path for c in listing) == ["README.md", "config.yaml", "old.txt"]
    with pytest.raises(GithubException) as err:
        repo.get_contents("missing.yaml", ref="main")
    assert err.value.status == 404


def test_git_blob_returns_exact_bytes(scene, http):
    sha = scene.repo.git("rev-parse", "feature:config.yaml")
    r = http.get(f"{scene.fake.url}/repos/{REPO}/git/blobs/{sha}")
    import base64

    assert base64.b64decode(r.json()["content"]) == scene.repo.path.joinpath("config.yaml").read_bytes()
    assert r.json()["encoding"] == "base64" and r.json()["size"] == len(base64.b64decode(r.json()["content"]))


# -- reviews ------------------------------------------------------------------------------------
REVIEW_CASES = [
    ("added-line", {"path": "config.yaml", "line": 5}, None),
    ("context-line-first-in-hunk", {"path": "config.yaml", "line": 2}, None),
    ("context-line-last-in-hunk", {"path": "config.yaml", "line": 8}, None),
    ("just-below-the-hunk", {"path": "config.yaml", "line": 9}, "line must be part of the diff"),
    ("just-above-the-hunk", {"path": "config.yaml", "line": 1}, "line must be part of the diff"),
    ("between-hunks", {"path": "config.yaml", "line": 20}, "line must be part of the diff"),
    ("left-deleted-line", {"path": "config.yaml", "line": 40, "side": "LEFT"}, None),
    ("left-outside-hunks", {"path": "config.yaml", "line": 20, "side": "LEFT"}, "line must be part of the diff"),
    ("range-in-one-hunk", {"path": "config.yaml", "start_line": 3, "line": 6}, None),
    ("range-across-hunks", {"path": "config.yaml", "start_line": 5, "line": 40}, "same hunk as the line"),
    ("range-start-outside", {"path": "config.yaml", "start_line": 1, "line": 5}, "start line must be part"),
    ("range-reversed", {"path": "config.yaml", "start_line": 6, "line": 3}, "must precede"),
    ("range-left-to-right", {"path": "config.yaml", "start_line": 5, "start_side": "LEFT", "line": 6}, None),
    ("path-not-in-diff", {"path": "README.md", "line": 1}, "Path could not be resolved"),
    ("new-file-last-line", {"path": "new.yaml", "line": 3}, None),
    ("new-file-past-end", {"path": "new.yaml", "line": 4}, "line must be part of the diff"),
    ("removed-file-left", {"path": "old.txt", "line": 1, "side": "LEFT"}, None),
    ("removed-file-right", {"path": "old.txt", "line": 1}, "line must be part of the diff"),
    ("legacy-position", {"path": "config.yaml", "position": 4}, None),
    ("no-line-at-all", {"path": "config.yaml"}, "line must be part of the diff"),
]


@pytest.mark.parametrize("comment,problem", [c[1:] for c in REVIEW_CASES], ids=[c[0] for c in REVIEW_CASES])
def test_review_comment_placement(scene, github_client, comment, problem):
    pr = github_client.get_repo(REPO).get_pull(1)
    comments = [{"path": "config.yaml", "line": 5, "body": "fine"}, {**comment, "body": "the case"}]
    if problem is None:
        review = pr.create_review(body="summary", event="COMMENT", comments=comments)
        assert review.state == "COMMENTED"
        posted = scene.fake.state()["review_comments"]
        assert len(posted) == 2 and posted[1]["body"] == "the case"
        assert all(c["pull_request_review_id"] == review.id for c in posted)
        return
    with pytest.raises(GithubException) as err:
        pr.create_review(body="summary", event="COMMENT", comments=comments)
    assert err.value.status == 422
    assert err.value.data["message"] == "Unprocessable Entity"
    assert problem in err.value.data["errors"][0]
    state = scene.fake.state()
    assert state["reviews"] == [] and state["review_comments"] == []  # the whole review is rejected


def test_review_placement_records_github_fields(scene, github_client):
    pr = github_client.get_repo(REPO).get_pull(1)
    pr.create_review(body="", event="COMMENT",
                     comments=[{"path": "config.yaml", "start_line": 3, "line": 6, "side": "RIGHT", "body": "r"}])
    c = scene.fake.state()["review_comments"][0]
    assert (c["path"], c["start_line"], c["line"], c["side"], c["start_side"]) == ("config.yaml", 3, 6, "RIGHT",
                                                                                    "RIGHT")
    assert c["commit_id"] == scene.head_sha and c["in_reply_to_id"] is None
    assert c["diff_hunk"].startswith("@@ -2,7 +2,7 @@") and c["diff_hunk"].endswith("+key5: 500\n key6: 6")
    assert c["user"]["login"] == "recipe-review[bot]" and c["user"]["type"] == "Bot"


@pytest.mark.parametrize("where,size,ok", [
    ("review-body", 65_536, True), ("review-body", 65_537, False),
    ("comment-body", 65_536, True), ("comment-body", 65_537, False),
], ids=["review-body-at-limit", "review-body-over", "comment-body-at-limit", "comment-body-over"])
def test_review_body_limits(scene, github_client, where, size, ok):
    pr = github_client.get_repo(REPO).get_pull(1)
    text = "x" * size
    kwargs = {"body": text if where == "review-body" else "s", "event": "COMMENT",
              "comments": [{"path": "config.yaml", "line": 5, "body": text if where == "comment-body" else "c"}]}
    if ok:
        pr.create_review(**kwargs)
        return
    with pytest.raises(GithubException) as err:
        pr.create_review(**kwargs)
    assert err.value.status == 422
    assert "Body is too long (maximum is 65536 characters)" in str(err.value.data)


def test_thirty_five_comment_review_is_fine(scene, github_client):
    pr = github_client.get_repo(REPO).get_pull(1)
    lines = [2, 3, 4, 5, 6, 7, 8, 37, 38, 39, 40, 41, 42, 43]
    comments = [{"path": "config.yaml", "line": lines[i % len(lines)], "body": f"c{i}"} for i in range(35)]
    pr.create_review(body="many", event="COMMENT", comments=comments)
    assert len(list(pr.get_review_comments())) == 35
    assert len(scene.fake.state()["review_threads"]) == 35


def test_review_event_and_commit_rules(scene, github_client, git_repo):
    pr = github_client.get_repo(REPO).get_pull(1)
    with pytest.raises(GithubException) as err:
        pr.create_review(body="", event="REQUEST_CHANGES")
    assert err.value.status == 422
    approved = pr.create_review(body="ok", event="APPROVE")
    assert approved.state == "APPROVED"
    stranger = git_repo.commit({"z.txt": "z\n"}, "elsewhere", branch="other")
    with pytest.raises(GithubException) as err:
        pr.create_review(commit=github_client.get_repo(REPO).get_commit(stranger), body="x", event="COMMENT")
    assert err.value.status == 422


def test_reviews_list_and_review_comments_by_review(scene, github_client, http):
    pr = github_client.get_repo(REPO).get_pull(1)
    review = pr.create_review(body="b", event="COMMENT", comments=[{"path": "new.yaml", "line": 1, "body": "n"}])
    assert [r.id for r in pr.get_reviews()] == [review.id]
    r = http.get(f"{scene.fake.url}/repos/{REPO}/pulls/1/reviews/{review.id}/comments")
    assert [c["body"] for c in r.json()] == ["n"]


def test_replies_join_the_thread(scene, github_client):
    pr = github_client.get_repo(REPO).get_pull(1)
    pr.create_review(body="", event="COMMENT", comments=[{"path": "config.yaml", "line": 40, "body": "root"}])
    root = list(pr.get_review_comments())[0]
    reply = pr.create_review_comment_reply(root.id, "a reply")
    assert reply.in_reply_to_id == root.id and reply.path == "config.yaml" and reply.line == 40
    threads = scene.fake.state()["review_threads"]
    assert len(threads) == 1 and threads[0]["comment_ids"] == [root.id, reply.id]
    with pytest.raises(GithubException) as err:
        pr.create_review_comment_reply(999_999, "nope")
    assert err.value.status == 404


def test_push_makes_a_comment_outdated_only_when_its_file_changes(scene, github_client, git_repo):
    pr = github_client.get_repo(REPO).get_pull(1)
    pr.create_review(body="", event="COMMENT", comments=[{"path": "config.yaml", "line": 5, "body": "cfg"},
                                                         {"path": "new.yaml", "line": 2, "body": "new"}])
    new_head = git_repo.commit({"config.yaml": scene.repo.path.joinpath("config.yaml").read_text().replace(
        "key5: 500", "key5: 501")}, "push", branch="feature")
    assert scene.fake.move_head(1, "feature") == new_head
    by_body = {c["body"]: c for c in scene.fake.state()["review_comments"]}
    assert by_body["cfg"]["line"] is None and by_body["cfg"]["original_line"] == 5
    assert by_body["cfg"]["commit_id"] == scene.head_sha
    assert by_body["new"]["line"] == 2 and by_body["new"]["commit_id"] == new_head


# -- issue comments, check runs, labels, reactions ----------------------------------------------
def test_issue_comments_create_edit_get_delete(scene, github_client):
    repo = github_client.get_repo(REPO)
    issue = repo.get_issue(1)
    assert issue.pull_request is not None
    c = issue.create_comment("first")
    assert c.user.login == "recipe-review[bot]"
    c.edit("edited")
    assert repo.get_issue(1).get_comment(c.id).body == "edited"
    assert [x.body for x in issue.get_comments()] == ["edited"]
    with pytest.raises(GithubException) as err:
        c.edit("y" * 65_537)
    assert err.value.status == 422
    assert err.value.data["errors"][0]["message"] == "Body is too long (maximum is 65536 characters)"
    with pytest.raises(GithubException):
        issue.create_comment("y" * 65_537)
    c.delete()
    assert scene.fake.state()["issue_comments"] == []


def test_check_runs_create_update_list(scene, github_client):
    repo = github_client.get_repo(REPO)
    run = repo.create_check_run(name="recipe-review", head_sha=scene.head_sha, status="in_progress",
                                output={"title": "Reviewing", "summary": "…"})
    assert (run.status, run.conclusion) == ("in_progress", None)
    run.edit(conclusion="failure", output={"title": "2 blocking", "summary": "s", "text": "t",
                                           "annotations": [{"path": "config.yaml", "start_line": 5, "end_line": 5,
                                                            "annotation_level": "failure", "message": "m"}]})
    repo.create_check_run(name="other", head_sha=scene.head_sha, conclusion="success",
                          output={"title": "ok", "summary": "ok"})
    runs = list(repo.get_commit(scene.head_sha).get_check_runs(check_name="recipe-review"))
    assert [(r.name, r.status, r.conclusion, r.output.title) for r in runs] == [
        ("recipe-review", "completed", "failure", "2 blocking")]
    assert len(list(repo.get_commit(scene.head_sha).get_check_runs())) == 2
    state = scene.fake.state()["check_runs"][0]
    assert state["output"]["text"] == "t" and state["output"]["annotations_count"] == 1


@pytest.mark.parametrize("output,fragment", [
    ({"title": "t", "summary": "x" * 65_536}, "summary exceeds a maximum bytesize of 65535"),
    ({"title": "t", "summary": "é" * 32_768}, "summary exceeds a maximum bytesize of 65535"),
    ({"title": "t", "summary": "s", "text": "x" * 65_536}, "text exceeds a maximum bytesize of 65535"),
    ({"title": "t", "summary": "s", "annotations": [
        {"path": "config.yaml", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "m"}] * 51},
     "annotations exceeds a maximum of 50"),
    ({"title": "t"}, "not supplied"),
], ids=["summary-over-bytes", "summary-multibyte-over", "text-over", "51-annotations", "summary-missing"])
def test_check_run_output_limits(scene, github_client, output, fragment):
    # the fake's own rules (GitHub's request schema is tested in test_fakegh_contract_schemas)
    scene.fake.contract = None
    with pytest.raises(GithubException) as err:
        github_client.get_repo(REPO).create_check_run(name="rr", head_sha=scene.head_sha, conclusion="success",
                                                      output=output)
    assert err.value.status == 422 and fragment in str(err.value.data)


def test_check_run_limits_at_the_edge_pass(scene, github_client):
    annotations = [{"path": "config.yaml", "start_line": 1, "end_line": 1, "annotation_level": "notice",
                    "message": "m"}] * 50
    github_client.get_repo(REPO).create_check_run(
        name="rr", head_sha=scene.head_sha, conclusion="success",
        output={"title": "t", "summary": "x" * 65_535, "text": "y" * 65_535, "annotations": annotations})


def test_check_run_needs_a_known_commit(scene, github_client):
    with pytest.raises(GithubException) as err:
        github_client.get_repo(REPO).create_check_run(name="rr", head_sha="f" * 40, conclusion="success")
    assert err.value.status == 422 and "No commit found for SHA" in err.value.data["message"]


def test_labels_add_remove_set(scene, github_client):
    issue = github_client.get_repo(REPO).get_issue(1)
    issue.add_to_labels("sweep-enabled", "full-sweep")
    assert [lb.name for lb in issue.get_labels()] == ["sweep-enabled", "full-sweep"]
    issue.add_to_labels("SWEEP-ENABLED")  # GitHub matches label names case-insensitively
    issue.remove_from_labels("full-sweep")
    assert scene.fake.state()["labels"]["1"] == ["sweep-enabled"]
    with pytest.raises(GithubException) as err:
        issue.remove_from_labels("never-there")
    assert err.value.status == 404 and err.value.data["message"] == "Label does not exist"
    issue.set_labels("a", "b")
    assert scene.fake.state()["labels"]["1"] == ["a", "b"]
    events = [(e["action"], e["label"], e["actor"]) for e in scene.fake.state()["label_events"]]
    assert events[:3] == [("labeled", "sweep-enabled", "recipe-review[bot]"),
                          ("labeled", "full-sweep", "recipe-review[bot]"),
                          ("unlabeled", "full-sweep", "recipe-review[bot]")]


def test_labels_accept_the_object_body(scene, http):
    r = http.post(f"{scene.fake.url}/repos/{REPO}/issues/1/labels", json={"labels": ["x", {"name": "y"}]})
    assert r.status_code == 200 and [lb["name"] for lb in r.json()] == ["x", "y"]


def test_reactions_are_idempotent_per_user_and_content(scene, github_client, http):
    issue = github_client.get_repo(REPO).get_issue(1)
    c = issue.create_comment("hi")
    url = f"{scene.fake.url}/repos/{REPO}/issues/comments/{c.id}/reactions"
    first = http.post(url, json={"content": "eyes"})
    again = http.post(url, json={"content": "eyes"})
    other = http.post(url, json={"content": "+1"})
    assert (first.status_code, again.status_code, other.status_code) == (201, 200, 201)
    assert first.json()["id"] == again.json()["id"]
    assert http.post(url, json={"content": "party"}).status_code == 422
    assert sorted(r["content"] for r in http.get(url).json()) == ["+1", "eyes"]
    pr = github_client.get_repo(REPO).get_pull(1)
    pr.create_review(body="", event="COMMENT", comments=[{"path": "new.yaml", "line": 1, "body": "x"}])
    rc = list(pr.get_review_comments())[0]
    assert rc.create_reaction("rocket").content == "rocket"
    state = scene.fake.state()["reactions"]
    assert {(r["subject"], r["content"]) for r in state} == {("issue_comment", "eyes"), ("issue_comment", "+1"),
                                                             ("review_comment", "rocket")}


@pytest.mark.parametrize("login,permission,role", [
    ("alice", "admin", "admin"), ("bob", "write", "write"), ("carol", "read", "triage"),
    ("octo", "admin", "admin"), ("stranger", "read", "read"),
], ids=["admin", "write", "triage-reads", "owner", "anyone-else-reads"])
def test_collaborator_permission(scene, github_client, login, permission, role):
    repo = github_client.get_repo(REPO)
    assert repo.get_collaborator_permission(login) == permission
    assert repo.get_collaborator_role_name(login) == role


def test_workflow_runs_filters(scene, github_client, http):
    other = scene.repo.sha("main")
    for spec in ({"id": 11, "head_sha": scene.head_sha, "status": "completed", "conclusion": "success"},
                 {"id": 12, "head_sha": scene.head_sha, "status": "in_progress", "conclusion": None,
                  "event": "workflow_dispatch"},
                 {"id": 13, "head_sha": other, "status": "completed", "conclusion": "failure", "event": "push"}):
        assert http.post(f"{scene.fake.url}/_fake/workflow-runs", json=spec).status_code == 201
    repo = github_client.get_repo(REPO)
    assert sorted(r.id for r in repo.get_workflow_runs(head_sha=scene.head_sha)) == [11, 12]
    assert [r.id for r in repo.get_workflow_runs(event="push")] == [13]
    assert [r.id for r in repo.get_workflow_runs(status="in_progress")] == [12]
    assert [r.id for r in repo.get_workflow_runs(branch="feature", status="success")] == [11]
    run = repo.get_workflow_run(11)
    assert run.pull_requests[0].number == 1 and run.head_sha == scene.head_sha


def test_every_response_has_rate_limit_and_request_id_headers(scene, http):
    r = http.get(f"{scene.fake.url}/repos/{REPO}/pulls/1")
    for h in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-used", "x-ratelimit-reset",
              "x-ratelimit-resource", "x-github-request-id"):
        assert h in r.headers
    assert r.headers["x-ratelimit-resource"] == "core"
    assert int(r.headers["x-ratelimit-used"]) >= 1
    missing = http.get(f"{scene.fake.url}/nope")
    assert missing.status_code == 404 and "x-github-request-id" in missing.headers


def test_writes_need_a_token(scene):
    import requests

    r = requests.post(f"{scene.fake.url}/repos/{REPO}/issues/1/comments", json={"body": "x"})
    assert r.status_code == 401 and r.json()["message"] == "Requires authentication"


def test_state_lists_writes_in_rest_shapes_and_calls(scene, github_client, http):
    repo = github_client.get_repo(REPO)
    pr = repo.get_pull(1)
    pr.create_review(body="b", event="COMMENT", comments=[{"path": "config.yaml", "line": 5, "body": "c"}])
    pr.create_issue_comment("hello")
    repo.create_check_run(name="rr", head_sha=scene.head_sha, conclusion="neutral",
                          output={"title": "t", "summary": "s"})
    state = http.get(f"{scene.fake.url}/_fake/state").json()
    assert set(state) >= {"reviews", "review_comments", "issue_comments", "check_runs", "labels", "reactions",
                          "calls", "prs"}
    rc = state["review_comments"][0]
    for key in ("path", "line", "start_line", "side", "body", "user", "in_reply_to_id", "pull_request_review_id",
                "commit_id"):
        assert key in rc
    cr = state["check_runs"][0]
    assert (cr["name"], cr["head_sha"], cr["status"], cr["conclusion"]) == ("rr", scene.head_sha, "completed",
                                                                             "neutral")
    assert cr["output"]["title"] == "t" and cr["output"]["summary"] == "s"
    assert state["prs"]["1"]["head"]["sha"] == scene.head_sha
    assert {"method": "POST", "path": f"/repos/{REPO}/pulls/1/reviews", "status": 200}.items() <= \
        state["calls"][-3].items()
    assert not any(c["path"].startswith("/_fake") for c in state["calls"])
    http.post(f"{scene.fake.url}/_fake/reset-calls")
    assert scene.fake.state()["calls"] == []


def test_fake_endpoints_set_the_scene(scene, http, github_client):
    url = scene.fake.url
    git = scene.repo
    sha2 = git.commit({"extra.yaml": "e: 1\n"}, "second", branch="feature2")
    r = http.post(f"{url}/_fake/prs", json={"number": 5, "base": "main", "head": "feature2", "author": "erin",
                                            "labels": ["sweep"], "draft": True, "title": "Draft"})
    assert r.status_code == 201 and r.json()["draft"] is True and r.json()["head"]["sha"] == sha2
    sha3 = git.commit({"extra.yaml": "e: 2\n"}, "third", branch="feature2")
    assert http.post(f"{url}/_fake/prs/5/head", json={"rev": "feature2"}).json() == {"sha": sha3, "before": sha2}
    assert http.post(f"{url}/_fake/prs/5/state", json={"state": "closed"}).json()["state"] == "closed"
    http.post(f"{url}/_fake/prs/5/labels", json={"labels": ["full-sweep"], "user": "alice"})
    assert scene.fake.state()["label_events"][-2:] == [
        {**scene.fake.state()["label_events"][-2], "action": "unlabeled", "label": "sweep", "actor": "alice"},
        {**scene.fake.state()["label_events"][-1], "action": "labeled", "label": "full-sweep", "actor": "alice"}]
    c = http.post(f"{url}/_fake/comments", json={"kind": "issue", "number": 1, "user": "alice",
                                                  "body": "/sweep full"}).json()
    assert c["user"]["login"] == "alice" and c["author_association"] == "COLLABORATOR"
    rc = http.post(f"{url}/_fake/comments", json={"kind": "review", "number": 1, "user": "bob", "body": "why?",
                                                   "path": "config.yaml", "line": 5}).json()
    assert rc["user"]["login"] == "bob" and rc["line"] == 5
    bad = http.post(f"{url}/_fake/comments", json={"kind": "review", "number": 1, "user": "bob", "body": "x",
                                                    "path": "config.yaml", "line": 20})
    assert bad.status_code == 422
    assert http.post(f"{url}/_fake/prs", json={"number": 6, "base": "main", "head": "nope"}).status_code == 422
