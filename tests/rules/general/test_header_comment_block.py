"""RR301: multi-line comment blocks heading a file, a top-level key or the overrides (new ones only)."""
import pytest

from rules import ChangeSet, FileChange, load_config, run
from rules.general.checks import header_comment_block as rule

RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/m/agg.yaml"
MASTER = "configs/nvidia-master.yaml"

HEAD3 = "# one\n# two\n# three\n"
# An own-words guidance file of the base revision that forbids header comments (rules/policy.py).
GUIDANCE = (b"# Working here\n\nKeep recipes lean.\n\n- Do not add header comments that describe a whole file, "
            b"section or override; a short note beside one value is fine.\n")
POLICY = {"base_context": {"AGENTS.md": GUIDANCE}, "base_probed": frozenset({"AGENTS.md", "CONTRIBUTING.md"})}


def CS(*files, **kw):
    """A changeset whose base guidance forbids header comments."""
    return ChangeSet(files=tuple(files), **{**POLICY, **kw})

CASES = [
    ("heads the file", RECIPE, HEAD3 + "name: x\n", [(1, "the file")]),
    ("heads the file after ---", RECIPE, "---\n" + HEAD3 + "name: x\n", [(2, "the file")]),
    ("heads a top-level key", RECIPE, "name: x\n" + HEAD3 + "model:\n  a: 1\n", [(2, "top-level key `model`")]),
    (
        "blank line between block and key",
        RECIPE,
        "name: x\n" + HEAD3 + "\nmodel:\n  a: 1\n",
        [(2, "top-level key `model`")],
    ),
    (
        "heads the first override",
        RECIPE,
        "base:\n  a: 1\n  # overrides set max-num-seqs = CONC\n  # capture lists come from batch sizes\n"
        "  # the golden AL replaces the measured one\n  override_c64:\n    a: 2\n",
        [(3, "the overrides (`override_c64`)")],
    ),
    (
        "heads a zip override at top level",
        RECIPE,
        "base:\n  a: 1\n" + HEAD3 + "zip_override_x:\n  a: [1, 2]\n",
        [(3, "the overrides (`zip_override_x`)")],
    ),
    (
        "master config key",
        MASTER,
        "a-key:\n  image: x\n\n" + HEAD3 + "b-key:\n  image: y\n",
        [(4, "top-level key `b-key`")],
    ),
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
    r = run(CS(FileChange(path, "added", head=text.encode())), rules=[rule])
    assert [(f.line, f.message.split(" heads ")[1].split(":")[0]) for f in r.findings] == \
        [(line, where) for line, where in expected]
    assert all(f.code == "RR301" and not f.blocking for f in r.findings)


def test_message_and_range():
    r = run(CS(FileChange(RECIPE, "added", head=(HEAD3 + "name: x\n").encode())), rules=[rule])
    (f,) = r.findings
    assert f.message == "3-line comment block heads the file: `one`" and (f.line, f.end_line) == (1, 3)


def test_untouched_history_is_not_flagged():
    text = (HEAD3 + "name: x\nmodel: 1\n").encode()
    head = text.replace(b"model: 1", b"model: 2")
    patch = "@@ -4,2 +4,2 @@\n name: x\n-model: 1\n+model: 2\n"
    r = run(CS(FileChange(RECIPE, "modified", base=text, head=head, patch=patch)), rules=[rule])
    assert r.findings == [] and r.checks[0].status == "passed"


def test_edited_block_is_flagged():
    base = b"name: x\nmodel: 1\n"
    head = b"name: x\n" + HEAD3.encode() + b"model: 1\n"
    patch = "@@ -1,2 +1,5 @@\n name: x\n+# one\n+# two\n+# three\n model: 1\n"
    r = run(CS(FileChange(RECIPE, "modified", base=base, head=head, patch=patch)), rules=[rule])
    assert [f.line for f in r.findings] == [2]


def test_without_patch_the_file_is_skipped():
    r = run(CS(FileChange(RECIPE, "modified", base=b"a: 1\n", head=(HEAD3 + "a: 1\n").encode())), rules=[rule])
    assert r.findings == [] and r.checks[0].status == "skipped"


def test_min_lines_option():
    config, errors = load_config({"rules": {"header-comment-block": {"options": {"min_lines": 4}}}})
    assert not errors
    r = run(CS(FileChange(RECIPE, "added", head=(HEAD3 + "name: x\n").encode())),
            config=config, rules=[rule])
    assert r.findings == []


NEW_RECIPE = FileChange(RECIPE, "added", head=(HEAD3 + "name: x\n").encode())


def test_the_finding_quotes_the_convention_it_enforces():
    (f,) = run(CS(NEW_RECIPE), rules=[rule]).findings
    assert any(
        e.startswith('the convention: AGENTS.md:5 at the base: "- Do not add header comments') for e in f.evidence
    )


@pytest.mark.parametrize("guidance,fires", [
    (b"No header comments describing a file, topology or recipe.\n", True),
    (b"Header comments are not allowed in recipes.\n", True),
    (b"Avoid header-comment blocks above the overrides.\n", True),
    (b"Please never write header comments.\n", True),
    (b"Use header comments to explain each section.\n", False),   # allowed, not forbidden
    (b"Comments should be short. Headers are bold.\n", False),
    (b"", False),
], ids=["no", "not-allowed", "other-words", "never", "encouraged", "unrelated", "empty"])
def test_fires_only_where_the_base_guidance_forbids_header_comments(guidance, fires):
    cs = ChangeSet(files=(NEW_RECIPE,), base_context={"CONTRIBUTING.md": guidance},
                   base_probed=frozenset({"AGENTS.md", "CONTRIBUTING.md"}))
    assert bool(run(cs, rules=[rule]).findings) is fires


def test_a_base_without_guidance_files_gets_nothing():
    cs = ChangeSet(files=(NEW_RECIPE,), base_probed=frozenset({"AGENTS.md", "CONTRIBUTING.md"}))
    r = run(cs, rules=[rule])
    assert r.findings == [] and r.checks == []


def test_guidance_not_read_is_skipped_with_the_reason():
    r = run(ChangeSet(files=(NEW_RECIPE,)), rules=[rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
    assert "was not read" in r.checks[0].detail


def test_the_guidance_is_read_at_the_base_not_the_head():
    """A PR that adds the convention to AGENTS.md is not held to it on that PR."""
    added = FileChange("AGENTS.md", "added", head=GUIDANCE)
    cs = ChangeSet(files=(NEW_RECIPE, added), base_probed=frozenset({"AGENTS.md"}))
    assert run(cs, rules=[rule]).findings == []


def test_guidance_at_the_layout_root_counts():
    path = "inferencex-e2e/benchmarks/single_node/srt-slurm-recipes/m/vllm/agentic.yaml"
    f = FileChange(path, "added", head=(HEAD3 + "name: x\n").encode())
    from rules.config import EngineConfig
    from rules.policy import policy_paths
    probed = policy_paths([path], EngineConfig())
    assert "inferencex-e2e/AGENTS.md" in probed and "AGENTS.md" in probed
    cs = ChangeSet(files=(f,), base_context={"inferencex-e2e/AGENTS.md": GUIDANCE}, base_probed=frozenset(probed))
    (found,) = run(cs, rules=[rule]).findings
    assert any("inferencex-e2e/AGENTS.md:5" in e for e in found.evidence)
