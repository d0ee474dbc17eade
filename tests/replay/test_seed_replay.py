"""The review this product was born from: InferenceX #4867 gets exactly its two findings.

The seed's changelog entry (its description items, read from ../shared/seed/pr-4867-review.txt,
skipped when absent) replaces the demo PR's entry (`bot/demo.py`: the same shape, own words), and
`recipe-review check` must report exactly one blocking finding (RR001, the misplaced entry) and one
nit (RR301, the header comment above the overrides, which the demo base's AGENTS.md forbids), and
nothing from the description-claim rules. The own-words twin of this test is tests/replay/test_seed.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import demo

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / ".." / "shared" / "seed" / "pr-4867-review.txt"
KEY = "kimik3.1-fp4-mi355x-vllm-agentic"  # the demo master config's key

pytestmark = pytest.mark.shared


def seed_description() -> list[str]:
    """The description items of the seed's own changelog entry (the block that links #4867)."""
    if not SEED.exists():
        if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
            pytest.fail(f"seed missing at {SEED}")
        pytest.skip("the seed PR text is not present")
    lines = SEED.read_text(encoding="utf-8").splitlines()
    end = max(i for i, ln in enumerate(lines) if ln.strip().endswith("/pull/4867") and "pr-link" in ln)
    items = []
    for ln in reversed(lines[:end]):
        s = ln.strip()
        if s.startswith('- "'):
            items.append(s[2:])
        elif s == "description:":
            break
    assert items, "no description items found above the seed's pr-link"
    return list(reversed(items))


def _entry(items: list[str]) -> str:
    return ("- config-keys:\n    - " + KEY + "\n  scenario-type:\n    - agentic-coding\n  description:\n"
            + "".join(f"    - {item}\n" for item in items)
            + "  pr-link: https://github.com/demo-org/inferencex/pull/4867\n")


def review_with_entry(tmp_path: Path, entry: str) -> dict:
    original = demo._data
    try:
        demo._data = lambda name: entry if name == "new-entry.yaml" else original(name)
        base, head = demo.build_repo(tmp_path / "repo")
    finally:
        demo._data = original
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "check", "--repo", str(tmp_path / "repo"), "--base", base,
                           "--head", head, "--pr-number", "4867", "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr  # one blocking finding
    return json.loads(proc.stdout)


def test_the_seed_entry_gets_exactly_the_two_findings_of_its_review(tmp_path):
    items = seed_description()
    assert any("32-48" in i for i in items)  # the item with the subset qualifier that RR253 used to misread
    report = review_with_entry(tmp_path, _entry(items))
    got = sorted((f["code"], f["severity"]) for f in report["findings"])
    assert got == [("RR001", "blocking"), ("RR301", "nit")], report["findings"]
