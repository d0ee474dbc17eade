import pytest

from rules.recipe.checks import capture_list_end_mismatch as rule
from tests.rules.recipe_helpers import cc, codes, ladder, line_of, review, spec, srt_recipe, vllm_role

FP = "FULL_AND_PIECEWISE"
CASES = [
    # id, compilation-config, mbt, mns, k, expected message fragment (None = passes)
    ("ends at cap and budget", cc(ladder(5, 120), FP, 8192), 8192, 24, 4, None),
    ("cap differs from list end", cc(ladder(5, 120), FP, 4096), 8192, 24, 4, "max_cudagraph_capture_size is `4096`"),
    ("piecewise list stops below budget", cc(ladder(5, 120, (256, 4096)), FP), 8192, 24, 4, "max-num-batched-tokens is `8192`"),
    ("piecewise list above budget", cc(ladder(5, 120, (256, 8704)), FP), 8192, 24, 4, "ends at `8704`"),
    ("PIECEWISE mode counts too", cc(ladder(5, 120, (4096,)), "PIECEWISE"), 8192, 24, 4, "PIECEWISE capture list"),
    ("decode-only list in FULL_AND_PIECEWISE passes (conc 1)", cc(list(range(1, 9)), FP, 8), 16384, 1, 7, None),
    ("decode-only list without a cap passes", cc([8, 16], FP), 16384, 2, 7, None),
    ("FULL mode is not held to the budget", cc(ladder(1, 128, ()), "FULL", 128), 8192, 16, 7, None),
    ("FULL_DECODE_ONLY within decode range", cc([4, 8, 16, 32], "FULL_DECODE_ONLY"), 1024, 8, 3, None),
    ("FULL_DECODE_ONLY above decode range", cc([4, 8, 16, 64], "FULL_DECODE_ONLY"), 1024, 8, 3, "above the decode range"),
    ("cap alone above budget in piecewise mode", cc(None, FP, 16384), 8192, 24, 4, "exceeds max-num-batched-tokens"),
    ("cap alone above budget in decode-only mode passes", cc(None, "FULL_DECODE_ONLY", 2048), 512, 512, 0, None),
]


@pytest.mark.parametrize("comp,mbt,mns,k,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_list_end(comp, mbt, mns, k, expect):
    text = srt_recipe(vllm_role(compilation_config=comp, max_num_batched_tokens=mbt, max_num_seqs=mns,
                                speculative_config=spec(k)))
    r = review(text, [rule])
    if expect is None:
        assert r.findings == [], r.findings
        assert all(c.status == "passed" for c in r.checks)
    else:
        assert [c for c, _ in codes(r)] == ["RR202"]
        assert expect in r.findings[0].message


def test_budget_finding_goes_to_the_edited_budget_line():
    old = srt_recipe(vllm_role(compilation_config=cc(ladder(5, 120), FP, 8192), max_num_batched_tokens=8192,
                               max_num_seqs=24, speculative_config=spec(4)))
    new = old.replace("max-num-batched-tokens: 8192", "max-num-batched-tokens: 16384")
    assert codes(review(new, [rule], base=old)) == [("RR202", line_of(new, "max-num-batched-tokens"))]
    # On an added file the list's line is the anchor.
    assert codes(review(new, [rule])) == [("RR202", line_of(new, "compilation-config"))]


def test_cap_arg_outside_json():
    text = srt_recipe(vllm_role(compilation_config=cc([8, 16, 32], FP), max_cudagraph_capture_size=16,
                                max_num_batched_tokens=32, max_num_seqs=32))
    r = review(text, [rule])
    assert [c for c, _ in codes(r)] == ["RR202"] and "`16`" in r.findings[0].message
