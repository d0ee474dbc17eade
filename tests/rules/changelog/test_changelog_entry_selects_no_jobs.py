"""RR022 changelog-entry-selects-no-jobs: the selection expands to nothing; passed checks show the arithmetic."""
import pytest

from rules import run
from rules.changelog.checks import changelog_entry_selects_no_jobs as rr022
from rules.changeset import ChangeSet, FileChange
from rules.conventions import _ts
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, ctx_of, entry, master, row


def _run(*entries):
    return run(ctx_of(changelog(*entries), context={NV: BASE}).changeset, rules=[rr022])


def test_passed_check_shows_rows_times_concurrencies():
    r = _run(entry("dsv4-fp4-b200-vllm", pr="4867"))
    assert r.findings == []
    [c] = r.checks
    # conc-start 4, conc-end 64 doubles: 4, 8, 16, 32, 64; 8k1k: evals at the highest and median concurrency
    assert "`dsv4-fp4-b200-vllm`: 1 row × 5 concurrencies = 5 jobs + 2 eval jobs" in c.detail
    assert "7 sweep jobs" in c.detail


def test_scenario_filter_that_matches_no_row_is_a_nit():
    e = entry("dsv4-fp4-b200-vllm", pr="4867").replace("  description:", "  scenario-type:\n    - agentic-coding\n"
                                                                         "  description:")
    [f] = _run(e).findings
    assert (f.code, f.blocking) == ("RR022", False)
    assert "expands to no sweep job" in f.message and "no search-space rows for agentic-coding" in f.message
    # Both gates accept it and nothing runs wrong: a nit (notes/proof.md), and it claims no contract.
    assert f.message.endswith("for agentic-coding. Both gates accept this.") and "contract" not in f.message
    assert not any(ev.startswith("Blocking because") for ev in f.evidence)


def test_keys_already_run_by_an_earlier_entry_are_not_a_problem():
    first = entry("dsv4-fp4-b200-vllm", pr="4867")
    second = entry("dsv4-fp4-b200-vllm", pr="4867").replace('"change"', '"again"')
    r = _run(first, second)
    assert r.findings == [] and "already runs" in r.checks[1].detail


def test_no_master_config_is_skipped():
    r = run(ctx_of(changelog(entry("dsv4-fp4-b200-vllm", pr="4867"))).changeset, rules=[rr022])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


LOW_CONC = master(row("dsv4-fp4-b200-vllm").replace("conc-end: 64", "conc-end: 8"), *ROWS[1:])  # 8k1k, conc 4, 8
AGENTIC = master(
    ROWS[0],
    row("dsv4-fp4-b200-vllm-agentic")
    .replace("  runner: b200", "  runner: cluster:b200")
    .replace(
        "    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n"
        "      - { tp: 8, conc-start: 4, conc-end: 64 }",
        "    agentic-coding:\n    - search-space:\n      - { tp: 8, kv-offloading: none, conc-list: [16, 32] }",
    ),
)
GENERATOR = "utils/matrix_logic/generate_sweep_configs.py"


def _flagged(key: str, flag: str = "evals-only") -> str:
    return entry(key, pr="4867").replace("  pr-link:", f"  {flag}: true\n  pr-link:")


def _review(masters: bytes, *entries: str, extra: tuple = (), when: str | None = None):
    t = _ts(when) if when else None
    cs = ChangeSet(files=(changelog(*entries), *extra), context={NV: masters}, base_time=t, base_tip_time=t)
    return run(cs, rules=[rr022])


def test_an_evals_only_entry_on_an_agentic_key_runs_its_agentic_eval():
    """#2295: since 2026-07-16 the eval pass marks one SWE-bench eval per single-node agentic key."""
    r = _review(AGENTIC, _flagged("dsv4-fp4-b200-vllm-agentic"))
    assert r.findings == [] and "1 eval job" in r.checks[0].detail


def test_before_agentic_evals_an_evals_only_agentic_entry_runs_nothing():
    [f] = _review(AGENTIC, _flagged("dsv4-fp4-b200-vllm-agentic"), when="2026-07-10T00:00:00").findings
    assert not f.blocking and "`evals-only` suppresses the throughput jobs" in f.message
    assert "single-node agentic" not in f.message


def test_a_pr_that_changes_the_generator_is_not_judged_by_the_emulation():
    """#1189 lowers MIN_EVAL_CONC to 8 in the generator: its conc-8 row gets an eval job there."""
    tooling = FileChange(GENERATOR, "modified", base=b"MIN_EVAL_CONC = 16\n", head=b"MIN_EVAL_CONC = 8\n")
    r = _review(LOW_CONC, _flagged("dsv4-fp4-b200-vllm"), extra=(tooling,))
    assert r.findings == []
    [c] = [c for c in r.checks if c.status == "skipped"]
    assert "gate's own tooling" in c.detail and GENERATOR in c.detail and "expands to no sweep job" in c.detail
    [f] = _review(LOW_CONC, _flagged("dsv4-fp4-b200-vllm")).findings  # control: the repository's generator
    assert not f.blocking and "no row the eval pass marks (8k1k rows at concurrency 16 or more" in f.message


def test_all_evals_marks_every_8k1k_row():
    """`mark_all_eval_entries` marks every 8k1k row, whatever its concurrency."""
    r = _review(LOW_CONC, _flagged("dsv4-fp4-b200-vllm", "all-evals"))
    assert r.findings == [] and "2 eval jobs" in r.checks[0].detail


@pytest.mark.parametrize("when", ["2026-06-01T00:00:00", "2026-05-15T00:00:00"])
def test_an_older_eval_selection_is_not_modelled(when):
    r = _review(LOW_CONC, _flagged("dsv4-fp4-b200-vllm"), when=when)
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
    assert "is not modelled" in r.checks[0].detail


def test_no_rows_at_all_is_flagged_whatever_the_tooling_date():
    e = _flagged("dsv4-fp4-b200-vllm").replace("  description:", "  scenario-type:\n    - agentic-coding\n"
                                                                   "  description:")
    [f] = _review(LOW_CONC, e, when="2026-05-15T00:00:00").findings
    assert not f.blocking and "no search-space rows for agentic-coding" in f.message
