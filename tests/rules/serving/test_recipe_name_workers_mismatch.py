import pytest

from rules.serving.checks import recipe_name_workers_mismatch as rule
from tests.rules.recipe_helpers import review, srt

PATH = "benchmarks/multi_node/srt-slurm-recipes/sglang/model/8k1k/{}.yaml"


def recipe(name, resources):
    return srt(
        "sglang",
        {"prefill": {"tp-size": 4}, "decode": {"tp-size": 4}},
        {"gpu_type": "b200", "gpus_per_node": 8, **resources},
        {"type": "sa-bench", "concurrencies": "8"},
        name=name,
    )


@pytest.mark.parametrize(
    "name,file,resources,expect",
    [
        # #3103: named 1p-1d, launches two decode workers.
        (
            "model-disagg-1p-1d-tp4",
            "disagg-a",
            {"prefill_workers": 1, "decode_workers": 2},
            "1 decode named, 2 decode workers",
        ),
        ("model-disagg-2p1d", "disagg-2p1d", {"prefill_workers": 2, "decode_workers": 1}, None),
        ("x", "disagg-b200-3p1d-dep8", {"prefill_workers": 2, "decode_workers": 1}, "the file name"),
        # Multi-node workers named by node count: 2 prefill workers of 8 GPUs on 4-GPU nodes = 4 nodes.
        (
            "disagg-gb300-4p4d",
            "disagg-gb300-4p4d",
            {"gpus_per_node": 4, "prefill_nodes": 4, "prefill_workers": 2, "decode_nodes": 4, "decode_workers": 1},
            None,
        ),
        ("no layout in the name", "agg-tp8", {"prefill_workers": 3, "decode_workers": 1}, None),
    ],
    ids=[
        "#3103 1p-1d with 2 decode workers",
        "name matches",
        "file name disagrees",
        "node-count naming of multi-node workers",
        "no NpMd",
    ],
)
def test_name(name, file, resources, expect):
    r = review(recipe(name, resources), [rule], path=PATH.format(file))
    if expect is None:
        assert r.findings == []
    else:
        assert [f.code for f in r.findings] == ["RR218"] and expect in r.findings[0].message, r.findings


def test_same_layout_in_name_and_file_is_one_finding():
    r = review(recipe("m-1p1d", {"prefill_workers": 1, "decode_workers": 2}), [rule], path=PATH.format("disagg-1p1d"))
    assert [f.code for f in r.findings] == ["RR218"]
