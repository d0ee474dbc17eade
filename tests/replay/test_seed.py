"""The seed case: the demo PR with an entry whose description itemizes the change (own words).

`bot/demo_data/seed-entry.yaml` describes the demo's change item by item, the way the real seed PR
did: the offload pool with its arithmetic, THP kept on, the batched-token and capture caps lowered
"at conc 4-48" while conc 1 keeps its own, and the speculative token count raised "at conc 32-48 …,
matching conc 16-24". Every item is true of the PR, so no description-claim rule may fire; they
used to read "at conc 32-48" as the whole search space (RR253, twice).
"""
from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

from bot.demo import PR_NUMBER, build_repo

ROOT = Path(__file__).resolve().parents[2]
SEED = resources.files("bot").joinpath("demo_data", "seed-entry.yaml").read_text(encoding="utf-8")
CLAIMS = {"RR250", "RR251", "RR252", "RR253", "RR254", "RR255", "RR256", "RR257", "RR258"}


def _check(tmp_path: Path, entry: str) -> dict:
    base, head = build_repo(tmp_path / "repo", new_entry=entry)
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "check", "--repo", str(tmp_path / "repo"), "--base", base,
                           "--head", head, "--pr-number", str(PR_NUMBER), "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def _claims(report: dict) -> list[tuple[str, str]]:
    return [(f["code"], f["message"]) for f in report["findings"] + report.get("in_base", []) if f["code"] in CLAIMS]


def test_the_seed_description_raises_no_claim_finding(tmp_path):
    report = _check(tmp_path, SEED)
    assert _claims(report) == []
    assert not [f for f in report["findings"] if f["code"] == "RR000"]  # no rule crashed on it


def test_a_band_the_sweep_does_not_run_still_fires_on_the_same_pr(tmp_path):
    # Control: the same PR, with the speculative band moved to concurrencies no row runs (4-48 here).
    wrong = SEED.replace("at conc 32-48 from 3 to 4, matching conc 16-24", "at conc 64-128 from 3 to 4")
    assert _claims(_check(tmp_path, wrong)) == [
        ("RR253", "The description says `conc 64-128`, but the matching rows run 4–48.")]
