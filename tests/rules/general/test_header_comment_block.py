"""RR301: multi-line comment blocks heading a file, a top-level key or the overrides (new ones only)."""
import pytest

from rules import ChangeSet, FileChange, load_config, run
from rules.general.checks import header_comment_block as rule

RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/m/agg.yaml"
MASTER = "configs/nvidia-master.yaml"

HEAD3 = "# one\n# two\n# three\n"

CASES = [
    ("heads the file", RECIPE, HEAD3 + "name: x\n", [(1, "the file")]),
    ("heads the file after ---", RECIPE, "---\n" + HEAD3 + "name: x\n", [(2, "the file")]),
    ("heads a top-level key", RECIPE, "name: x\n" + HEAD3 + "model:\n  a: 1\n", [(2, "top-level key `model`")]),
    ("blank line between block and key", RECIPE, "name: x\n" + HEAD3 + "\nmodel:\n  a: 1\n", [(2, "top-level key `model`")]),
    ("heads the first override", RECIPE,
     "base:\n  a: 1\n  # overrides set max-num-seqs = CONC\n  # capture lists come from batch sizes\n"
     "  # the golden AL replaces the measured one\n  override_c64:\n    a: 2\n", [(3, "the overrides (`override_c64`)")]),
    ("heads a zip override at top level", RECIPE,
     "base:\n  a: 1\n" + HEAD3 + "zip_override_x:\n  a: [1, 2]\n", [(3, "the overrides (`zip_override_x`)")]),
    ("master config key", MASTER, "a-key:\n  image: x\n\n" + HEAD3 + "b-key:\n  image: y\n", [(4, "top-level key `b-key`")]),
    ("two-line note above a value is fine", RECIPE, "model:\n  # short note\n  # second line\n  a: 1\n", []),
    ("two lines of text plus separators", RECIPE, "#\n# one\n#\n# two\n#\nname: x\n", []),
    ("nested block above a specific value", RECIPE, "model:\n  # one\n  # two\n  # three\n  a: 1\n", []),
    ("trailing comments do not form a block", RECIPE, "a: 1 # one\nb: 2 # two\nc: 3 # three\n", []),
    ("commented-out config", RECIPE, "name: x\n# - { tp: 4 }\n# - { tp: 8 }\n# conc-end: 64\nmodel: 1\n", []),
    ("block scalar content", RECIPE, "script: |\n  # one\n  # two\n  # three\n  echo\nmodel: 1\n", []),
    ("scripts are out of scope", "benchmarks/single_node/x.sh", HEAD3 + "echo\n", []),
]


@pytest.mark.parametrize("name,path,text,expected", CASES, ids=[c[0] for c in CASES])
def test_added_files(name, path, text, expected):
    r = run(ChangeSet(files=(FileChange(path, "added", head=text.encode()),)), rules=[rule])
    assert [(f.line, f.message.split(" heads ")[1].split(":")[0]) for f in r.findings] == \
        [(line, where) for line, where in expected]
    assert all(f.code == "RR301" and not f.blocking for f in r.findings)


def test_message_and_range():
    r = run(ChangeSet(files=(FileChange(RECIPE, "added", head=(HEAD3 + "name: x\n").encode()),)), rules=[rule])
    (f,) = r.findings
    assert f.message == "3-line comment block heads the file: `one`" and (f.line, f.end_line) == (1, 3)


def test_untouched_history_is_not_flagged():
    text = (HEAD3 + "name: x\nmodel: 1\n").encode()
    head = text.replace(b"model: 1", b"model: 2")
    patch = "@@ -4,2 +4,2 @@\n name: x\n-model: 1\n+model: 2\n"
    r = run(ChangeSet(files=(FileChange(RECIPE, "modified", base=text, head=head, patch=patch),)), rules=[rule])
    assert r.findings == [] and r.checks[0].status == "passed"


def test_edited_block_is_flagged():
    base = b"name: x\nmodel: 1\n"
    head = b"name: x\n" + HEAD3.encode() + b"model: 1\n"
    patch = "@@ -1,2 +1,5 @@\n name: x\n+# one\n+# two\n+# three\n model: 1\n"
    r = run(ChangeSet(files=(FileChange(RECIPE, "modified", base=base, head=head, patch=patch),)), rules=[rule])
    assert [f.line for f in r.findings] == [2]


def test_without_patch_the_file_is_skipped():
    r = run(ChangeSet(files=(FileChange(RECIPE, "modified", base=b"a: 1\n", head=(HEAD3 + "a: 1\n").encode()),)),
            rules=[rule])
    assert r.findings == [] and r.checks[0].status == "skipped"


def test_min_lines_option():
    config, errors = load_config({"rules": {"header-comment-block": {"options": {"min_lines": 4}}}})
    assert not errors
    r = run(ChangeSet(files=(FileChange(RECIPE, "added", head=(HEAD3 + "name: x\n").encode()),)),
            config=config, rules=[rule])
    assert r.findings == []
