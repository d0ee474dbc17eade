"""RR254 changelog-config-count-claim-wrong: "more configs" while the rows shrank (#1990, #1991)."""
from rules.claims.checks import changelog_config_count_claim_wrong as rr254
from tests.rules.claims._desc_helpers import entry, pr, review, row

KEY = "minimaxm3-fp4-b300-vllm"
TWO = row(KEY).replace(
    "      - { tp: 8, conc-start: 4, conc-end: 64 }\n",
    "      - { tp: 8, conc-start: 4, conc-end: 64 }\n      - { tp: 4, conc-start: 4, conc-end: 64 }\n",
)


def test_more_configs_while_the_search_space_shrank_is_a_nit():
    [f] = review(pr([TWO], [row(KEY)], entry([KEY], "Update search space to cover more configs")), rr254).findings
    assert not f.blocking
    assert f.message == ("The description says `cover more`, but the selected keys went from 2 to 1 search-space rows "
                         "(10 → 5 concurrency points).")


def test_fewer_while_it_grew_and_consistent_wording():
    [f] = review(pr([row(KEY)], [TWO], entry([KEY], "Narrow the search space")), rr254).findings
    assert "says `Narrow the search space`" in f.message
    assert review(pr([row(KEY)], [TWO], entry([KEY], "Cover more configs")), rr254).findings == []


def test_a_wider_concurrency_range_is_not_a_count_of_configs():
    # Precision (issue 21): "extend the concurrency range" is about its top, not how many rows run.
    assert (
        review(pr([TWO], [row(KEY)], entry([KEY], "Extend the concurrency range to conc-end 256")), rr254).findings
        == []
    )
    assert len(review(pr([TWO], [row(KEY)], entry([KEY], "Add more configs")), rr254).findings) == 1  # control
