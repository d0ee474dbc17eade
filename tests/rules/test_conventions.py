"""rules.conventions: which convention is in force at a base revision."""
import dataclasses

from rules.changeset import ChangeSet
from rules.context import ReviewContext
from rules.conventions import (APPEND_ONLY, CURRENT_REPO, OLD_REPO, ORG_RENAME, STRICT_VALIDATOR, Conventions, at,
                               conventions)


def test_unknown_base_time_means_todays_conventions():
    c = Conventions()
    assert c.merge_path and c.canonical_repos == (CURRENT_REPO,) and "append-only" in c.entry_keys()
    assert c.label == "today's tooling"


def test_dated_conventions():
    assert at(ORG_RENAME - 1).canonical_repos == (OLD_REPO, CURRENT_REPO)
    assert not at(STRICT_VALIDATOR - 1).merge_path and at(STRICT_VALIDATOR).merge_path
    assert "append-only" not in at(APPEND_ONLY - 1).entry_keys()
    assert at(STRICT_VALIDATOR).label == "the tooling of 2026-06-18"


def test_conventions_of_a_review_come_from_the_changeset():
    cs = dataclasses.replace(ChangeSet(files=()), base_time=ORG_RENAME - 1)
    assert conventions(ReviewContext(cs)).canonical_repos[0] == OLD_REPO
