"""The engine-settings model: normalization per engine, defaults, scopes, and hostile input."""
from pathlib import Path

import pytest

from rules.document import parse_yaml
from rules.registry import ALL_RULES
from rules.serving import defaults as d
from rules.serving.recipe_points import points
from rules.serving.settings import benchmark_points, demand, npmd
from tests.rules.recipe_helpers import MN_PATH, NV_MASTER, review, srt

RULES = [r for r in ALL_RULES if "RR201" <= r.CODE <= "RR249"]


def bps(text, path=MN_PATH):
    return benchmark_points(None, path, points(parse_yaml(path, text)))


def test_normalized_fields_keep_their_lines():
    text = srt("sglang", {"decode": {"tp-size": 16, "dp-size": 16, "enable-dp-attention": True, "ep-size": 16,
                                     "max-running-requests": 2048, "cuda-graph-max-bs": 128, "mem-fraction-static": 0.8,
                                     "kv-cache-dtype": "fp8_e4m3", "speculative-algorithm": "EAGLE",
                                     "speculative-num-steps": 2}},
               {"decode_workers": 1, "decode_nodes": 4}, {"type": "sa-bench", "concurrencies": "2048x4096"},
               container="lmsysorg/sglang:v0.5.12.post1")
    bp = bps(text)[0]
    es = bp.roles[0]
    assert (es.engine, es.version, es.role) == ("sglang", (0, 5, 12), "decode")
    assert es.max_seqs.value == 2048 and text.split("\n")[es.max_seqs.line - 1].strip() == "max-running-requests: 2048"
    assert es.dp_ranks == 16 and es.instance_ranks == 16 and es.admits()[0] == 2048 and es.per_rank_cap() == 128
    assert es.capture_top().value == 128 and es.k == 2 and es.kv_dtype.value == "fp8_e4m3"
    assert [c.value for c in bp.conc_values()] == [4096, 2048] and bp.scenario == "fixed-seq-len"
    dm = demand(es, 4096)
    assert (dm.admitted, dm.per_rank) == (2048, 128)


def test_vllm_scopes_and_pools():
    text = srt(
        "vllm",
        {
            "aggregated": {
                "tensor-parallel-size": 2,
                "data-parallel-size": 4,
                "max-num-seqs": 64,
                "kv-transfer-config": {
                    "kv_connector": "SimpleCPUOffloadConnector",
                    "kv_connector_extra_config": {"cpu_bytes_to_use": 8000},
                },
            }
        },
        {"gpus_per_node": 4},
    )
    es = bps(text)[0].roles[0]
    assert es.instance_ranks == 8 and es.world_size == 2 and es.admits()[0] == 256 and es.ranks_on_node() == 4
    # cpu_bytes_to_use alone is divided by one DP engine's world size (TP × PP), per vLLM.
    assert es.pools[0].per_rank == 4000


def test_defaults_are_marked_and_name_their_version():
    text = srt(
        "vllm", {"aggregated": {"tensor-parallel-size": 8}}, {"gpu_type": "b200"}, container="vllm/vllm-openai:v0.20.1"
    )
    es = bps(text)[0].roles[0]
    assert es.max_seqs.value == 1024 and not es.max_seqs.explicit and "vLLM 0.20.1 default" in es.max_seqs.versioned
    assert es.capture_cap.value == 512 and not es.capture_cap.explicit
    # a message names the behaviour only: an image bump that keeps the default keeps the message
    assert es.max_seqs.label == "vLLM default (max-num-seqs 1024 on GPUs with at least 70 GiB (256 on smaller ones))"


def test_sglang_eagle_family_without_a_cap_assumes_48():
    for algo, want in (("EAGLE", 48), ("NEXTN", 48), ("EAGLE3", 48), ("NGRAM", None)):
        text = srt("sglang", {"aggregated": {"tp-size": 8, "speculative-algorithm": algo}}, None)
        es = bps(text)[0].roles[0]
        got = es.max_seqs.value if es.max_seqs is not None else None
        assert got == want, (algo, got)
        if want:
            assert not es.max_seqs.explicit and "48" in es.max_seqs.label


