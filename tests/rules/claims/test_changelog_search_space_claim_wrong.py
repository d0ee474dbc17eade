"""RR253 changelog-search-space-claim-wrong: ranges, conc-start and arms against the head rows (#1003, #1534, #2241)."""
import pytest

from rules.claims.checks import changelog_search_space_claim_wrong as rr253
from tests.rules.claims._desc_helpers import entry, pr, review, row

KEY = "minimaxm2.5-fp8-mi355x-vllm"
SPACE = ("    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 2, ep: 2, conc-start: 2, conc-end: 512 }\n"
         "      - { tp: 8, ep: 8, dp-attn: true, conc-list: [64, 96, 128] }\n"
         "    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 2, ep: 2, conc-start: 2, conc-end: 256 }\n")


def _key(space=SPACE):
    text = row(KEY)
    return text[:text.index("    - isl:")] + space


def _review(*items):
    return review(pr([row(KEY)], [_key()], entry([KEY], *items)), rr253)


@pytest.mark.parametrize("text, message", [
    ("Sweep conc 2-256 for all seq-len configs",
     "The description says `conc 2-256` for all sequence lengths, but the isl 1024/osl 1024 rows run 2–512."),
    ("ISL=8192: TP2 conc 4-256", "The description says `conc 4-256` (TP2 and isl 8192), but the matching rows run 2–256."),
    ("Lower conc-start to 1 in all search-spaces",
     "The description says `conc-start` is 1 in all search spaces, but 2 row(s) still have conc-start 2"),
    ("Add a TP4 arm", "The description mentions `TP4`, but no selected row has tp 4."),
    ("DEP8 at conc [64, 128]", "The description gives DEP8 conc [64, 128], but the matching row runs [64, 96, 128]."),
], ids=["range-for-all", "range-for-arm-and-isl", "conc-start-everywhere", "missing-arm", "conc-list"])
def test_contradicted_statements_are_nits(text, message):
    [f] = _review(text).findings
    assert not f.blocking and message in f.message


@pytest.mark.parametrize("text", ["Sweep conc 2-256 for isl 8192", "TP2 conc 2-512 at 1k1k", "DEP8 at conc [64, 96, 128]",
                                  "Drop the TP4 arm", "previously conc 4-64", "Use 1024 GB of DRAM"],
                         ids=["true-range", "true-arm-range", "true-list", "removal", "history", "no-claim"])
def test_true_or_historical_statements_pass(text):
    assert _review(text).findings == []


def test_plans_and_loosely_named_worker_arms_are_not_contradictions():
    assert _review("Sweep will expand to TP=4 conc 4-256 once the kernels land").findings == []
    assert _review("Add a TP8 arm later").findings == []
