"""RR009 changelog-entry-missing (and where RR010 takes over): benchmark changes need an entry."""
import pytest

from rules import run
from rules.changelog.changes import patch_lines
from rules.changelog.checks import changelog_entry_missing as rule
from rules.changelog.checks import changelog_entry_missing_for_cleanup as cleanup
from rules.changeset import ChangeSet, FileChange
from tests.rules.mc_helpers import (
    BASE,
    CHANGELOG,
    CL_BASE,
    NV,
    ROWS,
    changelog,
    entry,
    master,
    modified,
    patch_for,
    row,
)

RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/dsv4/agg-tp8.yaml"
SCRIPT = "benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_vllm.sh"
DEP_NV = "configs/deprecated/nvidia-dsv4-master.yaml"
B300_CHANGED = master(ROWS[0], row("dsv4-fp4-b300-vllm", tp=4), ROWS[2])
B300_GONE = master(ROWS[0], ROWS[2])


def _run(*files, title=None, rules=(rule, cleanup)):
    return run(ChangeSet(files=tuple(files), title=title), rules=list(rules))


CASES = [
    ("master key changed", [modified(NV, BASE, B300_CHANGED, patch_for([10, 29]))], None, "RR009", 29),
    ("master key changed, no patch", [modified(NV, BASE, B300_CHANGED)], None, "RR009", 16),
    ("master key added", [modified(NV, BASE, master(*ROWS, row("dsv4-fp4-gb200-vllm")), patch_for([46]))],
     None, "RR009", 46),
    ("master comment only", [modified(NV, BASE, BASE.replace(b"model: org/model\n", b"model: org/model  # x\n", 1),
                                      patch_for([3]))], None, None, None),
    ("recipe modified", [FileChange(RECIPE, "modified", patch=patch_for([7, 9]))], None, "RR009", 7),
    ("script added without patch", [FileChange(SCRIPT, "added")], None, "RR009", 0),
    ("recipe moved unchanged", [FileChange(RECIPE, "renamed", base=b"a: 1\n", head=b"a: 1\n",
                                           previous_path=RECIPE.replace("agg", "old"))], None, "RR010", 0),
    ("recipe moved and edited", [FileChange(RECIPE, "renamed", base=b"a: 1\n", head=b"a: 2\n", patch=patch_for([1]),
                                            previous_path=RECIPE.replace("agg", "old"))], None, "RR009", 1),
    ("deprecated recipe edited", [FileChange("benchmarks/single_node/deprecated/x.sh", "modified",
                                             patch=patch_for([3]))], None, None, None),
    ("unrelated file", [FileChange("README.md", "modified", patch=patch_for([1]))], None, None, None),
    ("recipe removed", [FileChange(RECIPE, "removed")], None, "RR010", 0),
    ("recipe lines deleted only", [FileChange(RECIPE, "modified", patch=patch_for(deleted_at=12))], None, "RR010", 12),
    ("master key removed", [modified(NV, BASE, B300_GONE, patch_for(deleted_at=16))], None, "RR010", 16),
    ("master file removed", [FileChange(NV, "removed", base=BASE)], None, "RR010", 0),
    ("keys moved to deprecated", [modified(NV, BASE, B300_GONE, patch_for(deleted_at=16)),
                                  FileChange(DEP_NV, "added", head=master(ROWS[1]))], None, "RR010", 16),
    ("script moved to deprecated", [FileChange("benchmarks/single_node/deprecated/dsv4.sh", "renamed",
                                               previous_path=SCRIPT)], None, "RR010", 0),
    ("revert title", [modified(NV, BASE, B300_CHANGED, patch_for([29]))], 'Revert "Bump dsv4"', "RR010", 29),
    ("conventional revert", [FileChange(RECIPE, "modified", patch=patch_for([7]))], "revert: bump", "RR010", 7),
    ("Reverted is not a revert title", [FileChange(RECIPE, "modified", patch=patch_for([7]))],
     "Reverted config tweak", "RR009", 7),
    ("lower-case revert without colon", [FileChange(RECIPE, "modified", patch=patch_for([7]))],
     "revert the bump", "RR009", 7),
    ("removal plus a change", [FileChange(RECIPE, "removed"), FileChange(SCRIPT, "modified", patch=patch_for([4]))],
     None, "RR009", 4),
]


@pytest.mark.parametrize("files, title, code, line", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_without_changelog_entry(files, title, code, line):
    r = _run(*files, title=title)
    assert [(f.code, f.line) for f in r.findings] == ([(code, line)] if code else [])
    if code == "RR009":
        assert not r.findings[0].blocking and "appends no perf-changelog entry" in r.findings[0].message


@pytest.mark.parametrize("files", [c[1] for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]])
def test_with_a_new_entry_nothing_fires(files):
    r = _run(*files, changelog(entry("dsv4-fp4-b300-vllm")))
    assert r.findings == []
    assert [c.status for c in r.checks] == ["passed"] and "appends 1 changelog entry" in r.checks[0].detail


