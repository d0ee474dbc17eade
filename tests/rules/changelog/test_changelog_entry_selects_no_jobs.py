"""RR022 changelog-entry-selects-no-jobs: the selection expands to nothing; passed checks show the arithmetic."""
from rules import run
from rules.changelog.checks import changelog_entry_selects_no_jobs as rr022
from tests.rules.mc_helpers import BASE, NV, changelog, ctx_of, entry


def _run(*entries):
    return run(ctx_of(changelog(*entries), context={NV: BASE}).changeset, rules=[rr022])


def test_passed_check_shows_rows_times_concurrencies():
    r = _run(entry("dsv4-fp4-b200-vllm", pr="4867"))
    assert r.findings == []
    [c] = r.checks
    # conc-start 4, conc-end 64 doubles: 4, 8, 16, 32, 64; 8k1k: evals at the highest and median concurrency
    assert "`dsv4-fp4-b200-vllm`: 1 row × 5 concurrencies = 5 jobs + 2 eval jobs" in c.detail
    assert "7 sweep jobs" in c.detail


def test_scenario_filter_that_matches_no_row_is_blocking():
    e = entry("dsv4-fp4-b200-vllm", pr="4867").replace("  description:", "  scenario-type:\n    - agentic-coding\n"
                                                                         "  description:")
    [f] = _run(e).findings
    assert (f.code, f.blocking) == ("RR022", True)
    assert "expands to no sweep job" in f.message and "no search-space rows for agentic-coding" in f.message
    assert f.message.endswith("Both gates accept this; only the documented contract (an entry triggers the sweep of "
                              "what it describes) forbids it.")


def test_keys_already_run_by_an_earlier_entry_are_not_a_problem():
    first = entry("dsv4-fp4-b200-vllm", pr="4867")
    second = entry("dsv4-fp4-b200-vllm", pr="4867").replace('"change"', '"again"')
    r = _run(first, second)
    assert r.findings == [] and "already runs" in r.checks[1].detail


def test_no_master_config_is_skipped():
    r = run(ctx_of(changelog(entry("dsv4-fp4-b200-vllm", pr="4867"))).changeset, rules=[rr022])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
