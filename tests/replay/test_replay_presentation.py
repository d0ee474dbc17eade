"""Replay real InferenceX PRs from ../shared/inferencex/ix-dev.bundle through the App on the fake GitHub.

- #1709 @ 186b4e89 (an integration branch: 60 `RR011` nits in two master configs): at most one posted
  comment per rule per file and 20 in all; a re-run of the same head writes nothing; `/ignore RR011`
  refused for `write`, accepted for `maintain`, and kept after a push. (`benchmarks/huge_pr.py` prints
  the same figures.)
- #111, whose base has no changelog file at all: no "entry required" finding, a passed check instead.

Skips when the bundle is absent, fails instead when RECIPE_REVIEW_REQUIRE_SHARED=1.
"""
from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bot import render
from bot.localgit import changeset_from_git
from rules import run
from tests.bot.scenario import BundleScenario, writes

BUNDLE = Path(__file__).resolve().parents[2] / ".." / "shared" / "inferencex" / "ix-dev.bundle"

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def mirror(tmp_path_factory) -> Path:
    if not BUNDLE.exists():
        if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
            pytest.fail(f"shared bundle missing at {BUNDLE}")
        pytest.skip("shared InferenceX bundle not present")
    out = tmp_path_factory.mktemp("ix") / "ix.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(BUNDLE), str(out)], check=True)
    return out


def _check(state, number):
    head = state["prs"][str(number)]["head"]["sha"]
    (cr,) = [r for r in state["check_runs"] if r["name"] == "recipe-review" and r["head_sha"] == head]
    return cr


def test_1709_is_readable_idempotent_and_ignorable(tmp_path, mirror):
    s = BundleScenario(tmp_path, mirror, 1709, "186b4e89", collaborators={"maint": "maintain", "writer": "write"})
    try:
        s.deliver("pull_request", s.payload("opened"))
        state = s.settle()
        posted = [c for c in state["review_comments"] if c.get("in_reply_to_id") is None]
        per = Counter((render.parse_finding_marker(c["body"])[0], c["path"]) for c in posted)
        assert max(per.values()) == 1 and len(posted) <= 20, per
        assert per[("RR011", ".github/configs/nvidia-master.yaml")] == 1
        (group,) = [c for c in posted if "37 changed keys are selected by no new entry" in c["body"]]
        assert "```suggestion" not in group["body"]
        # RR011 is a nit (judged: 3 of 10 of its findings were not the PR's own change), so the 60 do
        # not fail the check; the title counts whatever else blocks, and `/ignore` takes the 60 out
        title = _check(state, 1709)["output"]["title"]
        assert title.endswith("blocking finding") or title.endswith("blocking findings") or title.startswith(
            "No blocking findings"), title

        before = len(state["calls"])
        s.deliver("pull_request", s.payload("synchronize"))
        state = s.settle()
        assert writes(state["calls"][before:]) == []

        s.comment("writer", "/ignore RR011 integration branch")
        state = s.settle()
        assert any("needs `maintain` permission" in c["body"] for c in state["issue_comments"])
        assert _check(state, 1709)["output"]["title"] == title

        s.comment("maint", "/ignore RR011 integration branch")
        state = s.settle()
        ignored = _check(state, 1709)["output"]["title"]
        assert ignored.endswith(", 60 ignored") and (title.startswith("No blocking") or
                                                     ignored == f"{title}, 60 ignored"), (title, ignored)

        s.push({"perf-changelog.yaml": s.show("perf-changelog.yaml").rstrip(b"\n") + b"\n"})
        state = s.settle()
        cr = _check(state, 1709)
        assert cr["head_sha"] != "186b4e89" and cr["output"]["title"] == ignored
        assert "ignored by @maint: integration branch" in next(
            c["body"] for c in state["issue_comments"] if render.SUMMARY_MARKER in c["body"])
    finally:
        s.close()


def test_111_base_without_a_changelog_requires_no_entry(mirror):
    report = run(changeset_from_git(mirror, "refs/heads/main", "refs/pull/111/head", 111))
    assert [f for f in report.findings if f.code in ("RR009", "RR010")] == []
    (said,) = [c for c in report.checks if c.code == "RR009"]
    assert said.status == "passed" and "the base has no changelog file" in said.detail
