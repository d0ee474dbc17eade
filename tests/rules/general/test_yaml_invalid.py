import pytest

from rules import ChangeSet, FileChange, run
from rules.general.checks import yaml_invalid


def _run(*files):
    return run(ChangeSet(files=tuple(files)), rules=[yaml_invalid])


def test_syntax_error_at_parser_line():
    r = _run(FileChange("benchmarks/x.yaml", "added", head=b"a: 1\nb: [1, 2\n"))
    assert [(f.code, f.line) for f in r.findings] == [("RR012", 3)]
    assert "does not parse" in r.findings[0].message


def test_duplicate_key_that_drops_a_value_is_an_error():
    r = _run(FileChange("configs/nvidia-master.yaml", "modified", base=b"a: 1\n", head=b"a: 1\nb: 2\na: 3\n"))
    assert len(r.findings) == 1 and r.findings[0].line == 3
    assert r.findings[0].message == ("Duplicate key `a` (also at line 1): the last value `3` is used and `1` is "
                                     "silently dropped.")


def test_non_utf8_and_binary_are_findings_not_crashes():
    r = _run(FileChange("benchmarks/a.yaml", "added", head=b"a: \xff\xfe\n"),
             FileChange("benchmarks/b.yml", "added", head=b"\0\0"))
    assert sorted(f.path for f in r.findings) == ["benchmarks/a.yaml", "benchmarks/b.yml"]
    assert "UTF-8" in r.findings[0].message and "binary" in r.findings[1].message


def test_valid_and_removed_files_pass():
    r = _run(FileChange("benchmarks/a.yaml", "modified", base=b"a: 1\n", head=b"a: 2\n"),
             FileChange("benchmarks/gone.yaml", "removed", base=b"x: [\n"),
             FileChange("benchmarks/run.sh", "added", head=b"echo\n"))
    assert r.findings == [] and r.checks[0].status == "passed"


