"""rules.conventions: which convention is in force at a base revision."""
import dataclasses

from rules.changeset import ChangeSet
from rules.context import ReviewContext
from rules.conventions import (
    APPEND_ONLY,
    CURRENT_REPO,
    OLD_REPO,
    ORG_RENAME,
    STRICT_VALIDATOR,
    Conventions,
    at,
    conventions,
)


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


def test_the_base_tip_admits_what_main_added_after_the_pr_branched():
    """The PR-run check runs the head merged into the base tip: a key or field the tip's tooling
    knows is valid even when the merge base's did not have it yet (RR003, RR104)."""
    branched = Conventions(APPEND_ONLY - 1)
    assert "append-only" not in branched.entry_keys()
    assert "append-only" in Conventions(APPEND_ONLY - 1, tip_time=APPEND_ONLY).entry_keys()
    assert Conventions(APPEND_ONLY - 1, tip_time=APPEND_ONLY).admits(APPEND_ONLY, 2**62)
    # a field the tip removed is still admitted where the merge base had it, and not where neither does
    assert Conventions(10, tip_time=30).admits(0, 20) and not Conventions(25, tip_time=30).admits(0, 20)
    cs = dataclasses.replace(ChangeSet(files=()), base_time=APPEND_ONLY - 1, base_tip_time=APPEND_ONLY + 1)
    assert "append-only" in conventions(ReviewContext(cs)).entry_keys()


def test_a_master_field_the_tip_added_is_valid():
    from rules import FileChange, run
    from rules.conventions import COMPONENT_METADATA
    from rules.master.checks import master_config_schema_invalid as rr104
    from tests.rules.mc_helpers import BASE, NV, ROWS, master

    head = master(
        ROWS[0],
        ROWS[1].replace("  precision:", "  router: { name: sglang-router, version: '0.3.2' }\n  precision:"),
        ROWS[2],
    )
    cs = ChangeSet(files=(FileChange(NV, "modified", base=BASE, head=head),), base_time=COMPONENT_METADATA - 100)
    assert any("router" in f.message for f in run(cs, rules=[rr104]).findings)
    cs = dataclasses.replace(cs, base_tip_time=COMPONENT_METADATA + 100)
    assert not any("router" in f.message for f in run(cs, rules=[rr104]).findings)
