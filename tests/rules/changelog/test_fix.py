"""The changelog rebuild: base bytes exactly, the PR's entries appended as the validator wants them,
and a clear refusal wherever a repair would lose or guess something."""
from __future__ import annotations

import pytest

from rules.changelog.analysis import changelog_diffs
from rules.changelog.fix import base_problem, fix_changelog, history_repo, raw_change_error
from rules.context import ReviewContext
from rules.registry import by_code
from rules.runner import run
from tests.rules.changelog_helpers import (
    BASE,
    BASE_ENTRIES,
    NEW,
    PR,
    REPO,
    append,
    build,
    changeset,
    entry,
    insert_before,
)

SIX = [by_code(c) for c in ("RR001", "RR002", "RR004", "RR005", "RR006", "RR007")]


def fix(base, head, **kw):
    links = kw.pop("links", True)
    tidy = kw.pop("tidy", True)
    cs = changeset(base, head, **kw)
    (d,) = changelog_diffs(ReviewContext(cs))
    return fix_changelog(d, cs.repo, cs.pr_number, links=links, tidy=tidy)


def clean(base, fixed: bytes, **kw):
    """The six placement/format rules find nothing in the fixed file."""
    return run(changeset(base, fixed.decode(), **kw), rules=SIX).findings == []


def test_misplaced_entry_moves_to_the_physical_end():
    head = insert_before(BASE, 3)
    f = fix(BASE, head)
    assert f.content == (BASE + "\n" + NEW).encode()
    assert f.refused is None and "moved 1 new entry" in f.changes[0]
    assert raw_change_error(BASE.encode(), f.content, 1) is None
    assert clean(BASE, f.content)


def test_entries_keep_their_head_order_and_get_exactly_one_empty_line_between():
    a = entry("dsv4-fp4-b200-vllm", PR, "first")
    b = entry("dsv4-fp4-b300-vllm", PR, "second")
    head = insert_before(insert_before(BASE, 6, b), 2, a)  # a above b, both mid-file
    f = fix(BASE, head)
    assert f.content == (BASE + "\n" + a + "\n" + b).encode()
    # the same entries appended with irregular separators of their own
    head = BASE + "\n\n" + a + "  \n\n\n" + b + "\n\n"
    f = fix(BASE, head)
    assert f.content == (BASE + "\n" + a + "\n" + b).encode() and clean(BASE, f.content)


@pytest.mark.parametrize("tail,sep", [("", "\n"), ("\n", ""), ("  \n", "\n")],
                         ids=["ends-with-newline", "ends-with-empty-line", "ends-with-whitespace-line"])
def test_the_base_trailing_bytes_are_kept_and_the_validators_separator_follows(tail, sep):
    base = BASE + tail
    head = insert_before(base, 4)
    f = fix(base, head)
    assert f.content == (base + sep + NEW).encode()
    assert raw_change_error(base.encode(), f.content, 1) is None


def test_historical_separators_are_restored_byte_for_byte():
    head = append(BASE.replace("  \n\n", "\n", 1))  # the PR "tidied" a historical "  \n\n" separator
    f = fix(BASE, head)
    assert f.content == (BASE + "\n" + NEW).encode()
    assert any("restored the base bytes" in c and "separator" in c for c in f.changes)


@pytest.mark.parametrize("link,number,expected", [
    ("XXX", PR, f"https://github.com/{REPO}/pull/{PR}"),
    (f"https://github.com/{REPO}/pull/XXX", PR, f"https://github.com/{REPO}/pull/{PR}"),
    (f"https://github.com/{REPO}/pull/4866", PR, f"https://github.com/{REPO}/pull/{PR}"),
    (f"https://github.com/{REPO}/pull/{PR}/files", PR, f"https://github.com/{REPO}/pull/{PR}"),
    ("XXX", None, "XXX"),
], ids=["placeholder", "placeholder-url", "other-pr", "files-suffix", "number-unknown"])
def test_pr_link_becomes_the_canonical_link_when_the_number_is_known(link, number, expected):
    new = entry("dsv4-fp4-b200-vllm", link)
    f = fix(BASE, insert_before(BASE, 3, new), pr=number)
    assert f.content == (BASE + "\n" + new.replace(f"pr-link: {link}\n", f"pr-link: {expected}\n")).encode()
    if expected != link:
        assert any("set the pr-link" in c for c in f.changes)


def test_repository_comes_from_the_history_when_unknown():
    assert history_repo(BASE.encode()) == REPO
    new = entry("dsv4-fp4-b200-vllm", "XXX")
    f = fix(BASE, append(BASE, new), repo=None)
    assert f"pr-link: https://github.com/{REPO}/pull/{PR}\n".encode() in f.content


def test_links_off_keeps_the_pr_link():
    new = entry("dsv4-fp4-b200-vllm", "XXX")
    f = fix(BASE, insert_before(BASE, 3, new), links=False)
    assert f.content == (BASE + "\n" + new).encode()


