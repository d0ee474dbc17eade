import pytest

from rules.recipe.checks import capture_list_malformed as rule
from tests.rules.recipe_helpers import cc, codes, line_of, review, srt_recipe, vllm_role

CASES = [
    ("increasing list passes", [5, 10, 15, 8192], {}, None),
    # vLLM deduplicates and sorts (VllmConfig._set_cudagraph_sizes): capture-list-unsorted's, not a refusal.
    ("repeated size is not refused", [5, 10, 10, 15], {}, None),
    ("out of order is not refused", [5, 15, 10, 20], {}, None),
    # pydantic's lax int reads these; vLLM starts.
    ("quoted integer is read as an integer", [5, "10", 15], {}, None),
    ("integral float is read as an integer", [5, 10.0, 15], {}, None),
    ("zero size in a mixed mode", [0, 5, 10], {}, "not positive"),
    ("negative size", [-5, 5, 10], {}, "not positive"),
    ("fractional size", [5, 10.5, 15], {}, "not an integer"),
    ("word size", [5, "ten", 15], {}, "not an integer"),
    ("null size", [5, None, 15], {}, "not an integer"),
    ("empty list", [], {}, "is empty"),
    ("not a list", "5,10,15", {}, "is not a list"),
    ("eager engine is not captured", [10, 5.5], {"enforce-eager": True}, None),
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


def test_zero_in_decode_only_mode_is_not_captured_so_not_refused():
    # FULL_DECODE_ONLY captures decode graphs from k + 1 up only: a 0 is dead config (RR222), not a crash.
    text = srt_recipe(vllm_role(compilation_config=cc([0, 4, 8], "FULL_DECODE_ONLY"), max_num_batched_tokens=8192))
    assert review(text, [rule]).findings == []


def test_cudagraph_mode_none_captures_nothing():
    text = srt_recipe(vllm_role(compilation_config=cc([], "NONE"), max_num_batched_tokens=8192))
    assert review(text, [rule]).findings == []


def test_cli_spelling_scalar_is_a_one_size_list():
    text = srt_recipe(vllm_role(cudagraph_capture_sizes=512, max_num_batched_tokens=8192))
    r = review(text, [rule])
    assert r.findings == [] and "(1 sizes)" in r.checks[0].detail


def test_sglang_roles_are_not_read():
    text = srt_recipe({"decode": {"cuda-graph-bs": "[2, 1]", "tensor-parallel-size": 4}}, engine="sglang")
    assert review(text, [rule]).findings == []


def test_passed_check_lists_points():
    text = srt_recipe(vllm_role(compilation_config=cc([4, 8])))
    r = review(text, [rule])
    assert [c.status for c in r.checks] == ["passed"] and "(2 sizes)" in r.checks[0].detail
