"""RR104 master-config-schema-invalid: the repository's own master-config schema, at the PR's base revision."""
import dataclasses

import pytest

from rules import run
from rules.conventions import PIPELINE_PARALLEL, SCENARIOS
from rules.master.checks import master_config_schema_invalid as rr104
from tests.rules.mc_helpers import BASE, NV, ROWS, change_one, master, row

ROW = row("dsv4-fp4-b300-vllm")


def _run(text: str, base_time: int | None = None):
    ctx = change_one((ROWS[0], text, ROWS[2]))
    cs = dataclasses.replace(ctx.changeset, base_time=base_time)
    return run(cs, rules=[rr104])


def _line(text: str, needle: str) -> int:
    head = master(ROWS[0], text, ROWS[2]).decode()
    at = head.index(needle, head.index("dsv4-fp4-b300-vllm:"))
    return head[:at].count("\n") + 1


CASES = [
    ("both-list-and-range", ROW.replace("conc-end: 64 }", "conc-end: 64, conc-list: [1, 2] }"),
     "{ tp: 8", "search-space[0]`: Cannot specify both 'conc-list' list and 'conc-start'/'conc-end'"),
    ("start-above-end", ROW.replace("conc-start: 4", "conc-start: 128"), "{ tp: 8",
     "'conc-start' (128) must be <= 'conc-end' (64)."),
    ("zero-start", ROW.replace("conc-start: 4", "conc-start: 0"), "{ tp: 8",
     "Input 'conc-start' and 'conc-end' must be greater than 0."),
    ("dcp-not-dividing-tp", ROW.replace("{ tp: 8,", "{ tp: 8, dcp-size: 3,"), "{ tp: 8",
     "'tp' (8) must be divisible by 'dcp-size' (3)"),
    ("unknown-row-key", ROW.replace("{ tp: 8,", "{ tp: 8, dp_attn: true,"), "{ tp: 8",
     "search-space[0].dp_attn`: Extra inputs are not permitted"),
    ("missing-isl", ROW.replace("    - isl: 8192\n      osl: 1024\n", "    - osl: 1024\n"), "- osl: 1024",
     "fixed-seq-len[0].isl`: Field required"),
    ("old-layout", ROW.replace("  scenarios:\n    fixed-seq-len:\n", "  seq-len-configs:\n"), "seq-len-configs:",
     "`seq-len-configs`: Extra inputs are not permitted"),
    ("agentic-needs-cluster-runner",
     ROW.replace("    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 8,",
                 "    agentic-coding:\n    - search-space:\n      - { tp: 8, kv-offloading: none,"),
     "dsv4-fp4-b300-vllm:", "Agentic master configs must use a 'cluster:<name>' runner"),
]


@pytest.mark.parametrize("name, text, at, message", CASES, ids=[c[0] for c in CASES])
def test_schema_errors_name_the_path_line_and_the_gate(name, text, at, message):
    r = _run(text)
    assert [f.code for f in r.findings] == ["RR104"], [f.message for f in r.findings]
    f = r.findings[0]
    assert f.blocking and f.path == NV and message in f.message and f.message.startswith("`dsv4-fp4-b300-vllm`: `")
    assert f.line == _line(text, at)
    assert "Rejected by the PR-run `check-changelog`" in f.message


def test_valid_key_passes():
    r = _run(ROW.replace("image: vllm/vllm-openai:v0.20.1", "image: vllm/vllm-openai:v0.21.0"))
    assert r.findings == [] and r.checks[0].status == "passed" and "`dsv4-fp4-b300-vllm`" in r.checks[0].detail


def test_fields_exist_from_the_commit_that_added_them():
    pp = ROW.replace("{ tp: 8,", "{ tp: 8, pp: 2,")
    assert _run(pp).findings == []  # today's schema has `pp`
    [f] = _run(pp, base_time=PIPELINE_PARALLEL - 86400).findings  # a base from the day before
    assert "search-space[0].pp`: Extra inputs are not permitted" in f.message
    assert "the tooling of 2026-07-10" in " ".join(f.evidence)


def test_old_layout_is_valid_before_scenarios_existed():
    old = ROW.replace("  scenarios:\n    fixed-seq-len:\n", "  seq-len-configs:\n")
    assert _run(old, base_time=SCENARIOS - 86400).findings == []
    [f] = _run(ROW.replace("v0.20.1", "v0.21.0"), base_time=SCENARIOS - 86400).findings
    assert "`scenarios`: Extra inputs are not permitted" in f.message