def test_alias_bomb_is_rejected_quickly():
    lines = [b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(b"a%d: &a%d [%s]" % (i, i, b", ".join([b"*a%d" % (i - 1)] * 10)))
    r = _run(FileChange("benchmarks/bomb.yaml", "added", head=b"\n".join(lines) + b"\n"))
    assert len(r.findings) == 1 and "alias" in r.findings[0].message


def test_missing_content_is_said_not_skipped():
    r = _run(FileChange("benchmarks/big.yaml", "modified", head=None))
    assert len(r.findings) == 1 and "not available" in r.findings[0].message


def _big_master(n=3000):
    return "".join(f"key-{i}:\n  image: repo/img:v{i}\n  conc-list: [1, 2, 4]\n\n" for i in range(n))


def test_large_file_parses_only_the_changed_blocks():
    from rules.document import LARGE_YAML_BYTES, changed_block_errors

    base = _big_master()
    head = base.replace("key-1500:\n  image: repo/img:v1500\n", "key-1500:\n  image: repo/img:v9\n")
    assert len(head) > LARGE_YAML_BYTES
    assert changed_block_errors("m.yaml", head, base) == (None, 1)
    r = _run(FileChange("configs/nvidia-master.yaml", "modified", base=base.encode(), head=head.encode()))
    assert r.findings == [] and r.checks[0].status == "passed"


@pytest.mark.slow
def test_large_file_error_in_a_changed_block_is_found_at_its_line():
    base = _big_master()
    head = base.replace("key-1500:\n  image: repo/img:v1500\n  conc-list: [1, 2, 4]\n",
                        "key-1500:\n  image: repo/img:v1500\n  conc-list: [1, 2, 4\n")
    (f,) = _run(FileChange("configs/nvidia-master.yaml", "modified", base=base.encode(), head=head.encode())).findings
    assert 1500 * 4 + 3 <= f.line <= 1500 * 4 + 5 and "does not parse" in f.message


@pytest.mark.slow
def test_large_file_duplicate_top_level_key_is_found():
    base = _big_master()
    head = base + "key-7:\n  image: repo/img:v7\n"
    (f,) = _run(FileChange("configs/nvidia-master.yaml", "modified", base=base.encode(), head=head.encode())).findings
    assert f.message.startswith("Duplicate key `key-7` (also at line 29): the last value `image: repo/img:v7` is used")


def test_custom_tags_are_valid_as_the_round_trip_loader_says():
    r = _run(FileChange("benchmarks/x.yaml", "added", head=b"image: !env IMAGE\nlist: !!set {a, b}\n"))
    assert r.findings == []


def test_fast_and_round_trip_loaders_agree_on_errors():
    from rules.document import load_values, parse_yaml

    for text in (b"a: [1\n", b"a: 1\na: 2\n", b"- a\nb: 1\n", b"a:\n  - b\n c: 1\n", b"ok: 1\n"):
        assert (load_values("x", text)[1] is None) == parse_yaml("x", text).ok, text


def test_yaml_12_plain_scalars_in_flow_mappings_are_valid():
    # libyaml rejects `a:1` inside a flow mapping; YAML 1.2 (ruamel, and the rules) accepts it.
    r = _run(FileChange("configs/nvidia-master.yaml", "added", head=b"k-1: {image: a:1, model-prefix: k}\n"))
    assert r.findings == []


# Issue 21: a duplicate key is a finding only where the repository's loader makes it one.
MASTER = "configs/nvidia-master.yaml"
RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/m/agg.yaml"
KEY = b"m-fp4-b200-vllm:\n  image: repo/img:v1\n  model: org/m\n  runner: b200\n"


def test_duplicate_with_equal_values_drops_nothing_under_safe_load():
    head = KEY.replace(b"  runner: b200\n", b"  runner: b200\n  model: org/m\n")
    r = _run(FileChange(MASTER, "modified", base=KEY, head=head))
    assert r.findings == []
    assert "`m-fp4-b200-vllm.model` (line 5, equal values)" in r.checks[0].detail


def test_duplicate_the_base_already_has_is_not_the_prs():
    base = KEY + b"  model: org/m-v2\n"  # the base's own duplicate (drops `org/m`)
    head = base.replace(b"image: repo/img:v1", b"image: repo/img:v2")  # the PR edits the same key block
    r = _run(FileChange(MASTER, "modified", base=base, head=head))
    assert r.findings == [] and r.in_base == []
    assert "already in the base" in r.checks[0].detail


def test_duplicate_the_pr_adds_with_another_value_still_fires():
    head = KEY + b"  model: org/m-v2\n"
    (f,) = _run(FileChange(MASTER, "modified", base=KEY, head=head)).findings
    assert not f.blocking and f.line == 5  # RR012 is a nit (notes/proof.md)
    assert "`org/m-v2` is used and `org/m` is silently dropped" in f.message
    assert any("yaml.safe_load" in e for e in f.evidence)


def test_recipe_duplicates_follow_the_same_loader_rule():
    base = b"backend:\n  sglang_config:\n    prefill:\n      tp: 8\n"
    same = base + b"      tp: 8\n"
    other = base + b"      tp: 4\n"
    assert _run(FileChange(RECIPE, "modified", base=base, head=same)).findings == []
    (f,) = _run(FileChange(RECIPE, "modified", base=base, head=other)).findings
    assert "`backend.sglang_config.prefill.tp`" in f.message and f.line == 5


def test_changelog_duplicate_the_pr_adds_fails_the_strict_validator_even_with_equal_values():
    base = b"- config-keys:\n    - a\n  description:\n    - x\n  pr-link: https://github.com/o/r/pull/1\n"
    head = base + b"\n- config-keys:\n    - b\n  description: []\n  description: []\n  pr-link: XXX\n"
    (f,) = _run(FileChange("perf-changelog.yaml", "modified", base=base, head=head)).findings
    assert not f.blocking and f.line == 10 and "duplicate key" in f.message


def test_changelog_duplicate_of_the_base_is_not_the_prs():
    base = (b"- config-keys:\n    - a\n  description: []\n  description: []\n"
            b"  pr-link: https://github.com/o/r/pull/1\n")
    head = base + b"\n- config-keys:\n    - b\n  description:\n    - y\n  pr-link: XXX\n"
    r = _run(FileChange("perf-changelog.yaml", "modified", base=base, head=head))
    assert r.findings == [] and r.in_base == []


def test_a_syntax_error_after_a_harmless_duplicate_is_still_found():
    head = KEY + b"  model: org/m\n  runner: [b200\n"
    (f,) = _run(FileChange(MASTER, "modified", base=KEY, head=head)).findings
    assert "does not parse" in f.message


def test_workflow_files_are_out_of_scope():
    broken = b"on: push\njobs:\n  a:\n    steps: [\n"
    r = _run(FileChange(".github/workflows/run-sweep.yml", "modified", base=b"on: push\n", head=broken))
    assert r.findings == [] and r.checks == []


def test_a_duplicate_the_pr_writes_above_a_base_line_is_reported_on_the_prs_line():
    from tests.rules.changelog_helpers import patch_of
    base = "- config-keys:\n    - a\n  description:\n    - x\n  pr-link: https://github.com/o/r/pull/1\n"
    head = base.replace("- config-keys:\n    - a\n", "- config-keys:\n    - a\n  description: [y]\n", 1)
    f = FileChange("perf-changelog.yaml", "modified", base=base.encode(), head=head.encode(),
                   patch=patch_of(base, head))
    r = _run(f)
    assert [(x.line, x.blocking) for x in r.findings] == [(3, False)]
    assert r.in_base == []  # on the PR's line, not on the base's own `description:` below it
