"""RR253 changelog-search-space-claim-wrong: ranges, conc-start and arms against the head rows (#1003, #1534, #2241)."""
import pytest

from rules.claims.checks import changelog_search_space_claim_wrong as rr253
from tests.rules.claims._desc_helpers import entry, pr, review, row

KEY = "minimaxm2.5-fp8-mi355x-vllm"
SPACE = (
    "    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 2, ep: 2, conc-start: 2, conc-end: 512 }\n"
    "      - { tp: 8, ep: 8, dp-attn: true, conc-list: [64, 96, 128] }\n"
    "    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 2, ep: 2, conc-start: 2, conc-end: 256 }\n"
)


def _key(space=SPACE):
    text = row(KEY)
    return text[:text.index("    - isl:")] + space


def _review(*items):
    return review(pr([row(KEY)], [_key()], entry([KEY], *items)), rr253)


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "Sweep conc 2-256 for all seq-len configs",
            "The description says `conc 2-256` for all sequence lengths, but the isl 1024/osl 1024 rows run 2–512.",
        ),
        (
            "ISL=8192: TP2 conc 4-256",
            "The description says `conc 4-256` (TP2 and isl 8192), but the matching rows run 2–256.",
        ),
        (
            "Lower conc-start to 1 in all search-spaces",
            "The description says `conc-start` is 1 in all search spaces, but 2 row(s) still have conc-start 2",
        ),
        ("Add a TP4 arm", "The description mentions `TP4`, but no selected row has tp 4."),
        ("DEP8 at conc [64, 256]", "The description gives DEP8 conc [64, 256], but no matching row runs 256."),
    ],
    ids=["range-for-all", "range-for-arm-and-isl", "conc-start-everywhere", "missing-arm", "conc-list"],
)
def test_contradicted_statements_are_nits(text, message):
    [f] = _review(text).findings
    assert not f.blocking and message in f.message


@pytest.mark.parametrize("text", ["Sweep conc 2-256 for isl 8192", "TP2 conc 2-512 at 1k1k", "DEP8 at conc [64, 128]",
                                  "Drop the TP4 arm", "previously conc 4-64", "Use 1024 GB of DRAM"],
                         ids=["true-range", "true-arm-range", "true-list", "removal", "history", "no-claim"])
def test_true_or_historical_statements_pass(text):
    assert _review(text).findings == []


def test_plans_and_loosely_named_worker_arms_are_not_contradictions():
    assert _review("Sweep will expand to TP=4 conc 4-256 once the kernels land").findings == []
    assert _review("Add a TP8 arm later").findings == []


# -- Precision (issue 21): statements that are not claims about the selected rows ----------------


@pytest.mark.parametrize("text", [
    "Raise the speculative token count at conc 32-48 from 3 to 4, matching conc 16-24",
    "Lower max-num-batched-tokens to 8192 at conc 4-48; conc 1 keeps 16384",
    "Keep the larger capture list for c12 and c16",
    "Use the long-prefill threshold at high concurrency (conc 128-256)",
], ids=["at-and-matching", "at-a-band", "c-names", "parenthesised"])
def test_a_qualifier_names_a_subset_of_the_points(text):
    assert _review(text).findings == []


def test_a_qualifier_naming_points_no_row_runs_is_still_wrong():
    [f] = _review("Use 8192 batched tokens at conc 1024-2048").findings  # the rows stop at 512
    assert f.message == "The description says `conc 1024-2048`, but the matching rows run 2–512."


@pytest.mark.parametrize("text", ["The TP4 arm is not wired up", "No TP4 arm: it does not fit",
                                  "TP4 was tried and dropped"], ids=["not", "no", "dropped"])
def test_a_negated_statement_is_not_a_claim(text):
    assert _review(text).findings == []


def test_a_sentence_about_another_key_or_an_unchanged_part_is_not_about_the_selected_rows():
    other = "minimaxm2.5-fp8-b200-vllm"
    cs = pr([row(KEY), row(other, tp=4)], [_key(), row(other, tp=4)],
            entry([KEY], f"{other} keeps its TP4 conc 4-64 sweep", "The isl 8192 rows are unchanged (TP4 conc 4-64)",
                  "Rows mirror the B200 config: TP4 conc 4-64"))
    assert review(cs, rr253).findings == []
    cs = pr([row(KEY), row(other, tp=4)], [_key(), row(other, tp=4)], entry([KEY], "Add a TP4 arm at conc 4-64"))
    assert [f.message for f in review(cs, rr253).findings] == [  # control: said of the selected key
        "The description mentions `TP4`, but no selected row has tp 4."]


DP_SPACE = "    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 16, conc-list: [64, 128] }\n"


def test_dp_in_a_tp_dp_ep_layout_is_a_data_parallel_size():
    cs = pr([row(KEY)], [_key(DP_SPACE)], entry([KEY], "Serve TP8/DP2/EP16 across two nodes"))
    assert review(cs, rr253).findings == []
    cs = pr([row(KEY)], [_key(DP_SPACE)], entry([KEY], "Serve DP4 across two nodes"))
    [f] = review(cs, rr253).findings  # control: no layout of the rows has a DP size 4
    assert f.message == ("The description mentions `DP4`, but no selected row has dp-attn with tp 4 or a data-parallel "
                         "size 4.")


def test_an_arm_is_every_part_named_before_the_range():
    assert _review("1k1k dp-attn=false conc 2-512").findings == []  # the TP2 rows, not the DP-attention one
    [f] = _review("1k1k dp-attn=true conc 2-512").findings  # control
    assert f.message == ("The description says `conc 2-512` (dp-attn=true and isl 1024), but the matching rows run "
                         "64–128.")
    assert _review("Add tp2 ep2 rows (conc 2-512) at 1k1k").findings == []


def test_a_later_entry_for_the_same_keys_describes_the_head():
    first, second = entry([KEY], "Sweep conc 2-256 for all seq-len configs"), entry([KEY], "Extend 1k1k to 512")
    assert review(pr([row(KEY)], [_key()], first, second), rr253).findings == []
    assert len(review(pr([row(KEY)], [_key()], first), rr253).findings) == 1  # control: it is the last word


@pytest.mark.parametrize("text", [
    "Measured on the new image: +18 % at conc 64; conc 2-8 flat",
    "Sweeps with and without DP attention at 1k1k, conc 2-512",
    "Rows +/- dp-attn over conc 2-512",
    "Add DEP8 rows and, for the pure tensor-parallel arm that needs no extra flags, conc 2-512",
    "Add a TP2 arm (no DP-attention) at conc [2, 4, 8]",
], ids=["a-measurement-item", "with-and-without", "plus-minus", "arm-named-far-before", "negated-part-of-an-arm"])
def test_what_scopes_no_arm_or_reports_results_is_not_compared(text):
    assert _review(text).findings == []


def test_a_range_stated_across_or_from_is_the_range_itself():
    [f] = _review("Sweep TP2 across conc 2-256 at 1k1k").findings  # the TP2 1k1k row runs 2-512
    assert f.message == "The description says `conc 2-256` (TP2 and isl 1024), but the matching rows run 2–512."
    assert len(_review("TP2 from conc 2-256 at 1k1k").findings) == 1


def test_a_parenthetical_does_not_make_the_sentence_about_something_else():
    [f] = _review("Lower conc-start to 1 in all search-spaces (the top stays unchanged)").findings
    assert f.message.startswith("The description says `conc-start` is 1 in all search spaces")
