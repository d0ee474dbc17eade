"""Labels, the sweep gate and slash commands, end to end on the fake GitHub."""
from __future__ import annotations

from tests.bot.scenario import label_writes, writes

PR = "4867"


def gate_runs(state, head=None):
    return [r for r in state["check_runs"] if r["name"] == "sweep-gate" and (head is None or r["head_sha"] == head)]


def replies(state, marker_part="recipe-review:reply:"):
    return [c for c in state["issue_comments"] if marker_part in c["body"]]


def test_unauthorized_sweep_command_writes_no_label(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    sc.comment("contributor", "/sweep fail-fast")
    state = sc.settle()
    assert label_writes(state["calls"]) == []
    assert state["labels"].get(PR, []) == []
    (reply,) = replies(state)
    assert "needs `write` permission" in reply["body"] and "`read`" in reply["body"]


def test_authorized_sweep_sets_exactly_the_labels_and_the_gate(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    before = len(sc.state()["calls"])
    c = sc.comment("writer", "Thanks!\n/sweep fail-fast all-evals")
    state = sc.settle()
    new = state["calls"][before:]
    assert [(w["method"], w["path"].rsplit("/", 1)[-1]) for w in label_writes(new)] == [("POST", "labels")]
    assert sorted(state["labels"][PR]) == ["all-evals", "full-sweep-fail-fast"]
    reactions = sorted(r["content"] for r in state["reactions"] if r.get("comment_id") == c["id"])
    assert reactions == ["+1", "eyes"]
    (gate,) = gate_runs(state)
    assert gate["conclusion"] == "failure" and "blocking finding" in gate["output"]["summary"]


def test_second_primary_most_recent_wins_with_one_comment(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    sc.set_labels("contributor", ["full-sweep-enabled"], added="full-sweep-enabled")
    sc.settle()
    sc.set_labels("contributor", ["full-sweep-enabled", "non-canary-full-sweep-enabled"],
                  added="non-canary-full-sweep-enabled")
    state = sc.settle()
    assert state["labels"][PR] == ["non-canary-full-sweep-enabled"]
    notes = [c for c in state["issue_comments"] if "recipe-review:labels" in c["body"]]
    assert len(notes) == 1 and "`full-sweep-enabled`" in notes[0]["body"]


def test_modifier_without_primary_stays_and_the_gate_explains(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    sc.set_labels("contributor", ["all-evals"], added="all-evals")
    state = sc.settle()
    assert state["labels"][PR] == ["all-evals"]
    (gate,) = gate_runs(state)
    assert gate["conclusion"] == "failure" and "only counts next to a primary label" in gate["output"]["summary"]


def test_gate_flips_to_success_on_a_fixing_push_without_label_changes(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    sc.set_labels("contributor", ["full-sweep-fail-fast"], added="full-sweep-fail-fast")
    state = sc.settle()
    assert gate_runs(state)[0]["conclusion"] == "failure"
    before = len(state["calls"])
    head = sc.push_fix()
    state = sc.settle()
    (gate,) = gate_runs(state, head)
    assert gate["conclusion"] == "success", gate["output"]
    assert label_writes(state["calls"][before:]) == []


def test_command_redelivery_never_double_posts(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    c = sc.comment("contributor", "/help", delivery="cmd-1")
    first = sc.settle()
    payload = sc.webhook("issue_comment", action="created", comment_id=c["id"])
    assert sc.deliver("issue_comment", payload, delivery="cmd-1").json()["outcome"] == "duplicate"
    sc.deliver("issue_comment", payload, delivery="cmd-2")  # same comment, new delivery id: a retried send
    state = sc.settle()
    assert len(replies(state)) == len(replies(first)) == 1
    assert "/reuse-sweep-run" in replies(state)[0]["body"]
    assert writes(state["calls"][len(first["calls"]):]) == [
        w for w in writes(state["calls"][len(first["calls"]):]) if w["path"].endswith("/reactions")]


def test_unknown_wrong_case_and_explain(sc):
    sc.comment("contributor", "/Review\n/frobnicate\n/explain RR001")
    state = sc.settle()
    bodies = "\n".join(c["body"] for c in replies(state))
    assert "did you mean `/review`" in bodies and "unknown command" in bodies
    assert "changelog-entry-misplaced" in bodies and "When it fires" in bodies and "docs/rules/RR001.md" in bodies


def test_commands_on_a_closed_pr_do_nothing(sc):
    sc.fake.set_state(4867, "closed")
    sc.comment("maintainer", "/sweep fail-fast")
    state = sc.settle()
    assert label_writes(state["calls"]) == []
    assert "this PR is closed" in replies(state)[0]["body"]


def test_reuse_records_a_successful_full_sweep(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    sc.set_labels("maintainer", ["full-sweep-fail-fast"], added="full-sweep-fail-fast")
    sc.settle()
    head = sc.state()["reviews"][0]["commit_id"]
    for rid, concl in ((101, "failure"), (102, "success")):
        sc.fake_post("workflow-runs", {"id": rid, "head_sha": head, "status": "completed", "conclusion": concl,
                                       "event": "pull_request", "name": "Run Sweep",
                                       "path": ".github/workflows/run-sweep.yml"})
    sc.comment("writer", "/reuse-sweep-run")  # maintainers only
    sc.comment("maintainer", "/use 101")
    sc.comment("maintainer", "/reuse-sweep-run")
    state = sc.settle()
    bodies = [c["body"] for c in state["issue_comments"]]
    assert any("needs `maintain` permission" in b for b in bodies)
    assert any("run 101 is completed/failure" in b for b in bodies)
    recorded = [b for b in bodies if "recipe-review:reuse:" in b]
    assert len(recorded) == 1 and "recipe-review:reuse:102" in recorded[0]


def test_sweep_uses_the_label_names_of_the_repository_config(tmp_path):
    """`/sweep` reads `.github/recipe-review.yml` from the base branch, like the review does."""
    import subprocess

    from bot import demo
    from fakegithub.server import FakeGitHub
    from tests.bot.scenario import BotHarness

    repo = tmp_path / "repo"
    base, head = demo.build_repo(repo)
    cfg = repo / ".github" / "recipe-review.yml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("labels:\n  primary: [bench-fast, bench-full]\n  reusable: [bench-full]\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["checkout", "-q", base], check=True)
    subprocess.run(git + ["add", ".github/recipe-review.yml"], check=True)
    subprocess.run(git + ["commit", "-qm", "custom sweep labels"], check=True)
    fake = FakeGitHub(repo, repo=demo.REPO, collaborators={"writer": "write"})
    fake.add_pr(demo.PR_NUMBER, base=base, head=head, author="contributor", title=demo.TITLE)
    url = fake.start()
    harness = BotHarness(tmp_path, url, demo.PR_NUMBER)
    try:
        c = harness.http.post(f"{url}/_fake/comments", json={
            "number": demo.PR_NUMBER, "user": "writer", "body": "/sweep bench-fast", "kind": "issue"}, timeout=10)
        c.raise_for_status()
        payload = harness.http.get(f"{url}/_fake/webhook/issue_comment", params={
            "number": demo.PR_NUMBER, "action": "created", "comment_id": c.json()["id"]}, timeout=10).json()
        harness.deliver("issue_comment", payload)
        state = harness.settle()
        assert state["labels"].get(PR) == ["bench-fast"]
        assert not replies(state), "an accepted /sweep gets reactions, not a reply"
    finally:
        harness.close()
        fake.stop()
