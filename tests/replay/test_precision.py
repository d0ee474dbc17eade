"""Ratchet: every rule's judged precision on real InferenceX pull requests (notes/proof.md).

Runs benchmarks/precision.py's evaluation once (module-scoped: the bundle cloned into a temporary
directory, every PR head and every reviewed commit of the findings file reviewed in-process by 2
workers, no disk cache across runs) and asserts that:

- every sampled finding has a judgement in benchmarks/precision_judged.json (a rule change that
  moves its findings must be judged again, by someone who did not write it);
- every blocking rule with at least 3 judged findings is at >= 95 % and every nit rule at >= 80 %;
- no rule crashes (RR000) and no review errors on any commit.

Skips when ../shared is absent; fails instead when RECIPE_REVIEW_REQUIRE_SHARED=1.
`python benchmarks/precision.py --to-judge FILE` writes what still needs a judgement.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / ".." / "shared" / "inferencex"

pytestmark = [pytest.mark.shared, pytest.mark.slow]


def _load():
    if "precision" in sys.modules:
        return sys.modules["precision"]
    spec = importlib.util.spec_from_file_location("precision", ROOT / "benchmarks" / "precision.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory):
    if not ((SHARED / "ix-dev.bundle").exists() and (SHARED / "review-findings-dev.jsonl").exists()):
        if os.environ.get("RECIPE_REVIEW_REQUIRE_SHARED") == "1":
            pytest.fail(f"shared data missing at {SHARED}")
        pytest.skip("shared InferenceX data not present")
    mod = _load()
    rr = mod._real_reviews()
    repo = rr.clone_bundle(SHARED / "ix-dev.bundle", tmp_path_factory.mktemp("ix") / "ix.git")
    return mod, mod.evaluate(bundle=SHARED / "ix-dev.bundle", repo=repo, jobs=2, cache=False)


def test_every_sampled_finding_is_judged(evaluation):
    _, rep = evaluation
    missing = [f"{f['code']} #{f['pr']} {f['commit'][:7]} {f['path']}:{f['line']} {f['fingerprint']}"
               for f in rep["to_judge"]]
    assert not missing, (f"{len(missing)} sampled finding(s) have no judgement (run benchmarks/precision.py "
                         f"--to-judge FILE and have them judged): " + "; ".join(missing[:20]))


def test_every_measured_rule_meets_its_bar(evaluation):
    mod, rep = evaluation
    below = [f"{code} ({r['severity']}): {r['verdicts']} = {100 * r['precision']:.0f} % < "
             f"{100 * mod.BAR[r['severity']]:.0f} %"
             for code, r in rep["rules"].items() if r["status"] == "below bar"]
    assert not below, "rules below their precision bar (fix or demote them): " + "; ".join(below)


def test_no_rule_crashes_and_no_review_errors(evaluation):
    _, rep = evaluation
    assert rep["rule_crashes"] == [] and rep["review_errors"] == []
    assert rep["meta"]["pr_heads"] > 1800
