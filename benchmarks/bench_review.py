"""Every registered rule on a seed-size PR, the way the bot runs them (rules.runner.run).

The PR: the ~12,300-line changelog of benchmarks/bench_changelog.py with an entry inserted five
entries from the end, plus one master-config key changed in a ~10,000-line master config (the
snapshot's nvidia-master.yaml when ../shared is present, else a synthetic one), and the other master
config as unchanged context. This is the whole rule time of one review.

    python benchmarks/bench_review.py [--runs N]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_changelog import NEW, REPO, build_changelog  # noqa: E402

from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.registry import ALL_RULES  # noqa: E402
from rules.runner import run  # noqa: E402

SNAP = ROOT / ".." / "shared" / "inferencex" / "snapshot"


def master_pair() -> tuple[str, str, str]:
    if (SNAP / "nvidia-master.yaml").exists():
        base = (SNAP / "nvidia-master.yaml").read_text()
        amd = (SNAP / "amd-master.yaml").read_text()
    else:
        base = "".join(f"dsv4-fp4-b{200 + i}-vllm:\n  image: vllm/vllm-openai:v0.{i}.0\n  model-prefix: dsv4\n"
                       f"  scenarios:\n    fixed-seq-len:\n      - tp: 8\n        conc-list: [1, 4]\n\n"
                       for i in range(1200))
        amd = "kimik3-fp4-mi355x-vllm:\n  image: vllm/vllm-openai-rocm:v1\n  model-prefix: kimik3\n"
    key = "dsv4-fp4-b200-vllm:" if "dsv4-fp4-b200-vllm:" in base else base.split("\n", 1)[0]
    i = base.index(key)
    j = base.index("image:", i)
    head = base[:j] + "image: vllm/vllm-openai:v9.9.9-bench\n  #" + base[j + len("image:"):]
    return base, head, amd


def build() -> ChangeSet:
    log, _ = build_changelog()
    entries = log.rstrip("\n").split("\n\n")
    head_log = "\n\n".join(entries[:-5] + [NEW.rstrip("\n")] + entries[-5:]) + "\n"
    mb, mh, amd = master_pair()
    return ChangeSet(files=(
        FileChange("perf-changelog.yaml", "modified", base=log.encode(), head=head_log.encode()),
        FileChange("configs/nvidia-master.yaml", "modified", base=mb.encode(), head=mh.encode()),
    ), pr_number=99999, repo=REPO, context={"configs/amd-master.yaml": amd.encode()})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    cs = build()
    lines = cs.files[0].head.count(b"\n")
    times, cpu, per_rule = [], [], {}
    for _ in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        report = run(cs)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    for rule in ALL_RULES:  # where the time goes
        t0 = time.perf_counter()
        run(cs, rules=[rule])
        per_rule[rule.CODE] = (time.perf_counter() - t0) * 1000
    times.sort()
    print(f"all {len(ALL_RULES)} rules, changelog {lines:,} lines + master config changed: "
          f"median {statistics.median(times):.1f} ms, p95 {times[int(0.95 * (len(times) - 1))]:.1f} ms "
          f"({len(report.findings)} findings, {len(report.checks)} checks); "
          f"CPU time median {statistics.median(cpu):.1f} ms (what a busy machine does not inflate)")
    slow = sorted(per_rule.items(), key=lambda kv: -kv[1])[:6]
    print("slowest rules alone (cold caches): " + ", ".join(f"{c} {ms:.0f} ms" for c, ms in slow))
    return 0


if __name__ == "__main__":
    sys.exit(main())
