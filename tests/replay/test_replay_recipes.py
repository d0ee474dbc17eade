"""Replay the recipe rules over every recipe in the real InferenceX data (../shared/inferencex).

Every PR head of prs-dev.jsonl.xz is reviewed with the recipe rules (RR2xx), with the main-branch
snapshot's master configs and runners.yaml as context. Blocking findings must all be explained
in EXPLAINED (path suffix, code) → why; anything else fails. Skips when the data is absent,
fails instead when RECIPE_REVIEW_REQUIRE_SHARED=1. Run with `-s` to print the counts.
"""
from __future__ import annotations

import json
import lzma
import os
from collections import Counter
from pathlib import Path

import pytest

from rules.changeset import ChangeSet
from rules.registry import ALL_RULES
from rules.runner import run

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "inferencex"
RULES = [r for r in ALL_RULES if "RR201" <= r.CODE <= "RR249"]
SNAPSHOT = {"configs/nvidia-master.yaml": "nvidia-master.yaml", "configs/amd-master.yaml": "amd-master.yaml",
            "configs/runners.yaml": "runners.yaml"}
# Real problems in the data, judged by hand (notes/engine-semantics.md has the list with the PRs).
_QUEUE = ('The largest concurrency is more than 2.25× (disaggregated) or above (aggregated) what the serving '
          "workers admit, by each engine's scope (vLLM max-num-seqs per DP rank, SGLang max-running-"
          'requests per server, TensorRT-LLM max_batch_size per attention-DP rank): the top points measure '
          'the queue. Reviewers flagged the same pattern (#411, #1866, #1887); generated submissions'
          ' that oversubscribe decode by about 2× are the nit RR225.')
_GRAPHS = ('An explicit capture cap below the per-rank decode batch at the largest concurrency (cuda-graph-'
           'max-bs 1,280 vs 1,792 per rank; 128 vs 171 and 512; max-cudagraph-capture-size 512 vs 1,024 '
           'tokens and 128 vs 512): those decode steps run without graphs.')
_TRT_GRAPHS = ('TensorRT-LLM cuda_graph_config sizes above max_batch_size (or max_num_tokens / (1 + draft)): the'
               ' engine drops them (model_engine._filter_cuda_graph_batch_sizes), so the recipe states a capture'
               ' range it never runs. Mostly NVIDIA template ladders; true but low-impact, the pattern a '
               'reviewer flagged on #2596.')
_CHAT = ("An MTP sa-bench recipe that sets benchmark.use_chat_template to a non-true value (srtctl's default"
         ' is true): acceptance inflated by raw random prompts.')
_SPEC_V2 = ('An SGLang speculative role on an image older than 0.5.13 without SGLANG_ENABLE_SPEC_V2: the '
            'finding of #1907 (the point runs the V1 worker, unlike its siblings).')
_EP_ALIGN = ("Prefill DP2 (and decode DP) without enable-expert-parallel while the PR's master labels ep 2 / "
             '8: the PR later aligned the 8k1k expert-parallel settings with 1k1k.')
_NAME_LAYOUT = ('The NpMd in the name or file name is not the worker layout (1p-1d with 2-3 decode workers; 1p1d '
                'with 2 prefill workers): the #3103 pattern.')
_EP_LABEL = ('The master labels decode ep 1, but the decode role is TEP8 with enable-expert-parallel (EP 8): '
             'the label is wrong.')
