"""RR019 changelog-wildcard-selection: `*` selects every key while the PR changes only some configs."""
import pytest

from rules import run
from rules.changelog.checks import changelog_wildcard_selection as rr019
from rules.changeset import FileChange
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, ctx_of, entry, master, modified, row

BUMPED = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0"), ROWS[2])


def _run(*keys, others=None):
    """A PR that bumps one key's image (or changes `others` instead) with an entry selecting `keys`."""
    files = others if others is not None else (modified(NV, BASE, BUMPED),)
    return run(ctx_of(changelog(entry(*keys, pr="4867")), *files, context={NV: BASE}).changeset, rules=[rr019])


@pytest.mark.parametrize("item", ['"*"', '"*-*"', '"**"'], ids=["star", "star-dash-star", "double-star"])
def test_wildcard_only_item_in_a_pr_that_changes_one_key_is_a_nit(item):
    [f] = _run(item).findings
    assert (f.code, f.blocking) == ("RR019", False)
    assert f"item `{item.strip(chr(34))}`" in f.message and "selects all 3 master-config keys" in f.message
    assert "(21 sweep jobs)" in f.message  # 3 keys x (1 row x 5 concurrencies + 2 evals at 8k1k)
    assert "this PR changes only per-config files (1 master-config key and 0 other per-config file(s))" in f.message
    assert f.message.endswith("Both gates accept this.")


def test_a_per_config_script_counts_as_per_config():
    script = FileChange("benchmarks/single_node/dsv4_fp4_b200_vllm.sh", "modified", base=b"a\n", head=b"b\n")
    [f] = _run('"*"', others=(script,)).findings
    assert "(0 master-config keys and 1 other per-config file(s))" in f.message


@pytest.mark.parametrize("shared", ["benchmarks/benchmark_lib.sh", "utils/bench_serving/benchmark_serving.py",
                                    "utils/matrix_logic/generate_sweep_configs.py"],
                         ids=["library", "client", "generator"])
def test_a_pr_that_changes_what_every_benchmark_runs_may_select_every_key(shared):
    """#339 swapped the benchmark client of every config and changed the generator: `*` is the right scope."""
    files = (modified(NV, BASE, BUMPED), FileChange(shared, "modified", base=b"a\n", head=b"b\n"))
    r = _run('"*"', others=files)
    assert r.findings == [] and "shared code" in r.checks[0].detail


def test_a_changelog_only_pr_is_a_deliberate_re_run():
    r = _run('"*"', others=())
    assert r.findings == [] and "a re-run" in r.checks[0].detail


def test_another_prs_entry_is_not_judged():
    from rules.changeset import ChangeSet

    e = entry('"*"', pr="4000")
    cs = ChangeSet(files=(changelog(e), modified(NV, BASE, BUMPED)), context={NV: BASE}, pr_number=4867)
    assert run(cs, rules=[rr019]).findings == []


@pytest.mark.parametrize("item", ["dsv4-fp4-*-vllm", "dsv4-fp4-b200-vllm"], ids=["narrow-pattern", "exact"])
def test_narrow_selections_pass(item):
    r = _run(item)
    assert r.findings == [] and r.checks[0].status == "passed"
