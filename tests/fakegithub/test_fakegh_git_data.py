"""The fake GitHub's git data API: real objects in the backing repository, GitHub's shapes (checked
against its published schemas), and the refusals a bot pushing a fix must survive."""
from __future__ import annotations

import base64
import subprocess

import pytest
from githubkit_schemas.latest import models as gh

from bot.github import GitHubError, PyGithubPort

REPO = "octo/bench"


def api(fake):
    return f"{fake.url}/repos/{REPO}"


def write_commit(http, url, parent, path="config.yaml", content=b"changed: 1\n"):
    """blob → tree on top of the parent's → commit; returns the commit SHA."""
    blob = http.post(f"{url}/git/blobs", json={"content": base64.b64encode(content).decode(), "encoding": "base64"})
    assert blob.status_code == 201, blob.text
    gh.ShortBlob.model_validate(blob.json())
    parent_commit = http.get(f"{url}/git/commits/{parent}")
    assert parent_commit.status_code == 200
    gh.GitCommit.model_validate(parent_commit.json())
    tree = http.post(f"{url}/git/trees", json={"base_tree": parent_commit.json()["tree"]["sha"], "tree": [
        {"path": path, "mode": "100644", "type": "blob", "sha": blob.json()["sha"]}]})
    assert tree.status_code == 201, tree.text
    gh.GitTree.model_validate(tree.json())
    commit = http.post(f"{url}/git/commits", json={"message": "fix\n", "tree": tree.json()["sha"],
                                                   "parents": [parent]})
    assert commit.status_code == 201, commit.text
    gh.GitCommit.model_validate(commit.json())
    return commit.json()["sha"]


def test_write_a_commit_and_fast_forward_the_pr_branch(scene, http):
    fake, url = scene.fake, api(scene.fake)
    sha = write_commit(http, url, scene.head_sha)
    assert scene.repo.git("show", f"{sha}:config.yaml") == "changed: 1"
    assert scene.repo.git("rev-parse", f"{sha}^") == scene.head_sha
    assert scene.repo.git("show", f"{sha}:new.yaml") == "a: 1\nb: 2\nc: 3"  # the rest of the tree is kept
    author = http.get(f"{url}/git/commits/{sha}").json()["author"]
    assert author["name"] == "recipe-review[bot]" and author["email"].endswith(
        "+recipe-review[bot]@users.noreply.github.com"
    )
    r = http.patch(f"{url}/git/refs/heads/feature", json={"sha": sha, "force": False})
    assert r.status_code == 200, r.text
    gh.GitRef.model_validate(r.json())
    assert scene.repo.sha("feature") == sha and fake.pr(1)["head_sha"] == sha  # a push: the PR head moved
    got = http.get(f"{url}/git/ref/heads/feature").json()
    gh.GitRef.model_validate(got)
    assert got["object"]["sha"] == sha
    assert [c["sha"] for c in fake.state()["git_commits"]] == [sha]


def test_a_non_fast_forward_update_fails_unless_forced(scene, http):
    url = api(scene.fake)
    sha = write_commit(http, url, scene.base_sha)  # not a descendant of the PR head
    r = http.patch(f"{url}/git/refs/heads/feature", json={"sha": sha})
    assert r.status_code == 422 and r.json()["message"] == "Update is not a fast forward"
    assert scene.repo.sha("feature") == scene.head_sha and scene.fake.pr(1)["head_sha"] == scene.head_sha
    r = http.patch(f"{url}/git/refs/heads/feature", json={"sha": sha, "force": True})
    assert r.status_code == 200 and scene.repo.sha("feature") == sha


def test_a_protected_branch_is_refused(scene, http):
    url = api(scene.fake)
    sha = write_commit(http, url, scene.head_sha)
    http.post(f"{scene.fake.url}/_fake/protect", json={"branch": "feature"})
    r = http.patch(f"{url}/git/refs/heads/feature", json={"sha": sha})
    assert r.status_code == 422 and r.json()["message"] == "Protected branch update failed for refs/heads/feature."
    assert scene.fake.pr(1)["head_sha"] == scene.head_sha


def test_writes_need_contents_write(scene, http):
    url = api(scene.fake)
    http.post(f"{scene.fake.url}/_fake/installation", json={"permissions": {"contents": "read"}})
    r = http.post(f"{url}/git/blobs", json={"content": "x"})
    assert r.status_code == 403 and r.json()["message"] == "Resource not accessible by integration"
    assert http.get(f"{url}/git/commits/{scene.head_sha}").status_code == 200  # reads still work


