"""Time all recipe rules (RR2xx) on a 300-line schema-2 recipe with 10 points.

Usage: python benchmarks/bench_recipes.py [repeats]

Prints the median over `repeats` runs (default 200) of: the YAML parse alone, the recipe rules on
an already parsed document (what a review pays, since the parse is shared by every rule), and
both together.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.config import EngineConfig  # noqa: E402
from rules.context import ReviewContext  # noqa: E402
from rules.document import parse_yaml  # noqa: E402
from rules.registry import ALL_RULES  # noqa: E402

PATH = "inferencex-e2e/benchmarks/single_node/srt-slurm-recipes/kimik3.1/vllm/mi355x-fp4-mtp/agentic.yaml"
MASTER = "inferencex-e2e/configs/amd-master.yaml"
RULES = [r for r in ALL_RULES if "RR201" <= r.CODE <= "RR249"]
PREFILL = [256, 512, 1024, 2048, 4096, 8192]


def recipe(points: int = 10) -> str:
    """A schema-2 bundle: a base plus `points` override variants with offload and spec decoding."""
    out = ["base:", "  schema: 2", "  name: bench", "  resources:", "    gpu_type: mi355x", "    gpus_per_node: 8",
           "  engine:", "    type: vllm", "  roles:", "    agg:", "      gpus: 8", "      args:",
           "        tensor-parallel-size: 8", "        gpu-memory-utilization: 0.9",
           "        attention-config: '{\"mla_prefill_backend\":\"ROCM_AITER_FA\"}'", "      env:"]
    out += [f"        ENV_{i:02d}: '{i}'" for i in range(50)]
    out += ["  benchmark:", "    type: custom", "    env:", "      MODEL: example/model"]
    for n in range(points):
        mns, k = 6 * (n + 1), 4
        sizes = list(range(k + 1, mns * (k + 1) + 1, k + 1)) + PREFILL
        out += (
            [
                "",
                f"override_p{n}:",
                "  roles:",
                "    agg:",
                "      args:",
                f"        max-num-seqs: {mns}",
                "        max-num-batched-tokens: 8192",
                '        compilation-config: '
                '\'{"cudagraph_mode":"FULL_AND_PIECEWISE","max_cudagraph_capture_size":8192,'
                f'"cudagraph_capture_sizes":[{",".join(map(str, sizes))}]}}\'',
                f'        speculative-config: \'{{"method":"mtp","num_speculative_tokens":{k}}}\'',
                '        kv-transfer-config: \'{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both",'
                '"kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":112251571200}}\'',
                "      env:",
            ]
            + [f"        P_{i}: '{i}'" for i in range(7)]
            + [
                "  benchmark:",
                "    env:",
                f"      CONC: '{mns}'",
                "      KV_OFFLOADING: dram",
                "      TOTAL_CPU_DRAM_GB: '898'",
            ]
        )
    return "\n".join(out) + "\n"


MASTER_ROW = (b"bench-key:\n  runner: cluster:mi355x-amds\n  srt-recipe-dir: kimik3.1/vllm/mi355x-fp4-mtp\n"
              b"  srt-recipe: agentic.yaml\n  scenarios:\n    agentic-coding:\n    - dram-utilization: 0.2994\n"
              b"      search-space:\n      - { tp: 8, conc-list: [4] }\n")


def run_rules(ctx: ReviewContext) -> int:
    n = 0
    for rule in RULES:
        for _ in rule.check(ctx, ctx.config.options_for(rule)):
            n += 1
    return n


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    text = recipe()
    cs = ChangeSet(files=(FileChange(PATH, "added", head=text.encode()),), context={MASTER: MASTER_ROW})
    parse, rules_only, total = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        doc = parse_yaml(PATH, text)
        t1 = time.perf_counter()
        ctx = ReviewContext(cs, EngineConfig())
        ctx._cache[("head", PATH)] = doc  # the parse every rule shares
        items = run_rules(ctx)
        t2 = time.perf_counter()
        parse.append(t1 - t0)
        rules_only.append(t2 - t1)
        total.append(t2 - t0)
    lines = text.count("\n")
    print(f"recipe: {lines} lines, 10 points, {len(RULES)} rules, {items} results per run, {repeats} runs")
    print(f"median parse (ruamel round-trip): {statistics.median(parse) * 1000:.2f} ms")
    print(f"median recipe rules on the parsed document: {statistics.median(rules_only) * 1000:.2f} ms")
    print(f"median parse + rules: {statistics.median(total) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
