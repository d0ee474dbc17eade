"""RR015 changelog-base-unterminated: a base without a final newline breaks every append (#1717)."""
from rules.changelog.checks import changelog_base_unterminated as rr015
from rules.changelog.checks import changelog_history_changed as rr002
from tests.rules.changelog_helpers import BASE, NEW, review


def test_base_without_final_newline_is_blocking_on_both_gates():
    base = BASE.rstrip("\n")
    head = base + "\n\n" + NEW
    r = review(base, head, rr015, rr002)
    [f] = r.findings
    assert (f.code, f.blocking, f.line) == ("RR015", True, base.count("\n") + 1)
    assert "does not end with a newline" in f.message and "pull/4720" in f.message
    # git diff shows the last base line deleted and re-added: the PR-run check fails on every push,
    # and the merge helper refuses the base itself.
    assert f.message.endswith("Rejected by the PR-run `check-changelog` on this push and by the merge path at merge.")
    assert any("Found deleted line:   pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4720" in e
               for e in f.evidence)
    assert any("base perf-changelog.yaml does not end with a newline" in e for e in f.evidence)
    assert "maintainer" in f.fix


def test_base_ending_with_a_newline_passes():
    r = review(BASE, BASE + "\n" + NEW, rr015)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_new_changelog_has_no_base_to_judge():
    r = review(None, NEW, rr015, status="added")
    assert r.findings == [] and r.checks == []


def test_base_ending_in_whitespace_only_line_without_newline():
    """A last line of spaces is a whitespace-only deletion: tolerated by the PR-run check, not by the merge path."""
    base = BASE + "  "
    f = review(base, BASE + "\n" + NEW, rr015).findings[0]
    assert f.message.endswith("The PR-run check passes this; the merge path rejects it at merge.")
    assert "(its last line is `'  '`, whitespace only)" in f.message  # shown, not an empty code span


def test_adding_only_the_missing_newline_is_the_fix_not_a_finding():
    """The one-byte maintainer fix (`[skip-sweep]`): the PR the finding would prescribe."""
    base = BASE.rstrip("\n")
    assert review(base, base + "\n", rr015).findings == []


def test_an_edit_elsewhere_that_keeps_the_unterminated_last_line_is_not_flagged():
    """Control: git shows no deletion of a last line the head leaves exactly as it was."""
    base = BASE.rstrip("\n")
    first, rest = base.split("\n", 1)
    r = review(base, first + "  \n" + rest, rr015)
    assert [f.code for f in r.findings] == []
