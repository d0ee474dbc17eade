"""The changelog analysis API (rules/changelog/analysis.py) that the changelog and master-config rules share."""
import pytest

from rules.changelog.analysis import Entry, changelog_diffs, pr_link_verdict
from rules.context import ReviewContext
from tests.rules.changelog_helpers import BASE, NEW, REPO, append, changeset, entry, insert_before, line_of, starts


def diffs(base, head, **kw):
    return changelog_diffs(ReviewContext(changeset(base, head, **kw)))


def test_appended_entry():
    head = append(BASE)
    [d] = diffs(BASE, head)
    assert (d.path, d.status, d.base_count, d.history_ok, d.appends_entry) == ("perf-changelog.yaml", "modified", 8,
                                                                               True, True)
    [e] = d.new_entries
    assert (e.index, e.start_line, e.end_line) == (8, line_of(head, NEW), head.count("\n"))
    assert e.config_keys == ["dsv4-fp4-b200-vllm"] and e.pr_link == f"https://github.com/{REPO}/pull/4867"
    assert e.data["description"] == ["Serve the TP8 arm with FULL_AND_PIECEWISE cudagraphs"]
    assert e.key_lines["pr-link"] == head.count("\n") and e.text == NEW.rstrip("\n")
    assert d.misplaced == [] and d.history_changes == [] and d.first_changed_line == e.start_line


def test_misplaced_entry_still_counts_as_appended_for_the_sweep_gate():
    head = insert_before(BASE, 3)
    [d] = diffs(BASE, head)
    assert not d.history_ok and d.history_changes == [] and d.appends_entry
    [(e, below)] = d.misplaced
    assert e.index == 3 and [b.pr_number for b in below] == [4833, 4852, 4857, 4799, 4720]
    assert all(b.data is None for b in below)  # existing entries are not parsed


def test_history_problem_means_no_append():
    at = starts(BASE)[2]
    head = append(BASE[:at] + BASE[at:].replace("Bump", "Bumped", 1))
    [d] = diffs(BASE, head)
    assert len(d.new_entries) == 1 and [c.kind for c in d.history_changes] == ["edited"] and not d.appends_entry


def test_memoized_per_review():
    ctx = ReviewContext(changeset(BASE, append(BASE)))
    assert changelog_diffs(ctx) is changelog_diffs(ctx)


def test_other_files_are_ignored():
    assert diffs(BASE, append(BASE), path="configs/nvidia-master.yaml") == []


def test_inferencex_e2e_layout_is_a_changelog():
    [d] = diffs(BASE, append(BASE), path="inferencex-e2e/perf-changelog.yaml")
    assert d.appends_entry


@pytest.mark.parametrize("text, keys, link", [
    ("- config-keys: [a, b]\n  description: [x]\n  pr-link: 'XXX'", ["a", "b"], "XXX"),
    ("- config-keys: a\n  description: [x]\n  pr-link: 1", [], None),
], ids=["flow-lists", "wrong-types"])
def test_entry_properties(text, keys, link):
    [d] = diffs(BASE, BASE + "\n" + text + "\n")
    [e] = d.new_entries
    assert isinstance(e, Entry) and e.config_keys == keys and e.pr_link == link


@pytest.mark.parametrize("new, error", [
    ("- config-keys:\n    - a\n  description: [x\n", "does not parse"),
    ("- config-keys: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"  k{i}: &a{i} [{', '.join(['*a' if i == 0 else f'*a{i - 1}'] * 10)}]\n" for i in range(8)),
     "aliases expand too far"),
    pytest.param("- config-keys: " + "[" * 3000 + "]" * 3000 + "\n", "does not parse", marks=pytest.mark.slow),
], ids=["syntax-error", "alias-bomb", "deep-nesting"])
def test_bad_entries_become_errors_not_exceptions(new, error):
    [d] = diffs(BASE, BASE + "\n" + new)
    [e] = d.new_entries
    assert e.data is None and error in e.error


def test_binary_head_is_analysed_without_crashing():
    [d] = diffs(BASE.encode(), BASE.encode() + b"\n- config-keys:\n    - \xff\x00\n")
    [e] = d.new_entries
    assert e.data is None and e.error


@pytest.mark.parametrize("link, repo, number, kind", [
    (f"https://github.com/{REPO}/pull/7", REPO, 7, "ok"),
    (f"https://github.com/{REPO}/pull/7", None, None, "ok-number-unknown"),
    ("XXX", REPO, 7, "placeholder"),
    ("TBD", REPO, 7, "wrong"),
], ids=["ok", "unknown", "placeholder", "tbd"])
def test_pr_link_verdict(link, repo, number, kind):
    assert pr_link_verdict(link, repo, number).kind == kind


def test_entry_with_new_entry_text_only_after_history_still_found():
    head = BASE + "\n" + entry("a", 4867) + "\n" + entry("b", 4867)
    [d] = diffs(BASE, head)
    assert [e.config_keys for e in d.new_entries] == [["a"], ["b"]]
    assert [s.ok for s in d.separators] == [True, True]


def test_base_count_is_every_existing_entry_on_the_slow_path_too():
    from rules import ChangeSet, FileChange
    from rules.changelog.analysis import changelog_diffs
    from rules.context import ReviewContext

    entries = [f"- config-keys:\n    - k{i}\n  description:\n    - \"d\"\n  pr-link: https://github.com/o/r/pull/{i}\n"
               for i in range(1, 21)]
    base = "\n".join(entries)
    new = "- config-keys:\n    - k99\n  description:\n    - \"n\"\n  pr-link: https://github.com/o/r/pull/99\n"
    head = "\n".join(entries[:15] + [new] + entries[15:])
    ctx = ReviewContext(ChangeSet(files=(FileChange("perf-changelog.yaml", "modified", base=base.encode(),
                                                    head=head.encode()),), pr_number=99, repo="o/r"))
    (d,) = changelog_diffs(ctx)
    assert d.base_count == 20 and len(d.new_entries) == 1 and d.misplaced
