"""plan_fix: the changelog rebuilt, safe suggestions applied, the result re-checked; never a guess."""
from __future__ import annotations

import subprocess
from types import SimpleNamespace

import pytest

from rules.changeset import ChangeSet, FileChange
from rules.finding import Problem, Severity
from rules.fix import (
    CHANGELOG_CODES,
    SAFE_SUGGESTIONS,
    has_fix,
    hunks_patch,
    parse_codes,
    plan_fix,
    unified_diff,
    with_heads,
)
from rules.registry import ALL_RULES, by_code
from tests.rules.changelog_helpers import BASE, NEW, PR, REPO, changeset, entry, insert_before

MTP = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x_mtp.sh"
SCRIPT = 'run_benchmark_serving \\\n    --model "$MODEL" \\\n    --num-prompts 10\n'


def test_misplaced_entry_is_fixed_and_claimed():
    cs = changeset(BASE, insert_before(BASE, 3))
    r = plan_fix(cs)
    (f,) = r.files
    assert f.new == (BASE + "\n" + NEW).encode() and f.old == cs.files[0].head
    assert [x.code for x in r.fixed] == ["RR001"]
    assert r.fixed_summary() == ["RR001 changelog-entry-misplaced ×1 (perf-changelog.yaml)"]
    assert not any(x.code in CHANGELOG_CODES for x in r.after.findings)
    assert r.blocking_left == []


def test_the_fix_of_the_fix_is_nothing():
    cs = changeset(BASE, insert_before(BASE, 3, entry("dsv4-fp4-b200-vllm", "XXX")))
    r = plan_fix(cs)
    again = plan_fix(with_heads(cs, {f.path: f.new for f in r.files}))
    assert again.files == [] and again.fixed == []


def test_a_safe_suggestion_is_applied_to_its_own_lines():
    # with its patch, as a real PR has it: the script rules that read added lines see them before the fix too
    cs = ChangeSet(files=(FileChange(MTP, "modified", base=b"", head=SCRIPT.encode(),
                                     patch=hunks_patch(b"", SCRIPT.encode())),))
    r = plan_fix(cs)
    (f,) = r.files
    assert b"--use-chat-template" in f.new and f.new.count(b"\n") == SCRIPT.count("\n") + 1
    assert [x.code for x in r.fixed] == ["RR302"]
    # a changelog entry is still missing, and `--num-prompts 10` is hard-coded (a nit): a person decides both
    assert [x.code for x in r.remaining] == ["RR009", "RR408"]


def test_only_selects_what_is_fixed():
    head = insert_before(BASE, 3, entry("dsv4-fp4-b200-vllm", "XXX"))
    r = plan_fix(changeset(BASE, head), only={"RR005"})  # the link only: the entry stays where it is
    (f,) = r.files
    assert f.new == head.replace("pr-link: XXX", f"pr-link: https://github.com/{REPO}/pull/{PR}").encode()
    assert [x.code for x in r.fixed] == ["RR005"]
    assert "RR001" in {x.code for x in r.remaining}
    r = plan_fix(changeset(BASE, head), only={"RR302"})
    assert r.files == []


def test_unsafe_suggestions_are_left_for_a_person():
    master = ("dsv4-fp4-b200-vllm:\n  image: vllm/vllm-openai:v0.21.0\n  model: deepseek-ai/DeepSeek-V4\n"
              "  model-prefix: dsv4\n  precision: fp4\n  framework: vllm\n  runner: b200\n  multinode: false\n"
              "  scenarios:\n    fixed-seq-len:\n      - tp: 8\n        conc-list: [1, 4]\n")
    new = entry("dsv4-fp4-b200-vlm", PR)  # a typo the rule can only guess at (RR008 suggests the closest key)
    base_cs = changeset(BASE, BASE + "\n" + new)
    cs = ChangeSet(
        files=base_cs.files, pr_number=PR, repo=REPO, context={"configs/nvidia-master.yaml": master.encode()}
    )
    r = plan_fix(cs)
    rr008 = [x for x in r.remaining if x.code == "RR008"]
    assert rr008 and rr008[0].suggestion is not None  # a suggestion exists, and is not applied
    assert r.files == []
    assert "RR008" not in SAFE_SUGGESTIONS and "RR304" not in SAFE_SUGGESTIONS


def _rule(code, name, check):
    return SimpleNamespace(CODE=code, NAME=name, SEVERITY=Severity.BLOCKING, check=check,
                           __doc__="Flags a test condition.\n\n## Why it matters\nx\n\n## Example\nx\n\n## Fix\nx\n")