def test_multinode_disagg_needs_kv_p2p_transfer():
    mn = ("dsr1-fp4-gb200-dynamo-trt:\n  image: nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.5.1\n  model: m\n"
          "  model-prefix: dsr1\n  runner: gb200\n  precision: fp4\n  framework: dynamo-trt\n  multinode: true\n"
          "  disagg: true\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n"
          "      - prefill: {num-worker: 1, tp: 4, ep: 4, dp-attn: true}\n"
          "        decode: {num-worker: 1, tp: 8, ep: 8, dp-attn: true}\n        conc-list: [64]\n")
    [f] = _run(mn).findings
    assert "disagg=true requires kv-p2p-transfer at the top level or in every search-space entry" in f.message
    fixed = mn.replace("  disagg: true\n", "  disagg: true\n  kv-p2p-transfer: nixl\n")
    assert _run(fixed).findings == []


def test_only_changed_keys_are_judged_and_a_base_before_the_schema_is_skipped():
    broken_base = master(ROWS[0], ROW.replace("conc-start: 4", "conc-start: 128"), ROWS[2])
    ctx = change_one((ROWS[0], ROW.replace("conc-start: 4", "conc-start: 128"), ROWS[2].replace("v0.5.12", "v0.5.13")),
                     base=broken_base)
    r = run(ctx.changeset, rules=[rr104])
    assert r.findings == []  # the broken key is unchanged: not this PR's doing
    old = dataclasses.replace(change_one().changeset, base_time=1_700_000_000)
    assert [c.status for c in run(old, rules=[rr104]).checks] == ["skipped"]
    assert BASE  # the default base is valid


def test_the_newer_layouts_schema_is_not_modelled():
    from rules.changeset import ChangeSet, FileChange

    path = "inferencex-e2e/configs/amd-master.yaml"
    head = master(ROWS[0], ROW.replace("conc-start: 4", "conc-start: 128"), ROWS[2])
    r = run(ChangeSet(files=(FileChange(path, "modified", base=BASE, head=head),)), rules=[rr104])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
    assert "infx/matrix/validation.py" in r.checks[0].detail


def test_a_pr_that_changes_the_schema_itself_is_not_judged_by_the_old_one():
    """The PR-run check runs the PR's own schema, which is not emulated: nothing is claimed, and the
    skipped check says what the emulation would have reported (notes/proof.md)."""
    from rules.changeset import ChangeSet, FileChange

    head = master(ROWS[0], ROW.replace("{ tp: 8,", "{ tp: 8, new-field: 1,"), ROWS[2])
    cs = ChangeSet(files=(FileChange(NV, "modified", base=BASE, head=head),
                          FileChange("utils/matrix_logic/validation.py", "modified")))
    r = run(cs, rules=[rr104])
    assert r.findings == [] and "changes the master-config schema itself" in r.checks[0].detail
    missing = master(ROWS[0], ROW.replace("    - isl: 8192\n      osl: 1024\n", "    - osl: 1024\n"), ROWS[2])
    cs = ChangeSet(files=(FileChange(NV, "modified", base=BASE, head=missing),
                          FileChange("utils/matrix_logic/validation.py", "modified")))
    r = run(cs, rules=[rr104])
    assert r.findings == []  # even a missing `isl`: the PR's schema may make it optional
    [c] = [c for c in r.checks if "gate's own tooling" in c.detail]
    assert c.status == "skipped" and "`utils/matrix_logic/validation.py`" in c.detail
    assert "fixed-seq-len[0].isl`: Field required" in c.detail


def test_schema_tests_are_not_the_gates_tooling():
    from rules.changeset import ChangeSet, FileChange

    missing = master(ROWS[0], ROW.replace("    - isl: 8192\n      osl: 1024\n", "    - osl: 1024\n"), ROWS[2])
    cs = ChangeSet(files=(FileChange(NV, "modified", base=BASE, head=missing),
                          FileChange("utils/matrix_logic/test_validation.py", "modified")))
    [f] = run(cs, rules=[rr104]).findings
    assert "fixed-seq-len[0].isl`: Field required" in f.message
