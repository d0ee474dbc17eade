"""RR252 changelog-version-claim-wrong: `from X to Y` against each key's base and head image (#1567, #1417)."""
import pytest

from rules.claims.checks import changelog_version_claim_wrong as rr252
from tests.rules.claims._desc_helpers import entry, pr, review, row

OLD = "lmsysorg/sglang:v0.5.10.post1-cu130"
MID = "lmsysorg/sglang:v0.5.11-cu130"
NEW = "lmsysorg/sglang:v0.5.12-cu130"


def _two(base_b=OLD, base_m=OLD, head=NEW):
    keys = ("glm5-fp4-b200-sglang", "glm5-fp4-b200-sglang-mtp")
    return [row(keys[0], image=base_b), row(keys[1], image=base_m)], [row(k, image=head) for k in keys], keys


@pytest.mark.parametrize("text", ["Update SGLang image from v0.5.10.post1-cu130 to v0.5.12-cu130",
                                  "SGLang v0.5.10.post1-cu130 -> v0.5.12-cu130",
                                  "Bump image to v0.5.12-cu130"], ids=["from-to", "arrow", "bump-to"])
def test_true_transitions_pass(text):
    base, head, keys = _two()
    r = review(pr(base, head, entry(keys, text)), rr252)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_one_line_for_two_keys_with_different_starting_versions():
    base, head, keys = _two(base_m=MID)  # #1417: the -mtp key was on v0.5.11
    [f] = review(pr(base, head, entry(keys, "Update SGLang image from v0.5.10.post1-cu130 to v0.5.12-cu130")),
                 rr252).findings
    assert not f.blocking and (f.line, f.end_line) == (13, 17)  # the entry, from its first line to the item
    assert f.message == ("The description says `from v0.5.10.post1-cu130`, but `glm5-fp4-b200-sglang-mtp` was on "
                         f"`{MID}` at the base (true for `glm5-fp4-b200-sglang`).")
    assert any(e.startswith("description item: `Update SGLang") for e in f.evidence)


def test_wrong_starting_version_for_every_key():
    base, head, keys = _two(base_b=NEW, base_m=NEW, head="lmsysorg/sglang:nightly-dev-cu13-20260523-c112f762")
    r = review(
        pr(base, head, entry(keys, "Update SGLang image from v0.5.11-cu130 to nightly-dev-cu13-20260523-c112f762")),
        rr252,
    )  # #1567
    assert [f.message.split(",")[1].strip() for f in r.findings] == [
        f"but `glm5-fp4-b200-sglang` was on `{NEW}` at the base."]


def test_wrong_target_version():
    base, head, keys = _two()
    [f] = review(pr(base, head, entry(keys, "Update SGLang from v0.5.10.post1-cu130 to v0.5.13-cu130")), rr252).findings
    assert "says `to v0.5.13-cu130`, but `glm5-fp4-b200-sglang` is on" in f.message


def test_versions_of_other_components_are_not_judged():
    base, head, keys = _two()
    r = review(pr(base, head, entry(keys, "Update flashinfer from 0.2.8 to 0.3.1")), rr252)
    assert r.findings == []


@pytest.mark.parametrize("claim, findings", [("rocm7.2.3_..._atom20260511", 0), ("rocm7.2.3_…_atom20260511", 0),
                                             ("rocm7.2.4_..._atom20260511", 1)],
                         ids=["ellipsis", "unicode-ellipsis", "abbreviated-but-wrong"])
def test_an_abbreviated_tag_matches_the_full_one_part_by_part(claim, findings):
    atom = "rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511"
    base, head, keys = _two(base_b=atom, base_m=atom, head="rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_atom20260601")
    r = review(pr(base, head, entry(keys, f"Bump the ATOM image from {claim} to rocm7.2.4_..._atom20260601")), rr252)
    assert len(r.findings) == findings


# -- Precision (issue 21) ---------------------------------------------------------------------