@pytest.mark.parametrize("image,engine,version", [
    ("vllm/vllm-openai:v0.20.1-ubuntu2404", "vllm", (0, 20, 1)),
    ("lmsysorg/sglang:v0.5.12.post1", "sglang", (0, 5, 12)),
    ("lmsysorg/sglang:nightly-dev-cu13-20260710-cfc66e05", "sglang", None),
    ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-dev.1-cuda13", "trtllm", None),  # a Dynamo version
    ("dynamo-sglang", "sglang", None),
    ("vllm/vllm-openai:v0.20.1", "sglang", None),  # another engine's image
])
def test_image_versions(image, engine, version):
    assert d.image_version(image, engine) == version


def test_defaults_table_rows_have_sources():
    assert all(r.source and r.text for r in d.DEFAULTS)
    # environ.py of the releases: EnvBool(False) in 0.5.10, EnvBool(True) from 0.5.11
    assert d.lookup("sglang", "spec_v2", (0, 5, 10)).value is False
    assert d.lookup("sglang", "spec_v2", (0, 5, 11)).value is True
    assert d.lookup("sglang", "cuda_graph_max_bs", (0, 5, 12), gpu_gb=141, tp=2).value == 256
    assert d.lookup("sglang", "cuda_graph_max_bs", (0, 5, 12), gpu_gb=180, tp=2).value == 512
    assert d.lookup("vllm", "max_cudagraph_capture_size", None, mns=64, k=3, mbt=8192).value == 512
    assert d.lookup("vllm", "max_cudagraph_capture_size", None, mns=16, k=1, mbt=8192).value == 64


@pytest.mark.parametrize("text,n", [("disagg-b200-2p1d-dep8", (2, 1)), ("x-1p-4d-y", (1, 4)), ("12p4d", (12, 4)),
                                    ("tp4p", None), ("gb300-dep8", None)])
def test_npmd(text, n):
    assert npmd(text) == n


# --- hostile and unresolvable input: a finding or a Skipped check, in bounded time, never RR000 ---------

MERGE_CHAIN = """name: chains
base_a: &a
  tensor-parallel-size: 4
  max-running-requests: 64
base_b: &b
  <<: *a
  cuda-graph-max-bs: 32
resources:
  gpu_type: gb200
  gpus_per_node: 4
  gpus_per_prefill: 4
  gpus_per_decode: 4
backend:
  type: sglang
  sglang_config:
    prefill:
      <<: [*b, *a]
    decode:
      <<: *b
      max-running-requests: 128
benchmark:
  type: sa-bench
  concurrencies: "256"
"""

