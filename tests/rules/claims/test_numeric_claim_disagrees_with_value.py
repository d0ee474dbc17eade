"""RR251: a claim that disagrees with the value it annotates or the config its changelog entry names."""
import pytest

from rules import ChangeSet, FileChange, load_config, run
from rules.claims.checks import numeric_claim_disagrees_with_value as rule

RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/m/agg.yaml"
SCRIPT = "benchmarks/single_node/agentic/m_fp4_b200.sh"
CLAIM = "# 2700 blocks x 41,574,656 B = 112,251,571,200 B per rank, 898 GB across the 8 ranks"


def _run(*files, context=None, config=None):
    return run(ChangeSet(files=tuple(files), context=context or {}), config=config, rules=[rule])


CASES = [
    ("total agrees", f"model:\n  {CLAIM}\n  cpu_bytes_to_use: 898012569600\n", []),
    ("per-rank agrees", f"model:\n  {CLAIM}\n  cpu_bytes_to_use_per_rank: 112251571200\n", []),
    ("value bumped, comment stale", f"model:\n  {CLAIM}\n  cpu_bytes_to_use: 1000000000000\n", [3]),
    ("quantity of another size is not compared", f"model:\n  {CLAIM}\n  cpu_bytes_to_use: 4000000000000\n", []),
    ("GB key name", "# 112.25 GB x 8 = 898 GB\ntotal-cpu-dram-gb: 950\n", [2]),
    ("GB key name agrees", "# 112.25 GB x 8 = 898 GB\ntotal-cpu-dram-gb: 898\n", []),
    ("value with unit", "# 100 GB x 2 = 200 GB\nglobal_segment_size: 230GB\n", [2]),
    ("key named with the wrong number", "# dram-utilization 0.086 x 2990 GB = 257 GB\ndram-utilization: 0.09\n", [1]),
    ("key named with its number", "# dram-utilization 0.086 x 2990 GB = 257 GB\ndram-utilization: 0.086\n", []),
    ("history note without arithmetic", "# was max-num-seqs 64 before\nmax-num-seqs: 128\n", []),
    ("trailing comment on the value", "cpu_bytes_to_use: 700000000000  # 8 x 100 GB = 800 GB\n", [1]),
    ("blank line between: annotates nothing", f"{CLAIM}\n\ncpu_bytes_to_use: 1000000000000\n", []),
    ("json inside a string", f"{CLAIM}\nkv: '{{\"cpu_bytes_to_use\": 1000000000000}}'\n", [2]),
    ("unitless key is not compared by size", "# 2 x 4 = 8\nmax-num-seqs: 9\n", []),
]


@pytest.mark.parametrize("name,text,lines", CASES, ids=[c[0] for c in CASES])
def test_comment_cases(name, text, lines):
    r = _run(FileChange(RECIPE, "added", head=text.encode()))
    assert [f.line for f in r.findings] == lines
    assert all(f.code == "RR251" and not f.blocking for f in r.findings)


def test_shell_variable_and_flag():
    script = "\n".join(["#!/bin/bash", "# 8 x 100 GB = 800 GB", "CPU_BYTES=700000000000",
                        "# 8 x 100 GB = 800 GB", "vllm serve m --kv-offloading-size-gb 800", ""])
    r = _run(FileChange(SCRIPT, "added", head=script.encode()))
    assert [f.line for f in r.findings] == [3]


def test_stale_comment_found_when_only_the_value_line_changed():
    base = f"model:\n  {CLAIM}\n  cpu_bytes_to_use: 898012569600\n".encode()
    head = f"model:\n  {CLAIM}\n  cpu_bytes_to_use: 1000000000000\n".encode()
    patch = (
        f"@@ -1,3 +1,3 @@\n model:\n   {CLAIM}\n-  cpu_bytes_to_use: 898012569600\n+  cpu_bytes_to_use: 1000000000000\n"
    )
    r = _run(FileChange(RECIPE, "modified", base=base, head=head, patch=patch))
    (f,) = r.findings
    assert (
        f.message
        == "`cpu_bytes_to_use: 1000000000000` is 1,000,000,000,000 B, but the comment above it works out `898 GB`"
    )


def test_untouched_comment_and_value_are_not_reviewed():
    head = f"model:\n  {CLAIM}\n  cpu_bytes_to_use: 1000000000000\nother: 1\n".encode()
    patch = "@@ -3,1 +3,2 @@\n   cpu_bytes_to_use: 1000000000000\n+other: 1\n"
    r = _run(FileChange(RECIPE, "modified", base=head, head=head, patch=patch))
    assert r.findings == []


def test_comparable_ratio_option():
    text = f"model:\n  {CLAIM}\n  cpu_bytes_to_use: 1500000000000\n".encode()
    assert _run(FileChange(RECIPE, "added", head=text)).findings == []
    config, errors = load_config({"rules": {"RR251": {"options": {"comparable_ratio": 2.0}}}})
    assert not errors
    assert [f.line for f in _run(FileChange(RECIPE, "added", head=text), config=config).findings] == [3]


MASTER = b"""a-fp4-b200-vllm:
  image: vllm/vllm-openai:v0.20.1
  runner: b200
  scenarios:
    agentic-coding:
    - dram-utilization: 0.09
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
"""
CHANGELOG_BASE = b"""- config-keys:
    - a-fp4-b200-vllm
  description:
    - "old"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1
"""


def _changelog(desc: str):
    head = CHANGELOG_BASE + f"""
- config-keys:
    - a-fp4-b200-vllm
  description:
    - "{desc}"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2
""".encode()
    return FileChange("perf-changelog.yaml", "modified", base=CHANGELOG_BASE, head=head)


@pytest.mark.parametrize("desc,expected", [
    ("dram-utilization 0.086 x 2990 GB = 257 GB", [10]),
    ("dram-utilization 0.09 x 2990 GB = 269 GB", []),
    ("dram-utilization 0.086 puts the budget at 257 GB", []),
    ("conc-end 64 x 2 = 128", []),
], ids=["names a different value", "names the configured value", "no arithmetic", "field matches"])
def test_changelog_description_against_master(desc, expected):
    r = _run(_changelog(desc), context={"configs/nvidia-master.yaml": MASTER})
    assert [f.line for f in r.findings] == expected
    if expected:
        assert "a-fp4-b200-vllm sets dram-utilization 0.09" in r.findings[0].message


def test_changelog_without_master_config_is_skipped():
    r = _run(_changelog("dram-utilization 0.086 x 2990 GB = 257 GB"))
    assert r.findings == [] and any(c.status == "skipped" for c in r.checks)
