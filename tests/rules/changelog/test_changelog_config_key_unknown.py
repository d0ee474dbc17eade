"""RR008 changelog-config-key-unknown: every config-keys item of a new entry resolves at head."""
import pytest

from rules import run
from rules.changelog.checks import changelog_config_key_unknown as rule
from rules.changeset import ChangeSet, FileChange
from tests.rules.mc_helpers import AMD, BASE, CHANGELOG, CL_BASE, NV, ROWS, changelog, entry, master, modified, row

# CL_BASE holds two 5-line entries and a blank separator; a new entry starts at line 13.
FIRST_ITEM = 14


def _run(*new_entries, files=(), context=None):
    cs = ChangeSet(files=(changelog(*new_entries), *files), context=context if context is not None else {NV: BASE})
    return run(cs, rules=[rule])


@pytest.mark.parametrize("item, message, suggestion", [
    ("dsv4-fp4-b200-vllm", None, None),
    ("dsv4-*", None, None),
    ('"*-sglang"', None, None),
    ('"dsv4-fp4-b*-vllm"', None, None),
    ("dsr1-fp8-h200-sglng", "config key `dsr1-fp8-h200-sglng` is not a key of any master config",
     "    - dsr1-fp8-h200-sglang"),
    ("dsv4-fp4-b?00-vllm", "config key `dsv4-fp4-b?00-vllm` is not a key", None),
    ("dsv4-*-h100", "config-keys pattern `dsv4-*-h100` matches no master-config key", None),
    ("dsr1-fp8-h200", "config key `dsr1-fp8-h200` is not a key", "    - dsr1-fp8-h200-sglang"),
    ("totally-unrelated", "config key `totally-unrelated` is not a key", None),
], ids=["exact key", "prefix wildcard", "suffix wildcard", "quoted wildcard", "typo gets a suggestion",
        "? is a literal", "wildcard matching nothing", "exact key needs the whole name", "nothing close"])
def test_item(item, message, suggestion):
    r = _run(entry(item))
    if message is None:
        assert r.findings == []
        assert [c.status for c in r.checks] == ["passed"]
        return
    [f] = r.findings
    assert (f.code, f.path, f.line, f.blocking) == ("RR008", CHANGELOG, FIRST_ITEM, True)
    assert message in f.message and f.suggestion == suggestion
    assert f.evidence[0].startswith("searched 3 keys in configs/nvidia-master.yaml")
    if "?" in item:
        assert any("`?` is not a wildcard" in e for e in f.evidence)


def test_close_matches_are_evidence_when_several():
    keys = master(*ROWS)
    r = _run(entry("dsv4-fp4-b100-vllm"), context={NV: keys})
    [f] = r.findings
    assert f.suggestion is None and f.fix.startswith("Use an exact key")
    assert set(f.evidence[1].removeprefix("closest existing keys: ").split(", ")) == {
        "dsv4-fp4-b200-vllm",
        "dsv4-fp4-b300-vllm",
    }


def test_each_item_on_its_own_line():
    r = _run(entry("dsv4-fp4-b200-vllm", "nope-a", "dsr1-*", "nope-b"))
    assert [(f.line, f.message.split("`")[1]) for f in r.findings] == [
        (FIRST_ITEM + 1, "nope-a"),
        (FIRST_ITEM + 3, "nope-b"),
    ]


def test_flow_list_reports_on_the_config_keys_line_without_suggestion():
    r = _run(entry("dsv4-fp4-b200-vllm", "dsv4-fp4-b200-vlm", flow=True))
    [f] = r.findings
    assert f.line == FIRST_ITEM - 1 and f.suggestion is None


def test_key_only_at_base_is_unknown_with_evidence():
    head = master(ROWS[0], ROWS[2])
    r = _run(entry("dsv4-fp4-b300-vllm"), files=(modified(NV, BASE, head),), context={})
    [f] = r.findings
    assert any("`dsv4-fp4-b300-vllm` exists at the base in configs/nvidia-master.yaml; this PR removes it" in e
               for e in f.evidence)


def test_key_added_by_the_pr_resolves():
    head = master(*ROWS, row("dsv4-fp4-gb200-vllm"))
    r = _run(entry("dsv4-fp4-gb200-vllm"), files=(modified(NV, BASE, head),), context={})
    assert r.findings == []


def test_keys_in_every_master_config_count():
    r = _run(entry("dsr1-fp4-mi355x-sglang"), context={NV: BASE, AMD: master(row("dsr1-fp4-mi355x-sglang"))})
    assert r.findings == []


def test_only_new_entries_are_resolved():
    # CL_BASE selects `gone-fp8-h100-vllm`, which no master config has: history is not re-checked.
    r = _run(entry("dsv4-fp4-b200-vllm"))
    assert r.findings == []


def test_no_master_config_available_is_skipped():
    r = _run(entry("dsv4-fp4-b200-vlm"), context={})
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_unquoted_leading_star_is_an_alias_so_the_entry_is_skipped():
    r = _run(entry("*-sglang"))
    assert r.findings == [] and "was not parsed" in r.checks[0].detail


def test_unparsable_entry_is_skipped():
    r = _run("- config-keys:\n    - [unclosed\n  pr-link: x\n")
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_unreadable_master_config_makes_unknown_keys_skipped():
    r = _run(entry("dsr1-fp4-mi355x-sglang"), context={NV: BASE, AMD: b"\xff\xfe"})
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_non_string_item_is_left_to_the_schema_rule():
    r = _run("- config-keys:\n    - 42\n    - dsv4-fp4-b200-vllm\n  description:\n    - x\n  pr-link: XXX\n")
    assert r.findings == []


def test_no_new_entries_nothing_to_do():
    r = run(ChangeSet(files=(FileChange(CHANGELOG, "modified", base=CL_BASE, head=CL_BASE),), context={NV: BASE}),
            rules=[rule])
    assert r.findings == [] and r.checks == []
