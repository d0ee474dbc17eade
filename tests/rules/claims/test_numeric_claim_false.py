"""RR250: false arithmetic in comments and new changelog descriptions."""
import pytest

from rules import ChangeSet, FileChange, run
from rules.claims.checks import numeric_claim_false as rule

RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/m/agg.yaml"
SCRIPT = "benchmarks/single_node/agentic/m_fp4_b200_mtp.sh"


def _run(*files, context=None):
    return run(ChangeSet(files=tuple(files), context=context or {}), rules=[rule])


CASES = [
    (
        "false product in an added recipe",
        RECIPE,
        "model:\n  # 8 ranks x 120 GB = 920 GB\n  cpu_bytes_to_use: 960000000000\n",
        [(2, "960 GB")],
    ),
    ("true product", RECIPE, "model:\n  # 8 ranks x 120 GB = 960 GB\n  x: 1\n", []),
    (
        "rounded result at written precision",
        RECIPE,
        "# 2700 blocks x 41,574,656 B = 112,251,571,200 B per rank, 898 GB across the 8 ranks\nx: 1\n",
        [],
    ),
    (
        "false across total",
        RECIPE,
        "# 2700 blocks x 41,574,656 B = 112,251,571,200 B per rank, 900 GB across the 8 ranks\nx: 1\n",
        [(1, "898 GB")],
    ),
    (
        "claim wrapped over two comment lines",
        RECIPE,
        "# the pool is 8 x 4 GB\n# = 30 GB in total\nx: 1\n",
        [(2, "32 GB")],
    ),
    ("trailing comment", RECIPE, "x: 1  # 3 x 3 = 10\n", [(1, "9")]),
    ("shell comment", SCRIPT, "#!/bin/bash\n# 4 x 8 = 30 ranks\nrun\n", [(2, "32")]),
    ("prose that is not arithmetic", RECIPE, "# v0.20.1, PR #1574, conc 4-48, TP8 x DCP8, 8k/1k\nx: 1\n", []),
    ("quoted hash is not a comment", RECIPE, 'x: "# 2 + 2 = 5"\n', []),
]


@pytest.mark.parametrize("name,path,text,expected", CASES, ids=[c[0] for c in CASES])
def test_cases(name, path, text, expected):
    r = _run(FileChange(path, "added", head=text.encode()))
    assert [f.line for f in r.findings] == [line for line, _ in expected]
    for f, (_, fixed) in zip(r.findings, expected, strict=True):
        assert f"Write `{fixed}`" in f.fix
    assert all(f.code == "RR250" and not f.blocking for f in r.findings)


def test_message_fix_and_suggestion():
    r = _run(FileChange(RECIPE, "added", head=b"model:\n  # 8 x 4 GB = 30 GB\n  x: 1\n"))
    (f,) = r.findings
    assert f.message == "comment claims `8 x 4 GB = 30 GB`, but it works out to `32 GB`"
    assert f.suggestion == "  # 8 x 4 GB = 32 GB" and "`32 GB`" in f.fix
    assert any("8 x 4 GB" in e for e in f.evidence)


def test_verified_claims_are_recorded_as_passed():
    r = _run(FileChange(RECIPE, "added", head=b"# 8 x 4 GB = 32 GB\nx: 1\n"))
    assert r.findings == [] and r.checks[0].status == "passed" and "32 GB" in r.checks[0].detail


def test_only_comment_blocks_the_pr_touched():
    base = b"# 2 + 2 = 5\na: 1\n\n# 3 + 3 = 7\nb: 1\n"
    head = b"# 2 + 2 = 5\na: 1\n\n# 3 + 3 = 7\nb: 2\n# 1 + 1 = 3\nc: 1\n"
    patch = "@@ -4,2 +4,4 @@\n # 3 + 3 = 7\n-b: 1\n+b: 2\n+# 1 + 1 = 3\n+c: 1\n"
    r = _run(FileChange(RECIPE, "modified", base=base, head=head, patch=patch))
    assert [f.line for f in r.findings] == [6]


def test_no_patch_means_every_comment_is_checked():
    r = _run(FileChange(RECIPE, "modified", base=b"a: 1\n", head=b"# 2 + 2 = 5\na: 1\n"))
    assert [f.line for f in r.findings] == [1]


def test_missing_content_is_skipped_out_loud():
    r = _run(FileChange(SCRIPT, "modified", head=None))
    assert r.findings == [] and r.checks[0].status == "skipped"


def test_files_outside_recipes_scripts_and_masters_are_ignored():
    r = _run(FileChange("docs/notes.yaml", "added", head=b"# 2 + 2 = 5\n"),
             FileChange("benchmarks/deprecated/x.yaml", "added", head=b"# 2 + 2 = 5\n"))
    assert r.findings == [] and r.checks == []


CHANGELOG_BASE = b"""- config-keys:
    - a-fp4-b200-vllm
  description:
    - "old: 2 + 2 = 5"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1
"""


def test_new_changelog_description():
    head = CHANGELOG_BASE + b"""
- config-keys:
    - a-fp4-b200-vllm
  description:
    - "Raise the pool"
    - "8 ranks x 112.25 GB = 890 GB of host DRAM"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2
"""
    r = _run(FileChange("perf-changelog.yaml", "modified", base=CHANGELOG_BASE, head=head))
    (f,) = r.findings
    assert (f.path, f.line) == ("perf-changelog.yaml", 11)
    assert f.message.startswith("changelog description claims `8 ranks x 112.25 GB = 890 GB`")
    assert f.suggestion == '    - "8 ranks x 112.25 GB = 898 GB of host DRAM"'


def test_hostile_inputs_do_not_crash():
    huge = ("# " + "9 x 9 = 81 " * 2000 + "\n").encode() * 5
    r = _run(FileChange(RECIPE, "added", head=huge), FileChange(SCRIPT, "added", head=b"\xff\xfe# 1 x 1 = 3\n"),
             FileChange("benchmarks/b.yaml", "added", head=b"\0\0"))
    assert all(f.code == "RR250" for f in r.findings)
