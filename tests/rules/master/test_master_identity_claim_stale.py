"""RR108 master-identity-claim-stale: a comment calling a key's metadata identical to another's."""
from rules import run
from rules.master.checks import master_identity_claim_stale as rr108
from tests.rules.mc_helpers import ROWS, change_one, master, row

CLAIM = "# Split for the agentic scenario. Metadata is identical to origin/main's dsv4-fp4-b200-vllm.\n"


def _sibling(image: str = "vllm/vllm-openai:v0.20.1", claim: str = CLAIM) -> str:
    return claim + row("dsv4-fp4-b200-vllm-agentic", image=image, prefix="dsv4")


def test_a_bumped_sibling_under_an_identity_claim_is_a_nit_on_the_comment():
    base = master(*ROWS, _sibling())
    ctx = change_one((*ROWS, _sibling(image="vllm/vllm-openai:v0.21.0")), base=base)
    [f] = run(ctx.changeset, rules=[rr108]).findings
    assert (f.code, f.blocking) == ("RR108", False)
    head = ctx.changeset.files[0].head.decode().split("\n")
    assert head[f.line - 1] == CLAIM.rstrip("\n")
    assert ("calls its metadata identical to `dsv4-fp4-b200-vllm` at the base, but `image` "
            "`vllm/vllm-openai:v0.21.0` vs `vllm/vllm-openai:v0.20.1`") in f.message


def test_a_claim_that_holds_or_a_key_the_pr_leaves_alone_passes():
    base = master(*ROWS, _sibling())
    both = (row("dsv4-fp4-b200-vllm", image="vllm/vllm-openai:v0.21.0"), *ROWS[1:],
            _sibling(image="vllm/vllm-openai:v0.21.0", claim=CLAIM.replace("origin/main's ", "")))
    r = run(change_one(both, base=base).changeset, rules=[rr108])
    assert r.findings == [] and r.checks[0].status == "passed"  # compared at the head: both bumped
    # already false at the base, and the PR changes neither key nor the comment: not this PR's
    stale = _sibling(image="vllm/vllm-openai:v0.19.0")
    untouched = (*ROWS[:2], row("dsr1-fp8-h200-sglang", image="lmsysorg/sglang:v0.5.13"), stale)
    assert run(change_one(untouched, base=master(*ROWS, stale)).changeset, rules=[rr108]).findings == []
