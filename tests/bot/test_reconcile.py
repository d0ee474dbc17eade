import pytest

from bot import diff, render
from bot.present import GROUP_FROM, Ignore, group_fingerprint, items_of, problem_key
from bot.reconcile import PostedComment, ignores_from, plan_labels, plan_review
from rules.finding import Finding, Severity


def F(path="p.yaml", line=2, code="RR001", msg="m", sev=Severity.BLOCKING, end=None, suggestion=None):
    return Finding(path=path, line=line, code=code, name="x-y", severity=sev, message=msg, end_line=end,
                   suggestion=suggestion)


HUNKS = {"p.yaml": diff.hunks("@@ -1,2 +1,4 @@\n a\n+b\n+c\n d"),
         "big.yaml": diff.hunks("@@ -1,0 +1,40 @@\n" + "".join(f"+l{i}\n" for i in range(1, 41)))}


def keys(n, path="big.yaml", code="RR011", start=1, word="is added"):
    return [F(path=path, line=start + i, code=code, msg=f"config key `k{i}` {word} here") for i in range(n)]


def posted_of(plan, resolved=False):
    """What the bot would read back after posting `plan.inline`, with made-up ids."""
    out = []
    for i, c in enumerate(plan.inline, start=100):
        code, fp = render.parse_finding_marker(c.body)
        out.append(PostedComment(i, fp, code, c.path, f"T{i}", resolved, False, render.parse_problem_marker(c.body),
                                 c.body))
    return out


def test_new_findings_go_inline_and_outside_ones_to_summary():
    inside, outside = F(line=2), F(line=40, msg="far")
    plan = plan_review([inside, outside], HUNKS, [])
    assert [c.line for c in plan.inline] == [2] and [it.first for it in plan.outside] == [outside]
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
    assert plan.gone == [old] and plan.replaced == []


def test_cap_sends_overflow_to_summary_blocking_first():
    nits = [F(line=2, msg=f"n{i}", sev=Severity.NIT) for i in range(3)]
    block = F(line=3, msg="b")
    plan = plan_review(nits + [block], HUNKS, [], max_inline=2)
    assert plan.inline[0].finding is block and len(plan.inline) == 2 and len(plan.outside) == 2


def test_open_threads_count_against_the_cap_so_a_rerun_posts_nothing():
    fs = [F(path="big.yaml", line=i, code=f"RR0{10 + i}", msg=f"m{i}") for i in range(1, 9)]
    first = plan_review(fs, HUNKS, [], max_inline=3)
    assert len(first.inline) == 3 and len(first.outside) == 5
    again = plan_review(fs, HUNKS, posted_of(first), max_inline=3)
    assert again.empty and len(again.outside) == 5
    assert again.inline_fingerprints == first.inline_fingerprints
    # One inline finding fixed: its slot goes to the next one, and only that is posted.
    fixed = [f for f in fs if f.fingerprint != first.inline[0].finding.fingerprint]
    after = plan_review(fixed, HUNKS, posted_of(first), max_inline=3)
    assert len(after.inline) == 1 and len(after.gone) == 1


def test_suggestion_only_when_anchor_is_exact():
    f = F(line=2, end=3, suggestion="B\nC\n")
    clipped = F(line=3, end=9, suggestion="C\n", msg="other")
    plan = plan_review([f, clipped], HUNKS, [])
    bodies = {c.finding.message: c for c in plan.inline}
    assert "```suggestion" in bodies["m"].body and bodies["m"].to_api()["start_line"] == 2
    assert "```suggestion" not in bodies["other"].body


@pytest.mark.parametrize("n,grouped", [(GROUP_FROM - 1, False), (GROUP_FROM, True)],
                         ids=["four stay single", "five become one group"])
def test_group_from_five_per_rule_and_file(n, grouped):
    plan = plan_review(keys(n), HUNKS, [])
    assert len(plan.inline) == (1 if grouped else n)
    assert all(c.item.grouped is grouped for c in plan.inline)


def test_groups_are_per_rule_and_per_file():
    fs = keys(6) + keys(5, code="RR012") + keys(3, path="p.yaml", start=2)
    items = items_of(fs)
    assert sorted((it.code, it.path, it.grouped, len(it.members)) for it in items) == [
        ("RR011", "big.yaml", True, 6), ("RR011", "p.yaml", False, 1), ("RR011", "p.yaml", False, 1),
        ("RR011", "p.yaml", False, 1), ("RR012", "big.yaml", True, 5)]


def test_group_comment_lists_subjects_has_no_suggestion_and_carries_code_path_fingerprint():
    fs = [F(path="big.yaml", line=i + 1, code="RR011", msg=f"config key `k{i}` is added here",
            suggestion="x\n") for i in range(38)]
    (c,) = plan_review(fs, HUNKS, []).inline
    assert c.line == 1 and "```suggestion" not in c.body
    assert "38 changed keys are selected by no new entry: `k0`, `k1`" in c.body  # the rule's PLURAL
    assert "`k7`, … and 30 more." in c.body and "`k8`," not in c.body.split("\n")[2]
    assert "- line 38: config key `k37` is added here" in c.body  # the full list, by line
    assert render.parse_finding_marker(c.body) == ("RR011", group_fingerprint("RR011", "big.yaml"))
    single = plan_review(fs[:1], HUNKS, []).inline[0]
    assert "```suggestion" in single.body  # a single finding keeps its suggestion


