"""Replay the changelog rules (RR001-RR007, RR014-RR016) over every real PR that touches perf-changelog.yaml.

Agreement criteria: every PR the strict validator (today's, applied after the fact) rejects for
placement or history gets a placement or history finding, RR001/RR002/RR015 or RR026 (a revert PR
excepted: the written exception); every PR that the CI gate and the strict validator accept and
whose head is the base bytes plus appended entries gets none. The only exceptions are the PRs listed,
with reasons, in benchmarks/replay_changelog.py KNOWN_DISAGREEMENTS — and each must still be a
disagreement (a stale explanation fails). Skips when ../shared is absent, fails instead when
RECIPE_REVIEW_REQUIRE_SHARED=1. `python benchmarks/replay_changelog.py` prints the full report.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / ".." / "shared" / "inferencex"

pytestmark = pytest.mark.shared


def _load_replay():
    spec = importlib.util.spec_from_file_location("replay_changelog", ROOT / "benchmarks" / "replay_changelog.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def outcomes():
    if not (SHARED / "prs-dev.jsonl.xz").exists():
        if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
            pytest.fail(f"shared data missing at {SHARED}")
        pytest.skip("shared InferenceX data not present")
    mod = _load_replay()
    return mod, mod.replay()


def test_replay_covers_the_changelog_prs(outcomes):
    mod, out = outcomes
    assert len(out) > 1000
    assert not [o.number for o in out if any(c.startswith("RR000") or c.endswith(":error") for c in o.codes)]


def test_every_placement_or_history_rejection_is_blocked(outcomes):
    mod, out = outcomes
    rejected = [o for o in out if set(o.reasons) & set(mod.PLACEMENT_REASONS)]
    reverts = [o for o in rejected if mod.REVERT_TITLE.match(o.title)]
    missed = [o.number for o in rejected if not o.flagged and o not in reverts]
    unexplained = [n for n in missed if n not in mod.KNOWN_DISAGREEMENTS]
    assert not unexplained, f"validator rejects, no placement or history finding: {unexplained}"
    assert len(rejected) - len(reverts) - len(missed) >= 225, (len(rejected), len(reverts), len(missed))
    assert reverts  # revert PRs are in the data: the exception above is not vacuous


def test_clean_appends_get_no_placement_or_history_finding(outcomes):
    mod, out = outcomes
    accepted = [o for o in out if o.ci_passed and o.strict_ok and o.plain_append]
    flagged = [(o.number, o.first_messages[:1]) for o in accepted if o.flagged]
    assert len(accepted) > 700 and not flagged
    assert all(o.appends_entry for o in accepted if "RR002" not in o.codes)


def test_known_disagreements_are_still_disagreements(outcomes):
    mod, out = outcomes
    by_number = {o.number: o for o in out}
    stale = [n for n in mod.KNOWN_DISAGREEMENTS
             if n not in by_number or by_number[n].flagged
             or not set(by_number[n].reasons) & set(mod.PLACEMENT_REASONS)]
    assert not stale, f"explained disagreements that no longer disagree: {stale}"
