"""Replay the master-config rules on the real InferenceX snapshot (../shared/inferencex/snapshot).

Every key of nvidia-master.yaml and amd-master.yaml is treated as added: RR101 (image public) and
RR103 (key prefix) must report nothing blocking (RULES.md: 208/208 HEAD keys pass both), and every
key must be verified (no Skipped). The last 50 changelog entries, treated as new, must resolve
against the snapshot's master configs (RR008). Skips when the data is absent, fails instead when
RECIPE_REVIEW_REQUIRE_SHARED=1. The PR-head replay and its counts: benchmarks/replay_masterconfig.py.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rules.changelog.checks import (
    changelog_config_key_unknown,
)
from rules.changeset import ChangeSet, FileChange
from rules.master.checks import (
    master_image_not_public,
    master_image_unpinned,
    master_key_prefix_mismatch,
)
from rules.runner import run

SNAPSHOT = Path(__file__).resolve().parents[2] / ".." / "shared" / "inferencex" / "snapshot"
MASTERS = {"configs/nvidia-master.yaml": "nvidia-master.yaml", "configs/amd-master.yaml": "amd-master.yaml"}

pytestmark = pytest.mark.shared


def _snapshot_or_skip() -> Path:
    if not (SNAPSHOT / "nvidia-master.yaml").exists():
        if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
            pytest.fail(f"shared data missing at {SNAPSHOT}")
        pytest.skip("shared InferenceX data not present")
    return SNAPSHOT


@pytest.fixture(scope="module")
def masters() -> dict[str, bytes]:
    snap = _snapshot_or_skip()
    return {path: (snap / name).read_bytes() for path, name in MASTERS.items()}


def test_every_snapshot_key_has_a_public_image_and_its_prefix(masters):
    cs = ChangeSet(files=tuple(FileChange(p, "added", head=raw) for p, raw in masters.items()))
    report = run(cs, rules=[master_image_not_public, master_image_unpinned, master_key_prefix_mismatch])
    assert [f for f in report.findings if f.code in ("RR101", "RR103") and f.blocking] == []
    assert report.findings == []  # RULES.md C6: 208/208 tagged, none `latest`
    assert {c.status for c in report.checks} == {"passed"}
    prefixed = sum(int(re.match(r"(\d+) key", c.detail).group(1)) for c in report.checks if c.code == "RR103")
    assert prefixed == 208


def test_recent_changelog_entries_resolve(masters):
    changelog = (_snapshot_or_skip() / "perf-changelog.yaml").read_bytes()
    starts = [m.start() for m in re.finditer(rb"^- config-keys:", changelog, re.M)]
    base = changelog[:starts[-50]]
    cs = ChangeSet(files=(FileChange("perf-changelog.yaml", "modified", base=base, head=changelog),), context=masters)
    report = run(cs, rules=[changelog_config_key_unknown])
    assert report.findings == []
    assert [c.status for c in report.checks] == ["passed"]
