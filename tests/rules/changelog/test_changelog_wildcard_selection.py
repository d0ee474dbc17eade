"""RR019 changelog-wildcard-selection: a wildcard-only item selects every key (#339's `*`)."""
import pytest

from rules import run
from rules.changelog.checks import changelog_wildcard_selection as rr019
from tests.rules.mc_helpers import BASE, NV, changelog, ctx_of, entry


def _run(*keys):
    return run(ctx_of(changelog(entry(*keys, pr="4867")), context={NV: BASE}).changeset, rules=[rr019])


@pytest.mark.parametrize("item", ['"*"', '"*-*"', '"**"'], ids=["star", "star-dash-star", "double-star"])
def test_wildcard_only_item_is_a_nit_naming_keys_and_jobs(item):
    [f] = _run(item).findings
    assert (f.code, f.blocking) == ("RR019", False)
    assert f"item `{item.strip(chr(34))}`" in f.message and "selects all 3 master-config keys" in f.message
    assert "(21 sweep jobs)" in f.message  # 3 keys x (1 row x 5 concurrencies + 2 evals at 8k1k)


@pytest.mark.parametrize("item", ["dsv4-fp4-*-vllm", "dsv4-fp4-b200-vllm"], ids=["narrow-pattern", "exact"])
def test_narrow_selections_pass(item):
    r = _run(item)
    assert r.findings == [] and r.checks[0].status == "passed"
