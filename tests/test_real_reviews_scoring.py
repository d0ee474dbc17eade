"""The scoring of benchmarks/real_reviews.py on synthetic inputs (no ../shared data needed).

Path normalization, the ±3 line window, file-level vs line findings, caught/partial/missed, not
evaluable cases, the upper bound over same-day commits, the other direction, the category table,
and the review cache on a small real git repository.
"""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests.rules.changelog_helpers import BASE, entry

ROOT = Path(__file__).resolve().parents[1]


def _load():
    """The benchmark module, loaded once per process (its worker pool pickles its functions by name)."""
    if "real_reviews" in sys.modules:
        return sys.modules["real_reviews"]
    spec = importlib.util.spec_from_file_location("real_reviews", ROOT / "benchmarks" / "real_reviews.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


rr = _load()
Row = rr.Row


def ours(code, path, line, end_line=None, severity="blocking", message="m"):
    return {"code": code, "path": path, "line": line, "end_line": end_line, "severity": severity, "message": message}


def theirs(pr=1, path="perf-changelog.yaml", line=10, category="pr_link_wrong", commit="c1", same_day=(),
           in_scope=True, reviewer="bot"):
    return {"pr": pr, "reviewer": reviewer, "path": path, "line": line, "category": category, "summary": "s",
            "in_scope": in_scope, "reviewed_commit": commit, "same_day_commits": list(same_day), "pr_head": "h"}


# ---------------------------------------------------------------- paths and lines

@pytest.mark.parametrize("a, b", [
    (".github/configs/nvidia-master.yaml", "configs/nvidia-master.yaml"),
    ("./perf-changelog.yaml", "perf-changelog.yaml"),
    (".github/configs/amd-master.yaml", ".github/configs/amd-master.yaml"),
])
def test_paths_compare_without_a_leading_github_dir(a, b):
    assert rr.norm_path(a) == rr.norm_path(b)


def test_only_a_leading_github_dir_is_stripped():
    assert rr.norm_path("benchmarks/.github/x.sh") == "benchmarks/.github/x.sh"
    assert rr.norm_path("configs/amd-master.yaml") != rr.norm_path("configs/nvidia-master.yaml")
    assert rr.path_variants("configs/x.yaml") == ["configs/x.yaml", ".github/configs/x.yaml"]
    assert rr.path_variants(".github/configs/x.yaml") == ["configs/x.yaml", ".github/configs/x.yaml"]


@pytest.mark.parametrize("our_line, our_end, their_line, expected", [
    (10, None, 10, True),
    (13, None, 10, True),     # +3
    (7, None, 10, True),      # -3
    (14, None, 10, False),    # +4
    (6, None, 10, False),     # -4
    (1, 8, 11, True),         # the span's end is 3 lines away
    (1, 8, 12, False),
    (20, 30, 25, True),       # inside the span
    (30, 20, 17, True),       # a reversed span still counts as a span
    (None, None, 10, False),  # a file-level finding of ours never matches a line
    (0, None, 10, False),     # 0 is how the engine spells "file-level" before to_dict
    (None, None, None, True), # file-level matches a reviewer finding without a line
    (500, None, None, True),  # a reviewer finding without a line: any line of ours
])
def test_line_window(our_line, our_end, their_line, expected):
    assert rr.line_matches(our_line, our_end, their_line) is expected


# ---------------------------------------------------------------- caught, partial, missed

def test_caught_by_a_mapped_rule_on_the_line_across_layouts():
    f = theirs(path=".github/configs/nvidia-master.yaml", line=100, category="recipe_container_mismatch")
    o = rr.score(f, [ours("RR304", "configs/nvidia-master.yaml", 102)], {"RR304"})
    assert o.result == "caught" and o.codes == ("RR304",)


def test_mapped_rule_off_the_line_is_partial():
    f = theirs(line=100)
    o = rr.score(f, [ours("RR004", "perf-changelog.yaml", 104)], {"RR004"})
    assert o.result == "partial" and o.codes == ("RR004",)


def test_mapped_file_level_finding_against_a_line_is_partial_not_caught():
    f = theirs(line=100)
    assert rr.score(f, [ours("RR004", "perf-changelog.yaml", None)], {"RR004"}).result == "partial"
    assert rr.score(theirs(line=None), [ours("RR004", "perf-changelog.yaml", None)], {"RR004"}).result == "caught"


def test_unmapped_rule_in_the_window_is_partial_and_outside_is_missed():
    f = theirs(line=100)
    near = rr.score(f, [ours("RR001", "perf-changelog.yaml", 97, 99)], {"RR004"})
    assert near.result == "partial" and near.codes == ("RR001",)
    assert rr.score(f, [ours("RR001", "perf-changelog.yaml", 90, 96)], {"RR004"}).result == "missed"


def test_other_files_and_empty_mappings_never_catch():
    f = theirs(line=100)
    assert rr.score(f, [ours("RR004", "configs/amd-master.yaml", 100)], {"RR004"}).result == "missed"
    assert rr.score(f, [ours("RR004", "perf-changelog.yaml", 100)], set()).result == "partial"
    assert rr.score(f, [], {"RR004"}).result == "missed"


def test_caught_wins_over_partial_codes_on_the_same_file():
    f = theirs(line=None)
    o = rr.score(f, [ours("RR001", "perf-changelog.yaml", 5), ours("RR004", "perf-changelog.yaml", 900)], {"RR004"})
    assert o.result == "caught" and o.codes == ("RR004",)


# ---------------------------------------------------------------- not evaluable, upper bound

def _present(*pairs):
    s = {(c, rr.norm_path(p)) for c, p in pairs}
    return lambda commit, path: (commit, rr.norm_path(path)) in s


def test_not_evaluable_cases():
    present = _present(("c1", "perf-changelog.yaml"), ("c3", "perf-changelog.yaml"))
    states = {(1, "c1"): {"findings": []}, (1, "c2"): {"missing": True}, (1, "c3"): {"error": "GitError: boom"},
              (1, "c4"): {"findings": []}}
    mapped = {"RR004"}
    assert rr.outcome_on(theirs(), None, states, present, mapped).reason == "no reviewed_commit"
    assert rr.outcome_on(theirs(), "c2", states, present, mapped).reason == "commit not in the bundle"
    assert rr.outcome_on(theirs(), "c9", states, present, mapped).reason == "commit not in the bundle"
    assert rr.outcome_on(theirs(), "c3", states, present, mapped).reason == "review error: GitError: boom"
    absent = rr.outcome_on(theirs(), "c4", states, present, mapped)  # e.g. renamed between commits
    assert (absent.result, absent.reason) == ("not_evaluable", "file absent at the commit")
    assert rr.outcome_on(theirs(), "c1", states, present, mapped).result == "missed"


def test_file_present_in_the_other_layout_is_evaluable():
    present = _present(("c1", ".github/configs/amd-master.yaml"))
    f = theirs(path="configs/amd-master.yaml", category="image_unpinned")
    states = {(1, "c1"): {"findings": [ours("RR102", ".github/configs/amd-master.yaml", 11)]}}
    assert rr.outcome_on(f, "c1", states, present, {"RR102"}).result == "caught"


def test_upper_bound_takes_the_best_same_day_commit_and_strict_only_the_reviewed_one():
    present = _present(("c1", "perf-changelog.yaml"), ("c2", "perf-changelog.yaml"), ("c3", "perf-changelog.yaml"))
    states = {(1, "c1"): {"findings": []},
              (1, "c2"): {"findings": [ours("RR004", "perf-changelog.yaml", 40)]},  # partial
              (1, "c3"): {"findings": [ours("RR004", "perf-changelog.yaml", 11)]}}  # caught
    table = {"pr_link_wrong": Row(("RR004",), "r")}
    [row] = rr.score_all([theirs(same_day=("c2", "c3", "c1"))], states, present, table, {"RR004"})
    assert row["strict"] == {"result": "missed", "codes": [], "commit": "c1"}
    assert row["upper"]["result"] == "caught" and row["upper"]["commit"] == "c3"


def test_upper_bound_counts_a_same_day_commit_when_the_reviewed_one_is_not_evaluable():
    present = _present(("c2", "perf-changelog.yaml"))
    states = {(1, "c1"): {"missing": True}, (1, "c2"): {"findings": []}}
    [row] = rr.score_all(
        [theirs(same_day=("c2",))], states, present, {"pr_link_wrong": Row(("RR004",), "r")}, {"RR004"}
    )
    assert row["strict"]["result"] == "not_evaluable" and row["upper"]["result"] == "missed"
    fig = rr.summarize([row])["overall"]
    assert (fig["strict"]["evaluable"], fig["strict"]["recall"]) == (0, None)
    assert (fig["upper"]["evaluable"], fig["upper"]["recall"]) == (1, 0.0)


def test_best_prefers_the_first_on_a_tie():
    a, b = rr.Outcome("missed", commit="a"), rr.Outcome("missed", commit="b")
    assert rr.best([a, b]).commit == "a"
    assert rr.best([rr.Outcome("not_evaluable"), a]).commit == "a"


def test_recall_counts_caught_only_and_groups_by_category_and_reviewer():
    present = _present(("c1", "perf-changelog.yaml"))
    states = {
        (1, "c1"): {"findings": [ours("RR004", "perf-changelog.yaml", 10), ours("RR001", "perf-changelog.yaml", 30)]}
    }
    table = {"pr_link_wrong": Row(("RR004",), "r"), "changelog_misplaced": Row(("RR001",), "r"),
             "script_logic_bug": Row((), "none yet")}
    findings = [theirs(line=10), theirs(line=60, category="changelog_misplaced", reviewer="human"),
                theirs(line=30, category="script_logic_bug"), theirs(commit=None),
                theirs(category="python_code_bug", in_scope=False)]
    rows = rr.score_all(findings, states, present, table, {"RR004", "RR001"})
    assert [r["strict"]["result"] for r in rows] == ["caught", "partial", "partial", "not_evaluable", "out_of_scope"]
    figs = rr.summarize(rows)
    assert figs["overall"]["findings"] == 4
    assert figs["overall"]["strict"]["evaluable"] == 3 and figs["overall"]["strict"]["recall"] == pytest.approx(1 / 3)
    assert figs["per_category"]["pr_link_wrong"]["strict"]["caught"] == 1
    assert figs["per_category"]["script_logic_bug"]["strict"]["recall"] == 0.0
    assert figs["per_reviewer"]["human"]["strict"]["partial"] == 1
    assert "python_code_bug" not in figs["per_category"]


# ---------------------------------------------------------------- the table

def test_unknown_codes_and_categories_are_ignored():
    table = {"launcher_bug": Row(("RR401",), "a future script rule"), "pr_link_wrong": Row(("RR004", "RR999"), "r")}
    assert rr.active_codes("launcher_bug", table, {"RR004"}) == frozenset()
    assert rr.active_codes("pr_link_wrong", table, {"RR004"}) == {"RR004"}
    assert rr.active_codes("no_such_category", table, {"RR004"}) == frozenset()
    assert rr.table_problems(table, {"RR004"}, planned=()) == ["launcher_bug: RR401", "pr_link_wrong: RR999"]
    assert rr.table_problems(table, {"RR004"}, planned={"RR401": "x", "RR999": "y"}) == []


def test_the_category_table_names_only_registered_or_planned_codes():
    registered = rr.registered_rules()
    assert rr.table_problems() == []
    for cat, row in rr.CATEGORY_RULES.items():
        assert row.reason.strip(), cat
        assert len(set(row.codes)) == len(row.codes), cat
        for code in row.codes:
            if code in registered:
                assert registered[code].startswith("Flags "), code
            else:
                assert code in rr.PLANNED_CODES, code


# ---------------------------------------------------------------- the other direction

def test_other_direction_lists_unmatched_blocking_findings_only():
    states = {(1, "c1"): {"findings": [
        ours("RR004", "perf-changelog.yaml", 12),                     # matched (any category counts)
        ours("RR011", ".github/configs/x.yaml", 50),                 # matched by a file-wide reviewer finding
        ours("RR001", "perf-changelog.yaml", 80),                    # unmatched
        ours("RR007", "perf-changelog.yaml", 200, severity="nit"),   # a nit: not listed
        ours("RR000", "", None, severity="nit", message="rule RR201 crashed"),
    ]}, (2, "c2"): {"findings": [ours("RR001", "perf-changelog.yaml", 12)]}}
    reviewers = [theirs(pr=1, line=10, category="python_code_bug", in_scope=False),
                 theirs(pr=1, path="configs/x.yaml", line=None), theirs(pr=3, line=80)]
    other = rr.other_direction(reviewers, states, [(1, "c1"), (2, "c2")])
    assert [(o["pr"], o["code"], o["line"]) for o in other] == [(1, "RR001", 80), (2, "RR001", 12)]
    by_code = rr.other_by_code(other + other, examples=5)
    assert by_code["RR001"]["count"] == 4 and by_code["RR001"]["distinct"] == 2 and by_code["RR001"]["prs"] == [1, 2]
    assert [e["pr"] for e in by_code["RR001"]["examples"]] == [1, 2]
    assert rr.crashes(states) == [{"pr": 1, "commit": "c1", "message": "rule RR201 crashed"}]


# ---------------------------------------------------------------- reviews on a real git repository

NEW_XXX = entry("dsv4-fp4-b200-vllm", "https://github.com/SemiAnalysisAI/InferenceX/pull/XXX")


@pytest.fixture
def ix_repo(git_repo):
    # RR002 is a nit by default; this repository makes it blocking, so the rename is a blocking
    # finding of ours that no reviewer finding matches (the other direction counts blocking ones)
    git_repo.commit({"perf-changelog.yaml": BASE,
                     ".github/recipe-review.yml": "rules:\n  RR002:\n    severity: blocking\n"}, "changelog")
    first = git_repo.commit({"perf-changelog.yaml": BASE + "\n" + NEW_XXX}, "append", branch="feature")
    renamed = git_repo.commit({"perf-changelog.yaml": None, "changelog.yaml": BASE + "\n" + NEW_XXX}, "rename",
                              branch="feature")
    return git_repo, first, renamed


def test_in_process_review_equals_the_cli(ix_repo, capsys):
    from bot import cli

    repo, first, _ = ix_repo
    got = rr.review(str(repo.path), first, 4867)
    assert (
        cli.main(
            [
                "check",
                "--repo",
                str(repo.path),
                "--base",
                rr.base_at(str(repo.path), first),
                "--head",
                first,
                "--pr-number",
                "4867",
                "--format",
                "json",
            ]
        )
        == 0
    )  # a nit only
    printed = json.loads(capsys.readouterr().out)
    assert got["findings"] == printed["findings"]
    assert [f["code"] for f in got["findings"]] == ["RR005"]
    assert "error" in rr.review(str(repo.path), "0" * 40, 4867)


def test_run_reviews_caches_per_commit_and_pr(ix_repo, tmp_path):
    repo, first, renamed = ix_repo
    cache = tmp_path / "cache"
    pairs = [(4867, first), (4868, first), (4867, "f" * 40)]
    states, stats = rr.run_reviews(repo.path, pairs, jobs=1, cache_dir=cache)
    assert stats == {"reviewed": 2, "missing": 1}
    assert states[(4867, "f" * 40)] == {"missing": True}
    files = sorted(p.name for p in (cache / rr.source_hash()).iterdir())
    assert files == sorted([f"{first}-4867.json", f"{first}-4868.json"])
    again, stats2 = rr.run_reviews(repo.path, pairs, jobs=1, cache_dir=cache)
    assert stats2 == {"cached": 2, "missing": 1} and again == states
    _, stats3 = rr.run_reviews(repo.path, pairs, jobs=1, cache_dir=None)
    assert stats3 == {"reviewed": 2, "missing": 1}


def test_evaluate_end_to_end_with_a_worker_pool(ix_repo, tmp_path):
    repo, first, renamed = ix_repo
    link_line = (BASE + "\n" + NEW_XXX).count("\n")  # the pr-link is the last line
    findings = [
        {**theirs(pr=4867, line=link_line, category="pr_link_placeholder", commit=first, same_day=(renamed,))},
        {**theirs(pr=4867, line=link_line, category="pr_link_placeholder", commit=renamed, same_day=(first,))},
        {**theirs(pr=4867, line=3, category="changelog_separator", commit="e" * 40)},
        {**theirs(pr=4867, line=None, category="script_logic_bug", commit=None)},
    ]
    path = tmp_path / "findings.jsonl"
    path.write_text("".join(json.dumps(f) + "\n" for f in findings))
    rep = rr.evaluate(repo=repo.path, findings_path=path, jobs=2, cache_dir=None)
    results = [(r["strict"]["result"], r["upper"]["result"]) for r in rep["findings"]]
    assert results == [("caught", "caught"), ("not_evaluable", "caught"), ("not_evaluable", "not_evaluable"),
                       ("not_evaluable", "not_evaluable")]
    assert [r["reason"] for r in rep["not_evaluable"]] == ["file absent at the commit", "commit not in the bundle",
                                                           "no reviewed_commit"]
    assert rep["not_evaluable"][0]["at_pr_head"] is False  # the PR head is not in this repository
    assert rep["overall"]["strict"]["recall"] == 1.0 and rep["overall"]["upper"]["evaluable"] == 2
    assert rep["rule_crashes"] == [] and rep["review_errors"] == []
    # the rename commit's RR002 (file-level, on the new path) matches no reviewer finding there
    [other] = rep["other_direction"]["findings"]
    assert (other["commit"], other["code"], other["path"], other["line"]) == (renamed, "RR002", "changelog.yaml", None)
    assert rep["other_direction"]["by_code"]["RR002"]["distinct"] == 1
    assert rep["meta"]["reviews"] == {"reviewed": 2, "missing": 1}


def test_a_line_past_the_end_of_the_file_is_no_anchor():
    present = _present(("c1", "perf-changelog.yaml"))
    states = {(1, "c1"): {"findings": [ours("RR004", "perf-changelog.yaml", 11)]}}
    far = theirs(line=900)
    # without the file's text the far line is simply missed by our finding at 11 (a partial)
    assert rr.outcome_on(far, "c1", states, present, {"RR004"}).result == "partial"
    texts = {("c1", "perf-changelog.yaml"): ["x"] * 40}
    text = lambda c, p: texts.get((c, rr.norm_path(p)))  # noqa: E731
    o = rr.outcome_on(far, "c1", states, present, {"RR004"}, text=text)
    assert (o.result, o.reason) == ("caught", "anchor: beyond end of file (40 lines)")
    # a line inside the file keeps its window
    assert rr.outcome_on(theirs(line=40), "c1", states, present, {"RR004"}, text=text).result == "partial"


def test_the_hunk_line_re_anchors_a_reviewer_line_from_another_version():
    present = _present(("c1", "run.sh"))
    states = {(1, "c1"): {"findings": [ours("RR212", "run.sh", 40)]}}
    body = [f"line {i}" for i in range(1, 61)]
    body[39] = "    max_batch_size: 128"  # line 40 at the commit; the reviewer saw it at 45
    text = lambda c, p: body  # noqa: E731
    f = {**theirs(path="run.sh", line=45), "hunk": "@@ -0,0 +1,3 @@\n+cat > $F << EOF\n+    max_batch_size: 128"}
    o = rr.outcome_on(f, "c1", states, present, {"RR212"}, text=text)
    assert (o.result, o.reason) == ("caught", "anchor: hunk line at 40 (reviewer line 45)")
    # the text on the reviewer's own line: kept; twice in the file: not moved
    assert rr.anchor({**f, "line": 40}, body) == (40, "")
    twice = body[:]
    twice[5] = "    max_batch_size: 128"
    assert rr.anchor(f, twice) == (45, "")
    assert rr.hunk_line({"hunk": "@@ x @@\n-removed"}) is None


def test_a_comment_on_an_added_line_is_looked_for_among_the_added_lines():
    body = ["x"] * 30
    body[9] = body[24] = '    - "Update the image"'  # an older entry and the PR's new one
    f = {**theirs(line=17), "hunk": '@@ -20,0 +21,6 @@\n+- config-keys:\n+    - "Update the image"'}
    assert rr.anchor(f, body) == (17, "")  # twice in the file: not moved
    assert rr.anchor(f, body, added={21, 22, 23, 24, 25, 26}) == (25, "anchor: hunk line at 25 (reviewer line 17)")
    context = {**f, "hunk": '@@ -9,2 +9,2 @@\n     - "Update the image"'}  # a context line: added lines say nothing
    assert rr.anchor(context, body, added={25}) == (17, "")


def test_reproducible_recall_leaves_out_findings_judged_absent_or_mistaken(tmp_path):
    rows = [{"in_scope": True, "category": "c", "strict": {"result": res}, **({"judged": j} if j else {})}
            for res, j in (("caught", None), ("missed", "absent"), ("missed", "mistaken"), ("missed", "judgment"),
                           ("partial", "catchable"), ("caught", "absent"), ("not_evaluable", None))]
    fig = rr.reproducible(rows)
    assert (fig["caught"], fig["evaluable"], fig["left_out"]) == (1, 3, 3)
    assert fig["strict"] == {"caught": 2, "evaluable": 6}
    assert fig["judged"] == {"absent": 2, "catchable": 1, "judgment": 1, "mistaken": 1}
    findings = [{"pr": 7, "category": "c", "path": "a.sh"}, {"pr": 8, "category": "d", "path": "b.sh"}]
    p = tmp_path / "judged.json"
    p.write_text('{"findings": [{"index": 0, "pr": 7, "category": "c", "path": "a.sh", "class": "absent"},'
                 ' {"index": 1, "pr": 9, "category": "d", "path": "b.sh", "class": "mistaken"}]}')
    good, stale, superseded = rr.load_judged(p, findings)
    assert list(good) == [0] and [s["pr"] for s in stale] == [9] and superseded == []
    assert rr.load_judged(tmp_path / "none.json", findings) == ({}, [], [])


def test_the_findings_files_hand_checks_supersede_our_judgements(tmp_path):
    """A row re-checked by hand in the data (its commit moved) or marked reviewer_mistaken: our
    judgement, made at the old commit, is not used; a mistaken row is out of recall altogether."""
    findings = [{"pr": 7, "category": "c", "path": "a.sh", "reviewed_commit_by": "hand"},
                {"pr": 8, "category": "d", "path": "b.sh", "reviewer_mistaken": True},
                {"pr": 9, "category": "e", "path": "c.sh"}]
    p = tmp_path / "judged.json"
    p.write_text('{"findings": [' + ", ".join(
        f'{{"index": {i}, "pr": {f["pr"]}, "category": "{f["category"]}", "path": "{f["path"]}", "class": "absent"}}'
        for i, f in enumerate(findings)) + ']}')
    good, stale, superseded = rr.load_judged(p, findings)
    assert list(good) == [2] and stale == [] and [j["index"] for j in superseded] == [0, 1]
    out = rr.outcome_on({**findings[1], "line": 3, "reviewed_commit": "abc"}, "abc", {}, lambda c, p: True, ("RR001",))
    assert (out.result, out.reason) == ("not_evaluable", "reviewer mistaken (findings file)")
