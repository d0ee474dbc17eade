import pytest

from rules.serving.checks import concurrency_exceeds_engine_cap as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt

FIXED = {"type": "sa-bench", "isl": 8192, "osl": 1024}

CASES = [
    # id, engine, decode args, decode workers, concurrencies, expected fragment (None passes)
    ("vLLM two TP4 workers × 512 = 1,024 against 4,096 (#1887 before its fix)", "vllm",
     {"tensor-parallel-size": 4, "max-num-seqs": 512}, 2, "4096", "4× what the decode workers admit"),
    ("exactly 2× decode capacity is the generated submissions' slack, no proof", "vllm",
     {"tensor-parallel-size": 4, "max-num-seqs": 1024}, 2, "4096", None),
    ("a small allowance above 2× is still the slack band (2,161 against 1,024)", "sglang",
     {"tp-size": 8, "max-running-requests": 1024}, 1, "2161", None),
    ("above the band the excess can only be queued (2.4×)", "sglang",
     {"tp-size": 8, "max-running-requests": 535}, 1, "1305", "2.4× what the decode workers admit"),
    ("vLLM DP8 counts per DP rank: 2 × 1,024 × 8 = 16,384 ≥ 4,096", "vllm",
     {"tensor-parallel-size": 1, "data-parallel-size": 8, "max-num-seqs": 1024}, 2, "4096", None),
    ("SGLang max-running-requests is the server's total, even under DP attention", "sglang",
     {"tp-size": 16, "dp-size": 16, "enable-dp-attention": True, "max-running-requests": 2048}, 1, "2048x8192",
     "`max-running-requests` 2,048"),
    ("disaggregated decode may run up to 2× its capacity (prefill holds the rest)", "sglang",
     {"tp-size": 8, "max-running-requests": 1024}, 1, "1500", None),
    ("TensorRT-LLM max_batch_size is per attention-DP rank", "trtllm",
     {"tensor_parallel_size": 16, "enable_attention_dp": True, "max_batch_size": 32}, 1, "615", None),
    ("TensorRT-LLM batch 1 × 4 workers at conc 16", "trtllm",
     {"tensor_parallel_size": 8, "max_batch_size": 1}, 4, "16", "4× what"),
    ("zero cap admits nothing", "sglang", {"tp-size": 8, "max-running-requests": 0}, 1, "8", "more than"),
]


@pytest.mark.parametrize("engine,decode,workers,concs,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_cap(engine, decode, workers, concs, expect):
    prefill = (
        {"tp-size": 4}
        if engine == "sglang"
        else {"tensor-parallel-size": 4}
        if engine == "vllm"
        else {"tensor_parallel_size": 4}
    )
    text = srt(engine, {"prefill": prefill, "decode": decode}, {"decode_workers": workers},
               {**FIXED, "concurrencies": concs})
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == [] and any(c.status == "passed" for c in r.checks)
    else:
        assert [f.code for f in r.findings] == ["RR210"] and expect in r.findings[0].message, r.findings


def test_aggregated_point_is_flagged_above_its_cap():
    # #411: MAX_RUNNING_REQUESTS 32 while the point runs conc 64.
    text = srt("sglang", {"aggregated": {"tp-size": 8, "max-running-requests": 32}}, {"agg_workers": 1},
               {**FIXED, "concurrencies": "4x64"})
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR210", line_of(text, "concurrencies"))]
    assert "concurrency `64`" in r.findings[0].message and "`max-running-requests` 32" in r.findings[0].message


def test_the_edited_line_carries_the_finding():
    base = srt(
        "sglang", {"aggregated": {"tp-size": 8, "max-running-requests": 64}}, None, {**FIXED, "concurrencies": "64"}
    )
    head = base.replace('concurrencies: "64"', 'concurrencies: "256"')
    r = review(head, [rule], path=MN_PATH, base=base)
    assert codes(r) == [("RR210", line_of(head, "concurrencies"))]


def test_agentic_sessions_are_not_requests_in_flight():
    # CONC counts concurrent sessions with think time (#4867 runs max-num-seqs below CONC on purpose).
    text = srt("vllm", {"aggregated": {"tensor-parallel-size": 8, "max-num-seqs": 3}}, None,
               {"type": "custom", "env": {"CONC": "4"}})
    r = review(text, [rule], path=MN_PATH)
    assert r.findings == [] and any("sessions" in c.detail and c.status == "skipped" for c in r.checks)


def test_unreadable_cap_is_skipped_naming_it():
    text = srt(
        "sglang", {"aggregated": {"tp-size": 8, "max-running-requests": "8k"}}, None, {**FIXED, "concurrencies": "64"}
    )
    r = review(text, [rule], path=MN_PATH)
    assert r.findings == [] and any("`max-running-requests` is `8k`" in c.detail for c in r.checks)


def test_default_cap_is_left_to_the_nit_rule():
    text = srt("vllm", {"aggregated": {"tensor-parallel-size": 8}}, None, {**FIXED, "concurrencies": "4096"})
    assert review(text, [rule], path=MN_PATH).findings == []


def test_option_changes_the_disaggregated_factor():
    text = srt("sglang", {"prefill": {"tp-size": 4}, "decode": {"tp-size": 8, "max-running-requests": 1024}}, None,
               {**FIXED, "concurrencies": "1500"})
    from rules.changeset import ChangeSet, FileChange
    from rules.config import load_config
    from rules.runner import run
    cfg, errors = load_config({"rules": {"RR210": {"options": {"disagg_queue_factor": 1.2}}}}, [rule])
    assert errors == []
    r = run(ChangeSet(files=(FileChange(MN_PATH, "added", head=text.encode()),)), cfg, rules=[rule])
    assert [f.code for f in r.findings] == ["RR210"]


def test_an_edited_cap_carries_the_finding():
    base = srt(
        "sglang", {"aggregated": {"tp-size": 8, "max-running-requests": 64}}, None, {**FIXED, "concurrencies": "64"}
    )
    head = base.replace("max-running-requests: 64", "max-running-requests: 32")
    r = review(head, [rule], path=MN_PATH, base=base)
    assert codes(r) == [("RR210", line_of(head, "max-running-requests"))]
