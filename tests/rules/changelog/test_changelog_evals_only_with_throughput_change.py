"""RR021 changelog-evals-only-with-throughput-change: evals-only on keys whose throughput the PR changes."""
import pytest

from rules import run
from rules.changelog.checks import changelog_evals_only_with_throughput_change as rr021
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, ctx_of, entry, master, modified, row


def _flagged(flag: str) -> str:
    return entry("dsv4-fp4-b300-vllm", pr="4867").replace("  pr-link:", f"  {flag}: true\n  pr-link:")


@pytest.mark.parametrize("flag", ["evals-only", "all-evals"])
def test_flag_on_a_key_whose_image_changes_is_a_nit(flag):
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0"), ROWS[2])
    ctx = ctx_of(modified(NV, BASE, head), changelog(_flagged(flag)))
    [f] = run(ctx.changeset, rules=[rr021]).findings
    assert (f.code, f.blocking) == ("RR021", False)
    assert f"`{flag}: true` suppresses throughput jobs" in f.message and "`dsv4-fp4-b300-vllm` (image)" in f.message
    assert f.message.endswith("Both gates accept this.")  # no contract is claimed (issue 21)


def test_flag_with_no_master_change_passes():
    ctx = ctx_of(changelog(_flagged("evals-only")), context={NV: BASE})
    r = run(ctx.changeset, rules=[rr021])
    assert r.findings == [] and r.checks[0].status == "passed"


def test_entries_without_the_flag_are_not_judged():
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0"), ROWS[2])
    ctx = ctx_of(modified(NV, BASE, head), changelog(entry("dsv4-fp4-b300-vllm", pr="4867")))
    assert run(ctx.changeset, rules=[rr021]).findings == []


TWO_ROWS = row("dsv4-fp4-b300-vllm").replace(
    "      - { tp: 8, conc-start: 4, conc-end: 64 }\n",
    "      - { tp: 8, conc-start: 4, conc-end: 64 }\n      - { tp: 4, conc-list: [8, 16] }\n")


def _review(base_row: str, head_row: str, *entries: str, pr: int | None = None):
    from rules.changeset import ChangeSet

    base, head = master(ROWS[0], base_row, ROWS[2]), master(ROWS[0], head_row, ROWS[2])
    files = (modified(NV, base, head), changelog(*entries))
    return run(ChangeSet(files=files, pr_number=pr), rules=[rr021])


@pytest.mark.parametrize("head_row", [
    row("dsv4-fp4-b300-vllm"),  # the tp4 row deleted (#911: the 1k8k blocks deleted, nothing else)
    TWO_ROWS.replace("conc-start: 4,", "conc-start: 16,"),  # a range narrowed (a one-off steering the evals)
    TWO_ROWS.replace("conc-list: [8, 16]", "conc-list: [16]"),
], ids=["row-removed", "range-narrowed", "list-shortened"])
def test_a_change_that_only_takes_points_away_needs_no_new_measurement(head_row):
    r = _review(TWO_ROWS, head_row, _flagged("evals-only"))
    assert r.findings == [] and r.checks[0].status == "passed"


@pytest.mark.parametrize("head_row", [
    TWO_ROWS.replace("conc-end: 64", "conc-end: 128"),  # #1260: a wider range is new points
    TWO_ROWS.replace("conc-list: [8, 16]", "conc-list: [8, 16, 32]"),
    row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0"),  # fewer rows, but a new image for the rest
    row("dsv4-fp4-b300-vllm").replace("{ tp: 8,", "{ tp: 8, ep: 8,"),  # fewer rows, and the rest run differently
], ids=["range-widened", "list-extended", "removed-and-image", "removed-and-ep"])
def test_new_or_changed_points_are_still_a_throughput_change(head_row):
    [f] = _review(TWO_ROWS, head_row, _flagged("evals-only")).findings
    assert "suppresses throughput jobs" in f.message


def test_a_key_another_new_entry_measures_is_not_a_finding():
    head_row = row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0")
    plain = entry("dsv4-fp4-b300-vllm", pr="4867").replace('"change"', '"Bump the image"')
    assert _review(ROWS[1], head_row, plain, _flagged("evals-only")).findings == []


def test_another_prs_entry_is_not_judged():
    """#1283 runs the evals of #1236 (whose own entry measured the throughput); #671's squashed merge of
    main carries #558's evals-only entry. Neither entry is this PR's writing."""
    head_row = row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0")
    theirs = _flagged("evals-only").replace("pull/4867", "pull/4000")
    assert _review(ROWS[1], head_row, theirs, pr=4867).findings == []
    [f] = _review(ROWS[1], head_row, _flagged("evals-only"), pr=4867).findings  # control: its own entry
    assert "`dsv4-fp4-b300-vllm` (image)" in f.message
