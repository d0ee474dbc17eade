from bot import diff
from bot.reconcile import PostedComment, plan_labels, plan_review
from rules.finding import Finding, Severity


def F(path="p.yaml", line=2, code="RR001", msg="m", sev=Severity.BLOCKING, end=None, suggestion=None):
    return Finding(path=path, line=line, code=code, name="x-y", severity=sev, message=msg, end_line=end,
                   suggestion=suggestion)


HUNKS = {"p.yaml": diff.hunks("@@ -1,2 +1,4 @@\n a\n+b\n+c\n d")}


def test_new_findings_go_inline_and_outside_ones_to_summary():
    inside, outside = F(line=2), F(line=40, msg="far")
    plan = plan_review([inside, outside], HUNKS, [])
    assert [c.line for c in plan.inline] == [2] and plan.outside == [outside]
    assert plan.inline_fingerprints == {inside.fingerprint}


def test_live_comment_is_not_posted_again():
    f = F()
    posted = [PostedComment(1, f.fingerprint, f.code, f.path, "T1")]
    plan = plan_review([f], HUNKS, posted)
    assert plan.inline == [] and plan.gone == [] and plan.empty
    assert plan.inline_fingerprints == {f.fingerprint}


def test_resolved_thread_for_a_returning_finding_is_posted_anew():
    f = F()
    plan = plan_review([f], HUNKS, [PostedComment(1, f.fingerprint, f.code, f.path, "T1", resolved=True)])
    assert len(plan.inline) == 1


def test_gone_finding_is_closed_once():
    old = PostedComment(1, "0" * 16, "RR001", "p.yaml", "T1")
    noted = PostedComment(2, "1" * 16, "RR001", "p.yaml", "T2", fixed_noted=True)
    plan = plan_review([], HUNKS, [old, noted])
    assert plan.gone == [old]


def test_cap_sends_overflow_to_summary_blocking_first():
    nits = [F(line=2, msg=f"n{i}", sev=Severity.NIT) for i in range(3)]
    block = F(line=3, msg="b")
    plan = plan_review(nits + [block], HUNKS, [], max_inline=2)
    assert plan.inline[0].finding is block and len(plan.inline) == 2 and len(plan.outside) == 2


def test_suggestion_only_when_anchor_is_exact():
    f = F(line=2, end=3, suggestion="B\nC\n")
    clipped = F(line=3, end=9, suggestion="C\n", msg="other")
    plan = plan_review([f, clipped], HUNKS, [])
    bodies = {c.finding.message: c for c in plan.inline}
    assert "```suggestion" in bodies["m"].body and bodies["m"].to_api()["start_line"] == 2
    assert "```suggestion" not in bodies["other"].body


def test_plan_labels_touches_only_owned_labels():
    add, remove = plan_labels({"bug", "full-sweep-enabled"}, {"bug", "full-sweep-fail-fast"},
                              owned={"full-sweep-enabled", "full-sweep-fail-fast"})
    assert add == ["full-sweep-fail-fast"] and remove == ["full-sweep-enabled"]
    assert plan_labels({"a"}, {"a"}, {"a"}) == ([], [])
