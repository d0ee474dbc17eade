"""Property: the rules engine turns any changeset — random, adversarial, broken — into a report
without an exception and without a rule crash (an RR000 finding counts as a failure here)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.changeset import ChangeSet, FileChange
from rules.runner import CRASH_CODE, run
from tests.fuzz.strategies import ADVERSARIAL, ADVERSARIAL_FULL, PATHS, changesets

EXAMPLES = int(os.environ.get("RECIPE_REVIEW_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def assert_no_crash(cs: ChangeSet) -> None:
    report = run(cs)
    crashes = [f.message for f in report.findings if f.code == CRASH_CODE]
    assert not crashes, crashes


@FUZZ
@given(changesets())
def test_random_changesets_never_crash_a_rule(cs):
    assert_no_crash(cs)


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
@pytest.mark.parametrize("path", [PATHS[0], PATHS[3], PATHS[5], PATHS[6], PATHS[8]],
                         ids=["changelog", "master", "runners", "recipe", "script"])
def test_adversarial_file_is_a_finding_or_skip_not_a_crash(name, path):
    raw = ADVERSARIAL[name](0)
    for cs in (
        ChangeSet(
            files=(FileChange(path=path, status="modified", base=b"a: 1\n", head=raw, patch="@@ -1 +1 @@\n-a\n+b"),)
        ),
        ChangeSet(files=(FileChange(path=path, status="added", head=raw),), pr_number=1),
        ChangeSet(files=(FileChange(path=path, status="removed", base=raw),)),
    ):
        assert_no_crash(cs)


@FUZZ
@given(st.sampled_from(sorted(ADVERSARIAL)), st.sampled_from(PATHS))
def test_adversarial_content_anywhere(name, path):
    assert_no_crash(ChangeSet(files=(FileChange(path=path, status="added", head=ADVERSARIAL[name](1)),)))


def test_full_size_alias_bomb_and_nesting_are_bounded():
    """The full-size versions that stay cheap (the slow ones run in benchmarks/fuzz.py)."""
    for name in ("alias bomb", "recursive alias", "deep map nesting", "binary", "invalid utf-8"):
        for path in (PATHS[0], PATHS[3], PATHS[6]):
            assert_no_crash(ChangeSet(files=(FileChange(path=path, status="added", head=ADVERSARIAL_FULL[name](0)),)))


def test_nothing_in_a_pr_is_executed(tmp_path):
    marker = Path("/tmp/recipe-review-pwned")
    marker.unlink(missing_ok=True)
    raw = ADVERSARIAL["python tag"](0)
    for path in PATHS:
        assert_no_crash(ChangeSet(files=(FileChange(path=path, status="added", head=raw),)))
    assert not marker.exists()
