"""Replay the numeric-claim and convention rules over the real InferenceX data (../shared/inferencex).

* Every PR head of prs-dev.jsonl.xz is reviewed with RR250, RR251, RR301-RR304. Master configs are
  only those the PR itself changes: the main-branch snapshot is months newer than most PR heads,
  so comparing a PR's recipe containers with it would report time skew, not mistakes.
* The snapshot changelog is reviewed as if every entry were new (all 2,063 descriptions), with the
  snapshot master configs as context for RR251.
* Comment claims are also parsed in every comment block of every recipe and master config at
  every PR head, fresh or not, to measure false positives of the parser itself.

Blocking findings must all be explained in EXPLAINED (PR, code, path suffix) → why; anything else
fails. Skips when the data is absent, fails instead when RECIPE_REVIEW_REQUIRE_SHARED=1. Run with
`-s` to print the counts (they are recorded in notes/claims-conventions.md).
"""
from __future__ import annotations

import dataclasses
import json
import lzma
import os
from collections import Counter
from pathlib import Path

import pytest

from rules.changeset import ChangeSet, FileChange
from rules.claims.checks import (
    numeric_claim_disagrees_with_value,
    numeric_claim_false,
)
from rules.claims.parse import find_claims
from rules.comments import blocks, yaml_comments
from rules.context import ReviewContext
from rules.general.checks import (
    header_comment_block,
)
from rules.recipe.checks import (
    recipe_container_mismatch,
)
from rules.runner import run
from rules.scripts.checks import (
    expert_parallel_unconditional,
    mtp_script_missing_chat_template,
)

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "inferencex"
RULES = [numeric_claim_false, numeric_claim_disagrees_with_value, header_comment_block,
         mtp_script_missing_chat_template, expert_parallel_unconditional, recipe_container_mismatch]
SNAPSHOT = {"configs/nvidia-master.yaml": "nvidia-master.yaml", "configs/amd-master.yaml": "amd-master.yaml"}

# Real mismatches, each read by hand (see notes/claims-conventions.md). The path suffix "" covers
# every recipe of that PR: in each case the PR head's own master config names one image and the
# recipes it references (in the same head) run another.
_NIGHTLY = ("DSv4 GB300 SGLang recipes pin a newer sglang nightly than the master key's image in the same "
            "PR head (recipe-only image bumps, RULES.md D2)")
EXPLAINED: dict[tuple[int, str, str], str] = {
    (1390, "RR304", "vllm/deepseek-v4/8k1k/disagg-gb200-mid-curve-megamoe-mtp2.yaml"):
        "the RULES.md D2 example: the recipe was bumped to v0.21.0, its master keys stayed on v0.20.1",
    (1297, "RR304", ""): _NIGHTLY + ": recipes 20260510-2473659e, master 20260509-9ee83034",
    (1316, "RR304", ""): _NIGHTLY + ": recipes 20260510-2473659e, master 20260509-9ee83034",
    (1378, "RR304", ""): _NIGHTLY + ": recipes 20260527-14f81a67, master cu13-20260509-9ee83034",
    (1529, "RR304", ""): _NIGHTLY + ": recipes 20260510-2473659e, master 20260509-9ee83034",
    (1530, "RR304", ""): _NIGHTLY + ": 1k1k recipes 20260602-98a1b58c, master 20260520-425dffbd",
    (1900, "RR304", ""): ("minimax-m3 B300 dynamo-vllm recipes run the vllm-minimax-m3-perf build while the "
                          "master key keeps minimax-m3-0618"),
}

pytestmark = pytest.mark.shared

_NO_HEADERS = b"# Working here\n\nNew scripts carry no header comments: say what a file is for in the PR.\n"


def _data_or_skip() -> Path:
    if not (SHARED / "prs-dev.jsonl.xz").exists():
        if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
            pytest.fail(f"shared data missing at {SHARED}")
        pytest.skip("shared InferenceX data not present")
    return SHARED


def _records(data: Path):
    with lzma.open(data / "prs-dev.jsonl.xz", "rt") as fh:
        for line in fh:
            yield json.loads(line)


