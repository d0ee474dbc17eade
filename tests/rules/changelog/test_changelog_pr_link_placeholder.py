"""RR005 changelog-pr-link-placeholder: `XXX` is a nit the merge path canonicalizes."""
import pytest

from rules.changelog.checks import changelog_pr_link_placeholder as rr005
from tests.rules.changelog_helpers import BASE, REPO, append, entry, review


@pytest.mark.parametrize("link", ["XXX", f"https://github.com/{REPO}/pull/XXX"], ids=["bare", "url"])
def test_placeholder_is_a_nit_with_the_canonical_link(link):
    r = review(BASE, append(BASE, entry("k", link)), rr005)
    assert len(r.findings) == 1
    f = r.findings[0]
    assert f.code == "RR005" and not f.blocking
    assert f.suggestion == f"  pr-link: https://github.com/{REPO}/pull/4867"


def test_without_a_pr_number_there_is_no_suggestion():
    f = review(BASE, append(BASE, entry("k", "XXX")), rr005, pr=None).findings[0]
    assert f.suggestion is None and f.message == (
        "pr-link `XXX` is a placeholder; the merge path canonicalizes it. Both gates accept "
        "this; only the documented contract (the PR number is known by now) "
        "forbids it."
    )


@pytest.mark.parametrize("link", [f"https://github.com/{REPO}/pull/4867", "TBD", "xxx",
                                  "https://github.com/InferenceMAX/InferenceMAX/pull/XXX"],
                         ids=["canonical", "tbd", "lowercase", "old-org"])
def test_not_placeholders(link):
    assert review(BASE, append(BASE, entry("k", link)), rr005).findings == []
