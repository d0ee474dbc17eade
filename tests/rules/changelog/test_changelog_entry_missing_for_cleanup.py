"""RR010 changelog-entry-missing-for-cleanup: reverts, removals and deprecation moves are a nit."""
import pytest

from rules import run
from rules.changelog.checks import changelog_entry_missing_for_cleanup as rule
from rules.changeset import ChangeSet, FileChange
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, entry, master, modified, patch_for, row

RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/dsv4/agg-tp8.yaml"
GONE = master(ROWS[0], ROWS[2])


def _run(*files, title=None):
    return run(ChangeSet(files=tuple(files), title=title), rules=[rule])


@pytest.mark.parametrize("files, title, evidence", [
    ([modified(NV, BASE, GONE, patch_for(deleted_at=16))], None, "only removes or moves"),
    ([FileChange(RECIPE, "removed")], None, "only removes or moves"),
    ([FileChange("configs/deprecated/nvidia-x-master.yaml", "renamed", base=BASE, head=BASE, previous_path=NV)],
     None, "only removes or moves"),
    ([modified(NV, BASE, master(ROWS[0], row("dsv4-fp4-b300-vllm", tp=2), ROWS[2]), patch_for([29]))],
     'Revert "Raise TP"', "marks a revert"),
], ids=["key removed", "recipe removed", "whole master file moved to deprecated", "revert that changes a key"])
def test_cleanup_is_a_nit(files, title, evidence):
    [f] = _run(*files, title=title).findings
    assert (f.code, f.blocking) == ("RR010", False)
    assert "appends no perf-changelog entry" in f.message and evidence in f.evidence[0]


@pytest.mark.parametrize("files, title", [
    ([modified(NV, BASE, master(ROWS[0], row("dsv4-fp4-b300-vllm", tp=2), ROWS[2]), patch_for([29]))], None),
    ([modified(NV, BASE, GONE, patch_for(deleted_at=16)), changelog(entry("dsv4-fp4-b200-vllm"))], None),
    ([FileChange(RECIPE, "removed"), changelog(entry("dsv4-fp4-b200-vllm"))], "Revert x"),
    ([FileChange("docs/x.md", "removed")], "Revert docs"),
], ids=["real change is RR009's", "removal with an entry", "revert with an entry", "revert touching no benchmark file"])
def test_not_reported(files, title):
    assert _run(*files, title=title).findings == []


def test_revert_message_says_revert():
    [f] = _run(FileChange(RECIPE, "modified", patch=patch_for([3])), title="revert: x").findings
    assert f.message == f"this revert PR changes `{RECIPE}` but appends no perf-changelog entry to record it"
    assert f.line == 3
