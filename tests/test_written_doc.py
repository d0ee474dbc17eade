"""docs/written-rules.md matches the code: ENFORCES, the coverage fixtures and rules.written.GAPS."""
from pathlib import Path

from bot.docs import WRITTEN_DOC, written_doc, written_status
from rules.written import GAPS, WRITTEN

ROOT = Path(__file__).resolve().parents[1]


def test_written_rules_doc_is_current():
    assert (ROOT / WRITTEN_DOC).read_text(encoding="utf-8") == written_doc(ROOT), (
        "run: recipe-review docs --write README.md"
    )


def test_every_written_rule_is_accounted_for():
    status = written_status(ROOT)
    assert set(status) == set(WRITTEN) and len(WRITTEN) == 82
    unexplained = [i for i, (st, why, _) in status.items() if st != "covered" and i not in GAPS]
    assert not unexplained, f"not covered and no reason in rules.written.GAPS: {unexplained}"
    stale = [i for i in GAPS if status[i][0] == "covered"]
    assert not stale, f"covered now: drop their GAPS entries: {stale}"
    assert all(kind in ("partly", "person") and why for kind, why in GAPS.values())


def test_the_readme_links_it():
    assert "](docs/written-rules.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