@pytest.mark.parametrize("path,body,message", [
    ("blobs", {}, "content"),
    ("blobs", {"content": "x", "encoding": "utf-16"}, "encoding"),
    ("trees", {"base_tree": "0" * 40, "tree": []}, "base_tree"),
    ("trees", {"tree": [{"path": "a", "mode": "100600", "type": "blob", "sha": "0" * 40}]}, "mode"),
    ("trees", {"tree": [{"path": "a", "mode": "100644", "type": "blob", "sha": "1" * 40}]}, "not a valid blob"),
    ("commits", {"message": "m", "tree": "0" * 40}, "Tree SHA does not exist"),
], ids=["blob-no-content", "blob-bad-encoding", "tree-bad-base", "tree-bad-mode", "tree-missing-blob",
        "commit-missing-tree"])
def test_invalid_writes_are_422(scene, http, path, body, message):
    r = http.post(f"{api(scene.fake)}/git/{path}", json=body)
    assert r.status_code == 422 and message in str(r.json()), r.text


def test_tree_entries_can_be_deleted_and_listed_recursively(scene, http):
    url = api(scene.fake)
    parent = http.get(f"{url}/git/commits/{scene.head_sha}").json()
    tree = http.post(f"{url}/git/trees", json={"base_tree": parent["tree"]["sha"], "tree": [
        {"path": "new.yaml", "mode": "100644", "type": "blob", "sha": None},
        {"path": "dir/added.txt", "mode": "100755", "type": "blob", "content": "#!/bin/sh\n"}]}).json()
    listed = http.get(f"{url}/git/trees/{tree['sha']}", params={"recursive": "1"}).json()
    gh.GitTree.model_validate(listed)
    modes = {e["path"]: e["mode"] for e in listed["tree"]}
    assert "new.yaml" not in modes and modes["dir/added.txt"] == "100755" and modes["dir"] == "040000"


def test_fork_writes_follow_maintainer_can_modify(fake_github, git_repo, http):
    git_repo.commit({"a.txt": "1\n"}, "base")
    head = git_repo.commit({"a.txt": "2\n"}, "pr", branch="work")
    fake_github.add_pr(2, base="main", head="work", author="dana", fork="dana", maintainer_can_modify=False)
    pr = http.get(f"{api(fake_github)}/pulls/2").json()
    gh.PullRequest.model_validate(pr)
    assert pr["head"]["repo"]["full_name"] == "dana/bench" and pr["head"]["repo"]["fork"] is True
    assert pr["head"]["label"] == "dana:work" and pr["maintainer_can_modify"] is False
    fork = f"{fake_github.url}/repos/dana/bench"
    assert http.get(f"{fork}/git/commits/{head}").status_code == 200  # public: readable
    assert http.post(f"{fork}/git/blobs", json={"content": "x"}).status_code == 403
    fake_github.pr(2)["maintainer_can_modify"] = True
    sha = write_commit(http, fork, head, path="a.txt", content=b"3\n")
    assert http.patch(f"{fork}/git/refs/heads/work", json={"sha": sha}).status_code == 200
    assert fake_github.pr(2)["head_sha"] == sha
    assert git_repo.sha("work") == head  # the fork's branch is not the base repository's `work`
    fake_github.fork_push = "never"
    assert http.post(f"{fork}/git/blobs", json={"content": "x"}).status_code == 403
    assert http.get(f"{fake_github.url}/repos/someone/bench/git/commits/{head}").status_code == 404


def test_an_organization_fork_cannot_allow_maintainer_edits(fake_github, git_repo):
    git_repo.commit({"a.txt": "1\n"}, "base")
    git_repo.commit({"a.txt": "2\n"}, "pr", branch="work")
    with pytest.raises(ValueError, match="organization-owned fork"):
        fake_github.add_pr(3, base="main", head="work", fork="acme", fork_owner_type="Organization",
                           maintainer_can_modify=True)


def test_the_port_pushes_a_fix_through_pygithub(scene, github_client):
    port = PyGithubPort(github_client)
    head = port.pull_head(REPO, 1)
    assert (head.repo, head.ref, head.sha, head.fork, head.maintainer_can_modify) == (
        REPO, "feature", scene.head_sha, False, False)
    commit = port.git_commit(REPO, head.sha)
    assert commit.parents == (scene.base_sha,) and commit.message == "tune two keys"
    assert port.tree_modes(REPO, commit.tree, ["config.yaml", "nope"]) == {"config.yaml": "100644"}
    blob = port.create_blob(REPO, b"\xff\x00binary-safe\n")
    tree = port.create_tree(REPO, commit.tree, [("config.yaml", "100644", blob)])
    sha = port.create_commit(REPO, "fix\n\nRecipe-review-fix: issue:1\n", tree, [head.sha])
    port.update_ref(REPO, "feature", sha)
    assert subprocess.run(["git", "-C", str(scene.repo.path), "cat-file", "blob", f"{sha}:config.yaml"],
                          capture_output=True).stdout == b"\xff\x00binary-safe\n"
    with pytest.raises(GitHubError) as err:
        port.update_ref(REPO, "feature", scene.base_sha)
    assert err.value.status == 422 and "fast forward" in str(err.value)
