import pytest

from rules.recipe.checks import trt_capture_exceeds_max_batch as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt


@pytest.mark.parametrize("args,expect", [
    ({"max_batch_size": 1, "cuda_graph_config": {"batch_sizes": [1, 2, 4]}}, "TensorRT-LLM drops sizes 2, 4 (dead config)"),
    ({"max_batch_size": 4, "cuda_graph_config": {"batch_sizes": [1, 2, 4]}}, None),
    ({"max_batch_size": 2, "cuda_graph_config": {"max_batch_size": 4}}, "TensorRT-LLM drops size 4 (dead config)"),
    ({"max_batch_size": 64, "max_num_tokens": 128, "speculative_config": {"decoding_type": "MTP", "num_nextn_predict_layers": 3},
      "cuda_graph_config": {"batch_sizes": [1, 32, 64]}}, "`max_num_tokens` 128 / (1 + 3 draft tokens) = 32"),
    ({"max_batch_size": 1, "cuda_graph_config": None}, None),
    ({"cuda_graph_config": {"batch_sizes": [1, 2, 4]}}, None),  # default max_batch_size: not an explicit conflict
], ids=["#2596 list above max_batch_size 1", "list ends at the cap", "cuda-graph max above the cap",
        "token budget limits graphs under MTP", "graphs off", "no explicit max_batch_size"])
def test_trt(args, expect):
    text = srt("trtllm", {"decode": {"tensor_parallel_size": 8, **args}}, None, {"type": "sa-bench", "concurrencies": "4"})
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR214"] and expect in r.findings[0].message, r.findings


def test_edit_of_max_batch_size_is_reported_on_it():
    base = srt("trtllm", {"decode": {"tensor_parallel_size": 8, "max_batch_size": 4, "cuda_graph_config": {"batch_sizes": [1, 2, 4]}}})
    head = base.replace("max_batch_size: 4", "max_batch_size: 1")
    r = review(head, [rule], path=MN_PATH, base=base)
    assert codes(r) == [("RR214", line_of(head, "max_batch_size: 1"))]
