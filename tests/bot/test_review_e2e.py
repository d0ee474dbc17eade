"""End to end over real HTTP: signed delivery → bot → PyGithub → the fake GitHub (git-backed)."""
from __future__ import annotations

from bot import demo
from tests.bot.scenario import writes


def new_entry_first_line(sc) -> int:
    import subprocess

    text = subprocess.run(["git", "-C", str(sc.repo_dir), "show", f"{sc.head}:inferencex-e2e/perf-changelog.yaml"],
                          capture_output=True, text=True, check=True).stdout
    lines = text.splitlines()
    idx = next(i for i, ln in enumerate(lines) if "pull/4867" in ln)
    return max(i for i in range(idx) if lines[i].startswith("- config-keys:")) + 1


def test_opened_posts_the_4867_review(sc):
    assert sc.deliver("pull_request", sc.payload("opened")).status_code == 202
    state = sc.settle()
    assert len(state["reviews"]) == 1 and state["reviews"][0]["state"] == "COMMENTED"
    rr001 = [c for c in state["review_comments"] if "`RR001`" in c["body"]]
    assert len(rr001) == 1
    c = rr001[0]
    first = new_entry_first_line(sc)
    assert c["path"] == "inferencex-e2e/perf-changelog.yaml"
    assert (c.get("start_line") or c["line"]) == first
    for part in ("🔴 **BLOCKING**", "**Why it matters:**", "**Fix:**", "<summary>Why this was flagged</summary>",
                 "#4720", "<!-- recipe-review:finding:RR001:"):
        assert part in c["body"], part
    runs = [r for r in state["check_runs"] if r["name"] == "recipe-review"]
    assert len(runs) == 1 and runs[0]["conclusion"] == "failure"
    assert runs[0]["head_sha"] == state["reviews"][0]["commit_id"]
    summaries = [c for c in state["issue_comments"] if "<!-- recipe-review:summary -->" in c["body"]]
    welcomes = [c for c in state["issue_comments"] if "<!-- recipe-review:welcome -->" in c["body"]]
    assert len(summaries) == 1 and len(welcomes) == 1
    assert "### Checks that passed" in summaries[0]["body"]
    assert "中文" in welcomes[0]["body"]
    # compare, one GraphQL read, the check run started in_progress, the review, the check run completed,
    # the summary, the welcome: 7 (the in_progress start is the seventh).
    assert len(state["calls"]) <= 7, [f"{c['method']} {c['path']}" for c in state["calls"]]
    check_calls = [(c["method"], c["path"].rsplit("/", 1)[-1] if c["method"] == "POST" else "id")
                   for c in state["calls"] if "/check-runs" in c["path"]]
    assert check_calls == [("POST", "check-runs"), ("PATCH", "id")]  # started, then completed


def test_redelivery_and_same_head_synchronize_write_nothing(sc):
    p = sc.payload("opened")
    sc.deliver("pull_request", p, delivery="first")
    before = sc.settle()["calls"]
    r = sc.deliver("pull_request", p, delivery="first")
    assert r.json()["outcome"] == "duplicate"
    assert sc.settle()["calls"] == before  # not even a read
    sc.deliver("pull_request", sc.payload("synchronize"))
    after = sc.settle()["calls"]
    new = after[len(before):]
    assert writes(new) == [], new
    assert len(new) == 2  # compare + one GraphQL read


def test_fix_push_resolves_the_thread_and_flips_the_check(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    new_sha = sc.push_fix()
    state = sc.settle()
    runs = {r["head_sha"]: r for r in state["check_runs"] if r["name"] == "recipe-review"}
    assert runs[new_sha]["conclusion"] == "success"
    summaries = [c for c in state["issue_comments"] if "<!-- recipe-review:summary -->" in c["body"]]
    assert len(summaries) == 1 and new_sha[:7] in summaries[0]["body"]
    rr001 = [c for c in state["review_comments"] if "`RR001`" in c["body"]]
    assert len(rr001) == 1  # never posted twice
    gql = sc.http.post(f"{sc.fake_url}/graphql", timeout=10, headers={"Authorization": "bearer t"}, json={"query": """
        query { repository(owner: "demo-org", name: "inferencex") { pullRequest(number: 4867) {
          reviewThreads(first: 50) { nodes { isResolved comments(first: 1) { nodes { body } } } } } } }"""}).json()
    assert "data" in gql, gql
    threads = gql["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]
    t = next(t for t in threads if "`RR001`" in t["comments"]["nodes"][0]["body"])
    assert t["isResolved"] is True


def test_closed_and_draft_prs_are_not_reviewed(sc):
    sc.fake.set_state(demo.PR_NUMBER, "closed")
    sc.deliver("pull_request", sc.payload("reopened") | {"action": "synchronize"})
    state = sc.settle()
    assert writes(state["calls"]) == []


def test_metrics_count_api_calls_and_rate_limit(sc):
    sc.deliver("pull_request", sc.payload("opened"))
    sc.settle()
    text = sc.http.get(f"{sc.server.url}/metrics", timeout=10).text
    assert 'recipe_review_github_calls_total{kind="compare"}' in text
    assert 'recipe_review_github_calls_total{kind="create_review"}' in text
    line = next(ln for ln in text.splitlines() if ln.startswith("recipe_review_github_rate_limit_remaining "))
    assert float(line.split()[1]) > 0
    assert 'recipe_review_findings_total{code="RR001",severity="blocking"}' in text
    assert "recipe_review_job_seconds_bucket" in text