def test_message_names_changed_keys_and_fix_is_a_ready_entry():
    cs = ChangeSet(files=(modified(NV, BASE, B300_CHANGED, patch_for([29])),), repo="o/r", pr_number=77)
    [f] = run(cs, rules=[rule]).findings
    assert f.message == "this PR changes `dsv4-fp4-b300-vllm` but appends no perf-changelog entry, so no sweep will run"
    assert "- config-keys:\n    - dsv4-fp4-b300-vllm\n" in f.fix and "https://github.com/o/r/pull/77" in f.fix
    assert f.evidence[0] == "configs/nvidia-master.yaml: 1 key added or changed (`dsv4-fp4-b300-vllm`)"


def test_script_first_message_also_names_the_changed_keys():
    files = (FileChange(SCRIPT, "modified", patch=patch_for([2])),
             modified(NV, BASE, B300_CHANGED, patch_for([29])))
    [f] = run(ChangeSet(files=files), rules=[rule]).findings
    assert (f.path, f.line) == (SCRIPT, 2)
    assert f.message.startswith(f"this PR changes the script `{SCRIPT}` and `dsv4-fp4-b300-vllm` but")


def test_recipe_change_fix_names_the_keys_that_use_it():
    uses = row("dsv4-fp4-gb200-vllm", extra="  extra:\n    - \"CONFIG_FILE=recipes/vllm/dsv4/agg-tp8.yaml\"\n")
    cs = ChangeSet(files=(FileChange(RECIPE, "modified", patch=patch_for([3])),), context={NV: master(*ROWS, uses)})
    [f] = run(cs, rules=[rule]).findings
    assert f"the recipe `{RECIPE}`" in f.message and "    - dsv4-fp4-gb200-vllm\n" in f.fix


def test_changelog_edit_without_new_entry_still_fires():
    edited = FileChange(CHANGELOG, "modified", base=CL_BASE, head=CL_BASE.replace(b"change", b"changed", 1))
    r = _run(FileChange(RECIPE, "modified", patch=patch_for([7])), edited)
    assert [f.code for f in r.findings] == ["RR009"]


def test_unreadable_changelog_is_skipped():
    r = _run(FileChange(RECIPE, "modified", patch=patch_for([7])), FileChange(CHANGELOG, "modified", base=CL_BASE))
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


@pytest.mark.parametrize("raw, patch, code", [
    (b"\xff", patch_for([3]), "RR009"),
    (b"\xff", patch_for(deleted_at=3), "RR010"),
    (None, None, "RR009"),
], ids=["unreadable master with added lines", "unreadable master with deletions only", "no content no patch"])
def test_unreadable_master_is_judged_by_its_patch(raw, patch, code):
    r = _run(FileChange(NV, "modified", base=BASE, head=raw, patch=patch))
    assert [f.code for f in r.findings] == [code]


@pytest.mark.parametrize("patch, added, deleted", [
    ("@@ -1,3 +1,4 @@\n a\n+b\n c\n-d\n+e\n\\ No newline at end of file", [2, 4], [4]),
    ("@@ -10 +10,2 @@ heading\n x\n+y", [11], []),
    ("@@ -5,2 +4,0 @@\n-a\n-b", [], [4, 4]),
    ("", [], []),
    (None, [], []),
    ("garbage\n+not in a hunk", [], []),
], ids=["mixed hunk", "hunk without counts", "deletion only", "empty", "none", "no hunk header"])
def test_patch_lines(patch, added, deleted):
    assert patch_lines(patch) == (added, deleted)


SCRIPT_CHANGE = FileChange(SCRIPT, "modified", patch=patch_for([4]))


@pytest.mark.parametrize("base_changelogs, files, codes, passed", [
    ((), [SCRIPT_CHANGE], [], True),
    ((), [FileChange(RECIPE, "removed")], [], True),
    (None, [SCRIPT_CHANGE], ["RR009"], False),
    (("perf-changelog.yaml",), [SCRIPT_CHANGE], ["RR009"], False),
    ((), [SCRIPT_CHANGE, FileChange(CHANGELOG, "modified", base=CL_BASE, head=CL_BASE)], ["RR009"], False),
], ids=["base has no changelog", "cleanup, base has no changelog", "nobody looked", "base has one",
        "a modified changelog exists at the base whatever the builder says"])
def test_no_entry_required_where_the_base_has_no_changelog(base_changelogs, files, codes, passed):
    r = run(ChangeSet(files=tuple(files), base_changelogs=base_changelogs), rules=[rule, cleanup])
    assert [f.code for f in r.findings] == codes
    said = [c for c in r.checks if c.code == "RR009" and c.status == "passed" and "no entry required" in c.detail]
    assert bool(said) is passed
    if passed:
        assert "the base has no changelog file (`**/perf-changelog.yaml`" in said[0].detail


def test_changelog_candidates_are_the_root_and_every_directory_above_a_change():
    from rules.changelog.changes import changelog_candidates

    assert changelog_candidates(["**/perf-changelog.yaml"], ["a/b/x.sh", "c.yaml"]) == (
        "a/b/perf-changelog.yaml", "a/perf-changelog.yaml", "perf-changelog.yaml")
    assert changelog_candidates(["docs/CHANGES.yaml", "**/perf-changelog.yaml"], ["x"]) == (
        "docs/CHANGES.yaml", "perf-changelog.yaml")
    assert changelog_candidates(["**/*.changelog.yaml"], ["x"]) is None  # cannot be probed: unknown
    assert changelog_candidates(["**/logs/perf.yaml"], ["x"]) is None