def _explained(number, code: str, path: str) -> bool:
    return any(n == number and c == code and path.endswith(p) for (n, c, p) in EXPLAINED)


@pytest.fixture(scope="module")
def pr_replay():
    data = _data_or_skip()
    counts, blocking, findings = Counter(), [], []
    for record in _records(data):
        cs = ChangeSet.from_record(record)
        report = run(cs, rules=RULES)
        counts["prs"] += 1
        added = {f.path for f in cs.files if f.status == "added"}
        for c in report.checks:
            counts[f"{c.code} {c.status}"] += 1
        if added:
            # The records carry no base guidance, so RR301 skips above; with guidance that forbids
            # header comments (our own words, as a base AGENTS.md) it must still find them in real files.
            guided = dataclasses.replace(cs, base_context={**cs.base_context, "AGENTS.md": _NO_HEADERS},
                                         base_probed=cs.base_probed | {"AGENTS.md"})
            for f in run(guided, rules=[header_comment_block]).findings:
                if f.path in added:
                    counts["RR301 on added files"] += 1
                    findings.append((record["number"], f))
        for f in report.findings:
            counts[f.code] += 1
            findings.append((record["number"], f))
            if f.blocking and not _explained(record["number"], f.code, f.path):
                blocking.append(f"#{record['number']} {f.code} {f.path}:{f.line}: {f.message}")
    return counts, blocking, findings


def test_pr_heads_have_no_unexplained_blocking_findings(pr_replay):
    counts, blocking, _ = pr_replay
    print("\nPR replay:", dict(sorted(counts.items())))
    assert counts["prs"] > 1000
    assert not blocking, "\n".join(blocking[:40])


def test_scripts_without_content_are_skipped_not_passed(pr_replay):
    counts, _, _ = pr_replay
    # The replay data lists .sh files without content: the script rules must say so.
    assert counts["RR302 skipped"] > 0 and counts["RR303 skipped"] > 0
    assert counts["RR302"] == counts["RR303"] == 0


def test_header_comment_rule_fires_on_real_added_files(pr_replay):
    counts, _, findings = pr_replay
    assert counts["RR301 on added files"] > 0
    assert counts["RR301 skipped"] > 0  # the records carry no base guidance: the rule says so
    assert all(not f.blocking for _, f in findings if f.code == "RR301")


def test_snapshot_changelog_descriptions():
    data = _data_or_skip()
    context = {k: (data / "snapshot" / v).read_bytes() for k, v in SNAPSHOT.items()}
    changelog = (data / "snapshot" / "perf-changelog.yaml").read_bytes()
    cs = ChangeSet((FileChange("perf-changelog.yaml", "added", head=changelog),), context=context)
    report = run(cs, rules=[numeric_claim_false, numeric_claim_disagrees_with_value])
    passed = [c for c in report.checks if c.status == "passed"]
    print(f"\nsnapshot changelog: {len(passed)} claims verified, {len(report.findings)} findings")
    assert report.findings == []
    assert len(passed) >= 4  # e.g. "~1.5 TB (~188 GB/GPU across 8 B300s)"


def test_parser_false_positives_over_every_comment_block():
    """Every comment block of every recipe/master config head, fresh or not: no claim is false."""
    data = _data_or_skip()
    ctx = ReviewContext(ChangeSet(files=()))
    seen: set[str] = set()
    n_blocks = n_claims = 0
    false = []
    for record in _records(data):
        for f in record["files"]:
            text = f.get("head_content")
            if not text or ctx.kind(f["filename"]) not in ("recipes", "master_configs"):
                continue
            for b in blocks(text, yaml_comments(text)):
                joined, _ = b.joined()
                if joined in seen:
                    continue
                seen.add(joined)
                n_blocks += 1
                for c in find_claims(joined):
                    n_claims += 1
                    if not c.holds:
                        false.append(f"#{record['number']} {f['filename']}:{b.start}: {c.detail}")
    print(f"\ncomment blocks: {n_blocks} distinct, {n_claims} claims parsed, {len(false)} false")
    assert n_claims >= 20
    assert not false, "\n".join(false)
