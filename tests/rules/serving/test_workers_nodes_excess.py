import pytest

from rules.serving.checks import workers_nodes_excess as rule
from tests.rules.recipe_helpers import MN_PATH, codes, line_of, review, srt


def recipe(resources, backend=None):
    """Roles whose TP is the GPUs they declare (a mismatch there is gpus-per-role-mismatch's)."""
    tp = {role: resources.get(f"gpus_per_{role}", default) for role, default in (("prefill", 2), ("decode", 8))}
    return srt(
        "vllm",
        {"prefill": {"tensor-parallel-size": tp["prefill"]}, "decode": {"tensor-parallel-size": tp["decode"]}},
        resources,
        {"type": "sa-bench", "concurrencies": "64"},
        backend=backend,
    )


B200 = {"gpu_type": "b200", "gpus_per_node": 8}

CASES = [
    # #1649's shape: one 8-GPU decode worker on 8-GPU nodes uses one node; the second is idle.
    (
        "one full-node worker on two nodes",
        {**B200, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 8},
        "1 node allocated and left idle",
    ),
    (
        "the 4-GPU-node layout copied to 8-GPU nodes",
        {**B200, "prefill_nodes": 2, "prefill_workers": 4, "gpus_per_prefill": 2},
        "resources.prefill_nodes is `2`",
    ),
    ("one full-node worker on one node", {**B200, "decode_nodes": 1, "decode_workers": 1, "gpus_per_decode": 8}, None),
    (
        "four 2-GPU workers packed on one node",
        {**B200, "prefill_nodes": 1, "prefill_workers": 4, "gpus_per_prefill": 2},
        None,
    ),
    (
        "or one node each (older templates)",
        {**B200, "prefill_nodes": 4, "prefill_workers": 4, "gpus_per_prefill": 2},
        None,
    ),
    (
        "more than one node each",
        {**B200, "prefill_nodes": 6, "prefill_workers": 4, "gpus_per_prefill": 2},
        "5 nodes allocated and left idle",
    ),
    # Too few is the blocking rule's, not this one's.
    ("too few nodes", {**B200, "decode_nodes": 1, "decode_workers": 2, "gpus_per_decode": 8}, None),
]


@pytest.mark.parametrize("resources,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_idle_nodes(resources, expect):
    r = review(recipe(resources), [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR223"] and expect in r.findings[0].message, r.findings
        assert r.findings[0].severity.value == "nit"


def test_suggestion_fixes_the_node_count():
    text = recipe({**B200, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 8})
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR223", line_of(text, "decode_nodes"))]
    assert r.findings[0].suggestion.strip() == "decode_nodes: 1"


def test_colocated_roles_are_not_judged():
    res = {**B200, "prefill_nodes": 2, "decode_nodes": 2, "prefill_workers": 1, "decode_workers": 1,
           "gpus_per_prefill": 2, "gpus_per_decode": 4}
    assert review(recipe(res, {"allow_prefill_decode_colocation": True}), [rule], path=MN_PATH).findings == []


def test_declared_gpus_that_disagree_with_the_parallelism_are_not_compared():
    # TP 8 on 4-GPU nodes needs two nodes; the declared 4 GPUs per worker is what is wrong
    # (gpus-per-role-mismatch), so the two nodes are not called idle.
    text = srt("sglang", {"decode": {"tp-size": 8}},
               {"gpu_type": "gb200", "gpus_per_node": 4, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 4},
               {"type": "sa-bench", "concurrencies": "64"})
    r = review(text, [rule], path=MN_PATH)
    assert r.findings == []
    # Control: with the declared GPUs matching TP 4, the second node is idle.
    ok = text.replace("tp-size: 8", "tp-size: 4")
    assert [f.code for f in review(ok, [rule], path=MN_PATH).findings] == ["RR223"]
