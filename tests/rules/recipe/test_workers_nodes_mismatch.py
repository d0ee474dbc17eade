import pytest

from rules.recipe.checks import workers_nodes_mismatch as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt


def recipe(resources, backend=None):
    return srt("vllm", {"prefill": {"tensor-parallel-size": 2}, "decode": {"tensor-parallel-size": 8}},
               resources, {"type": "sa-bench", "concurrencies": "64"}, backend=backend)


B200 = {"gpu_type": "b200", "gpus_per_node": 8}

CASES = [
    # #1649: one 8-GPU decode worker on 8-GPU nodes needs one node, not two.
    ("one full-node worker on two nodes", {**B200, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 8},
     "resources.decode_nodes is `2`"),
    ("one full-node worker on one node", {**B200, "decode_nodes": 1, "decode_workers": 1, "gpus_per_decode": 8}, None),
    ("a 16-GPU worker spans two 8-GPU nodes", {**B200, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 16}, None),
    ("four 2-GPU workers pack on one node", {**B200, "prefill_nodes": 1, "prefill_workers": 4, "gpus_per_prefill": 2}, None),
    ("or one node each (older templates)", {**B200, "prefill_nodes": 4, "prefill_workers": 4, "gpus_per_prefill": 2}, None),
    ("the GB200 layout copied to B200", {**B200, "prefill_nodes": 2, "prefill_workers": 4, "gpus_per_prefill": 2},
     "resources.prefill_nodes is `2`"),
    ("spread_decode_workers: one node per worker", {**B200, "decode_nodes": 1, "decode_workers": 2, "gpus_per_decode": 4,
                                                   "spread_decode_workers": True}, "spread"),
    ("too few nodes", {**B200, "decode_nodes": 1, "decode_workers": 2, "gpus_per_decode": 8}, "2 nodes"),
    ("no declared GPUs: srtctl derives them from the nodes", {**B200, "decode_nodes": 3, "decode_workers": 1}, None),
]


@pytest.mark.parametrize("resources,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_nodes(resources, expect):
    r = review(recipe(resources), [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR217"] and expect in r.findings[0].message, r.findings


def test_suggestion_fixes_the_node_count():
    text = recipe({**B200, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 8})
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR217", line_of(text, "decode_nodes"))]
    assert r.findings[0].suggestion.strip() == "decode_nodes: 1"


def test_colocated_roles_are_packed_by_srtctl():
    res = {**B200, "prefill_nodes": 1, "decode_nodes": 1, "prefill_workers": 1, "decode_workers": 1,
           "gpus_per_prefill": 2, "gpus_per_decode": 4}
    ok = review(recipe(res, {"allow_prefill_decode_colocation": True}), [rule], path=MN_PATH)
    assert ok.findings == []
    few = {**res, "prefill_nodes": 0, "decode_nodes": 0, "gpus_per_decode": 8}
    r = review(recipe(few, {"allow_prefill_decode_colocation": True}), [rule], path=MN_PATH)
    assert [f.code for f in r.findings] == ["RR217"] and "only `0`" in r.findings[0].message