EXPLAINED: dict[tuple[str, str], str] = {
    **{(p, 'RR210'): _QUEUE for p in (
        'dsr1/sglang/b200-fp8/1k1k/disagg/1k1k.yaml',
        'sglang/deepseek-v4/1k1k/disagg-1p1d-dep8-conc8192-mtp.yaml',
        'sglang/deepseek-v4/1k1k/disagg-gb200-1p1d-dep8-dep16.yaml',
        'sglang/deepseek-v4/8k1k/disagg-gb200-3p1d-dep8-dep16.yaml',
        'sglang/glm5/b200-fp8/1k1k/disagg/stp/1k1k_stp_lowlat_1.yaml',
        'sglang/glm5/gb200-fp4/glm5-mtp.yaml',
        'sglang/glm5/gb200-fp8/1k1k/disagg/stp/1k1k_stp_hightpt_0.yaml',
        'sglang/glm5/gb200-fp8/8k1k/disagg/stp/8k1k_stp_hightpt_0.yaml',
        'sglang/glm5/gb200-fp8/8k1k/disagg/stp/8k1k_stp_hightpt_2.yaml',
        'sglang/glm5/gb200-fp8/glm5-mtp.yaml',
        'sglang/qwen3.5/gb200-fp8/8k1k/8p1d-dep4-dep16.yaml',
        'sglang/qwen3.5/gb300-fp4/8k1k/disagg/stp/8k1k_stp_lowlat_0.yaml',
        'sglang/qwen3.5/gb300-fp8/8k1k/8p1d-dep4-dep16.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/MTP/ctx1dep4_gen4tep8_batch1_eplb0_mtp3.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/MTP/ctx1dep4_gen5tep4_batch1_eplb0_mtp3.yaml',
        'vllm/deepseek-v4/1k1k/agg-h100-tep8pp2.yaml',
        'vllm/deepseek-v4/8k1k/agg-h100-tep8pp2.yaml',
        'vllm/deepseek-v4/8k1k/disagg-b200-max-tpt-megamoe.yaml',
        'vllm/deepseek-v4/8k1k/disagg-gb200-7p1d-dep8-dep16.yaml',
        'vllm/kimi-k2.5-fp4/8k1k/disagg-gb200-1p4d-dep4-tep4.yaml',
        'vllm/kimi-k2.5-fp4/8k1k/disagg-gb200-1p4d-dep4-tp8.yaml',
        'vllm/kimi-k2.5-fp4/8k1k/disagg-gb300-3p1d-dep4-dep16.yaml',
        'vllm/minimax-m2.5-b200-fp4/1k1k/dep2-1p2d.yaml',
        'vllm/minimax-m2.5-gb200/1k1k/dep2-1p2d.yaml',
        'vllm/minimax-m3-gb200-fp8/1k1k/disagg-gb200-1p1d-tp4ep4-2n.yaml',
        'vllm/minimax-m3-gb300-fp8/1k1k/1p1d-dep2-dep4-1k1k.yaml',
        'vllm/minimax-m3-gb300-fp8/1k1k/disagg-gb300-1p1d-tp4ep4-1n.yaml',
        'vllm/minimax-m3-gb300-fp8/1k1k/disagg-gb300-1p1d-tp4ep4-2n.yaml',
        'vllm/minimax-m3/b300-fp4/8k1k/4p2d-dep2-tep4-8k1k.yaml',
        'vllm/minimax-m3/b300-fp8/1k1k/1p2d-dep2-tep4-1k1k.yaml',
        'vllm/minimax-m3/b300-fp8/8k1k/4p2d-dep2-tep4-8k1k.yaml',
    )},
    **{(p, 'RR212'): _GRAPHS for p in (
        'sglang/deepseek-v4/8k1k/disagg-gb300-12p1d-dep4-dep12-15-c21504.yaml',
        'sglang/dsr1/b200-fp4/8k1k/disagg/mtp/8k1k_mtp_lowlat_1.yaml',
        'sglang/dsr1/b200-fp4/8k1k/disagg/mtp/8k1k_mtp_lowlat_2.yaml',
        'vllm/deepseek-v4/8k1k/disagg-b300-high-tpt-megamoe-mtp1.yaml',
        'vllm/kimi-k2.5-fp4/8k1k/disagg-gb300-8p1d-dep4-dep24.yaml',
    )},
    **{(p, 'RR214'): _TRT_GRAPHS for p in (
        'dsr1/trtllm/b200-fp8/8k1k/disagg/stp/ctx2_gen1_dep8_batch640_eplb0_mtp0_640.yaml',
        'dsr1/trtllm/b300-fp4/8k1k/disagg/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0.yaml',
        'dsr1/trtllm/b300-fp4/8k1k/disagg/stp/ctx6_gen1_dep8_batch128_eplb0_mtp0.yaml',
        'dsr1/trtllm/b300-fp4/8k1k/disagg/stp/ctx8_gen1_dep8_batch256_eplb0_mtp0.yaml',
        'dsr1/trtllm/gb200-fp8/1k1k/disagg/mtp/ctx1_gen3_tep8_batch2_eplb0_mtp3_9.yaml',
        'dsr1/trtllm/gb200-fp8/1k1k/disagg/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0_3.yaml',
        'dsr1/trtllm/gb200-fp8/8k1k/disagg/mtp/ctx1_gen3_tep8_batch2_eplb0_mtp3_6.yaml',
        'dsr1/trtllm/gb200-fp8/8k1k/disagg/mtp/ctx2_gen1_dep32_batch2_eplb0_mtp3_90.yaml',
        'dsr1/trtllm/gb200-fp8/8k1k/disagg/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0_6.yaml',
        'dsr1/trtllm/gb300-fp8/1k1k/disagg/mtp/ctx1_gen4_tep8_batch1_eplb0_mtp3_8.yaml',
        'dsr1/trtllm/gb300-fp8/1k1k/disagg/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0_4.yaml',
        'dsr1/trtllm/gb300-fp8/8k1k/disagg/mtp/ctx1_gen4_tep8_batch1_eplb0_mtp3_8.yaml',
        'dsr1/trtllm/gb300-fp8/8k1k/disagg/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0_4.yaml',
        'dsr1/trtllm/h100-fp8/1k1k/disagg/mtp/ctx1_gen3_tep16_batch1_eplb0_mtp3.yaml',
        'dsr1/trtllm/h100-fp8/1k1k/disagg/mtp/ctx1_gen3_tep16_batch2_eplb0_mtp3.yaml',
        'dsr1/trtllm/h100-fp8/1k1k/disagg/stp/ctx1_gen3_tep16_batch1_eplb0_mtp0.yaml',
        'dsr1/trtllm/h100-fp8/1k1k/disagg/stp/ctx1_gen3_tep16_batch2_eplb0_mtp0.yaml',
        'dsr1/trtllm/h100-fp8/8k1k/disagg/mtp/ctx1_gen3_tep16_batch1_eplb0_mtp3.yaml',
        'dsr1/trtllm/h100-fp8/8k1k/disagg/mtp/ctx1_gen3_tep16_batch2_eplb0_mtp3.yaml',
        'dsr1/trtllm/h100-fp8/8k1k/disagg/stp/ctx1_gen3_tep16_batch1_eplb0_mtp0.yaml',
        'dsr1/trtllm/h100-fp8/8k1k/disagg/stp/ctx1_gen3_tep16_batch2_eplb0_mtp0.yaml',
        'kimik2.5/trtllm/gb200-fp4/8k1k/disagg/stp/ctx1dep4_gen4tep8_batch1_allconc_eplb0_mtp0.yaml',
        'trtllm/deepseek-v4/agentic/disagg-gb300-1p1d-dep8-dep32-c144-mtp-kvoffload.yaml',
        'trtllm/deepseek-v4/agentic/disagg-gb300-1p3d-dep4-tep8-c3-mtp-kvoffload.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/MTP/ctx1dep4_gen4tep8_batch1_eplb0_mtp3.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/MTP/ctx1dep4_gen5tep4_batch1_eplb0_mtp3.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen4tep8_batch1_eplb0_mtp0.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen5tep4_batch1_eplb0_mtp0.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/MTP/ctx1dep4_gen1dep32_batch2_eplb0_mtp3.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/MTP/ctx1dep4_gen5tep4_batch1_eplb0_mtp3.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/MTP/ctx1dep4_gen5tep4_batch2_eplb0_mtp3.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen5tep4_batch1_eplb0_mtp0.yaml',
        'trtllm/glm5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen5tep4_batch2_eplb0_mtp0.yaml',
        'trtllm/kimi-k2.5/disagg/trtllm_dynamo/b200-fp4/disagg-B200-1p4d-dep4-tep8-c4-stp.yaml',
        'trtllm/kimi-k2.5/disagg/trtllm_dynamo/b200-fp4/disagg-B200-1p5d-dep4-tep4-c5-stp.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx1dep2_gen1tep16_mtp3_c48.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx1dep2_gen7tep8_mtp3_c42.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx2dep2_gen15tp4_mtp3_c90.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx3dep2_gen4tep8_mtp3_c192.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx3dep2_gen7tep8_mtp3_c168.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx4dep2_gen1dep16_mtp3_c384.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx6dep2_gen5tep8_mtp3_c480.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx9dep2_gen1dep16_mtp3_c1536.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx10dep2_gen3dep8_mtp0_c4608.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx1dep2_gen13tp4_mtp0_c78.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx1dep2_gen4tep16_mtp0_c24.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx1dep2_gen8tep8_mtp0_c48.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx2dep2_gen15tp4_mtp0_c180.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx2dep2_gen9tp4_mtp0_c216.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx3dep2_gen1dep4_mtp0_c1536.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx7dep2_gen12tep4_mtp0_c1152.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/stp/ctx8dep2_gen9tep4_mtp0_c1728.yaml',
    )},
    **{(p, 'RR220'): _CHAT for p in (
        'dsr1/sglang/b200-fp4/1k1k/disagg/1k1k.yaml',
        'dsr1/sglang/b200-fp4/8k1k/disagg/8k1k.yaml',
        'dsr1/sglang/b200-fp8/1k1k/disagg/1k1k.yaml',
        'sglang/dsr1/b200-fp4/1k1k/disagg/mtp/1k1k_mtp_lowlat_0.yaml',
        'sglang/dsr1/b200-fp4/1k1k/disagg/mtp/1k1k_mtp_lowlat_1.yaml',
        'sglang/dsr1/b200-fp4/1k1k/disagg/mtp/1k1k_mtp_maxtpt_0.yaml',
        'sglang/dsr1/b200-fp4/1k1k/disagg/mtp/1k1k_mtp_maxtpt_1.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_hightpt_3.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_hightpt_4.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_lowlat_0.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_lowlat_1.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_0.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_1.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_2.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_3.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_1.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_2.yaml',
        'sglang/glm5/gb200-fp4/glm5-mtp.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx1dep2_gen1tep16_mtp3_c48.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx1dep2_gen4tp16_mtp3_c4.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx1dep2_gen7tep8_mtp3_c42.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx2dep2_gen15tp4_mtp3_c90.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx3dep2_gen4tep8_mtp3_c192.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx3dep2_gen7tep8_mtp3_c168.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx4dep2_gen1dep16_mtp3_c384.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx6dep2_gen5tep8_mtp3_c480.yaml',
        'trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/ctx9dep2_gen1dep16_mtp3_c1536.yaml',
    )},
    **{(p, 'RR221'): _SPEC_V2 for p in (
        'dsr1/sglang/h100-fp8/1k1k/disagg/mtp/h100-fp8-1p1d-max-dep-mtp.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_hightpt_3.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_hightpt_4.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_lowlat_0.yaml',
        'sglang/glm5.1/gb300-fp8/1k1k/disagg/mtp/1k1k_mtp_lowlat_1.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_0.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_1.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_2.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_hightpt_3.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_1.yaml',
        'sglang/glm5.1/gb300-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_2.yaml',
    )},
    ('vllm/deepseek-v4/1k1k/disagg-gb200-1p1d-dep8-tep8.yaml', 'RR216'): _EP_LABEL,
    ('vllm/minimax-m3/b300-fp8/8k1k/1p2d-dep2-dep8-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/2p2d-dep2-dep8-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/2p2d-dep2-tep8-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/3p2d-dep2-dep8-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/3p2d-dep2-tep8-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/4p2d-dep2-dep8-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/4p3d-dep2-dep4-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/5p2d-dep2-tep8-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('vllm/minimax-m3/b300-fp8/8k1k/5p2d-dep2-tp8-marlin-8k1k.yaml', 'RR216'): _EP_ALIGN,
    ('dsr1/sglang/b200-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml', 'RR218'): _NAME_LAYOUT,
    ('dsr1/sglang/b200-fp8/8k1k/disagg/mtp/8k1k_mtp_maxtpt_0.yaml', 'RR218'): _NAME_LAYOUT,
    ('dsr1/sglang/b200-fp8/8k1k/disagg/mtp/8k1k_mtp_maxtpt_1.yaml', 'RR218'): _NAME_LAYOUT,
    ('dsv4/vllm/gb200-fp4/8k1k/disagg/stp/disagg-gb200-1p1d-dep8-tep8.yaml', 'RR218'): _NAME_LAYOUT,
}

pytestmark = pytest.mark.shared


def _data_or_skip() -> Path:
    if not (SHARED / "prs-dev.jsonl.xz").exists():
        if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
            pytest.fail(f"shared data missing at {SHARED}")
        pytest.skip("shared InferenceX data not present")
    return SHARED


def replay() -> tuple[Counter, list]:
    data = _data_or_skip()
    context = {k: (data / "snapshot" / v).read_bytes() for k, v in SNAPSHOT.items()}
    counts, blocking = Counter(), []
    with lzma.open(data / "prs-dev.jsonl.xz", "rt") as fh:
        for line in fh:
            record = json.loads(line)
            cs = ChangeSet.from_record(record)
            changed = {f.path for f in cs.files}
            cs = ChangeSet(cs.files, cs.pr_number, cs.repo, cs.title,
                           context={k: v for k, v in context.items() if k not in changed})
            report = run(cs, rules=RULES)
            counts["prs"] += 1
            for c in report.checks:
                counts[f"{c.code} {c.status}"] += 1
            for f in report.findings:
                counts[f"{f.code} {f.severity.value}"] += 1
                if f.blocking:
                    blocking.append((record["number"], f))
    return counts, blocking


def test_no_unexplained_blocking_findings():
    counts, blocking = replay()
    print("\n" + "\n".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    for n, f in blocking:
        print(f"#{n} {f.code} {f.path}:{f.line} {f.message}")
    unexplained = [(n, f.code, f.path, f.line, f.message) for n, f in blocking
                   if not any(f.path.endswith(p) and f.code == c for p, c in EXPLAINED)]
    assert not unexplained
    assert not any(k.startswith("RR000") for k in counts), "a recipe rule crashed"