def test_a_version_token_ends_before_sentence_punctuation():
    base, head, keys = _two()
    for text in (
        "Update SGLang from v0.5.10.post1-cu130 to v0.5.12-cu130.",
        "SGLang v0.5.10.post1-cu130 -> v0.5.12-cu130, for both keys",
        "Bump image to v0.5.12-cu130; rerun",
    ):
        assert review(pr(base, head, entry(keys, text)), rr252).findings == [], text
    [f] = review(
        pr(base, head, entry(keys, "Update SGLang from v0.5.10.post1-cu130 to v0.5.13-cu130.")), rr252
    ).findings
    assert "says `to v0.5.13-cu130`, but" in f.message  # control: the period is not part of the version


ATOM = "rocm/atom:rocm7.9.1_ubuntu24.04_py3.12_torch2.11_atom0.3.0.post"  # a tag that starts with no version
NIGHTLY = "rocm/atom-dev:nightly_209901011200"


def test_a_claim_that_names_the_whole_image_reference_is_compared_whole():
    base, head, keys = _two(base_b=ATOM, base_m=ATOM, head=NIGHTLY)
    assert review(pr(base, head, entry(keys, f"Move the ATOM keys from {ATOM} to {NIGHTLY}")), rr252).findings == []
    wrong = ATOM.replace("7.9.1", "7.9.0")
    # control
    [f] = review(pr(base, head, entry(keys, f"Move the ATOM keys from {wrong} to {NIGHTLY}")), rr252).findings
    assert f.message.startswith(f"The description says `from {wrong}`")


def test_a_line_per_key_is_about_that_key():
    base, head, keys = _two(base_m=MID)
    items = ("Update SGLang to v0.5.12-cu130", f"{keys[0]}: v0.5.10.post1-cu130 → v0.5.12-cu130",
             f"{keys[1]}: v0.5.11-cu130 → v0.5.12-cu130")
    assert review(pr(base, head, entry(keys, *items)), rr252).findings == []
    [f] = review(pr(base, head, entry(keys, f"{keys[1]}: v0.5.10.post1-cu130 → v0.5.12-cu130")), rr252).findings
    assert f"`{keys[1]}` was on `{MID}`" in f.message  # control


def test_a_hardware_qualifier_picks_the_keys():
    keys = ("gptoss-fp4-mi300x-vllm", "gptoss-fp4-mi355x-vllm")
    base = [row(keys[0], image="vllm/vllm-openai-rocm:v0.9.2"), row(keys[1], image="amd/vllm-dev:vllm_0.8.5_build7")]
    head = [row(k, image="vllm/vllm-openai-rocm:v0.11.0") for k in keys]
    text = "Bump vLLM from v0.9.2 to v0.11.0 on MI300X, and from v0.8.5 to v0.11.0 on MI355X"
    assert review(pr(base, head, entry(keys, text)), rr252).findings == []
    [f] = review(pr(base, head, entry(keys, "Bump vLLM from v0.9.2 to v0.11.0 on MI355X")), rr252).findings
    assert "`gptoss-fp4-mi355x-vllm` was on `amd/vllm-dev:vllm_0.8.5_build7`" in f.message  # control


def test_a_starting_point_may_name_alternatives():
    base, head, keys = _two(base_m=MID)
    assert review(pr(base, head, entry(keys, "Update SGLang from v0.5.11-cu130/v0.5.10.post1-cu130 to v0.5.12-cu130")),
                  rr252).findings == []


def test_history_re_added_under_other_prs_links_is_not_this_prs_description():
    base, head, keys = _two()
    restored = entry(keys, "Update SGLang from v0.5.9 to v0.5.12-cu130", pr=101) + "\n" + entry(
        keys, "Update SGLang from v0.5.8 to v0.5.9", pr=102)
    assert review(pr(base, head, restored), rr252).findings == []
    assert len(review(pr(base, head, entry(keys, "Update SGLang from v0.5.9 to v0.5.12-cu130")), rr252).findings) == 1
