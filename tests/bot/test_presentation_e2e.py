"""A readable review on a huge PR, no churn across versions, and `/ignore` — end to end on the fake GitHub.

The scene: a master config with ten keys; the PR changes eight of them and appends a changelog entry
that selects none of those, so `RR011` fires eight times in one file. `RR011` is a nit by default;
the scene's repository makes it blocking in its `.github/recipe-review.yml` (as a repository that
enforces its written rule A14 would), so the check run, the group comment and `/ignore` are those of
a blocking rule.
"""
from __future__ import annotations

import dataclasses

import pytest
import requests

from bot import render
from bot.localgit import changeset_from_git
from bot.present import problem_key
from rules import run
from tests.bot.scenario import BotHarness, writes
from tests.rules.mc_helpers import master, row

MASTER = "configs/nvidia-master.yaml"
LOG = "perf-changelog.yaml"
KEYS = [f"dsv4-fp4-b200-vllm-k{i}" for i in range(10)]
NEW_IMAGE = "vllm/vllm-openai:v0.21.0"
RR_CONFIG = ".github/recipe-review.yml"
BLOCKING_RR011 = "rules:\n  RR011: {severity: blocking}\n"


def entry(keys, n: int) -> str:
    items = "".join(f"    - {k}\n" for k in keys)
    return (f"- config-keys:\n{items}  description:\n    - \"Change {n}: vLLM v0.21.0.\"\n"
            f"  pr-link: https://github.com/octo/bench/pull/{n}\n")


def configs(changed) -> str:
    return master(*[row(k, image=NEW_IMAGE) if i in changed else row(k) for i, k in enumerate(KEYS)]).decode()


class Huge(BotHarness):
    """PR #7 changes keys 1..8; its new entry selects `selected` (key 0 only, at first)."""

    def __init__(self, tmp_path, git_repo, fake_github, main_extra=None, **settings):
        self.git_repo, self.fake = git_repo, fake_github
        extra = dict(main_extra or {})
        extra[RR_CONFIG] = BLOCKING_RR011 + extra.get(RR_CONFIG, "")
        git_repo.commit({LOG: entry([KEYS[0]], 1), MASTER: configs(()), **extra}, "main")
        self.push(selected=[KEYS[0]], changed=range(1, 9), deliver=False)
        fake_github.add_pr(7, base="main", head="pr", author="contributor")
        super().__init__(tmp_path, fake_github.url, 7, **settings)

    def push(self, selected, changed=range(1, 9), extra=None, deliver=True) -> None:
        self.git_repo.commit({LOG: entry([KEYS[0]], 1) + "\n" + entry(selected, 7), MASTER: configs(changed),
                              **(extra or {})}, "push", branch="pr")
        if deliver:
            self.fake.move_head(7, "pr")
            self.deliver("pull_request", self.payload("synchronize"))

    def comment(self, user: str, body: str) -> dict:
        r = self.http.post(f"{self.fake_url}/_fake/comments", timeout=10,
                           json={"number": 7, "user": user, "body": body, "kind": "issue"})
        r.raise_for_status()
        c = r.json()
        payload = self.http.get(f"{self.fake_url}/_fake/webhook/issue_comment", timeout=10,
                                params={"number": 7, "action": "created", "comment_id": c["id"]}).json()
        self.deliver("issue_comment", payload)
        return c

    def state(self) -> dict:
        return self.http.get(f"{self.fake_url}/_fake/state", timeout=10).json()


@pytest.fixture
def huge(tmp_path, git_repo, fake_github):
    made = []

    def make(**kw):
        h = Huge(tmp_path, git_repo, fake_github, **kw)
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()


def inline(state, code="RR011"):
    return [c for c in state["review_comments"] if f"`{code}`" in c["body"] and c.get("in_reply_to_id") is None]


def summary(state) -> str:
    (s,) = [c for c in state["issue_comments"] if render.SUMMARY_MARKER in c["body"]]
    return s["body"]


def check(state):
    (cr,) = [r for r in state["check_runs"] if r["name"] == "recipe-review" and r["head_sha"] ==
             state["prs"]["7"]["head"]["sha"]]
    return cr


def paths(calls):
    return [f"{c['method']} {c['path']}" for c in writes(calls)]


def test_one_group_comment_per_rule_and_file_and_a_rerun_writes_nothing(huge):
    h = huge()
    h.deliver("pull_request", h.payload("opened"))
    state = h.settle()
    (c,) = inline(state)
    assert "8 changed keys are selected by no new entry: `dsv4-fp4-b200-vllm-k1`" in c["body"]
    assert "```suggestion" not in c["body"] and "<summary>All 8, by line</summary>" in c["body"]
    body = summary(state)
    assert body.index("### Findings by rule") < body.index("### Findings\n")
    assert "| 🔴 | `RR011` changed-config-not-selected | 8 | 1 |" in body
    assert check(state)["conclusion"] == "failure" and check(state)["output"]["title"] == "8 blocking findings"
    before = len(state["calls"])
    h.deliver("pull_request", h.payload("synchronize"))
    assert paths(h.settle()["calls"][before:]) == []