HOSTILE = {
    "merge-key chains and anchors across roles": MERGE_CHAIN,
    "JSON-in-string that does not parse": srt(
        "vllm",
        {
            "aggregated": {
                "tensor-parallel-size": 8,
                "max-num-seqs": 8,
                "compilation-config": '{"cudagraph_capture_sizes": [1, 2,',
            }
        },
        None,
        {"type": "sa-bench", "concurrencies": "64"},
    ),
    "8k as a cap": srt(
        "sglang",
        {"aggregated": {"tp-size": 8, "max-running-requests": "8k", "cuda-graph-max-bs": "8k"}},
        None,
        {"type": "sa-bench", "concurrencies": "8k"},
    ),
    "1e4 written as a number and as a string": srt(
        "sglang",
        {"aggregated": {"tp-size": 8, "max-running-requests": 1e4, "cuda-graph-max-bs": "1e4"}},
        None,
        {"type": "sa-bench", "concurrencies": 100000},
    ),
    "zero and negative caps": srt(
        "trtllm",
        {"decode": {"tensor_parallel_size": 8, "max_batch_size": -1, "cuda_graph_config": {"batch_sizes": [0, -4]}}},
        {"decode_nodes": 0, "decode_workers": 0, "gpus_per_decode": -8},
        {"type": "sa-bench", "concurrencies": "0x-3x16"},
    ),
    "placeholders": srt(
        "vllm",
        {
            "aggregated": {
                "tensor-parallel-size": "${TP}",
                "max-num-seqs": "{{ conc }}",
                "kv-transfer-config": {
                    "kv_connector": "SimpleCPUOffloadConnector",
                    "kv_connector_extra_config": {"cpu_bytes_to_use_per_rank": "<BYTES>"},
                },
            }
        },
        None,
        {"type": "sa-bench", "concurrencies": "${CONC}", "env": {"TOTAL_CPU_DRAM_GB": "${DRAM}"}},
    ),
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_recipes_give_findings_or_skips_never_a_crash(text):
    # Wall time of these inputs: benchmarks/bounded_inputs.py.
    r = review(text, RULES, path=MN_PATH)
    assert not [f for f in r.findings if f.code == "RR000"], r.findings
    assert r.findings or any(c.status == "skipped" for c in r.checks) or r.checks


def test_merge_key_chains_resolve_with_their_lines():
    bp = bps(MERGE_CHAIN)[0]
    pre, dec = bp.roles
    assert (pre.max_seqs.value, dec.max_seqs.value) == (64, 128)
    lines = MERGE_CHAIN.split("\n")
    assert lines[pre.max_seqs.line - 1].strip() == "max-running-requests: 64"  # written in the anchor
    assert lines[dec.capture_cap.line - 1].strip() == "cuda-graph-max-bs: 32"


def test_unresolvable_values_are_named_in_skipped_checks():
    r = review(HOSTILE["placeholders"], RULES, path=MN_PATH)
    skipped = " | ".join(c.detail for c in r.checks if c.status == "skipped")
    assert "`benchmark.concurrencies` item `${CONC}`" in skipped and "`<BYTES>` is not a byte count" in skipped
    assert not r.findings


@pytest.mark.slow
def test_ten_thousand_point_search_space_is_bounded():
    ref = "sglang/model/8k1k/disagg-1p1d.yaml"
    points_text = "".join(
        f"      - conc-list: [{i}]\n        prefill:\n          num-worker: 1\n          tp: 4\n          ep: 1\n"
        f"          dp-attn: true\n          additional-settings:\n          - \"CONFIG_FILE=recipes/{ref}\"\n"
        f"        decode:\n          num-worker: 1\n          tp: 8\n          ep: 8\n          dp-attn: true\n"
        for i in range(1, 10_001))
    master = ("k:\n  image: x\n  runner: gb200-nv\n  multinode: true\n  scenarios:\n    fixed-seq-len:\n"
              "    - isl: 1024\n      osl: 1024\n      search-space:\n" + points_text).encode()
    text = srt("sglang", {"prefill": {"tp-size": 4}, "decode": {"tp-size": 8, "max-running-requests": 64}}, None,
               {"type": "sa-bench"})
    r = review(text, RULES, path=MN_PATH, context={NV_MASTER: master})  # wall time: benchmarks/bounded_inputs.py
    assert not [f for f in r.findings if f.code == "RR000"]
    assert {"RR210", "RR215", "RR216"} <= {f.code for f in r.findings}


def test_dp8_fixture_passes_every_recipe_rule():
    from tests.rules.recipe_helpers import FIXTURES

    text = (FIXTURES / "dp8_two_gb200_nodes.yaml").read_text()
    r = review(text, RULES, path="benchmarks/multi_node/srt-slurm-recipes/vllm/model/agentic/agg-dp8.yaml")
    assert r.findings == []
    details = " | ".join(c.detail for c in r.checks if c.code == "RR205")
    assert (
        "× 8 ranks (tensor-parallel-size 1 × data-parallel-size 8 = 8) = 1,099,511,627,776 = cpu_bytes_to_use"
        in details
    )
    assert "× 4 ranks on a node; 8 ranks" in details and "= TOTAL_CPU_DRAM_GB 549" in details


def test_merge_key_fixture_reviews_without_a_crash_and_blames_the_anchor():
    # Kept out of tests/rules/fixtures: the fast YAML path declines merge keys by design, and the
    # document tests check that path on every file there.
    text = (Path(__file__).parent / "fixtures" / "merge_keys.yaml").read_text()
    r = review(text, RULES, path=MN_PATH)
    assert not [f for f in r.findings if f.code == "RR000"]
    # SGLang 0.5.10 without SGLANG_ENABLE_SPEC_V2 (both roles speculate through the merged anchor),
    # and decode graphs of 32 (written in the anchor) below the 128 admitted at concurrency 128.
    assert {f.code for f in r.findings} == {"RR212", "RR221"}
    cap_line = text.split("\n").index("  cuda-graph-max-bs: 32") + 1
    assert [f.line for f in r.findings if f.code == "RR212"] == [cap_line]
    dec = bps(text)[0].roles[1]
    assert dec.capture_cap.line == cap_line and dec.max_seqs.value == 128
