import pytest

from rules.recipe.checks import capture_list_malformed as rule
from tests.rules.recipe_helpers import cc, codes, line_of, review, srt_recipe, vllm_role

CASES = [
    ("increasing list passes", [5, 10, 15, 8192], {}, None),
    ("repeated size", [5, 10, 10, 15], {}, "repeats a size"),
    ("out of order", [5, 15, 10, 20], {}, "is not increasing"),
    ("zero size", [0, 5, 10], {}, "not positive"),
    ("negative size", [-5, 5, 10], {}, "not positive"),
    ("float size", [5, 10.5, 15], {}, "not an integer"),
    ("string size", [5, "10", 15], {}, "not an integer"),
    ("empty list", [], {}, "is empty"),
    ("not a list", "5,10,15", {}, "is not a list"),
    ("eager engine is not captured", [10, 5], {"enforce-eager": True}, None),
]


@pytest.mark.parametrize("sizes,extra,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_capture_list_shape(sizes, extra, expect):
    text = srt_recipe(vllm_role(compilation_config=cc(sizes), max_num_batched_tokens=8192, **extra))
    r = review(text, [rule])
    if expect is None:
        assert r.findings == []
    else:
        assert codes(r) == [("RR201", line_of(text, "compilation-config"))]
        assert expect in r.findings[0].message


def test_suggestion_is_the_sorted_unique_line():
    text = srt_recipe(vllm_role(compilation_config=cc([5, 15, 10, 10, 20])))
    f = review(text, [rule]).findings[0]
    assert f.suggestion is not None and '"cudagraph_capture_sizes":[5,10,15,20]' in f.suggestion
    assert f.suggestion.startswith("      compilation-config: '")


def test_sglang_roles_are_not_read():
    text = srt_recipe({"decode": {"cuda-graph-bs": "[2, 1]", "tensor-parallel-size": 4}}, engine="sglang")
    assert review(text, [rule]).findings == []


def test_passed_check_lists_points():
    text = srt_recipe(vllm_role(compilation_config=cc([4, 8])))
    r = review(text, [rule])
    assert [c.status for c in r.checks] == ["passed"] and "(2 sizes)" in r.checks[0].detail