def test_group_without_a_plural_reads_generically():
    fs = [F(path="big.yaml", line=i + 1, code="RR999", msg=f"thing {i}") for i in range(5)]
    (c,) = plan_review(fs, HUNKS, []).inline
    assert "5 `RR999` x-y findings in this file: line 1, line 2" in c.body


def test_group_body_is_edited_in_place_as_the_list_changes():
    first = plan_review(keys(8), HUNKS, [])
    posted = posted_of(first)
    same = plan_review(keys(8), HUNKS, posted)
    assert same.empty
    fewer = plan_review(keys(7), HUNKS, posted)
    assert fewer.inline == [] and fewer.gone == [] and [e.comment_id for e in fewer.edits] == [100]
    assert "7 changed keys" in fewer.edits[0].body
    # A group stays a group while its thread is open, even below the threshold: edited, not replaced.
    two = plan_review(keys(2), HUNKS, posted)
    assert two.inline == [] and len(two.edits) == 1 and "2 changed keys" in two.edits[0].body
    # All fixed: the group thread is gone (resolved as fixed).
    assert plan_review([], HUNKS, posted).gone == posted


def test_singles_replaced_by_a_group_are_closed_without_a_fixed_note():
    first = plan_review(keys(4), HUNKS, [])
    posted = posted_of(first)
    grown = plan_review(keys(9), HUNKS, posted)
    assert len(grown.inline) == 1 and grown.inline[0].item.grouped
    assert grown.gone == [] and sorted(c.comment.comment_id for c in grown.replaced) == [100, 101, 102, 103]
    assert {c.why for c in grown.replaced} == {render.GROUPED_INSTEAD}


def test_reworded_finding_keeps_its_thread_and_is_edited():
    old = plan_review(keys(1), HUNKS, [])
    posted = posted_of(old)
    new = keys(1, word="was added, yet")  # a new version words the message differently
    assert new[0].fingerprint != old.inline[0].finding.fingerprint
    plan = plan_review(new, HUNKS, posted)
    assert plan.inline == [] and plan.gone == [] and plan.replaced == []
    assert [e.comment_id for e in plan.edits] == [100] and "was added, yet" in plan.edits[0].body


def test_comment_from_before_problem_keys_is_matched_by_its_message():
    f = keys(1)[0]
    legacy_body = render.inline_comment(f, False).replace(render.problem_marker(problem_key(
        f.code, f.path, f.message, f.line)), "")
    assert render.parse_problem_marker(legacy_body) is None
    derived = problem_key(f.code, f.path, render.message_of(legacy_body))
    posted = [PostedComment(1, f.fingerprint, f.code, f.path, "T1", key=derived, body=legacy_body)]
    assert plan_review([f], HUNKS, posted).empty  # same fingerprint: kept, not rewritten
    reworded = keys(1, word="was added, yet")
    plan = plan_review(reworded, HUNKS, posted)
    assert plan.inline == [] and plan.gone == [] and len(plan.edits) == 1


def test_re_anchored_finding_keeps_its_thread():
    first = plan_review([F(line=2)], HUNKS, [])
    moved = plan_review([F(line=3)], HUNKS, posted_of(first))  # a new version points at another line
    assert moved.empty


def test_duplicate_thread_is_closed_as_superseded():
    f = F()
    a = PostedComment(1, f.fingerprint, f.code, f.path, "T1")
    b = PostedComment(2, f.fingerprint, f.code, f.path, "T2")
    plan = plan_review([f], HUNKS, [a, b])
    assert plan.inline == [] and plan.gone == [] and [c.comment for c in plan.replaced] == [b]


def test_ignored_rule_is_shown_not_counted_and_its_threads_are_closed_silently():
    block, nit = F(code="RR011", msg="`a`"), F(code="RR301", msg="`b`", sev=Severity.NIT, line=3)
    posted = [PostedComment(1, block.fingerprint, block.code, block.path, "T1")]
    plan = plan_review([block, nit], HUNKS, posted, ignores={"RR011": Ignore("RR011", "maint", "known")})
    view = plan.view()
    assert view.blocking == [] and view.nits == [nit] and view.ignored == [block]
    assert [c.comment for c in plan.replaced] == [posted[0]] and plan.gone == []
    assert [c.finding for c in plan.inline] == [nit]


def test_ignores_fold_in_order_last_word_wins():
    bodies = [render.ignore_marker("RR011", True, "alice", "integration branch"),
              render.ignore_marker("RR301", True, "bob"),
              render.ignore_marker("RR011", False, "carol"),
              "not the bot's marker <!-- recipe-review:ignore:RR004:on:x:y",
              render.ignore_marker("RR011", True, "dave", "again --> <!-- sneaky")]
    got = ignores_from(bodies)
    assert sorted(got) == ["RR011", "RR301"]
    assert got["RR011"] == Ignore("RR011", "dave", "again --> <!-- sneaky") and got["RR301"].reason == ""


def test_plan_labels_touches_only_owned_labels():
    add, remove = plan_labels({"bug", "full-sweep-enabled"}, {"bug", "full-sweep-fail-fast"},
                              owned={"full-sweep-enabled", "full-sweep-fail-fast"})
    assert add == ["full-sweep-fail-fast"] and remove == ["full-sweep-enabled"]
    assert plan_labels({"a"}, {"a"}, {"a"}) == ([], [])
