import pytest

from rules.recipe.checks import memory_fraction_out_of_range as rule
from tests.rules.recipe_helpers import codes, line_of, review, srt_recipe

CASES = [
    ("vllm 0.9", "vllm", "gpu-memory-utilization", 0.9, None),
    ("vllm 1.0 allowed", "vllm", "gpu-memory-utilization", 1.0, None),
    ("vllm 9.0 typo", "vllm", "gpu-memory-utilization", 9.0, "outside (0, 1]"),
    ("vllm zero", "vllm", "gpu-memory-utilization", 0, "outside"),
    ("vllm text", "vllm", "gpu-memory-utilization", "high", "outside"),
    ("sglang 0.85", "sglang", "mem-fraction-static", 0.85, None),
    ("sglang 1.0 not allowed", "sglang", "mem-fraction-static", 1.0, "outside (0, 1)"),
]


@pytest.mark.parametrize("engine,key,value,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_fraction(engine, key, value, expect):
    text = srt_recipe({"decode": {key: value, "tensor-parallel-size": 4}}, engine=engine)
    r = review(text, [rule])
    if expect is None:
        assert r.findings == []
    else:
        assert codes(r) == [("RR208", line_of(text, key))] and expect in r.findings[0].message


def test_trtllm_nested_fraction():
    text = srt_recipe(
        {"gen": {}, "decode": {"tensor_parallel_size": 4, "kv_cache_config": {"free_gpu_memory_fraction": 1.2}}},
        engine="trtllm",
    )
    r = review(text, [rule])
    assert codes(r) == [("RR208", line_of(text, "free_gpu_memory_fraction"))]
