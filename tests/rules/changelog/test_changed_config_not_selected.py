"""RR011 changed-config-not-selected: every added or changed key is selected by a new entry."""
import pytest

from rules import run
from rules.changelog.checks import changed_config_not_selected as rule
from rules.changeset import ChangeSet
from tests.rules.changelog_helpers import patch_of
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, entry, master, modified, patch_for, row

B300_TP4 = row("dsv4-fp4-b300-vllm", tp=4)
GB200 = row("dsv4-fp4-gb200-vllm")


def _run(head_rows, *entries, title=None):
    head = master(*head_rows)
    files = [modified(NV, BASE, head, patch_of(BASE.decode(), head.decode()))]
    if entries:
        files.append(changelog(*entries))
    return run(ChangeSet(files=tuple(files), title=title), rules=[rule])


@pytest.mark.parametrize("head_rows, entries, unselected", [
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsv4-fp4-b300-vllm")], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"dsv4-*"')], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"*"')], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsr1-fp8-h200-sglang"), entry("dsv4-fp4-b300-vllm")], []),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsv4-fp4-b200-vllm")], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry("dsv4-fp4-b?00-vllm")], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"dsv4-fp4-b300"')], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((ROWS[0], B300_TP4, ROWS[2]), [entry('"*-b300"')], [("dsv4-fp4-b300-vllm", 16, "changed")]),
    ((*ROWS, GB200), [entry("dsv4-fp4-b200-vllm")], [("dsv4-fp4-gb200-vllm", 46, "added")]),
    ((ROWS[0], ROWS[2]), [entry("dsv4-fp4-b200-vllm")], []),
    ((ROWS[0], ROWS[1].replace("org/model\n", "org/model  # why\n"), ROWS[2]), [entry("dsv4-fp4-b200-vllm")], []),
], ids=["exact", "wildcard", "bare star", "second entry selects it", "other key selected", "? is literal",
        "exact item is not a prefix", "wildcard must match the whole key", "added key not selected",
        "removed key needs no selection", "comment-only edit is no change"])
def test_selection(head_rows, entries, unselected):
    r = _run(head_rows, *entries)
    assert [(f.message.split("`")[1], f.line, f.message.split(" is ")[1].split()[0]) for f in r.findings] == unselected
    for f in r.findings:
        assert (f.code, f.path, f.blocking) == ("RR011", NV, False) and "no new changelog entry selects it" in f.message
    if not unselected and r.checks:
        assert r.checks[0].status == "passed"


def test_passed_names_the_pattern_that_covered_each_key():
    r = _run((ROWS[0], B300_TP4, ROWS[2], GB200), entry('"dsv4-fp4-b3*"', "dsv4-fp4-gb200-vllm"))
    [c] = r.checks
    assert c.detail == ("2 changed key(s) are selected by new changelog entries: "
                        "dsv4-fp4-b300-vllm (by `dsv4-fp4-b3*`), dsv4-fp4-gb200-vllm")


def test_fix_points_at_the_new_entry():
    [f] = _run((ROWS[0], B300_TP4, ROWS[2]), entry("dsv4-fp4-b200-vllm")).findings
    assert f.fix.startswith("Add `dsv4-fp4-b300-vllm` to `config-keys` of the new entry (perf-changelog.yaml line 13)")
    assert "new entries select: `dsv4-fp4-b200-vllm`" in f.evidence


def test_no_new_entry_is_skipped_for_rr009():
    r = _run((ROWS[0], B300_TP4, ROWS[2]))
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_unparsable_new_entry_skips_instead_of_blocking():
    r = _run((ROWS[0], B300_TP4, ROWS[2]), "- config-keys:\n    - [broken\n")
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_nothing_changed_nothing_reported():
    r = _run(ROWS, entry("dsv4-fp4-b200-vllm"))
    assert r.findings == [] and r.checks == []


# A multi-scenario key written for these tests: two fixed-seq-len blocks and an agentic block.
WIDE = """glm5-fp8-b200-sglang:
  image: lmsysorg/sglang:v0.5.12
  model: zai-org/GLM-5-FP8
  model-prefix: glm5
  runner: b200
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
      - { tp: 4, conc-start: 4, conc-end: 32 }
      - { tp: 8, ep: 8, conc-start: 8, conc-end: 128 }
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
    agentic-coding:
    - duration: 1800
      search-space:
      - { tp: 8, conc-list: [8, 16] }
      - { tp: 4, conc-list: [8] }
"""


