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


def _in_pr(base_cl: bytes, head_cl: bytes, pr: int = 4867):
    from rules.changeset import ChangeSet, FileChange

    cs = ChangeSet(files=(FileChange("perf-changelog.yaml", "modified", base=base_cl, head=head_cl),),
                   context={NV: BASE}, pr_number=pr)
    return run(cs, rules=[rr023])


def test_an_existing_entry_moved_by_a_cleanup_is_not_this_prs():
    """#1161 reorders history: #1119's eval-rerun entry (no pr-link number) moves from the top to the end,
    and loses a trailing space on the way, so its bytes are not the base's."""
    old = _described("Rerun the gsm8k evals after the timeout fix").replace(
        "https://github.com/SemiAnalysisAI/InferenceX/pull/4867", "TBD").replace("  description:", "  description: ")
    rest = entry("dsv4-fp4-b200-vllm", pr="4000")
    base, head = (old + "\n" + rest).encode(), (rest + "\n" + old.replace("description: ", "description:")).encode()
    assert _in_pr(base, head).findings == []
    mine = _described("Rerun the gsm8k evals after the timeout fix")
    [f] = _in_pr(rest.encode(), (rest + "\n" + mine).encode()).findings  # control: this PR's own entry
    assert "speaks only of evals" in f.message and f.message.endswith("Both gates accept this.")


def test_another_prs_entry_is_not_judged():
    theirs = _described("Rerun the gsm8k evals after the timeout fix").replace("pull/4867", "pull/4100")
    rest = entry("dsv4-fp4-b200-vllm", pr="4000")
    assert _in_pr(rest.encode(), (rest + "\n" + theirs).encode()).findings == []
