"""RR431 waiver-incomplete: the parts a waiver states come from the base revision's checklist."""
from rules.changeset import ChangeSet, FileChange
from rules.runner import run
from rules.scripts.checks import waiver_incomplete as rule

CHECKLIST = """# Checklist
- [ ] No engine patches. The one exception is a patch covered by a waiver in docs/waiver, named after the PR and
  filed in it, stating what is patched, why the released image fails, the upstream issue link, and the removal plan.
"""
FULL = """# Waiver
## What is patched
One guard in the engine's scheduler.
## Why the released image fails
It fails at concurrency 512.
## Upstream
https://github.com/example/engine/pull/1
## Removal plan
Removed when the next release ships the fix.
"""


def review(waiver: str, checklist: str | None = CHECKLIST, probed=True, pr=77):
    base = {"docs/PR_REVIEW_CHECKLIST.md": checklist.encode()} if checklist is not None else {}
    cs = ChangeSet(files=(FileChange(f"docs/waiver/{pr}.md", "added", head=waiver.encode()),), pr_number=77,
                   base_context=base, base_probed=frozenset({"docs/PR_REVIEW_CHECKLIST.md"}) if probed else frozenset())
    return run(cs, rules=[rule])


def test_a_complete_waiver_passes():
    r = review(FULL)
    assert r.findings == [] and any(c.status == "passed" and "all 4 parts" in c.detail for c in r.checks)


def test_missing_parts_are_a_nit_naming_them():
    r = review(FULL.split("## Upstream")[0])
    (f,) = r.findings
    assert f.code == "RR431" and not f.blocking
    assert "`the upstream issue link`" in f.message and "`the removal plan`" in f.message


def test_without_a_checklist_it_is_skipped():
    for kw in ({"checklist": None}, {"probed": False}):
        r = review("# nothing\n", **kw)
        assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_another_prs_waiver_is_not_judged():
    assert review("# nothing\n", pr=12).findings == []
