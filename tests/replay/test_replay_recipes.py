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
from rules.engine import run
from rules.registry import ALL_RULES

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "inferencex"
RULES = [r for r in ALL_RULES if "RR201" <= r.CODE <= "RR249"]
SNAPSHOT = {"configs/nvidia-master.yaml": "nvidia-master.yaml", "configs/amd-master.yaml": "amd-master.yaml",
            "configs/runners.yaml": "runners.yaml"}
# Real errors in the data, each checked by hand (see notes/recipes.md).
_B300_DECODE = ("The decode role sets max-cudagraph-capture-size 2048 with max-num-batched-tokens 256/512 under "
                "FULL_AND_PIECEWISE: sizes above the token budget can never run (RULES.md E2 lists the same files).")
EXPLAINED: dict[tuple[str, str], str] = {
    (f"vllm/deepseek-v4/8k1k/disagg-b300-{name}.yaml", "RR202"): _B300_DECODE
    for name in ("high-tpt-megamoe", "low-latency", "low-middle-curve", "max-tpt-megamoe", "mid-curve-megamoe",
                 "high-tpt-megamoe-mtp3", "low-latency-mtp3", "mid-curve-megamoe-mtp3")
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