def test_the_group_is_edited_in_place_as_keys_are_fixed_then_resolved(huge):
    h = huge()
    h.deliver("pull_request", h.payload("opened"))
    before = len(h.settle()["calls"])
    h.push(selected=[KEYS[0], KEYS[1], KEYS[2]])  # two keys now selected: six remain
    state = h.settle()
    (c,) = inline(state)
    assert "6 changed keys" in c["body"] and "`dsv4-fp4-b200-vllm-k1`" not in c["body"]
    w = paths(state["calls"][before:])
    assert w.count(f"PATCH /repos/octo/bench/pulls/comments/{c['id']}") == 1
    assert not any(p.endswith("/reviews") for p in w)  # no new review
    before = len(state["calls"])
    h.push(selected=KEYS[:8])  # one remains: still the same comment, not a new single
    state = h.settle()
    (c,) = inline(state)
    assert "config key `dsv4-fp4-b200-vllm-k8` is changed here" in c["body"].split("\n")[2]
    assert not any(p.endswith("/reviews") for p in paths(state["calls"][before:]))
    h.push(selected=KEYS[:9])  # all fixed
    state = h.settle()
    (thread,) = state["review_threads"]
    assert thread["is_resolved"] is True and check(state)["conclusion"] == "success"


def test_a_rerun_past_the_inline_cap_writes_nothing(huge):
    """More items than `max_inline_comments`: the second run of the same head must not post the next batch."""
    recipe = {f"benchmarks/multi_node/r/bad-{i}.yaml": "a: 1\nb: 2\nc: d: e\nf: 3\n" for i in range(3)}
    h = huge(main_extra={".github/recipe-review.yml": "max_inline_comments: 2\n"})
    h.push(selected=[KEYS[0]], extra=recipe)
    state = h.settle()
    assert len([c for c in state["review_comments"]]) == 2
    assert "#### Not on a diff line (details here)" in summary(state)
    before = len(state["calls"])
    for _ in range(2):
        h.deliver("pull_request", h.payload("synchronize"))
        state = h.settle()
    assert paths(state["calls"][before:]) == [] and len(state["reviews"]) == 1


def _post_as_previous_version(h, findings, body_of):
    """What an earlier release of the bot left on the PR: one review, one comment per finding."""
    head = h.state()["prs"]["7"]["head"]["sha"]
    comments = [{"path": f.path, "line": f.line + 1, "side": "RIGHT", "body": body_of(f)} for f in findings]
    r = requests.post(f"{h.fake_url}/repos/octo/bench/pulls/7/reviews", timeout=10,
                      headers={"Authorization": "token t"},
                      json={"commit_id": head, "body": "old", "event": "COMMENT", "comments": comments})
    assert r.status_code == 200, r.text


def _legacy(f) -> str:
    """An inline body as the previous release wrote it: no problem-key marker."""
    return render.inline_comment(f, False).replace(render.problem_marker(problem_key(
        f.code, f.path, f.message, f.line)), "")


def test_upgrade_replaces_singles_with_the_group_without_fixed_replies(huge, git_repo):
    h = huge()
    report = run(changeset_from_git(git_repo.path, "main", "pr", 7))
    rr011 = [f for f in report.findings if f.code == "RR011"]
    assert len(rr011) == 8
    _post_as_previous_version(h, rr011, _legacy)
    calls = len(h.state()["calls"])
    h.deliver("pull_request", h.payload("synchronize"))
    state = h.settle()
    threads = state["review_threads"]
    assert sum(t["is_resolved"] for t in threads) == 8 and len(threads) == 9
    assert not any("Fixed in" in c["body"] for c in state["review_comments"])  # superseded, not fixed
    (group,) = [c for c in inline(state) if "8 changed keys" in c["body"]]
    w = paths(state["calls"][calls:])
    assert sum(p.endswith("/reviews") for p in w) == 1 and not any("/replies" in p for p in w)
    before = len(state["calls"])
    h.deliver("pull_request", h.payload("synchronize"))
    assert paths(h.settle()["calls"][before:]) == []


def test_upgrade_that_rewords_a_finding_keeps_its_thread(huge, git_repo):
    h = huge()
    h.push(selected=KEYS[:8], deliver=False)  # one key (k8) left unselected: a single finding
    h.fake.move_head(7, "pr")
    report = run(changeset_from_git(git_repo.path, "main", "pr", 7))
    (f,) = [f for f in report.findings if f.code == "RR011"]
    old = dataclasses.replace(f, message=f.message.replace(
        "is changed here but no new changelog entry selects it", "is not selected"))  # the old wording
    assert old.fingerprint != f.fingerprint
    _post_as_previous_version(h, [old], _legacy)
    calls = len(h.state()["calls"])
    h.deliver("pull_request", h.payload("synchronize"))
    state = h.settle()
    (c,) = inline(state)
    assert f.message in c["body"] and render.parse_problem_marker(c["body"])  # rewritten in place
    w = paths(state["calls"][calls:])
    assert w.count(f"PATCH /repos/octo/bench/pulls/comments/{c['id']}") == 1
    assert not any(p.endswith("/reviews") or "/replies" in p for p in w)
    assert not any(t["is_resolved"] for t in state["review_threads"])


