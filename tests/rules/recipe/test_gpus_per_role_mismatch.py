import pytest

from rules.recipe.checks import gpus_per_role_mismatch as rule
from tests.rules.recipe_helpers import SCHEMA2, SCHEMA2_PATH, codes, line_of, review, srt_recipe

CASES = [
    # id, engine, role args, declared gpus, expected fragment (None passes)
    ("vllm TP4 x DP4 = 16", "vllm", {"tensor-parallel-size": 4, "data-parallel-size": 4}, 16, None),
    (
        "vllm TP4 x DP4 on 8",
        "vllm",
        {"tensor-parallel-size": 4, "data-parallel-size": 4},
        8,
        "gives tensor-parallel-size 4",
    ),
    ("vllm pipeline counts", "vllm", {"tensor-parallel-size": 8, "pipeline-parallel-size": 2}, 16, None),
    (
        "vllm decode-context parallel reuses TP",
        "vllm",
        {"tensor-parallel-size": 8, "decode-context-parallel-size": 8},
        8,
        None,
    ),
    ("sglang dp-attention stays inside TP", "sglang", {"tensor-parallel-size": 8, "data-parallel-size": 8}, 8, None),
    ("sglang tp-size alias", "sglang", {"tp-size": 4}, 8, "tp-size 4"),
    ("trtllm tp x pp", "trtllm", {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}, 8, None),
    ("trtllm off by pp", "trtllm", {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}, 4, "`4`"),
    ("no parallel args: not judged", "vllm", {"max-num-seqs": 8}, 8, None),
]


@pytest.mark.parametrize("engine,args,gpus,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gpus(engine, args, gpus, expect):
    text = srt_recipe({"decode": args}, gpus={"decode": gpus}, engine=engine)
    r = review(text, [rule])
    if expect is None:
        assert r.findings == []
    else:
        assert codes(r) == [("RR207", line_of(text, "gpus_per_decode"))] and expect in r.findings[0].message


def test_schema2_roles_gpus():
    assert review(SCHEMA2, [rule], path=SCHEMA2_PATH).findings == []
    bad = SCHEMA2.replace("      gpus: 8", "      gpus: 4", 1)
    r = review(bad, [rule], path=SCHEMA2_PATH, base=SCHEMA2)
    # Inherited from base by all seven points: reported once, on the edited line.
    assert codes(r) == [("RR207", line_of(bad, "gpus: 4"))] and "6 more points" in r.findings[0].message
