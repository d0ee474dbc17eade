"""RR020 changelog-entry-duplicate: the same change twice in one PR, or a copied entry in a PR that changes more."""
from rules.changelog.checks import changelog_entry_duplicate as rr020
from rules.changeset import ChangeSet, FileChange
from rules.runner import run
from tests.rules.changelog_helpers import BASE, NEW, PATH, PR, REPO, entry, patch_of, review

SAME_KEYS = entry("dsv4-fp4-b200-vllm", 4867, "Second description of the same change")
SAME_SAID = entry("dsv4-fp4-b200-vllm", 4867, "Serve the TP8 arm with FULL_AND_PIECEWISE  cudagraphs")
SCRIPT = "benchmarks/single_node/dsv4_fp4_b200_vllm.sh"


def _with_script(base: str, head: str, *rules):
    """The changelog change plus an edit of a benchmark script: a PR that changes more than the changelog."""
    cs = ChangeSet(
        files=(
            FileChange(PATH, "modified", base=base.encode(), head=head.encode(), patch=patch_of(base, head)),
            FileChange(SCRIPT, "modified", base=b"vllm serve\n", head=b"vllm serve --tp 8\n"),
        ),
        pr_number=PR,
        repo=REPO,
    )
    return run(cs, rules=list(rules))


def test_the_same_change_written_twice_is_a_nit():
    head = BASE + "\n" + NEW + "\n" + SAME_SAID
    [f] = review(BASE, head, rr020).findings
    assert (f.code, f.blocking) == ("RR020", False)
    assert "selects the same keys as the new entry at line" in f.message and "with the same description" in f.message
    assert f.message.endswith("runs no additional sweep jobs. Both gates accept this.")


def test_a_nearly_identical_description_is_the_same_change():
    """#327: two nearly identical entries for the same keys."""
    nearly = entry("dsv4-fp4-b200-vllm", 4867, "Serve the TP8 arm with FULL_AND_PIECEWISE cudagraph")
    [f] = review(BASE, BASE + "\n" + NEW + "\n" + nearly, rr020).findings
    assert "with a nearly identical description" in f.message


def test_two_entries_for_two_changes_of_the_same_keys_are_one_entry_per_change():
    """#1229, #2200: each entry describes another change of the same key; the processor runs it once."""
    r = review(BASE, BASE + "\n" + NEW + "\n" + SAME_KEYS, rr020)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_same_keys_for_different_scenarios_are_distinct():
    agentic = SAME_SAID.replace("  description:", "  scenario-type:\n    - agentic-coding\n  description:")
    r = review(BASE, BASE + "\n" + NEW + "\n" + agentic, rr020)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_copy_of_an_existing_entry_in_a_pr_that_changes_more():
    """#1172: a script changes, and the entry is #1158's word for word."""
    copy = entry("dsv4-fp8-h200-vllm", 4867)  # BASE's last entry (#4720) with this PR's link
    [f] = _with_script(BASE, BASE + "\n" + copy, rr020).findings
    assert "is a copy of existing entry #4720" in f.message and "apart from its pr-link" in f.message
    assert "this PR also changes 1 other file" in f.message


def test_a_copy_with_its_pr_link_says_so():
    """#1366: the copy keeps the original's link; the message must not say "apart from its pr-link"."""
    copy = entry("dsv4-fp8-h200-vllm", 4720)
    [f] = _with_script(BASE, BASE + "\n" + copy, rr020).findings
    assert "pr-link included" in f.message and "apart from" not in f.message


def test_a_changelog_only_pr_that_copies_an_entry_re_runs_it_on_purpose():
    """#1790 (retrigger), #1893 (ingest recovery: its written procedure copies the description verbatim),
    #1148 (re-append of an entry without a valid link): the copy is the whole PR."""
    copy = entry("dsv4-fp8-h200-vllm", 4867)
    r = review(BASE, BASE + "\n" + copy, rr020)
    assert r.findings == [] and "a re-run of their sweeps" in r.checks[0].detail


def test_an_existing_entry_moved_and_re_linked_is_not_a_copy():
    """#1161: a "cleanup" reorders history; the head holds the entry once, as the base did."""
    top = entry("gptoss-fp4-b200-vllm", 4690, "Bump vLLM to v0.13")
    base = top + "\n" + BASE
    head = BASE + "\n" + top.replace("pull/4690", "pull/4691")
    assert _with_script(base, head, rr020).findings == []
    [f] = _with_script(BASE + "\n" + top, head + "\n" + top.replace("pull/4690", "pull/4867"), rr020).findings
    assert "is a copy of existing entry #4690" in f.message  # control: a second instance is a copy


def test_distinct_entries_pass():
    other = entry("dsv4-fp4-b300-vllm", 4867, "Enable the FP4 MoE kernels")
    r = review(BASE, BASE + "\n" + NEW + "\n" + other, rr020)
    assert r.findings == [] and "distinct" in r.checks[0].detail


def test_copy_found_when_only_trailing_whitespace_differs():
    copy = entry("dsv4-fp8-h200-vllm", 4867).replace("Bump the image\"", "Bump the image\"  ")
    [f] = _with_script(BASE, BASE + "\n" + copy, rr020).findings
    assert "is a copy of existing entry #4720" in f.message
