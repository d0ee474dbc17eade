import pytest

from rules.recipe.checks import capture_list_decode_misaligned as rule
from tests.rules.recipe_helpers import cc, codes, ladder, line_of, review, spec, srt_recipe, vllm_role

CASES = [
    # id, sizes, mns, k, expected kind: None passes, "skip" is a Skipped check, else message fragment
    ("multiples of k+1", ladder(5, 120), 24, 4, None),
    ("no speculation: every size aligned", ladder(1, 48), 48, 0, None),
    ("dense ladder (step 1) covers the multiples", list(range(2, 17)) + [8192], 2, 7, None),
    ("one size breaks the stride", [5, 10, 16, 20, 25, 30, 8192], 6, 4, "`16` is not a multiple"),
    ("first size off the grid", [6, 10, 15, 20, 25, 30, 8192], 6, 4, "`6` is not a multiple"),
    ("ladder built for another draft length", ladder(4, 96), 24, 4, "step by `4`"),
    ("stale ladder after k went 4 -> 5", ladder(5, 120), 24, 5, "step by `5`"),
    ("hand-tuned irregular list is skipped", [1, 7, 18, 34, 53, 64, 128, 8192], 8, 7, "skip"),
    ("sizes above the decode range are not decode sizes", [5, 10, 15, 20, 128, 333, 8192], 4, 4, None),
]


@pytest.mark.parametrize("sizes,mns,k,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_alignment(sizes, mns, k, expect):
    text = srt_recipe(vllm_role(compilation_config=cc(sizes), max_num_seqs=mns, max_num_batched_tokens=8192,
                                speculative_config=spec(k)))
    r = review(text, [rule])
    if expect is None:
        assert r.findings == [] and [c.status for c in r.checks] == ["passed"]
    elif expect == "skip":
        assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
    else:
        assert codes(r) == [("RR203", line_of(text, "compilation-config"))]
        assert expect in r.findings[0].message


def test_stale_ladder_is_reported_on_the_edited_draft_length():
    old = srt_recipe(vllm_role(compilation_config=cc(ladder(5, 120)), max_num_seqs=24, speculative_config=spec(4)))
    new = old.replace('"num_speculative_tokens":4', '"num_speculative_tokens":3')
    assert codes(review(new, [rule], base=old)) == [("RR203", line_of(new, "speculative-config"))]


def test_missing_draft_length_is_not_guessed():
    text = srt_recipe(vllm_role(compilation_config=cc([5, 7, 9]), max_num_seqs=24,
                                speculative_config={"method": "mtp"}))
    assert review(text, [rule]).findings == []
