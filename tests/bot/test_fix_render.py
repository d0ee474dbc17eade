"""The pure parts of `/fix`: what the review offers, the patch block, the commit message, and which
GitHub refusals become a reply (the rest are retried)."""
from __future__ import annotations

import pytest

from bot import render
from bot.github import GitHubError, HeadInfo
from bot.handlers.commands import _push_refused
from rules.finding import Finding, Severity
from rules.runner import Report


def finding(code, suggestion=None, line=3):
    return Finding(path="perf-changelog.yaml", line=line, code=code, name="x", severity=Severity.BLOCKING,
                   message=f"{code} message", suggestion=suggestion)


def test_the_summary_offers_fix_for_a_misplaced_entry():
    r = Report(findings=[finding("RR001"), finding("RR004", "  pr-link: x")])
    fps = frozenset(f.fingerprint for f in r.findings)
    line = render.fix_offer_line(r, fps)
    assert render.FIX_OFFER_MISPLACED in line and "have an automatic fix" not in line and "other 1" in line
    assert render.fix_offer_line(r, frozenset()) is None
    only_links = Report(findings=[finding("RR004", "  pr-link: x")])
    assert "1 finding(s) have an automatic fix" in render.fix_offer_line(
        only_links, frozenset(f.fingerprint for f in only_links.findings))
    body = render.summary_comment(r, "a" * 40, set(), [], fps)
    assert render.FIX_OFFER_MISPLACED in body
    assert render.FIX_OFFER_MISPLACED not in render.summary_comment(r, "a" * 40, set(), [])


def test_only_the_misplaced_entry_comment_offers_fix():
    assert render.FIX_OFFER_MISPLACED in render.inline_comment(finding("RR001"), False, fix_offer=True)
    assert "/fix" not in render.inline_comment(finding("RR001"), False, fix_offer=False)
    assert "/fix" not in render.inline_comment(finding("RR004"), True, fix_offer=True)


def test_patch_block_is_collapsed_and_bounded():
    diff = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
    block = render.patch_block(diff, "origin/main --pr-number 7")
    assert block.startswith("<details>") and "```diff\n" + diff + "```" in block
    long = diff + "+x\n" * render.MAX_PATCH_CHARS
    assert "too long for a comment" in render.patch_block(long, "origin/main --pr-number 7")
    assert "recipe-review fix --base origin/main --pr-number 7" in render.patch_block(long, "origin/main --pr-number 7")
    fenced = render.patch_block(diff + "+```\n", "x")
    assert "````diff" in fenced


def test_commit_message_names_what_it_fixes_and_the_comment():
    msg = render.fix_commit_message(["RR001 changelog-entry-misplaced ×1 (perf-changelog.yaml)"],
                                    {"perf-changelog.yaml": ["moved 1 new entry to the end"]}, "maint", 7, "issue:42")
    assert msg.startswith("Apply recipe-review fixes (RR001)\n\n")
    assert "- moved 1 new entry to the end" in msg and "@maint's `/fix` on #7" in msg
    assert msg.rstrip().endswith(f"{render.FIX_TRAILER}: issue:42")


HEAD = HeadInfo("octo/bench", "feature", "a" * 40, False, "User", False)
FORK = HeadInfo("dana/bench", "feature", "a" * 40, True, "User", True)


@pytest.mark.parametrize("status,message,head,expected", [
    (422, "updating the branch: 422 Update is not a fast forward", HEAD, "not a fast-forward"),
    (422, "updating the branch: 422 Protected branch update failed for refs/heads/feature.", HEAD, "is protected"),
    (403, "writing a blob: 403 Resource not accessible by integration", HEAD, "an admin must accept"),
    (403, "writing a blob: 403 Resource not accessible by integration", FORK, "did not let the App write to the fork"),
    (404, "writing a blob: 404 Not Found", FORK, "did not let the App write to the fork"),
    (502, "writing a blob: 502 Server Error", HEAD, None),
    (404, "writing a blob: 404 Not Found", HEAD, None),
], ids=["moved", "protected", "permission", "fork-403", "fork-404", "server-error-retried", "base-404-retried"])
def test_push_refusals(status, message, head, expected):
    reply = _push_refused(GitHubError(message, status), head)
    assert (reply is None) if expected is None else (expected in reply)
