"""Time the master-config rules (RR008-RR011, RR101-RR103) on a PR that changes one key of a
~10k-line master config and appends one changelog entry selecting it.

    python benchmarks/bench_masterconfig.py [--runs N]

Uses ../shared/inferencex/snapshot (nvidia-master.yaml changed, amd-master.yaml and runners.yaml as
context, the 6,380-line perf-changelog.yaml with one entry appended) when present; otherwise a
synthetic master config of the same size (700 keys, ~10k lines) and changelog. Prints the median
and p95 wall time (and the median CPU time) of rules.runner.run() over those rules (a fresh
ReviewContext per run, so nothing is cached between runs), and beside it one full ruamel parse of
the master config (what the scan avoids).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.changelog.checks import (  # noqa: E402
    changed_config_not_selected,
    changelog_config_key_unknown,
    changelog_entry_missing,
    changelog_entry_missing_for_cleanup,
)
from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.document import parse_yaml  # noqa: E402
from rules.master.checks import (  # noqa: E402
    master_image_not_public,
    master_image_unpinned,
    master_key_prefix_mismatch,
)
from rules.runner import run  # noqa: E402

SNAPSHOT = ROOT / ".." / "shared" / "inferencex" / "snapshot"
RULES = [changelog_config_key_unknown, changelog_entry_missing, changelog_entry_missing_for_cleanup,
         changed_config_not_selected, master_image_not_public, master_image_unpinned, master_key_prefix_mismatch]
NV, AMD, RUNNERS, CHANGELOG = (
    "configs/nvidia-master.yaml",
    "configs/amd-master.yaml",
    "configs/runners.yaml",
    "perf-changelog.yaml",
)
KEY = "dsv4-fp4-b200-vllm"


def _entry(key: str, pr: int) -> str:
    return (f"- config-keys:\n    - {key}\n  description:\n    - \"Bump the image\"\n"
            f"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{pr}\n")


def _synthetic() -> tuple[bytes, bytes, bytes, str]:
    rows = []
    for i in range(700):
        key = KEY if i == 350 else f"m{i}-fp4-b200-vllm"
        rows.append(
            f"{key}:\n  image: vllm/vllm-openai:v0.20.1\n  model: org/model\n  model-prefix: {key.split('-')[0]}\n"
            "  runner: b200\n  precision: fp4\n  framework: vllm\n  multinode: false\n  scenarios:\n"
            "    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n"
            "      - { tp: 8, conc-start: 4, conc-end: 64 }\n"
        )
    master = "\n".join(rows).encode()
    changelog = "\n".join(_entry(f"m{i}-fp4-b200-vllm", i) for i in range(770)).encode()
    return master, b"", changelog, "synthetic: 700 keys"


def _inputs() -> tuple[bytes, bytes, bytes, str]:
    if (SNAPSHOT / "nvidia-master.yaml").exists():
        return ((SNAPSHOT / "nvidia-master.yaml").read_bytes(), (SNAPSHOT / "amd-master.yaml").read_bytes(),
                (SNAPSHOT / "perf-changelog.yaml").read_bytes(), "snapshot")
    return _synthetic()


def changeset() -> tuple[ChangeSet, str]:
    nv, amd, changelog, source = _inputs()
    text = nv.decode()
    start = text.index(f"\n{KEY}:\n") + 1
    image_at = text.index("  image: ", start)
    eol = text.index("\n", image_at)
    head = (text[:image_at] + "  image: vllm/vllm-openai:v0.21.0" + text[eol:]).encode()
    line = text.count("\n", 0, image_at) + 1
    patch = f"@@ -{line},1 +{line},1 @@\n-{text[image_at:eol]}\n+  image: vllm/vllm-openai:v0.21.0"
    cl_head = changelog + b"\n" + _entry(KEY, 99999).encode()
    files = (FileChange(NV, "modified", base=nv, head=head, patch=patch),
             FileChange(CHANGELOG, "modified", base=changelog, head=cl_head))
    context = {AMD: amd} if amd else {}
    lines = text.count("\n")
    return ChangeSet(files=files, context=context, pr_number=99999, repo="SemiAnalysisAI/InferenceX"), \
        f"{source}, {lines:,}-line master config, 1 key changed"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args()
    cs, what = changeset()
    report = run(cs, rules=RULES)
    assert not report.findings, [f.message for f in report.findings]
    times, cpu = [], []
    for _ in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        run(cs, rules=RULES)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    times.sort()
    t0 = time.perf_counter()
    parse_yaml(NV, cs.files[0].head)
    full = (time.perf_counter() - t0) * 1000
    print(f"master-config rules ({len(RULES)}) on {what}, {args.runs} runs:")
    print(f"  median {statistics.median(times):.1f} ms   p95 {times[int(len(times) * 0.95) - 1]:.1f} ms   "
          f"(CPU time median {statistics.median(cpu):.1f} ms; wall time includes other load on the machine)")
    print(f"  (one full ruamel round-trip parse of the master config: {full:.0f} ms)")
    print(f"  checks: {', '.join(f'{c.code} {c.status}' for c in report.checks)}")


if __name__ == "__main__":
    main()