def _wide(head_text, *entries):
    base = WIDE.encode()
    files = [modified(NV, base, head_text.encode(), patch_for(deleted_at=14))]
    return run(ChangeSet(files=(*files, changelog(*entries))), rules=[rule])


@pytest.mark.parametrize(
    "head, rows",
    [
        (WIDE.replace("      - { tp: 4, conc-start: 4, conc-end: 32 }\n", ""), "6 → 5 rows in 3 → 3"),
        (
            WIDE.replace(
                "    - isl: 8192\n      osl: 1024\n      search-space:\n"
                "      - { tp: 8, conc-start: 4, conc-end: 64 }\n",
                "",
            ),
            "6 → 5 rows in 3 → 2",
        ),
        (WIDE.split("    agentic-coding:\n")[0], "6 → 4 rows in 3 → 2"),
        (
            WIDE.replace("      - { tp: 4, conc-start: 4, conc-end: 32 }\n", "").replace(
                "      - { tp: 8, conc-list: [8, 16] }\n", ""
            ),
            "6 → 4 rows in 3 → 3",
        ),
    ],
    ids=["one-row", "one-block", "one-scenario-type", "rows-from-two-scenarios"],
)
def test_a_key_that_only_loses_rows_needs_no_entry_and_the_passed_check_says_why(head, rows):
    r = _wide(head, entry("dsv4-fp4-b200-vllm"))
    assert r.findings == []
    [c] = [c for c in r.checks if "only remove rows" in (c.detail or "")]
    assert c.status == "passed" and f"`glm5-fp8-b200-sglang`: {rows} scenario blocks" in c.detail


@pytest.mark.parametrize(
    "head",
    [
        WIDE.replace("      - { tp: 4, conc-start: 4, conc-end: 32 }\n", "").replace("conc-end: 128", "conc-end: 256"),
        WIDE.replace("      - { tp: 4, conc-start: 4, conc-end: 32 }\n", "").replace("v0.5.12", "v0.5.13"),
        WIDE.replace(
            "      - { tp: 4, conc-start: 4, conc-end: 32 }\n", "      - { tp: 2, conc-start: 4, conc-end: 32 }\n"
        ),
        WIDE.replace("      - { tp: 4, conc-start: 4, conc-end: 32 }\n", "").replace(
            "osl: 1024\n      search-space:\n      - { tp: 8, conc-start: 4, conc-end: 64 }\n      - { tp: 8, ep",
            "osl: 2048\n      search-space:\n      - { tp: 8, conc-start: 4, conc-end: 64 }\n      - { tp: 8, ep",
        ),
        WIDE.replace("      - { tp: 8, conc-list: [8, 16] }\n", "      - { tp: 8, conc-list: [8] }\n"),
        WIDE.replace(
            "      - { tp: 4, conc-start: 4, conc-end: 32 }\n      - { tp: 8, ep: 8, conc-start: 8, conc-end: 128 }\n",
            "      - { tp: 8, ep: 8, conc-start: 8, conc-end: 128 }\n      - { tp: 4, conc-start: 4, conc-end: 32 }\n",
        ),
    ],
    ids=[
        "removal-plus-row-edit",
        "removal-plus-image-bump",
        "row-replaced",
        "removal-plus-isl-edit",
        "a-concurrency-dropped-is-an-edit",
        "rows-reordered",
    ],
)
def test_removals_mixed_with_any_other_edit_still_need_an_entry(head):
    [f] = _wide(head, entry("dsv4-fp4-b200-vllm")).findings
    assert (f.code, f.message.split("`")[1]) == ("RR011", "glm5-fp8-b200-sglang")


def test_a_change_that_reaches_no_job_is_not_rr011s():
    # Issue 21: `router` reaches the job only as result metadata; a key whose only change is its
    # router version runs the same benchmark (changed-label-not-selected's nit).
    router = "  router:\n    name: dyn\n    version: 1.0.0\n"
    base = master(ROWS[0], row("dsv4-fp4-b300-vllm", extra=router), ROWS[2])
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", extra=router.replace("1.0.0", "2.0.0")), ROWS[2])
    files = (modified(NV, base, head, patch_of(base.decode(), head.decode())), changelog(entry("dsv4-fp4-b200-vllm")))
    r = run(ChangeSet(files=files), rules=[rule])
    assert r.findings == []
    # control: the same key with a changed image (a field the job runs) still fires
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0", extra=router), ROWS[2])
    files = (modified(NV, base, head, patch_of(base.decode(), head.decode())), changelog(entry("dsv4-fp4-b200-vllm")))
    assert [(f.code, f.blocking) for f in run(ChangeSet(files=files), rules=[rule]).findings] == [("RR011", False)]