def test_whitespace_only_lines_and_crlf_in_new_entries_are_tidied():
    new = entry("dsv4-fp4-b200-vllm", PR).replace("  description:", "   \n  description:")
    f = fix(BASE, append(BASE, new))
    assert f.content == (BASE + "\n" + entry("dsv4-fp4-b200-vllm", PR).replace("  description:", "\n  description:")
                         ).encode()
    crlf = entry("dsv4-fp4-b200-vllm", PR).replace("\n", "\r\n")
    f = fix(BASE, append(BASE, crlf))
    assert f.content == (BASE + "\n" + entry("dsv4-fp4-b200-vllm", PR)).encode()


def test_a_whitespace_line_that_is_content_is_not_touched():
    # Inside a literal block scalar, spaces beyond the block's indentation are content.
    new = ("- config-keys:\n    - dsv4-fp4-b200-vllm\n  description: |\n    one\n      \n    two\n"
           f"  pr-link: https://github.com/{REPO}/pull/{PR}\n")
    f = fix(BASE, insert_before(BASE, 2, new))
    assert f.content == (BASE + "\n" + new).encode()


def test_a_new_file_is_laid_out_like_an_appended_one():
    a, b = entry("dsv4-fp4-b200-vllm", PR, "one"), entry("dsv4-fp4-b300-vllm", "XXX", "two")
    f = fix(None, a + "\n\n\n" + b + "\n\n", status="added")
    assert f.content == (a + "\n" + b.replace("pr-link: XXX", f"pr-link: https://github.com/{REPO}/pull/{PR}")
                         ).encode()


def test_restored_history_away_from_the_new_entries_is_listed():
    edited = BASE.replace('"Bump the image"', '"Bump the image to v2"', 1)  # first entry, far from the end
    f = fix(BASE, append(edited))
    assert f.content == (BASE + "\n" + NEW).encode()
    assert any("restored the base bytes" in c and "edited" in c for c in f.changes)


def test_deleted_and_reordered_history_is_restored():
    entries = BASE_ENTRIES[:2] + BASE_ENTRIES[3:]  # one entry deleted
    f = fix(BASE, append(build(entries)))
    assert f.content == (BASE + "\n" + NEW).encode()
    swapped = BASE_ENTRIES[:4] + [BASE_ENTRIES[5], BASE_ENTRIES[4]] + BASE_ENTRIES[6:]
    f = fix(BASE, append(build(swapped)))
    assert f.content == (BASE + "\n" + NEW).encode()


def test_a_neighbours_pr_link_correction_is_dropped_not_refused():
    old = f"https://github.com/{REPO}/pull/4720"
    head = append(BASE.replace(f"pr-link: {old}", f"pr-link: https://github.com/{REPO}/pull/4721"))
    f = fix(BASE, head)
    assert f.content == (BASE + "\n" + NEW).encode()


def test_nothing_to_do_when_the_file_is_already_right():
    f = fix(BASE, append(BASE))
    assert f.content is None and f.refused is None and not f.changed


def test_fixing_the_fixed_file_changes_nothing():
    f = fix(BASE, insert_before(BASE, 3, entry("dsv4-fp4-b200-vllm", "XXX")))
    again = fix(BASE, f.content.decode())
    assert again.content is None and again.refused is None


# -- refusals: a clear reason, nothing changed ---------------------------------------------------


def test_deleted_changelog_is_refused():
    f = fix(BASE, None, status="removed")
    assert f.content is None and "deletes" in f.refused


def test_renamed_changelog_is_refused():
    f = fix(BASE, append(BASE), status="renamed", previous_path="old/perf-changelog.yaml")
    assert f.content is None and "renames" in f.refused


@pytest.mark.parametrize("base,why", [
    (BASE.rstrip("\n"), "does not end with a newline"),
    (BASE.replace("\n", "\r\n", 1), "CR characters"),
    (BASE.replace("  description", "\tdescription", 1), "tabs"),
    (BASE + "<<<<<<< HEAD\n", "outside every list item"),
    (BASE + "- description:\n    - \"x\"\n", "top-level items but"),
], ids=["no-final-newline", "cr", "tab", "conflict-marker", "entry-without-config-keys"])
def test_a_base_that_does_not_parse_is_refused(base, why):
    assert why in base_problem(base.encode())
    f = fix(base, base + "\n" + NEW)
    assert f.content is None and "does not parse" in f.refused and why in f.refused


def test_base_problem_accepts_the_real_shape():
    assert base_problem(BASE.encode()) is None
    assert base_problem(("# header comment\n---\n" + BASE).encode()) is None
    assert base_problem(b"") is None


