"""benchmarks/worst_case.py's pure helpers on made-up inputs: percentiles, the held-out PR filter,
exit statuses, bench_review output parsing and the summary (no timing, no ../shared)."""
import fnmatch
import importlib.util
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wc():
    spec = importlib.util.spec_from_file_location("worst_case", ROOT / "benchmarks" / "worst_case.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("worst_case", mod)
    spec.loader.exec_module(mod)
    return mod


def test_percentiles_interpolate_between_ranks(wc):
    xs = [5, 1, 4, 2, 3]
    assert wc.percentile(xs, 50) == 3
    assert wc.percentile(xs, 0) == 1
    assert wc.percentile(xs, 100) == 5
    assert wc.percentile(xs, 95) == pytest.approx(4.8)
    assert wc.percentile([1, 2, 3, 4], 50) == 2.5
    assert wc.percentile([7], 95) == 7
    assert math.isnan(wc.percentile([], 50))


def test_only_pr_heads_below_2300_are_kept(wc):
    refs = [("a" * 40, "refs/pull/2299/head"), ("b" * 40, "refs/pull/2300/head"), ("c" * 40, "refs/pull/7/head"),
            ("d" * 40, "refs/pull/12/merge"), ("e" * 40, "refs/heads/main"), ("f" * 40, "refs/pull/10000/head"),
            ("0" * 40, "refs/pull/150/head")]
    assert wc.allowed_prs(refs) == [(7, "c" * 40), (150, "0" * 40), (2299, "a" * 40)]


def test_the_ref_patterns_match_every_number_below_2300_and_none_from_it(wc):
    def matched(n):
        return any(fnmatch.fnmatchcase(f"refs/pull/{n}/head", p) for p in wc.PR_REF_PATTERNS)

    assert all(matched(n) for n in range(0, 2300))
    assert not any(matched(n) for n in (*range(2300, 10_000, 7), 2300, 2999, 9999, 10_000, 123_456))
    assert not matched("0123")


def test_prs_option_refuses_held_out_numbers(wc):
    assert wc.parse_pr_list("12, 345,2299") == [12, 345, 2299]
    with pytest.raises(SystemExit):
        wc.parse_pr_list("12,2300")


def test_bench_review_cpu_median_is_parsed(wc):
    out = ("all 40 rules, changelog 12,345 lines + master config changed: median 40.2 ms, p95 44.0 ms "
           "(3 findings, 50 checks); CPU time median 36.9 ms (what a busy machine does not inflate)\n"
           "slowest rules alone (cold caches): RR001 9 ms\n")
    assert wc.parse_cpu_median(out) == 36.9
    assert wc.parse_cpu_median("CPU time median 12 ms") == 12.0
    assert wc.parse_cpu_median("Traceback (most recent call last):") is None


def test_exit_statuses(wc):
    assert [wc.status_of(c) for c in (0, 1, 2, 3, -11)] == ["ok", "findings", "error", "crash", "crash"]
    assert wc.status_of(-9, timed_out=True) == "timeout"
    assert "findings" not in wc.FAILED


def test_summary_counts_targets_and_failures(wc):
    rows = [{"pr": i, "head": "x", "wall_s": w, "maxrss_mb": m, "status": s, "returncode": 0}
            for i, (w, m, s) in enumerate([(0.5, 50, "ok"), (1.6, 60, "findings"), (1.0, 151, "error"),
                                           (0.7, 40, "crash")])]
    s = wc.summary(rows)
    assert s["count"] == 4
    assert s["wall_s"]["max"] == 1.6 and s["wall_s"]["p50"] == pytest.approx(0.85)
    assert s["maxrss_mb"]["max"] == 151
    assert s["over_wall"] == 1 and s["over_rss"] == 1
    assert [r["pr"] for r in s["failures"]] == [2, 3]
    text = "\n".join(wc.report(rows, {"help_s": 0.5, "empty_check_s": 0.6}))
    assert "10 slowest:" in text and "#1 " in text and "FAILED #2" in text


def test_seed_report_says_when_the_old_tree_failed(wc):
    lines = wc.seed_report({"old": [], "new": [], "error": "0b49ab5 has no benchmarks/bench_review.py"})
    assert any("FAILED" in line for line in lines)
    ok = "\n".join(wc.seed_report({"old": [60.0, 62.0], "new": [20.0, 20.0], "error": None}))
    assert "3.05x" in ok and "new <= 30 ms: yes" in ok and "ratio >= 1.5: yes" in ok
