import pytest

from rules.serving.checks import workers_nodes_mismatch as rule
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
    ("one full-node worker on one node", {**B200, "decode_nodes": 1, "decode_workers": 1, "gpus_per_decode": 8}, None),
    (
        "a 16-GPU worker spans two 8-GPU nodes",
        {**B200, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 16},
        None,
    ),
    (
        "a 16-GPU worker on one 8-GPU node",
        {**B200, "decode_nodes": 1, "decode_workers": 1, "gpus_per_decode": 16},
        "resources.decode_nodes is `1`",
    ),
    (
        "four 2-GPU workers pack on one node",
        {**B200, "prefill_nodes": 1, "prefill_workers": 4, "gpus_per_prefill": 2},
        None,
    ),
    (
        "or one node each (older templates)",
        {**B200, "prefill_nodes": 4, "prefill_workers": 4, "gpus_per_prefill": 2},
        None,
    ),
    (
        "spread_decode_workers: one node per worker",
        {**B200, "decode_nodes": 1, "decode_workers": 2, "gpus_per_decode": 4, "spread_decode_workers": True},
        "spread",
    ),
    ("too few nodes", {**B200, "decode_nodes": 1, "decode_workers": 2, "gpus_per_decode": 8}, "2 nodes"),
    # Too many nodes leaves nodes idle, the engines run as described: workers-nodes-excess's (a nit), not a failure.
    (
        "one full-node worker on two nodes is not a failure",
        {**B200, "decode_nodes": 2, "decode_workers": 1, "gpus_per_decode": 8},
        None,
    ),
    (
        "the GB200 layout copied to B200 is not a failure",
        {**B200, "prefill_nodes": 2, "prefill_workers": 4, "gpus_per_prefill": 2},
        None,
    ),
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
    text = recipe({**B200, "decode_nodes": 1, "decode_workers": 2, "gpus_per_decode": 8})
    r = review(text, [rule], path=MN_PATH)
    assert codes(r) == [("RR217", line_of(text, "decode_nodes"))]
    assert r.findings[0].suggestion.strip() == "decode_nodes: 2"


def test_colocated_roles_are_packed_by_srtctl():
    res = {**B200, "prefill_nodes": 1, "decode_nodes": 1, "prefill_workers": 1, "decode_workers": 1,
           "gpus_per_prefill": 2, "gpus_per_decode": 4}
    ok = review(recipe(res, {"allow_prefill_decode_colocation": True}), [rule], path=MN_PATH)
    assert ok.findings == []
    few = {**res, "prefill_nodes": 0, "decode_nodes": 0, "gpus_per_decode": 8}
    r = review(recipe(few, {"allow_prefill_decode_colocation": True}), [rule], path=MN_PATH)
    assert [f.code for f in r.findings] == ["RR217"] and "only `0`" in r.findings[0].message


def test_declared_gpus_that_disagree_with_the_parallelism_are_not_compared():
    # 16 GPUs declared for a TP 8 worker: the declaration is gpus-per-role-mismatch's; one node fits TP 8.
    text = srt("vllm", {"decode": {"tensor-parallel-size": 8}},
               {**B200, "decode_nodes": 1, "decode_workers": 1, "gpus_per_decode": 16},
               {"type": "sa-bench", "concurrencies": "64"})
    r = review(text, [rule], path=MN_PATH)
    assert r.findings == [] and any("node count not compared" in c.detail for c in r.checks)
