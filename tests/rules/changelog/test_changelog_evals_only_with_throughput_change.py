"""RR021 changelog-evals-only-with-throughput-change: evals-only on keys whose throughput the PR changes."""
import pytest

from rules import run
from rules.changelog.checks import changelog_evals_only_with_throughput_change as rr021
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, ctx_of, entry, master, modified, row


def _flagged(flag: str) -> str:
    return entry("dsv4-fp4-b300-vllm", pr="4867").replace("  pr-link:", f"  {flag}: true\n  pr-link:")


@pytest.mark.parametrize("flag", ["evals-only", "all-evals"])
def test_flag_on_a_key_whose_image_changes_is_a_nit(flag):
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0"), ROWS[2])
    ctx = ctx_of(modified(NV, BASE, head), changelog(_flagged(flag)))
    [f] = run(ctx.changeset, rules=[rr021]).findings
    assert (f.code, f.blocking) == ("RR021", False)
    assert f"`{flag}: true` suppresses throughput jobs" in f.message and "`dsv4-fp4-b300-vllm` (image)" in f.message


def test_flag_with_no_master_change_passes():
    ctx = ctx_of(changelog(_flagged("evals-only")), context={NV: BASE})
    r = run(ctx.changeset, rules=[rr021])
    assert r.findings == [] and r.checks[0].status == "passed"


def test_entries_without_the_flag_are_not_judged():
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0"), ROWS[2])
    ctx = ctx_of(modified(NV, BASE, head), changelog(entry("dsv4-fp4-b300-vllm", pr="4867")))
    assert run(ctx.changeset, rules=[rr021]).findings == []
