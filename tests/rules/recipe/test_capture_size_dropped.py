import pytest

from rules.recipe.checks import capture_size_dropped as rule
from tests.rules.recipe_helpers import cc, codes, ladder, line_of, review, spec, srt_recipe, vllm_role

FP = "FULL_AND_PIECEWISE"
CASES = [
    # id, role args, expected fragment (None passes)
    (
        "cap alone above the budget is clamped (the #1304 decode roles)",
        {
            "max_cudagraph_capture_size": 1536,
            "max_num_batched_tokens": 384,
            "max_num_seqs": 384,
            "compilation_config": {"cudagraph_mode": FP},
        },
        "vLLM clamps it to 384",
    ),
    (
        "cap alone above the budget, decode-only mode: clamped too",
        {
            "max_cudagraph_capture_size": 1536,
            "max_num_batched_tokens": 384,
            "compilation_config": {"cudagraph_mode": "FULL_DECODE_ONLY"},
        },
        "vLLM clamps it to 384",
    ),
    ("cap within the budget passes", {"max_cudagraph_capture_size": 384, "max_num_batched_tokens": 384}, None),
    (
        "list with sizes above the budget",
        {"compilation_config": cc(ladder(6, 36, (256, 12288)), FP), "max_num_batched_tokens": 6144},
        "12,288 above",
    ),
    (
        "every size above the budget: no graphs",
        {"compilation_config": cc([4096, 8192], FP), "max_num_batched_tokens": 2048},
        "runs without CUDA graphs",
    ),
    (
        "list ending below the budget is normal",
        {"compilation_config": cc(ladder(6, 36, (256,)), FP), "max_num_batched_tokens": 6144},
        None,
    ),
    (
        "decode-only list above the decode range",
        {
            "compilation_config": cc([3, 6, 12, 48], "FULL_DECODE_ONLY"),
            "max_num_seqs": 6,
            "max_num_batched_tokens": 4096,
            "speculative_config": spec(2),
        },
        "vLLM never captures 48",
    ),
    (
        "decode-only list with a zero",
        {
            "compilation_config": cc([0, 3, 6], "FULL_DECODE_ONLY"),
            "max_num_seqs": 2,
            "max_num_batched_tokens": 4096,
            "speculative_config": spec(2),
        },
        "holds `0`",
    ),
    (
        "decode-only list inside the decode range passes",
        {
            "compilation_config": cc([3, 6, 12], "FULL_DECODE_ONLY"),
            "max_num_seqs": 4,
            "max_num_batched_tokens": 4096,
            "speculative_config": spec(2),
        },
        None,
    ),
    # A list and cap vLLM refuses together are capture-list-end-mismatch's (blocking), not also dead config.
    (
        "refused combination is left to RR202",
        {"compilation_config": cc([8, 16, 8704], FP, 8704), "max_num_batched_tokens": 8192},
        None,
    ),
]


@pytest.mark.parametrize("args,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_dead_sizes(args, expect):
    r = review(srt_recipe(vllm_role(**args)), [rule])
    if expect is None:
        assert r.findings == [], r.findings
    else:
        assert [c for c, _ in codes(r)] == ["RR222"] and expect in r.findings[0].message, r.findings
        assert r.findings[0].severity.value == "nit"


def test_budget_edit_is_reported_on_the_budget_line():
    old = srt_recipe(vllm_role(max_cudagraph_capture_size=1024, max_num_batched_tokens=1024))
    new = old.replace("max-num-batched-tokens: 1024", "max-num-batched-tokens: 512")
    assert codes(review(new, [rule], base=old)) == [("RR222", line_of(new, "max-num-batched-tokens"))]
    assert codes(review(new, [rule])) == [("RR222", line_of(new, "max-cudagraph-capture-size"))]
