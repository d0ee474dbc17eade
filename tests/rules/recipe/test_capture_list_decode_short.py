import pytest

from rules.finding import Severity
from rules.recipe.checks import capture_list_decode_short as rule
from tests.rules.recipe_helpers import cc, codes, ladder, line_of, review, spec, srt_recipe, vllm_role

CASES = [
    ("reaches mns x (k+1)", ladder(5, 120), 24, 4, None),
    ("stops one step short", ladder(5, 115), 24, 4, "stop at `115`"),
    ("decode-only list stops short", [8, 16], 4, 7, "run eagerly"),
    ("jumps over the decode max", ladder(5, 100, (128, 8192)), 24, 4, "pad to `128`"),
    ("no speculation", ladder(1, 48), 48, 0, None),
]


@pytest.mark.parametrize("sizes,mns,k,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_decode_reach(sizes, mns, k, expect):
    text = srt_recipe(vllm_role(compilation_config=cc(sizes), max_num_seqs=mns, speculative_config=spec(k)))
    r = review(text, [rule])
    if expect is None:
        assert r.findings == []
    else:
        assert codes(r) == [("RR204", line_of(text, "compilation-config"))]
        assert expect in r.findings[0].message and r.findings[0].severity is Severity.NIT


def test_raised_max_num_seqs_is_reported_on_its_line():
    old = srt_recipe(vllm_role(compilation_config=cc(ladder(5, 120)), max_num_seqs=24, speculative_config=spec(4)))
    new = old.replace("max-num-seqs: 24", "max-num-seqs: 25")
    assert codes(review(new, [rule], base=old)) == [("RR204", line_of(new, "max-num-seqs"))]
