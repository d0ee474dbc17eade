"""RR002 changelog-history-changed: existing changelog bytes are immutable."""
import pytest

from rules.changelog.checks import changelog_entry_misplaced as rr001
from rules.changelog.checks import changelog_history_changed as rr002
from tests.rules.changelog_helpers import (
    BASE,
    BASE_ENTRIES,
    NEW,
    REPO,
    append,
    apply_suggestion,
    build,
    entry,
    insert_before,
    line_of,
    review,
    starts,
)


def _codes(r):
    return [(f.code, f.line) for f in r.findings]


BOTH = " Rejected by the PR-run `check-changelog` on this push and by the merge path at merge."


def test_edit_of_an_old_description_is_reported_at_that_line_with_the_original_as_suggestion():
    at = starts(BASE)[1]  # the #4710 entry's description
    head = append(BASE[:at] + BASE[at:].replace('"Bump the image"', '"Bump the image to 0.11"', 1))
    r = review(BASE, head, rr001, rr002)
    line = line_of(head, "to 0.11")
    assert _codes(r) == [("RR002", line)]
    f = r.findings[0]
    assert f.message == (f'Existing entry #4710 was edited at line {line:,}: `- "Bump the image"` became '
                         '`- "Bump the image to 0.11"`.' + BOTH)
    assert apply_suggestion(head, f) == append(BASE)


def test_deletion_points_at_the_nearest_head_line():
    at = starts(BASE)
    head = BASE[:at[4]] + BASE[at[5]:]  # drop #4852
    r = review(BASE, head, rr002)
    # the patch keeps the `- config-keys:` line and deletes from the next one: the line after it
    assert _codes(r) == [("RR002", line_of(head, "qwen3.5-fp8-mi355x-atom"))]
    assert r.in_base == []
    assert "One existing entry (#4852) was deleted here." + BOTH == r.findings[0].message


def test_deleting_the_tail_points_at_the_last_line():
    at = starts(BASE)
    head = BASE[:at[7]].rstrip("\n") + "\n"
    r = review(BASE, head, rr002)
    assert _codes(r) == [("RR002", head.count("\n"))]
    # a revert may delete the entries it reverts (the written exception): passed, not flagged
    assert _codes(review(BASE, head, rr002, title="Revert \"Add dsv4\"")) == []


def test_reorder_is_a_move():
    entries = list(BASE_ENTRIES)
    entries[5], entries[6] = entries[6], entries[5]
    r = review(BASE, build(entries), rr001, rr002)
    assert [f.code for f in r.findings] == ["RR002"]
    assert "was moved from base line" in r.findings[0].message


@pytest.mark.parametrize("status, previous, message", [
    ("removed", None, "The changelog `perf-changelog.yaml` is deleted, removing all 8 entries." + BOTH),
    ("renamed", "perf-changelog.yaml", "The changelog `perf-changelog.yaml` is renamed to `old/perf-changelog.yaml`."
                                       + BOTH),
], ids=["deleted-file", "renamed-file"])
def test_deleted_or_renamed_changelog_is_file_level(status, previous, message):
    head = None if status == "removed" else BASE
    path = "old/perf-changelog.yaml" if status == "renamed" else "perf-changelog.yaml"
    r = review(BASE, head, rr002, status=status, previous_path=previous, path=path)
    assert [(f.code, f.line, f.message) for f in r.findings] == [("RR002", 0, message)]


def test_historical_separator_whitespace_change_is_history():
    head = BASE.replace("  \n\n", "\n", 1)  # "fixing" the historical "  \n\n" after #4710
    r = review(BASE, head, rr002)
    assert len(r.findings) == 1 and "separator after existing entry #4710" in r.findings[0].message
    assert apply_suggestion(head, r.findings[0]) == BASE


@pytest.mark.parametrize("make_head", [
    lambda b: append(b),
    lambda b: insert_before(b, 3),
    lambda b: b.rstrip("\n") + "\n\n" + NEW,          # base's trailing whitespace aside
    lambda b: b + "  \n" + NEW,
], ids=["appended", "misplaced-splice-is-rr001-only", "base-trailing-newline-touched", "trailing-ws-line"])
def test_no_history_change(make_head):
    r = review(BASE, make_head(BASE), rr002)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_isolated_canonical_pr_link_correction_is_allowed_at_merge_but_fails_the_pr_run_check():
    """#1365, #1821: the documented contract and the merge helper allow it; `check-changelog` deletes-line fails."""
    base = build(BASE_ENTRIES[:3] + [("dsv4-fp4-b300-vllm", "XXX")] + BASE_ENTRIES[4:])
    head = base.replace("pr-link: XXX", f"pr-link: https://github.com/{REPO}/pull/4833")
    r = review(base, head, rr002)
    [f] = r.findings
    assert not f.blocking and f.line == line_of(head, "pull/4833")  # RR002 is a nit (notes/proof.md)
    assert "the merge path allows an isolated canonical correction" in f.message
    assert f.message.endswith("Rejected by the PR-run `check-changelog` on this push.")
    assert any("Found deleted line:   pr-link: XXX" in e for e in f.evidence)
    assert r.checks == []


