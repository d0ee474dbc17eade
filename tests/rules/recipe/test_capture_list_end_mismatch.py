import pytest

from rules.recipe.checks import capture_list_end_mismatch as rule
from tests.rules.recipe_helpers import cc, codes, ladder, line_of, review, spec, srt_recipe, vllm_role

FP = "FULL_AND_PIECEWISE"
CASES = [
    # id, compilation-config, mbt, mns, k, expected message fragment (None = passes)
    ("cap = list end = budget", cc(ladder(5, 120), FP, 8192), 8192, 24, 4, None),
    (
        "cap differs from list end: vLLM refuses",
        cc(ladder(5, 120), FP, 4096),
        8192,
        24,
        4,
        "max_cudagraph_capture_size is `4096`",
    ),
    (
        "cap = list end above the budget: the kept end is lower, vLLM refuses",
        cc(ladder(5, 120, (256, 4096, 8704)), FP, 8704),
        8192,
        24,
        4,
        "the largest listed size vLLM keeps",
    ),
    (
        "cap = the kept end while a larger size is dropped: starts",
        cc(ladder(5, 120, (4096, 16384)), FP, 4096),
        8192,
        24,
        4,
        None,
    ),
    # The false class of issue 21: the budget caps a step, so a list that ends below it is normal.
    ("piecewise list stops below budget", cc(ladder(5, 120, (256, 4096)), FP), 8192, 24, 4, None),
    ("piecewise list and cap stop below budget", cc(ladder(5, 120, (256, 4096)), FP, 4096), 8192, 24, 4, None),
    ("PIECEWISE list stops below budget", cc(ladder(5, 120, (4096,)), "PIECEWISE"), 8192, 24, 4, None),
    # Dead config, not a refusal: capture-size-dropped's.
    ("list above budget without a cap", cc(ladder(5, 120, (256, 8704)), FP), 8192, 24, 4, None),
    ("cap alone above budget", cc(None, FP, 16384), 8192, 24, 4, None),
    ("FULL_DECODE_ONLY above decode range", cc([4, 8, 16, 64], "FULL_DECODE_ONLY"), 1024, 8, 3, None),
    ("decode-only list with its cap", cc(list(range(1, 9)), FP, 8), 16384, 1, 7, None),
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


def test_budget_edit_that_drops_the_cap_goes_to_the_budget_line():
    old = srt_recipe(vllm_role(compilation_config=cc(ladder(5, 120), FP, 8192), max_num_batched_tokens=8192,
                               max_num_seqs=24, speculative_config=spec(4)))
    new = old.replace("max-num-batched-tokens: 8192", "max-num-batched-tokens: 4096")
    r = review(new, [rule], base=old)
    assert codes(r) == [("RR202", line_of(new, "max-num-batched-tokens"))]
    assert "keeps under max-num-batched-tokens 4,096 is `4096`" in r.findings[0].message
    # A larger budget is not a problem: the list ends below it.
    assert (
        review(old.replace("max-num-batched-tokens: 8192", "max-num-batched-tokens: 16384"), [rule], base=old).findings
        == []
    )


def test_cap_arg_outside_json():
    text = srt_recipe(vllm_role(compilation_config=cc([8, 16, 32], FP), max_cudagraph_capture_size=16,
                                max_num_batched_tokens=32, max_num_seqs=32))
    r = review(text, [rule])
    assert [c for c, _ in codes(r)] == ["RR202"] and "`16`" in r.findings[0].message


def test_unsorted_list_is_compared_as_vllm_sorts_it():
    text = srt_recipe(vllm_role(compilation_config=cc([32, 8, 16], FP, 32), max_num_batched_tokens=64))
    assert review(text, [rule]).findings == []


@pytest.mark.parametrize("args,name", [
    ({"compilation_config": cc([8, 16], FP, 16), "max_cudagraph_capture_size": 16}, "max-cudagraph-capture-size"),
    ({"compilation_config": cc([8, 16], FP), "cudagraph_capture_sizes": [8, 16]}, "cudagraph-capture-sizes"),
], ids=["cap twice", "list twice"])
def test_field_and_cli_spelling_together_are_refused(args, name):
    text = srt_recipe(vllm_role(max_num_batched_tokens=64, **args))
    r = review(text, [rule])
    assert [c for c, _ in codes(r)] == ["RR202"] and f"`{name}`" in r.findings[0].message


def test_unknown_budget():
    # The cap is not a listed size: refused whatever the budget.
    text = srt_recipe(vllm_role(compilation_config=cc([8, 16, 32], FP, 24)))
    assert [c for c, _ in codes(review(text, [rule]))] == ["RR202"]
    # The cap is a listed size below the end: depends on vLLM's default budget.
    r = review(srt_recipe(vllm_role(compilation_config=cc([8, 16, 32], FP, 16))), [rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
    assert "max-num-batched-tokens" in r.checks[0].detail