def test_edits_right_next_to_the_new_entry_are_refused():
    # The PR edited the entry above its own: which lines belong to the new entry is a guess.
    last_key, last_pr = BASE_ENTRIES[-1]
    edited = BASE.replace(entry(last_key, last_pr), entry(last_key, last_pr, "Bump the image again"))
    f = fix(BASE, append(edited))
    assert f.content is None and "right next to its own new entries" in f.refused


def test_edits_without_a_new_entry_are_refused():
    edited = BASE.replace('"Bump the image"', '"Bump the image to v2"', 1)
    f = fix(BASE, edited)
    assert f.content is None and "adds no entry" in f.refused


def test_an_indented_entry_start_is_explained():
    head = BASE + "\n" + "  " + NEW  # "  - config-keys:" reads as part of the entry above
    f = fix(BASE, head)
    assert f.content is None and "indented `- config-keys:`" in f.refused


def test_an_oversize_changelog_is_refused():
    from rules.changelog.analysis import MAX_CHANGELOG_BYTES

    big = BASE + "\n" + "# padding\n" * (MAX_CHANGELOG_BYTES // 10 + 1)
    f = fix(big, append(big))
    assert f.content is None and "not analysed" in f.refused


# -- the validator's byte rule -----------------------------------------------------------------------


@pytest.mark.parametrize("head,error", [
    (BASE + "\n" + NEW, None),
    (BASE.replace("\n", " \n", 1) + "\n" + NEW, "historical bytes changed"),
    (BASE + NEW, "separated from history"),
    (BASE + "\n" + NEW + "\n\n" + NEW, "exactly one empty line"),
    (BASE + "\n" + NEW + "\n", "final entry"),
], ids=["ok", "history", "no-separator", "two-empty-lines", "trailing-empty-line"])
def test_raw_change_error_is_the_validators_rule(head, error):
    additions = head.count("- config-keys:") - BASE.count("- config-keys:")
    got = raw_change_error(BASE.encode(), head.encode(), additions)
    assert (got is None) if error is None else (error in got)


def test_a_base_that_yaml_rejects_is_refused():
    dup = BASE.replace("  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4710\n",
                       "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4710\n  description: []\n", 1)
    f = fix(dup, insert_before(dup, 4))
    assert f.content is None and "duplicate key" in f.refused


def test_deleting_entries_without_adding_one_is_refused():
    from tests.rules.changelog_helpers import build as build_log

    f = fix(BASE, build_log(BASE_ENTRIES[:3] + BASE_ENTRIES[4:]))
    assert f.content is None and "deletes existing entries" in f.refused


def test_a_historical_entry_repeated_at_the_end_is_not_appended_twice():
    first_key, first_pr = BASE_ENTRIES[0]
    repeated = entry(first_key, first_pr)
    f = fix(BASE, BASE + "\n" + NEW + "\n" + repeated)
    assert f.content == (BASE + "\n" + NEW).encode()
    assert any("kept" in c and f"#{first_pr}" in c for c in f.changes)


def test_a_reformatted_historical_entry_is_not_taken_for_the_prs_own():
    # A "cleanup" that moved an old entry to the end and re-spaced it: the analysis sees a new
    # entry there; the fix must not give it this PR's pr-link.
    key, pr = BASE_ENTRIES[2]
    reformatted = entry(key, pr).replace("  description:", "  description:  ")
    head = BASE.replace(entry(key, pr) + "\n", "", 1) + "\n" + NEW + "\n" + reformatted
    f = fix(BASE, head)
    assert f.content is None and f"existing entry #{pr} rewritten" in f.refused
    # Edited in place instead, the same bytes are an edit of history: restored, and the PR's entry kept.
    in_place = BASE.replace(entry(key, pr), reformatted) + "\n" + NEW
    assert fix(BASE, in_place).content == (BASE + "\n" + NEW).encode()


def test_a_copied_pr_link_on_a_new_entry_is_corrected():
    # The common slip: the entry above was copied and its pr-link kept; the text is the PR's own.
    last_key, last_pr = BASE_ENTRIES[-1]
    copied = entry("dsv4-fp4-b200-vllm", last_pr, "Serve the TP8 arm")
    f = fix(BASE, BASE + "\n" + copied)
    assert f.content == (BASE + "\n" + entry("dsv4-fp4-b200-vllm", PR, "Serve the TP8 arm")).encode()


def test_a_pr_that_only_corrects_existing_links_is_refused_not_reverted():
    good = f"https://github.com/{REPO}/pull/4720"
    base = BASE.replace(f"pr-link: {good}", f"pr-link: https://github.com/{REPO}/pull/XXX")
    cs = changeset(base, BASE)
    (d,) = changelog_diffs(ReviewContext(cs))
    assert d.corrections and not d.new_entries  # an isolated canonical correction
    f = fix(base, BASE)
    assert f.content is None and "only corrects the pr-link of 1 existing entry" in f.refused
