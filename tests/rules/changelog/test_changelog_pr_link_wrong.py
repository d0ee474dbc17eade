"""RR004 changelog-pr-link-wrong and its placeholder sibling RR005: the pr-link of a new entry."""
import pytest

from rules.changelog.checks import changelog_pr_link_placeholder as rr005
from rules.changelog.checks import changelog_pr_link_wrong as rr004
from tests.rules.changelog_helpers import BASE, REPO, append, apply_suggestion, entry, review

CANON = f"https://github.com/{REPO}/pull/4867"

VARIANTS = [
    ("canonical", CANON, None, None),
    ("placeholder-xxx", "XXX", "RR005", None),
    ("placeholder-url", f"https://github.com/{REPO}/pull/XXX", "RR005", None),
    ("tbd", "TBD", "RR004", "it is not a GitHub pull request link"),
    ("other-pr", f"https://github.com/{REPO}/pull/4852", "RR004", "it links PR #4852, not this PR #4867"),
    (
        "old-org",
        "https://github.com/InferenceMAX/InferenceMAX/pull/4867",
        "RR004",
        "it points at the old `InferenceMAX/InferenceMAX` repository",
    ),
    (
        "old-org-placeholder",
        "https://github.com/InferenceMAX/InferenceMAX/pull/XXX",
        "RR004",
        "it points at the old `InferenceMAX/InferenceMAX` repository",
    ),
    ("changes-suffix", CANON + "/changes", "RR004", "it has a `/changes` suffix"),
    ("files-suffix", CANON + "/files", "RR004", "it has a `/files` suffix"),
    ("http", CANON.replace("https", "http"), "RR004", "it uses `http://`"),
    ("trailing-slash", CANON + "/", "RR004", "it has a trailing slash"),
    (
        "fork",
        "https://github.com/someone/InferenceX/pull/4867",
        "RR004",
        f"it points at `someone/InferenceX`, not `{REPO}`",
    ),
    ("lowercase-xxx", f"https://github.com/{REPO}/pull/xxx", "RR004", "it is not of the form"),
]


@pytest.mark.parametrize("link, code, reason", [v[1:] for v in VARIANTS], ids=[v[0] for v in VARIANTS])
def test_pr_link_variants(link, code, reason):
    head = append(BASE, entry("dsv4-fp4-b200-vllm", link))
    r = review(BASE, head, rr004, rr005)
    assert [f.code for f in r.findings] == ([code] if code else [])
    if code:
        f = r.findings[0]
        assert f.line == head.count("\n") and f"`{link}`" in f.message
        assert apply_suggestion(head, f) == append(BASE, entry("dsv4-fp4-b200-vllm", 4867))
    if code == "RR004":
        assert reason in r.findings[0].message and r.findings[0].blocking
    if code == "RR005":
        assert not r.findings[0].blocking and "merge path canonicalizes it" in r.findings[0].message


@pytest.mark.parametrize("link, code", [
    (CANON, None), (f"https://github.com/{REPO}/pull/4852", None), ("TBD", "RR004"), ("XXX", "RR005"),
], ids=["canonical", "any-number", "tbd", "placeholder"])
def test_unknown_pr_number_accepts_any_canonical_link_and_says_so(link, code):
    r = review(BASE, append(BASE, entry("k", link)), rr004, rr005, pr=None)
    assert [f.code for f in r.findings] == ([code] if code else [])
    assert all(f.suggestion is None for f in r.findings)
    if code is None:
        assert any(c.status == "skipped" and "PR number is unknown" in c.detail for c in r.checks)


def test_unknown_repository_accepts_any_owner():
    r = review(BASE, append(BASE, entry("k", "https://github.com/fork/bench/pull/4867")), rr004, repo=None)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_old_entries_links_are_not_checked():
    base = append(BASE, entry("k", "https://github.com/InferenceMAX/InferenceMAX/pull/1"))
    r = review(base, append(base, entry("n", 4867)), rr004)
    assert r.findings == []


def test_old_org_link_is_canonical_for_a_base_before_the_rename():
    import dataclasses

    from rules import run
    from rules.changelog.checks import changelog_pr_link_wrong
    from rules.conventions import ORG_RENAME
    from tests.rules.changelog_helpers import BASE, NEW, changeset

    head = BASE + "\n" + NEW.replace("SemiAnalysisAI/InferenceX", "InferenceMAX/InferenceMAX")
    cs = changeset(BASE, head)
    before = run(dataclasses.replace(cs, base_time=ORG_RENAME - 86400), rules=[changelog_pr_link_wrong])
    assert before.findings == [] and before.checks[0].status == "passed"
    [f] = run(cs, rules=[changelog_pr_link_wrong]).findings  # today: the old org is wrong
    assert "old `InferenceMAX/InferenceMAX` repository" in f.message
