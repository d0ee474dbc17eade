
import pytest

from rules.serving.checks import host_pool_exceeds_budget as rule
from tests.rules.recipe_helpers import MN_PATH, review, srt

RUNNERS = "configs/runners.yaml"


def agg(engine, args, budget=None, env=None, gpu="mi355x", gpn=8):
    bench = {"type": "custom", "env": {"CONC": "8", **({"TOTAL_CPU_DRAM_GB": str(budget)} if budget else {})}}
    return srt(engine, {"aggregated": args}, {"gpu_type": gpu, "gpus_per_node": gpn}, bench,
               env={"aggregated": env} if env else None)


CASES = [
    # #2816: 256 GiB per rank against a budget of about 75 GB per rank (600 GB for 8 ranks).
    ("HiCache size per rank × 8 ranks above the budget", "sglang", {"tp-size": 8, "hicache-size": 256}, 600, None,
     "2,048 GB on a node"),
    ("HiCache inside the budget", "sglang", {"tp-size": 8, "hicache-size": 75}, 600, None, None),
    ("TensorRT-LLM host cache in bytes per rank", "trtllm",
     {"tensor_parallel_size": 8, "kv_cache_config": {"host_cache_size": 274877906944}}, 600, None, "2,199.0233 GB"),
    ("above the host even without a budget", "sglang", {"tp-size": 8, "hicache-size": 500}, None, None,
     "more than the host's"),
    ("LMCache GB are GiB", "vllm", {"tensor-parallel-size": 8}, None, {"LMCACHE_MAX_LOCAL_CPU_SIZE": "500"},
     "4,294.9673 GB"),
]


@pytest.mark.parametrize("engine,args,budget,env,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pool(engine, args, budget, env, expect):
    r = review(agg(engine, args, budget, env), [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == [] and any(c.status == "passed" for c in r.checks)
    else:
        assert [f.code for f in r.findings] == ["RR219"] and expect in r.findings[0].message, r.findings


def test_hicache_ratio_is_skipped_naming_what_is_missing():
    # #2777: a ratio of the device KV pool; the recipe does not state the pool, so no guess.
    r = review(
        agg("sglang", {"tp-size": 8, "enable-hierarchical-cache": True, "hicache-ratio": 6}, 600), [rule], path=MN_PATH
    )
    assert r.findings == []
    assert any(c.status == "skipped" and "hicache-ratio 6 × the device KV pool" in c.detail for c in r.checks)


def test_runners_yaml_decides_the_host():
    runners = "hardware:\n  cluster:x:\n    available-cpu-dram-mib: 100000\n    gpus-per-node: 8\n"
    text = agg("sglang", {"tp-size": 8, "hicache-size": 20}, None, gpu="unknown-gpu")
    assert review(text, [rule], path=MN_PATH).findings == []  # host unknown: skipped
    master = ("k:\n  image: x\n  runner: cluster:x\n  multinode: false\n  srt-recipe-dir: sglang/model/8k1k\n"
              "  srt-recipe: disagg-1p1d.yaml\n  scenarios:\n    agentic-coding:\n    - dram-utilization: 0.5\n"
              "      search-space:\n      - { tp: 8, conc-list: [8] }\n")
    r = review(
        text, [rule], path=MN_PATH, context={RUNNERS: runners.encode(), "configs/amd-master.yaml": master.encode()}
    )
    assert [f.code for f in r.findings] == ["RR219"] and "104.8576 GB of DRAM" in r.findings[0].message


def test_decode_pools_of_a_disaggregated_point_are_not_held_to_the_prefill_budget():
    text = srt(
        "sglang",
        {"prefill": {"tp-size": 4}, "decode": {"tp-size": 4, "hicache-size": 100}},
        {"gpu_type": "mi355x", "gpus_per_node": 8},
        {"type": "custom", "env": {"TOTAL_CPU_DRAM_GB": "200", "CONC": "8"}},
    )
    r = review(text, [rule], path=MN_PATH)
    assert r.findings == [] and any("vs host" in c.detail for c in r.checks)
