"""The sweep gate verdict and primary-label resolution (pure)."""
import pytest

from bot.sweep import ChangelogFacts, evaluate, resolve_primaries
from rules.config import LabelsConfig

CFG = LabelsConfig()
APPENDS = ChangelogFacts(appends=True, new_entries=1, append_only=0)

CASES = [
    ("one primary, clean review", ["full-sweep-fail-fast"], APPENDS, 0, "success", None),
    ("primary with a modifier", ["full-sweep-enabled", "all-evals"], APPENDS, 0, "success", None),
    ("no sweep label", ["bug"], APPENDS, 3, "neutral", None),
    ("two primaries", ["full-sweep-enabled", "sweep-enabled"], APPENDS, 0, "failure", "exactly one primary"),
    ("modifier alone", ["evals-only"], APPENDS, 0, "failure", "only counts next to a primary"),
    ("no changelog entry", ["full-sweep-fail-fast"], ChangelogFacts(False, 0, 0), 0, "failure", "Append an entry"),
    ("blocking finding", ["full-sweep-fail-fast"], APPENDS, 2, "failure", "2 blocking findings"),
    ("not reviewed yet", ["full-sweep-fail-fast"], APPENDS, None, "failure", "not been reviewed"),
    ("append-only mixed", ["full-sweep-fail-fast"], ChangelogFacts(True, 2, 1), 0, "failure", "cannot share a sweep"),
    ("append-only with evals label", ["full-sweep-fail-fast", "evals-only"], ChangelogFacts(True, 1, 1), 0,
     "failure", "cannot run with `evals-only`"),
    ("append-only alone is fine", ["full-sweep-fail-fast", "agentx-fast"], ChangelogFacts(True, 2, 2), 0,
     "success", None),
]


@pytest.mark.parametrize("labels,facts,blocking,conclusion,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gate(labels, facts, blocking, conclusion, needle):
    g = evaluate(labels, CFG, facts, blocking)
    assert g.conclusion == conclusion
    if needle:
        assert needle in g.summary()


def test_most_recent_primary_wins():
    assert resolve_primaries(["full-sweep-enabled", "bug", "non-canary-full-sweep-enabled"],
                             "non-canary-full-sweep-enabled", CFG) == (["bug", "non-canary-full-sweep-enabled"],
                                                                      ["full-sweep-enabled"])


@pytest.mark.parametrize("labels,added", [(["full-sweep-enabled"], "full-sweep-enabled"),
                                          (["full-sweep-enabled", "all-evals"], "all-evals"),
                                          (["full-sweep-enabled", "sweep-enabled"], None)],
                         ids=["single primary", "modifier added", "no label event"])
def test_nothing_removed_without_a_newly_added_second_primary(labels, added):
    assert resolve_primaries(labels, added, CFG) == (labels, [])
