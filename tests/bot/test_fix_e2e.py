"""`/fix` end to end over real HTTP: signed `issue_comment` → bot → PyGithub → the fake GitHub's git
data API (blobs, tree, commit, ref update), and the review of the pushed head."""
from __future__ import annotations

import subprocess

import pytest

from bot import demo
from tests.bot.scenario import BotHarness, writes
from tests.bot.test_review_more_e2e import LOG, MASTER, changelog, entry, master_config

CHANGELOG = "inferencex-e2e/perf-changelog.yaml"


def replies(state, user=None):
    return [c for c in state["issue_comments"] if "`/fix`:" in c["body"] and (user is None or f"@{user} " in c["body"])]


def head(state, number=demo.PR_NUMBER):
    return state["prs"][str(number)]["head"]["sha"]


def show(repo_dir, rev, path):
    return subprocess.run(["git", "-C", str(repo_dir), "show", f"{rev}:{path}"], capture_output=True,
                          check=True).stdout


def parents(repo_dir, sha):
    out = subprocess.run(["git", "-C", str(repo_dir), "rev-list", "--parents", "-n", "1", sha], capture_output=True,
                         text=True, check=True).stdout.split()
    return out[1:]


def test_the_review_offers_fix_on_the_misplaced_entry_and_in_the_summary(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    state = sc.settle()
    (rr001,) = [c for c in state["review_comments"] if "`RR001`" in c["body"]]
    assert "comment `/fix` to move it" in rr001["body"]
    (summary,) = [c for c in state["issue_comments"] if "<!-- recipe-review:summary -->" in c["body"]]
    assert "comment `/fix` to move it" in summary["body"]


def test_maintainer_fix_pushes_one_commit_and_the_new_head_has_no_changelog_finding(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    old = head(sc.settle())
    sc.fake.reset_calls()
    sc.comment("maintainer", "/fix")
    state = sc.settle()
    new = head(state)
    assert new != old and parents(sc.repo_dir, new) == [old]  # exactly one commit, on top of the old head
    assert len(state["git_commits"]) == 1 and state["git_commits"][0]["actor"] == "recipe-review[bot]"
    fixed = show(sc.repo_dir, new, CHANGELOG)
    base = show(sc.repo_dir, sc.base, CHANGELOG)
    assert fixed.startswith(base) and fixed[len(base):].count(b"- config-keys:") == 1
    assert b"pull/4867" in fixed[len(base):]
    (reply,) = replies(state, "maintainer")
    assert f"pushed `{new[:7]}`" in reply["body"] and "RR001" in reply["body"]
    # The review of the new head is the normal review: the check passes, the RR001 thread is resolved,
    # and nothing the review wrote about the new head is a changelog finding.
    runs = {r["head_sha"]: r for r in state["check_runs"] if r["name"] == "recipe-review"}
    assert runs[new]["conclusion"] == "success"
    assert not any(f"`RR00{k}`" in runs[new]["output"]["summary"] for k in range(1, 8))
    (thread,) = [t for t in state["review_threads"] if any(
        "`RR001`" in c["body"] for c in state["review_comments"] if c["id"] in t["comment_ids"])]
    assert thread["is_resolved"]
    calls = [f"{c['method']} {c['path'].split('/git/')[-1]}" for c in state["calls"] if "/git/" in c["path"]]
    assert [c for c in calls if c.startswith(("POST", "PATCH"))] == [
        "POST blobs", "POST trees", "POST commits", "PATCH refs/heads/kimik3.1-cpu2700"]


def test_second_fix_and_redelivery_make_no_second_commit(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    c = sc.fake_post("comments", {"number": demo.PR_NUMBER, "user": "maintainer", "body": "/fix", "kind": "issue"})
    payload = sc.webhook("issue_comment", action="created", comment_id=c["id"])
    sc.deliver("issue_comment", payload, delivery="fix-1")
    first = sc.settle()
    assert len(first["git_commits"]) == 1
    # GitHub's redelivery (same delivery id): acknowledged, nothing runs.
    assert sc.deliver("issue_comment", payload, delivery="fix-1").json()["outcome"] == "duplicate"
    # The same comment again under a new delivery id (a retried job): the head is its own fix commit.
    sc.deliver("issue_comment", payload, delivery="fix-2")
    again = sc.settle()
    assert len(again["git_commits"]) == 1 and head(again) == head(first)
    assert len(replies(again, "maintainer")) == 1  # the reply marker: answered once
    # Another /fix on the fixed head: nothing left to fix, no commit.
    sc.comment("writer", "/fix changelog")
    final = sc.settle()
    assert len(final["git_commits"]) == 1
    (reply,) = replies(final, "writer")
    assert "nothing to fix automatically" in reply["body"]


@pytest.mark.parametrize("user,ok", [("triager", False), ("contributor", True)], ids=["triage-role", "pr-author"])
def test_who_may_ask(sc, user, ok):
    sc.deliver("pull_request", sc.payload("opened"))
    old = head(sc.settle())
    sc.comment(user, "/fix")
    state = sc.settle()
    (reply,) = replies(state, user)
    if ok:
        assert head(state) != old and "pushed" in reply["body"]
    else:
        assert head(state) == old and not state["git_commits"]
        assert "needs `write` permission" in reply["body"]


def test_head_moved_since_the_command(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    # A push the bot has not heard of yet: the command was given on the old head.
    git = ["git", "-C", str(sc.repo_dir), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["checkout", "-q", sc.head], check=True)
    (sc.repo_dir / "notes.txt").write_text("later\n")
    subprocess.run(git + ["add", "notes.txt"], check=True)
    subprocess.run(git + ["commit", "-qm", "later"], check=True)
    subprocess.run(git + ["checkout", "-q", "main"], check=True)
    moved = sc.fake.move_head(demo.PR_NUMBER, sc.head)
    sc.comment("maintainer", "/fix")
    state = sc.settle()
    assert head(state) == moved and not state["git_commits"]
    (reply,) = replies(state)
    assert "the head moved" in reply["body"] and moved[:7] in reply["body"]


def test_switched_off_in_the_repository_config(sc):
    git = ["git", "-C", str(sc.repo_dir), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    (sc.repo_dir / ".github").mkdir()
    (sc.repo_dir / ".github/recipe-review.yml").write_text("fix: {enabled: false}\n")
    subprocess.run(git + ["add", ".github"], check=True)
    subprocess.run(git + ["commit", "-qm", "config"], check=True)
    sc.fake.move_head(demo.PR_NUMBER, sc.head)  # the base is re-read: it now carries the config
    sc.deliver("pull_request", sc.payload("opened"))
    state = sc.settle()
    (rr001,) = [c for c in state["review_comments"] if "`RR001`" in c["body"]]
    assert "/fix" not in rr001["body"]
    sc.comment("maintainer", "/fix")
    state = sc.settle()
    assert not state["git_commits"]
    assert "switched off" in replies(state)[0]["body"]


@pytest.mark.parametrize("scene,expected", [
    ("protected", "is protected against the App"),
    ("no-contents-write", "an admin must accept"),
], ids=["protected-branch", "403-new-permission"])
def test_refused_writes_reply_with_the_patch_and_leave_the_branch(sc, scene, expected):
    sc.deliver("pull_request", sc.payload("opened"))
    old = head(sc.settle())
    if scene == "protected":
        sc.fake_post("protect", {"branch": "kimik3.1-cpu2700"})
    else:
        sc.fake_post("installation", {"permissions": {"contents": "read"}})
    sc.comment("maintainer", "/fix")
    state = sc.settle()
    assert head(state) == old
    (reply,) = replies(state)
    assert expected in reply["body"]
    assert "```diff" in reply["body"] and "<details>" in reply["body"]
    assert "+  pr-link: https://github.com/demo-org/inferencex/pull/4867" in reply["body"]


# -- forks -------------------------------------------------------------------------------------


def _fork_pr(git_repo, fake_github, maintainer_can_modify, number=7):
    git_repo.commit({LOG: changelog(range(1, 9)), MASTER: master_config()}, "main")
    nums = list(range(1, 9))
    text = "\n".join([entry(n) for n in nums[:-3]] + [entry(number)] + [entry(n) for n in nums[-3:]])
    git_repo.commit({LOG: text}, "add entry", branch="feature")
    fake_github.add_pr(number, base="main", head="feature", author="dana", fork="dana",
                       maintainer_can_modify=maintainer_can_modify)
    return number


@pytest.fixture
def fork_harness(tmp_path, fake_github):
    made = []

    def make(number):
        h = BotHarness(tmp_path, fake_github.url, number)
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()


def _comment(h, number, user, body):
    import requests

    c = requests.post(f"{h.fake_url}/_fake/comments", json={"number": number, "user": user, "body": body,
                                                            "kind": "issue"}, timeout=10).json()
    payload = requests.get(f"{h.fake_url}/_fake/webhook/issue_comment",
                           params={"action": "created", "comment_id": c["id"]}, timeout=10).json()
    h.deliver("issue_comment", payload)


def test_fork_without_maintainer_edits_gets_the_patch(git_repo, fake_github, fork_harness):
    n = _fork_pr(git_repo, fake_github, maintainer_can_modify=False)
    h = fork_harness(n)
    before = fake_github.pr(n)["head_sha"]
    _comment(h, n, "bob", "/fix")
    state = h.settle()
    assert not state["git_commits"] and state["prs"][str(n)]["head"]["sha"] == before
    assert not [c for c in writes(state["calls"]) if "/git/" in c["path"]]
    (reply,) = replies(state, "bob")
    assert "fork `dana/bench`" in reply["body"] and "not allowed edits by maintainers" in reply["body"]
    assert "```diff" in reply["body"]
    patch = reply["body"].split("```diff\n", 1)[1].split("```", 1)[0]
    # The patch applies to the head and gives the fixed file.
    subprocess.run(["git", "-C", str(git_repo.path), "checkout", "-q", "feature"], check=True)
    subprocess.run(["git", "-C", str(git_repo.path), "apply", "--check", "-"], input=patch.encode(), check=True)


def test_fork_with_maintainer_edits_is_pushed_to_the_fork_branch(git_repo, fake_github, fork_harness):
    n = _fork_pr(git_repo, fake_github, maintainer_can_modify=True)
    h = fork_harness(n)
    _comment(h, n, "bob", "/fix")
    state = h.settle()
    assert len(state["git_commits"]) == 1
    pushes = [c["path"] for c in writes(state["calls"]) if c["method"] == "PATCH" and "/git/refs/" in c["path"]]
    assert pushes == ["/repos/dana/bench/git/refs/heads/feature"]
    assert "pushed" in replies(state, "bob")[0]["body"]


def test_fork_that_github_refuses_falls_back_to_the_patch(git_repo, fake_github, fork_harness):
    n = _fork_pr(git_repo, fake_github, maintainer_can_modify=True)
    fake_github.fork_push = "never"
    h = fork_harness(n)
    _comment(h, n, "bob", "/fix")
    state = h.settle()
    assert state["prs"][str(n)]["head"]["sha"] == fake_github.pr(n)["heads"][0]
    (reply,) = replies(state, "bob")
    assert "GitHub did not let the App write" in reply["body"] and "```diff" in reply["body"]


def test_a_deleted_changelog_gets_a_clear_reply_and_no_commit(git_repo, fake_github, fork_harness):
    git_repo.commit({LOG: changelog(range(1, 9)), MASTER: master_config()}, "main")
    git_repo.commit({LOG: None}, "drop the changelog", branch="feature")
    fake_github.add_pr(8, base="main", head="feature", author="dana")
    h = fork_harness(8)
    before = fake_github.pr(8)["head_sha"]
    _comment(h, 8, "bob", "/fix")
    state = h.settle()
    assert not state["git_commits"] and state["prs"]["8"]["head"]["sha"] == before
    (reply,) = replies(state, "bob")
    assert "nothing to fix automatically" in reply["body"] and "the PR deletes `perf-changelog.yaml`" in reply["body"]