def test_ignore_end_to_end(huge):
    h = huge()
    h.deliver("pull_request", h.payload("opened"))
    state = h.settle()
    assert check(state)["conclusion"] == "failure"

    h.comment("bob", "/ignore RR011 integration branch")  # write permission: not enough
    state = h.settle()
    (refusal,) = [c for c in state["issue_comments"] if "`/ignore`" in c["body"]]
    assert "needs `maintain` permission" in refusal["body"] and "you have `write`" in refusal["body"]
    assert check(state)["conclusion"] == "failure"

    before = len(state["calls"])
    h.comment("alice", "/ignore changed-config-not-selected keys land in the follow-up <!-- x -->")
    state = h.settle()
    reply = [c for c in state["issue_comments"] if "`/ignore`" in c["body"]][-1]
    assert "`RR011` changed-config-not-selected is ignored on this PR" in reply["body"]
    assert "<!-- x -->" not in reply["body"]  # user text cannot carry markers
    body = summary(state)
    assert "### Ignored on this PR" in body and "8 findings (🔴 blocking) not counted; ignored by @alice" in body
    assert "keys land in the follow-up" in body
    cr = check(state)
    assert cr["conclusion"] == "success" and cr["output"]["title"] == "No findings, 8 ignored"
    assert all(t["is_resolved"] for t in state["review_threads"])
    assert not any("Fixed in" in c["body"] for c in state["review_comments"])
    assert any(r["content"] == "+1" for r in state["reactions"])
    assert any(p.startswith("PATCH /repos/octo/bench/check-runs/") for p in paths(state["calls"][before:]))

    h.push(selected=[KEYS[0]], changed=range(1, 10))  # a later push (now nine keys): still ignored
    state = h.settle()
    cr = check(state)
    assert cr["conclusion"] == "success" and "9 ignored" in cr["output"]["title"]
    assert "9 findings (🔴 blocking) not counted; ignored by @alice" in summary(state)
    assert len(inline(state)) == 1  # nothing re-posted

    h.comment("alice", "/ignore RR011 off")
    state = h.settle()
    assert check(state)["conclusion"] == "failure" and "### Ignored on this PR" not in summary(state)
    assert len([c for c in inline(state) if "9 changed keys" in c["body"]]) == 1  # shown again


def test_ignore_counts_for_the_sweep_gate(huge):
    h = huge()
    h.fake.set_labels(7, ["full-sweep-fail-fast"], "alice")
    h.deliver("pull_request", h.payload("opened"))
    gate = [r for r in h.settle()["check_runs"] if r["name"] == "sweep-gate"]
    assert [g["conclusion"] for g in gate] == ["failure"]
    h.comment("alice", "/ignore RR011")
    state = h.settle()
    (g,) = [r for r in state["check_runs"] if r["name"] == "sweep-gate"]
    assert g["conclusion"] == "success", g["output"]
    assert "ignored by @alice (no reason given)" in summary(state)


@pytest.mark.parametrize("body,answer", [
    ("/ignore", "say which rule"),
    ("/ignore RR999 because", "no rule `RR999`"),
    ("/unignore RR011", "`RR011` is not ignored on this PR"),
], ids=["no code", "unknown code", "unignore what is not ignored"])
def test_ignore_answers_mistakes_and_changes_nothing(huge, body, answer):
    h = huge()
    h.deliver("pull_request", h.payload("opened"))
    h.settle()
    h.comment("alice", body)
    state = h.settle()
    assert any(answer in c["body"] for c in state["issue_comments"]), [c["body"] for c in state["issue_comments"]]
    assert check(state)["conclusion"] == "failure"


@pytest.mark.parametrize("with_changelog", [False, True], ids=["base without a changelog", "base with one"])
def test_entry_required_only_where_the_base_has_a_changelog(tmp_path, git_repo, fake_github, with_changelog):
    script = "benchmarks/single_node/dsv4_fp4_b200_vllm.sh"
    git_repo.commit({script: "vllm serve m\n", **({LOG: entry([KEYS[0]], 1)} if with_changelog else {})}, "main")
    git_repo.commit({script: "vllm serve m --tp 8\n"}, "tune", branch="pr")
    fake_github.add_pr(9, base="main", head="pr")
    h = BotHarness(tmp_path, fake_github.url, 9)
    try:
        h.deliver("pull_request", h.payload("opened"))
        state = h.settle()
    finally:
        h.close()
    (cr,) = [r for r in state["check_runs"] if r["name"] == "recipe-review"]
    body = summary(state)
    if with_changelog:
        assert cr["conclusion"] == "success" and len(inline(state, "RR009")) == 1  # a nit (notes/proof.md)
    else:
        assert cr["conclusion"] == "success" and inline(state, "RR009") == []
        assert "no entry required: the base has no changelog file" in body
    assert sum(1 for c in state["calls"] if c["path"] == "/graphql") == 1  # probed within the one read
