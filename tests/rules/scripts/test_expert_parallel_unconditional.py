"""RR303: --enable-expert-parallel must depend on EP_SIZE (hand-written scripts: the replay data has none)."""
import pytest

from rules import ChangeSet, FileChange, run
from rules.scripts.checks import expert_parallel_unconditional as rule

SCRIPT = "benchmarks/single_node/fixed_seq_len/dsv4_fp8_h200.sh"


def lines(*rows: str) -> str:
    return "\n".join(("#!/bin/bash",) + rows) + "\n"


CASES = [
    ("hard-coded in the serve command", lines("vllm serve m \\", "  --tp 8 \\", "  --enable-expert-parallel"), [4]),
    (
        "inside an EP_SIZE if",
        lines('if [ "$EP_SIZE" -gt 1 ]; then', '  EP="--enable-expert-parallel"', "fi", "vllm serve m $EP"),
        [],
    ),
    (
        "then on its own line",
        lines('if [[ "${EP_SIZE:-1}" -gt 1 ]]', "then", '  EP="--enable-expert-parallel"', "fi"),
        [],
    ),
    # Under any branch the flag is conditional: which points reach the branch is RR216's business.
    (
        "else branch of another if",
        lines('if [ "$TP" -gt 1 ]; then', "  X=1", "else", '  EP="--enable-expert-parallel"', "fi"),
        [],
    ),
    (
        "DP-attention branch before the EP one",
        lines(
            'if [ "$DP_ATTENTION" = "true" ]; then',
            '  PAR="--data-parallel-size $TP --enable-expert-parallel"',
            'elif [ "$EP_SIZE" -gt 1 ]; then',
            '  PAR="--tensor-parallel-size $TP --enable-expert-parallel"',
            "fi",
            "vllm serve m $PAR",
        ),
        [],
    ),
    (
        "per-recipe switch",
        lines('if [ "$PREFILL_ENABLE_EP" = "true" ]; then', '  A="--enable-expert-parallel"', "fi"),
        [],
    ),
    ("and-list on one line", lines('[ "$EP_SIZE" -gt 1 ] && EP="--enable-expert-parallel"'), []),
    (
        "derived variable",
        lines("EP=${EP_SIZE:-1}", "if (( EP > 1 )); then", '  ARGS="--enable-expert-parallel"', "fi"),
        [],
    ),
    ("case on EP_SIZE", lines('case "$EP_SIZE" in', "  1) ;;", '  *) EP="--enable-expert-parallel" ;;', "esac"), []),
    (
        "after the if closed",
        lines('if [ "$EP_SIZE" -gt 1 ]; then', "  X=1", "fi", "vllm serve m --enable-expert-parallel"),
        [5],
    ),
    ("only in a comment", lines("# pass --enable-expert-parallel when EP_SIZE > 1", "vllm serve m"), []),
    ("similar flag", lines("vllm serve m --enable-expert-parallel-lb"), []),
]


@pytest.mark.parametrize("name,text,expected", CASES, ids=[c[0] for c in CASES])
def test_added_scripts(name, text, expected):
    r = run(ChangeSet(files=(FileChange(SCRIPT, "added", head=text.encode()),)), rules=[rule])
    assert [f.line for f in r.findings] == expected
    assert all(f.code == "RR303" and not f.blocking for f in r.findings)


def test_message():
    r = run(
        ChangeSet(files=(FileChange(SCRIPT, "added", head=lines("vllm serve m --enable-expert-parallel").encode()),)),
        rules=[rule],
    )
    (f,) = r.findings
    assert f.message == "`--enable-expert-parallel` is passed unconditionally; it should depend on `EP_SIZE`"


def test_only_added_lines():
    head = lines("vllm serve m --enable-expert-parallel", "echo done").encode()
    patch = "@@ -1,2 +1,3 @@\n #!/bin/bash\n vllm serve m --enable-expert-parallel\n+echo done\n"
    r = run(ChangeSet(files=(FileChange(SCRIPT, "modified", base=head, head=head, patch=patch),)), rules=[rule])
    assert r.findings == []


def test_no_patch_is_skipped_and_missing_content_is_skipped():
    head = lines("vllm serve m --enable-expert-parallel").encode()
    r = run(ChangeSet(files=(FileChange(SCRIPT, "modified", base=b"", head=head),
                             FileChange("benchmarks/multi_node/x.sh", "modified", head=None))), rules=[rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped", "skipped"]


def test_deprecated_scripts_are_ignored():
    r = run(ChangeSet(files=(FileChange("benchmarks/single_node/deprecated/x.sh", "added",
                                        head=lines("vllm serve m --enable-expert-parallel").encode()),)), rules=[rule])
    assert r.findings == []
