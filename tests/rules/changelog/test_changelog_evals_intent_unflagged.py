"""RR023 changelog-evals-intent-unflagged: an entry that only speaks of evals, with no evals-only."""
import pytest

from rules import run
from rules.changelog.checks import changelog_evals_intent_unflagged as rr023
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, ctx_of, entry, master, modified, row


def _described(text: str, flag: str | None = None) -> str:
    e = entry("dsv4-fp4-b300-vllm", pr="4867").replace('"change"', f'"{text}"')
    return e.replace("  pr-link:", f"  {flag}: true\n  pr-link:") if flag else e


def test_an_evals_only_description_without_the_flag_is_a_nit_on_the_description():
    ctx = ctx_of(changelog(_described("Rerun the gsm8k evals after the timeout fix")), context={NV: BASE})
    [f] = run(ctx.changeset, rules=[rr023]).findings
    assert (f.code, f.blocking) == ("RR023", False)
    assert "speaks only of evals" in f.message and "`dsv4-fp4-b300-vllm`" in f.message
    text = ctx.changeset.file("perf-changelog.yaml").head.decode().split("\n")
    assert text[f.line - 1] == "  description:"


@pytest.mark.parametrize("text, flag", [
    ("Rerun the gsm8k evals after the timeout fix", "evals-only"),
    ("Rerun the gsm8k evals after the timeout fix", "all-evals"),
    ("Bump the image and rerun evals", None),        # a throughput change is named too
    ("Tune the search space", None),                 # nothing about evals
])
def test_flagged_or_mixed_descriptions_pass(text, flag):
    ctx = ctx_of(changelog(_described(text, flag)), context={NV: BASE})
    assert run(ctx.changeset, rules=[rr023]).findings == []


def test_a_selected_key_that_changes_is_measured_on_purpose():
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0"), ROWS[2])
    ctx = ctx_of(modified(NV, BASE, head), changelog(_described("Rerun the evals")))
    assert run(ctx.changeset, rules=[rr023]).findings == []