@pytest.mark.parametrize("make_head, kind", [
    (lambda b: b.replace("pull/4833", "pull/4867"), "edited"),           # re-pointing a canonical link
    (lambda b: append(b.replace("pr-link: XXX", f"pr-link: https://github.com/{REPO}/pull/4833")), "mixed"),
], ids=["canonical-link-repointed", "correction-mixed-with-new-entry"])
def test_pr_link_edits_that_are_not_corrections(make_head, kind):
    base = build(BASE_ENTRIES[:3] + [("dsv4-fp4-b300-vllm", "XXX")] + BASE_ENTRIES[4:]) if kind == "mixed" else BASE
    r = review(base, make_head(base), rr002)
    assert r.findings and all(f.code == "RR002" for f in r.findings)
    if kind == "mixed":
        assert any("mixed with new changelog entries" in f.message for f in r.findings)


def test_text_appended_to_the_last_entry_is_an_edit():
    head = BASE + "  evals-only: true\n"
    r = review(BASE, head, rr002)
    assert _codes(r) == [("RR002", head.count("\n") - 1)]
    assert apply_suggestion(head, r.findings[0]) == BASE


def test_header_change():
    base = "# perf changelog\n" + BASE
    r = review(base, "# the perf changelog\n" + BASE, rr002)
    assert _codes(r) == [("RR002", 1)]


def test_added_file_passes():
    r = review(None, BASE + "\n" + entry("k", 4867), rr002, status="added")
    assert r.findings == [] and "new file" in r.checks[0].detail


def test_stripping_trailing_spaces_of_an_existing_entrys_last_line_is_history():
    """#2265's shape: a mid-file entry, and the `pr-link:` line above it lost its two trailing spaces."""
    at = starts(BASE)[3]
    base = BASE[:at - 1].rstrip("\n") + "  \n\n" + BASE[at:]  # entry 2's last line ends in two spaces
    head = BASE[:at] + NEW + "\n" + BASE[at:]  # …stripped, and a new entry spliced in below it
    r = review(base, head, rr002)
    [f] = r.findings
    assert "trailing whitespace of existing entry #4715's last line changed from `\"  \"` to `\"\"`" in f.message
    assert f.suggestion.endswith("pull/4715  ")
    assert f.message.endswith(BOTH)  # the line has content: `git diff` shows it deleted and re-added


# Issue 21: a base whose entry was written indented (`  - config-keys:`) holds it inside the entry
# above; a PR that moves that line to column 0 edits that one line, and RR002 says so there.
def test_reindenting_a_base_entry_start_is_reported_on_the_reindented_line():
    at = starts(BASE)[5]  # the #4857 entry, indented in this base (the base's own breakage)
    broken = BASE[:at] + "  " + BASE[at:]
    head = append(BASE)  # the PR fixes it: `- config-keys:` back at column 0, and appends its entry
    r = review(broken, head, rr002)
    assert len(r.findings) == 1
    f = r.findings[0]
    line = line_of(head, "- config-keys:\n    - qwen3.5-fp8-mi355x-atom")
    assert f.line == line and f.end_line == line
    assert f.message.startswith(f'Existing entry #4852 was edited at line {line:,}: `"  - config-keys:"` became '
                                f'`"- config-keys:"`.')
    assert apply_suggestion(head, f) == append(broken)
    assert r.in_base == []  # the finding sits on the line the PR changed


def test_lines_removed_at_the_end_of_an_entry_stay_next_to_the_removal():
    at = starts(BASE)
    cut = BASE[at[6]:at[7]].replace('    - "Bump the image"\n', "", 1)  # #4799 loses its description item
    head = append(BASE[:at[6]] + cut + BASE[at[7]:])
    r = review(BASE, head, rr002)
    f = r.findings[0]
    assert f.line == line_of(head, "  description:\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4799")
    assert r.in_base == []


def test_deleting_the_last_entry_is_reported_next_to_the_deletion():
    # Issue 21: with the last entry gone the nearest entry line was the previous entry's last
    # line, while the deletion sits after the separator below it (#903's shape).
    base = BASE + "  \n" + entry("zz-fp8-h100-vllm", 4900)  # a historical "  " line before the last entry
    head = BASE + "  \n"
    r = review(base, head, rr002)
    assert [f.line for f in r.findings] == [head.count("\n")] and r.in_base == []
    assert "One existing entry (#4900) was deleted here." in r.findings[0].message


@pytest.mark.parametrize("title,blocked", [
    ('Revert "Bump the qwen image (#4852)"', False),
    ("revert: the qwen image bump", False),
    ("Bump the qwen image", True),
    ("Do not revert the qwen image", True),  # a revert is what the title starts with, not a word in it
])
def test_a_revert_may_delete_the_reverted_entry(title, blocked):
    at = starts(BASE)
    head = BASE[:at[4]] + BASE[at[5]:]  # drop #4852
    r = review(BASE, head, rr002, title=title)
    assert bool(r.findings) is blocked
    if not blocked:
        (said,) = [c for c in r.checks if c.code == "RR002" and c.status == "passed"]
        assert "revert" in said.detail and "written exception" in said.detail


def test_a_revert_still_may_not_respace_history():
    """The exception covers the reverted entries, not the separators or the tail."""
    at = starts(BASE)
    head = BASE[:at[4]] + BASE[at[5]:]
    head = head.rstrip("\n") + "\n\n\n"
    r = review(BASE, head, rr002, title='Revert "Bump the qwen image (#4852)"')
    kinds = [f.message for f in r.findings]
    assert all("deleted" not in m for m in kinds)
