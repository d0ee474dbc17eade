"""Hostile inputs for the changelog, master-config and description-claim rules: bounded, never RR000.

    python benchmarks/bench_bad_input.py [--runs 3]

Each case is one synthetic PR reviewed by every registered rule (`rules.runner.run`), timed
(wall, best of `--runs`), with the findings' codes and the Skipped checks counted:

* a changelog description of 10,000 numbers (ranges, lists, versions);
* a description claiming quantities in units nobody knows (`5 zettaflops`, `3 furlongs/GPU`);
* a master config of 50,000 keys, every one added, with a `*` changelog entry selecting them all,
  and one of 50,000 keys that all fail the schema;
* one key whose search space has 10,000 rows;
* a changelog whose head rewrites 5,000 historical entries.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.runner import run  # noqa: E402

NV = "configs/nvidia-master.yaml"
CL = "perf-changelog.yaml"
LINK = "https://github.com/SemiAnalysisAI/InferenceX/pull/{}"


def key(name: str, rows: str = "      - { tp: 8, conc-start: 4, conc-end: 64 }\n") -> str:
    return (f"{name}:\n  image: vllm/vllm-openai:v0.20.1\n  model: m\n  model-prefix: {name.split('-')[0]}\n"
            f"  runner: b200\n  precision: fp4\n  framework: vllm\n  multinode: false\n  scenarios:\n"
            f"    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n{rows}")


def entry(keys: list[str], items: list[str], pr: int = 4867) -> str:
    return ("- config-keys:\n" + "".join(f"    - \"{k}\"\n" for k in keys) + "  description:\n"
            + "".join(f"    - \"{i}\"\n" for i in items) + f"  pr-link: {LINK.format(pr)}\n")


BASE_CL = entry(["dsv4-fp4-b200-vllm"], ["Bump the image"], 1)
BASE_NV = key("dsv4-fp4-b200-vllm")


def pr(nv_head: str, cl_entry: str, cl_base: str = BASE_CL, cl_head: str | None = None) -> ChangeSet:
    head = cl_head if cl_head is not None else cl_base + "\n" + cl_entry
    return ChangeSet(files=(FileChange(NV, "modified", base=BASE_NV.encode(), head=nv_head.encode()),
                            FileChange(CL, "modified", base=cl_base.encode(), head=head.encode())),
                     pr_number=4867, repo="SemiAnalysisAI/InferenceX")


def cases():
    bumped = key("dsv4-fp4-b200-vllm").replace("v0.20.1", "v0.21.0")
    numbers = " ".join(f"conc {i}-{i * 2} tp{i % 9} v0.{i}.{i % 7} [{i}, {i + 1}]" for i in range(1, 10_001))
    yield "description with 10,000 numbers", pr(bumped, entry(["dsv4-fp4-b200-vllm"], [numbers]))
    units = "5 zettaflops per GPU = 3 furlongs/GPU × 17 parsecs; 2 fortnights ≈ 1.5e9 ms; 4 smoots of KV"
    yield "unknown units", pr(bumped, entry(["dsv4-fp4-b200-vllm"], [units] * 50))
    many = "".join(f"k{i}-a: {{image: a:1,model: m,model-prefix: k{i},precision: p,framework: f,runner: r,"
                   f"multinode: false,scenarios: {{fixed-seq-len: [{{isl: 1,osl: 1,search-space: "
                   f"[{{tp: 1,conc-list: [1]}}]}}]}}}}\n" for i in range(50_000))
    yield "50,000 keys over the 8 MiB limit, `*`", pr(BASE_NV + "\n" + many, entry(["*"], ["test"]))
    bad = "".join(f"k{i}-a: {{image: a, seq-len-configs: []}}\n" for i in range(50_000))
    yield "50,000 schema-invalid keys", pr(BASE_NV + "\n" + bad, entry(["k1-a"], ["x"]))
    rows = "".join(f"      - {{ tp: {1 + i % 8}, ep: {1 + i % 4}, conc-list: [{i + 1}] }}\n" for i in range(10_000))
    yield (
        "10,000 search-space rows",
        pr(key("dsv4-fp4-b200-vllm", rows), entry(["dsv4-fp4-b200-vllm"], ["conc 1-10000"])),
    )
    history = "\n".join(entry([f"k{i}-fp8-h100-vllm"], ["Bump the image"], 1000 + i) for i in range(5_000))
    yield "5,000 historical entries rewritten", pr(bumped, "", cl_base=history,
                                                   cl_head=history.replace("Bump the image", "Bump images") + "\n"
                                                   + entry(["dsv4-fp4-b200-vllm"], ["x"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    worst = 0.0
    for name, cs in cases():
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            report = run(cs)
            times.append(time.perf_counter() - t)
        codes = Counter(f.code for f in report.findings)
        skipped = sum(c.status == "skipped" for c in report.checks)
        crashed = codes.get("RR000", 0)
        worst = max(worst, min(times))
        print(f"{name:38} best {min(times):6.2f} s  RR000 {crashed}  skipped {skipped}  findings "
              + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())))
    print(f"worst case {worst:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
