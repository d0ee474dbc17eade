import pytest

from rules.recipe.checks import capture_list_unsorted as rule
from tests.rules.recipe_helpers import cc, codes, line_of, review, srt_recipe, vllm_role

CASES = [
    ("increasing integers pass", [5, 10, 15, 8192], None),
    ("repeated size", [5, 10, 10, 15], "repeats a size"),
    ("out of order", [5, 15, 10, 20], "is not increasing"),
    ("quoted integer", [5, "10", 15], "another type"),
    ("boolean is a size of 1", [True, 4, 8], "another type"),
    # Lists vLLM refuses are capture-list-malformed's only.
    ("fractional size is malformed, not unsorted", [10, 5, 7.5], None),
    ("not a list", "10,5", None),
]


@pytest.mark.parametrize("sizes,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rewritten_lists(sizes, expect):
    text = srt_recipe(vllm_role(compilation_config=cc(sizes), max_num_batched_tokens=8192))
    r = review(text, [rule])
    if expect is None:
        assert r.findings == []
    else:
        assert codes(r) == [("RR224", line_of(text, "compilation-config"))]
        assert expect in r.findings[0].message
        assert r.findings[0].severity.value == "nit"


def test_suggestion_is_the_list_vllm_uses():
    text = srt_recipe(vllm_role(compilation_config=cc([5, 15, "10", 10, 20])))
    f = review(text, [rule]).findings[0]
    assert f.suggestion is not None and '"cudagraph_capture_sizes":[5,10,15,20]' in f.suggestion
    assert f.suggestion.startswith("      compilation-config: '")


def test_eager_role_is_not_read():
    text = srt_recipe(vllm_role(compilation_config=cc([10, 5]), enforce_eager=True))
    assert review(text, [rule]).findings == []
