from rules import ChangeSet, FileChange, run
from rules.general.checks import yaml_invalid


def _run(*files):
    return run(ChangeSet(files=tuple(files)), rules=[yaml_invalid])


def test_syntax_error_at_parser_line():
    r = _run(FileChange("benchmarks/x.yaml", "added", head=b"a: 1\nb: [1, 2\n"))
    assert [(f.code, f.line) for f in r.findings] == [("RR012", 3)]
    assert "does not parse" in r.findings[0].message


def test_duplicate_key_is_an_error():
    r = _run(FileChange("configs/nvidia-master.yaml", "modified", base=b"a: 1\n", head=b"a: 1\nb: 2\na: 3\n"))
    assert len(r.findings) == 1 and "duplicate key" in r.findings[0].message and r.findings[0].line == 3


def test_non_utf8_and_binary_are_findings_not_crashes():
    r = _run(FileChange("a.yaml", "added", head=b"a: \xff\xfe\n"), FileChange("b.yml", "added", head=b"\0\0"))
    assert sorted(f.path for f in r.findings) == ["a.yaml", "b.yml"]
    assert "UTF-8" in r.findings[0].message and "binary" in r.findings[1].message


def test_valid_and_removed_files_pass():
    r = _run(FileChange("a.yaml", "modified", base=b"a: 1\n", head=b"a: 2\n"),
             FileChange("gone.yaml", "removed", base=b"x: [\n"), FileChange("run.sh", "added", head=b"echo\n"))
    assert r.findings == [] and r.checks[0].status == "passed"


def test_alias_bomb_is_rejected_quickly():
    lines = [b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(b"a%d: &a%d [%s]" % (i, i, b", ".join([b"*a%d" % (i - 1)] * 10)))
    r = _run(FileChange("bomb.yaml", "added", head=b"\n".join(lines) + b"\n"))
    assert len(r.findings) == 1 and "alias" in r.findings[0].message


def test_missing_content_is_said_not_skipped():
    r = _run(FileChange("big.yaml", "modified", head=None))
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


def test_large_file_error_in_a_changed_block_is_found_at_its_line():
    base = _big_master()
    head = base.replace("key-1500:\n  image: repo/img:v1500\n  conc-list: [1, 2, 4]\n",
                        "key-1500:\n  image: repo/img:v1500\n  conc-list: [1, 2, 4\n")
    (f,) = _run(FileChange("configs/nvidia-master.yaml", "modified", base=base.encode(), head=head.encode())).findings
    assert 1500 * 4 + 3 <= f.line <= 1500 * 4 + 5 and "does not parse" in f.message


def test_large_file_duplicate_top_level_key_is_found():
    base = _big_master()
    head = base + "key-7:\n  image: repo/img:v7\n"
    (f,) = _run(FileChange("configs/nvidia-master.yaml", "modified", base=base.encode(), head=head.encode())).findings
    assert "duplicate key" in f.message


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