def test_a_fix_that_would_add_a_finding_is_withdrawn():
    def suggests(ctx, options):
        for f in ctx.changeset.files:
            if f.head and f.head.startswith(b"old"):
                yield Problem(f.path, 1, "old text", suggestion="BAD")

    def flags_bad(ctx, options):
        for f in ctx.changeset.files:
            if f.head and b"BAD" in f.head:
                yield Problem(f.path, 1, "bad text")

    rules = [_rule("RR250", "test-suggests", suggests), _rule("RR301", "test-flags-bad", flags_bad)]
    cs = ChangeSet(files=(FileChange("notes.yaml", "modified", base=b"x\n", head=b"old\n"),))
    r = plan_fix(cs, rules=rules)
    assert r.files == [] and r.fixed == []
    assert r.refused == [("notes.yaml", "the automatic fix would add RR301; the file was left as it is")]


def test_refused_changelog_is_reported_and_untouched():
    base = BASE.rstrip("\n")
    r = plan_fix(changeset(base, insert_before(base, 3)))
    assert r.files == [] and r.refused and "does not parse" in r.refused[0][1]
    assert "RR001" in {x.code for x in r.remaining} and r.fixed == []


def test_has_fix():
    finding = SimpleNamespace(code="RR250", suggestion=None, line=3)
    assert not has_fix(finding) and has_fix(SimpleNamespace(code="RR001", suggestion=None, line=1))
    assert has_fix(SimpleNamespace(code="RR302", suggestion="x", line=4))


@pytest.mark.parametrize("text,expected", [
    ("RR001", {"RR001"}), ("RR001, changelog-pr-link-wrong", {"RR001", "RR004"}), ("rr005", {"RR005"}),
])
def test_parse_codes(text, expected):
    assert parse_codes(text, ALL_RULES) == expected
    assert parse_codes(None, ALL_RULES) is None


@pytest.mark.parametrize("text", ["RR999", "no-such-rule", " , "])
def test_parse_codes_rejects(text):
    with pytest.raises(ValueError):
        parse_codes(text, ALL_RULES)


@pytest.mark.parametrize("old,new", [
    (b"a\nb\nc\n", b"a\nB\nc\n"),
    (b"a\nb", b"a\nb\n"),  # a final newline added
    (b"a\nb\n", b"a\nb"),  # and removed
    (b"", b"x\ny\n"),
    (b"\n".join(b"line %d" % i for i in range(40)) + b"\n",
     b"\n".join(b"line %d" % i for i in range(40) if i != 20) + b"\nline 99\n"),
], ids=["edit", "add-final-newline", "drop-final-newline", "from-empty", "two-hunks"])
def test_unified_diff_applies_with_git(tmp_path, old, new):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "f.txt").write_bytes(old)
    diff = unified_diff("f.txt", old, new)
    subprocess.run(["git", "-C", str(tmp_path), "apply", "-"], input=diff.encode(), check=True)
    assert (tmp_path / "f.txt").read_bytes() == new
    assert hunks_patch(old, new).startswith("@@ ") and hunks_patch(old, old) is None


def test_patch_of_a_fixed_changelog_is_what_the_rules_read():
    cs = changeset(BASE, insert_before(BASE, 3))
    r = plan_fix(cs)
    fixed = with_heads(cs, {f.path: f.new for f in r.files}).files[0]
    assert fixed.patch.startswith("@@ ") and "+- config-keys:" in fixed.patch


def test_every_safe_code_names_a_registered_rule():
    assert all(by_code(c) is not None for c in SAFE_SUGGESTIONS | CHANGELOG_CODES)


def test_with_repo_reads_owner_and_name_from_the_history():
    from rules.fix import with_repo

    assert with_repo(changeset(BASE, BASE, repo=None)).repo == REPO
    assert with_repo(changeset(BASE, BASE, repo="octo/bench")).repo == "octo/bench"
    assert with_repo(ChangeSet(files=(FileChange(MTP, "added", head=b"x\n"),))).repo is None



def _text(lines, final_newline):
    return b"\n".join(lines) + (b"\n" if final_newline and lines else b"")


def test_unified_diff_round_trips_through_git_apply(tmp_path):
    """Property: for any edit of a file of repetitive lines, `git apply` of our diff gives the new file."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    line = st.sampled_from([b"x", b"y", b"", b"  ", b"- config-keys:", b"  pr-link: XXX"])

    @settings(max_examples=80, deadline=None)
    @given(st.lists(line, max_size=25), st.lists(line, max_size=25), st.booleans(), st.booleans(),
           st.integers(0, 25), st.integers(0, 5))
    def prop(a, insert, nl_a, nl_b, at, drop):
        b = a[:at] + insert + a[at + drop:]
        old, new = _text(a, nl_a), _text(b, nl_b)
        (tmp_path / "f").write_bytes(old)
        diff = unified_diff("f", old, new)
        if old == new:
            assert diff == ""
            return
        subprocess.run(["git", "-C", str(tmp_path), "apply", "-"], input=diff.encode(), check=True,
                       capture_output=True)
        assert (tmp_path / "f").read_bytes() == new

    prop()
