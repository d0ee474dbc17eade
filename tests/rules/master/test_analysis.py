"""rules.master.analysis: fast key scan, lazy values, changed keys, key matching, recipe refs, images."""
import pytest

from rules.changeset import FileChange
from rules.finding import Skipped
from rules.master.analysis import (
    ImageRef,
    changed_keys,
    close_keys,
    dram_utilization,
    key_info,
    master_files,
    master_keys,
    match_keys,
    parse_image,
    recipe_refs,
    scenario_entries,
    touched_rows,
    unreadable_files,
)
from tests.rules.mc_helpers import AMD, BASE, NV, ROWS, change_one, ctx_of, master, modified, row


def _ctx_head(raw: bytes, path: str = NV):
    return ctx_of(FileChange(path, "added", head=raw))


def test_scan_finds_keys_lines_and_values():
    ctx = _ctx_head(BASE)
    keys = master_keys(ctx)
    assert list(keys) == ["dsv4-fp4-b200-vllm", "dsv4-fp4-b300-vllm", "dsr1-fp8-h200-sglang"]
    info = keys["dsv4-fp4-b300-vllm"]
    assert (info.line, info.end_line, info.line_of("image"), info.line_of("scenarios")) == (16, 29, 17, 24)
    assert info.line_of("missing-field") == 16
    assert info.value["image"] == "vllm/vllm-openai:v0.20.1"
    assert info.value["scenarios"]["fixed-seq-len"][0]["search-space"] == [{"tp": 8, "conc-start": 4, "conc-end": 64}]
    assert info.get("model-prefix") == "dsv4" and info.error is None


def test_trailing_comments_and_blank_lines_are_not_part_of_the_block():
    raw = b"a-1:\n  image: x:1\n  # trailing\n\n# header of the next key\nb-1:\n  image: y:2\n"
    keys = master_keys(_ctx_head(raw))
    assert (keys["a-1"].end_line, keys["b-1"].line) == (2, 6)
    assert keys["a-1"].text == "a-1:\n  image: x:1\n"


def test_line_of_ignores_nested_fields_with_the_same_name():
    raw = b"k-1:\n  router:\n    image: nested:1\n  image: top:1\n"
    assert master_keys(_ctx_head(raw))["k-1"].line_of("image") == 4


@pytest.mark.parametrize("raw, keys", [
    (b'"quoted-key":\n  image: a:1\n\'single\':\n  image: b:1\n', ["quoted-key", "single"]),
    (b"---\nk-1:\n  image: a:1\n", ["k-1"]),
    (b"\xef\xbb\xbfk-1:\n  image: a:1\n", ["k-1"]),
    (b"k-1:\r\n  image: a:1\r\n\r\nk-2:\r\n  image: b:1\r\n", ["k-1", "k-2"]),
    (b"k-1: {image: a:1, model-prefix: k}\n", ["k-1"]),
], ids=["quoted keys", "document start marker", "byte order mark", "CRLF line ends", "flow value on the key line"])
def test_scan_handles_key_line_variants(raw, keys):
    found = master_keys(_ctx_head(raw))
    assert list(found) == keys
    assert all(isinstance(i.value, dict) for i in found.values())


@pytest.mark.parametrize("raw, values", [
    (b"{k-1: {image: a:1}, k-2: {image: b:1}}\n", {"k-1": {"image": "a:1"}, "k-2": {"image": "b:1"}}),
    (b"? k-1\n: {image: a:1}\n", {"k-1": {"image": "a:1"}}),
    (b"k-1: &base\n  image: a:1\nk-2: *base\n", {"k-1": {"image": "a:1"}, "k-2": {"image": "a:1"}}),
], ids=["top-level flow mapping", "explicit key", "alias at column 0"])
def test_unusual_layouts_take_the_exact_path(raw, values):
    found = master_keys(_ctx_head(raw))
    assert {k: i.value for k, i in found.items()} == values
    assert found["k-1"].line == 1


def test_alias_to_another_block_resolves_through_the_whole_file():
    raw = b"k-1:\n  image: &img a:1\nk-2:\n  image: *img\n"
    info = master_keys(_ctx_head(raw))["k-2"]
    assert info.value == {"image": "a:1"} and info.error is None


def test_broken_block_reports_its_error_not_an_exception():
    raw = b"k-1:\n  image: [a, b\nk-2:\n  image: b:1\n"
    keys = master_keys(_ctx_head(raw))
    assert keys["k-1"].value is None and keys["k-1"].error
    assert keys["k-2"].value == {"image": "b:1"}


def test_duplicate_top_level_keys_are_recorded():
    mf = master_files(_ctx_head(b"k-1:\n  image: a:1\nk-1:\n  image: b:1\n"))[0]
    assert mf.duplicates == ("k-1",) and mf.keys["k-1"].line == 3


@pytest.mark.parametrize("raw, error", [
    (None, "not available"),
    (b"\0\0", "binary"),
    (b"k: \xff\n", "UTF-8"),
    (b"- a\n- b\n", "not a mapping"),
    (b"{a: [\n", "does not parse"),
    (b"x" * (8 * 1024 * 1024 + 1), "bytes"),
], ids=["content missing", "binary", "not UTF-8", "top level is a list", "invalid YAML", "too large"])
def test_unreadable_master_file_is_an_error_not_a_crash(raw, error):
    ctx = ctx_of(FileChange(NV, "modified", base=BASE, head=raw))
    [mf] = unreadable_files(ctx)
    assert error in mf.error and mf.keys == {}
    skipped = [s for s in touched_rows(ctx) if isinstance(s, Skipped)]
    assert skipped and error in skipped[0].detail


def test_context_and_base_context_supply_unchanged_files():
    amd = master(row("dsr1-fp4-mi355x-sglang"))
    ctx = ctx_of(modified(NV, BASE, BASE), context={AMD: amd, "configs/runners.yaml": b"labels: {}\n"})
    assert "dsr1-fp4-mi355x-sglang" in master_keys(ctx, "head")
    assert "dsr1-fp4-mi355x-sglang" in master_keys(ctx, "base")
    assert key_info(ctx, "dsr1-fp4-mi355x-sglang").path == AMD
    assert key_info(ctx, "nope") is None
    assert [mf.path for mf in master_files(ctx)] == [AMD, NV]


def _changes(ctx):
    return [(c.key, c.status, c.path, c.line) for c in changed_keys(ctx)]


@pytest.mark.parametrize(
    "head_rows, expected",
    [
        (ROWS, []),
        ((ROWS[0], row("dsv4-fp4-b300-vllm", tp=4), ROWS[2]), [("dsv4-fp4-b300-vllm", "changed", NV, 16)]),
        ((*ROWS, row("dsv4-fp4-gb200-vllm")), [("dsv4-fp4-gb200-vllm", "added", NV, 46)]),
        ((ROWS[0], ROWS[2]), [("dsv4-fp4-b300-vllm", "removed", NV, 16)]),
        ((ROWS[0], ROWS[1].replace("  model: org/model\n", "  model: org/model   # why\n"), ROWS[2]), []),
        (
            (
                ROWS[0],
                ROWS[1].replace("  runner: b200\n  precision: fp4\n", "  precision: fp4\n  runner: b200\n"),
                ROWS[2],
            ),
            [],
        ),
        ((ROWS[2], ROWS[0], ROWS[1]), []),
        ((ROWS[0], ROWS[1].replace("tp: 8", "tp: [8"), ROWS[2]), [("dsv4-fp4-b300-vllm", "changed", NV, 16)]),
    ],
    ids=[
        "identical",
        "value changed",
        "key added",
        "key removed",
        "comment only",
        "fields reordered",
        "keys reordered",
        "block made invalid",
    ],
)
def test_changed_keys(head_rows, expected):
    assert _changes(change_one(head_rows)) == expected


def test_key_moved_between_changed_files_is_not_a_change():
    amd_base = master(row("dsr1-fp4-mi355x-sglang"))
    amd_head = master(row("dsr1-fp4-mi355x-sglang"), ROWS[1])
    nv_head = master(ROWS[0], ROWS[2])
    ctx = ctx_of(modified(NV, BASE, nv_head), modified(AMD, amd_base, amd_head))
    assert _changes(ctx) == []


def test_key_moved_into_an_unchanged_context_file_is_not_removed():
    ctx = ctx_of(modified(NV, BASE, master(ROWS[0], ROWS[2])), context={AMD: master(ROWS[1])})
    assert _changes(ctx) == []


def test_move_to_deprecated_removes_the_keys():
    dep = "configs/deprecated/nvidia-dsv4-master.yaml"
    ctx = ctx_of(modified(NV, BASE, master(ROWS[2])), FileChange(dep, "added", head=master(ROWS[0], ROWS[1])))
    assert [(k, s) for k, s, *_ in _changes(ctx)] == [
        ("dsv4-fp4-b200-vllm", "removed"),
        ("dsv4-fp4-b300-vllm", "removed"),
    ]


def test_removed_and_renamed_master_files():
    ctx = ctx_of(FileChange(NV, "removed", base=BASE))
    assert {s for _, s, *_ in _changes(ctx)} == {"removed"} and master_keys(ctx) == {}
    renamed = ctx_of(FileChange("configs/new-master.yaml", "renamed", base=BASE, head=BASE, previous_path=NV))
    assert _changes(renamed) == []


def test_touched_rows_yields_changed_heads_and_skips_unparsable_blocks():
    ctx = change_one((row("dsv4-fp4-b200-vllm", tp=2), ROWS[1].replace("tp: 8", "tp: [8"), ROWS[2]))
    items = list(touched_rows(ctx))
    assert items[0].key == "dsv4-fp4-b200-vllm"
    assert isinstance(items[1], Skipped) and "dsv4-fp4-b300-vllm" in items[1].detail


@pytest.mark.parametrize("item, expected", [
    ("dsv4-fp4-b200-vllm", ["dsv4-fp4-b200-vllm"]),
    ("dsv4-*", ["dsv4-fp4-b200-vllm", "dsv4-fp4-b300-vllm"]),
    ("*-vllm", ["dsv4-fp4-b200-vllm", "dsv4-fp4-b300-vllm"]),
    ("*", ["dsv4-fp4-b200-vllm", "dsv4-fp4-b300-vllm", "dsr1-fp8-h200-sglang"]),
    ("dsv4-fp4-b?00-vllm", []),
    ("dsv4.fp4-b200-vllm", []),
    ("dsv4-fp4-b200", []),
    ("dsv4-*-h100", []),
    ("DSV4-fp4-b200-vllm", []),
], ids=["exact", "prefix wildcard", "suffix wildcard", "bare star", "? is literal", "dot is literal",
        "exact needs the whole key", "wildcard matching nothing", "case matters"])
def test_match_keys(item, expected):
    keys = ["dsv4-fp4-b200-vllm", "dsv4-fp4-b300-vllm", "dsr1-fp8-h200-sglang"]
    assert match_keys(item, keys) == expected


def test_close_keys():
    assert close_keys("dsv4-fp4-b200-vlm", ["dsv4-fp4-b200-vllm", "dsr1-fp8-h200-sglang"]) == ["dsv4-fp4-b200-vllm"]
    assert close_keys("zzz", ["dsv4-fp4-b200-vllm"]) == []


@pytest.mark.parametrize(
    "value, refs",
    [
        (
            {
                "scenarios": {
                    "fixed-seq-len": [
                        {
                            "search-space": [
                                {
                                    "prefill": {
                                        "additional-settings": [
                                            "CONFIG_FILE=recipes/trtllm/b200-fp4/8k1k/a.yaml",
                                            "OTHER=1",
                                        ]
                                    }
                                }
                            ]
                        }
                    ]
                }
            },
            ["recipes/trtllm/b200-fp4/8k1k/a.yaml"],
        ),
        (
            {"x": ["CONFIG_FILE=recipes/a.yaml:zip_override_x[1]", "CONFIG_FILE=recipes/a.yaml:zip_override_x[1]"]},
            ["recipes/a.yaml:zip_override_x[1]"],
        ),
        (
            {
                "srt-recipe-dir": "benchmarks/multi_node/srt-slurm-recipes/dsv4/vllm/",
                "scenarios": {
                    "agentic-coding": [
                        {"search-space": [{"srt-recipe": "agg-tp8.yaml", "eval-srt-recipe": "eval.yaml"}]}
                    ]
                },
            },
            [
                "benchmarks/multi_node/srt-slurm-recipes/dsv4/vllm/agg-tp8.yaml",
                "benchmarks/multi_node/srt-slurm-recipes/dsv4/vllm/eval.yaml",
            ],
        ),
        ({"srt-recipe": ["a.yaml", 3, ""]}, ["a.yaml"]),
        ({"note": "CONFIG_FILE=recipes/b.yaml"}, ["recipes/b.yaml"]),
        ({"image": "x:1"}, []),
        (None, []),
    ],
    ids=[
        "CONFIG_FILE in additional-settings",
        "variant kept, duplicates dropped",
        "srt-recipe joined to its dir",
        "srt-recipe list with junk",
        "CONFIG_FILE in a plain string field",
        "no recipe",
        "no value",
    ],
)
def test_recipe_refs(value, refs):
    assert recipe_refs(value) == refs


def test_dram_utilization_and_scenario_entries():
    assert dram_utilization({"dram-utilization": 0.8}) == 0.8
    assert dram_utilization({"dram-utilization": True}) is None
    assert dram_utilization({"dram-utilization": "0.8"}) is None
    assert dram_utilization("x") is None
    value = master_keys(_ctx_head(BASE))["dsv4-fp4-b200-vllm"].value
    assert [(n, p["tp"]) for n, _, p in scenario_entries(value)] == [("fixed-seq-len", 8)]
    assert list(scenario_entries({"scenarios": {"x": [1, {"search-space": [2]}]}})) == []
    assert list(scenario_entries([])) == []


@pytest.mark.parametrize("image, ref", [
    ("vllm/vllm-openai:v0.20.1", ImageRef("docker.io", "vllm/vllm-openai", "v0.20.1", None)),
    ("ubuntu", ImageRef("docker.io", "ubuntu", None, None)),
    ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1",
     ImageRef("nvcr.io", "nvidia/ai-dynamo/tensorrtllm-runtime", "0.8.1.post1", None)),
    ("nvcr.io#nvidia/sglang:25.01", ImageRef("nvcr.io", "nvidia/sglang", "25.01", None)),
    ("myregistry.local:5000/x", ImageRef("myregistry.local:5000", "x", None, None)),
    ("localhost/x:1", ImageRef("localhost", "x", "1", None)),
    ("lmsysorg/sglang@sha256:" + "a" * 64, ImageRef("docker.io", "lmsysorg/sglang", None, "sha256:" + "a" * 64)),
    ("Vllm/vllm:1", None),
    ("vllm/vllm:1 ", None),
    ("vllm/vllm:", None),
    ("vllm/vllm@sha256:xyz", None),
    ("org/repo#tag", None),
    ("", None),
    ("bad_host.io:port/x", None),
], ids=["docker hub org/repo:tag", "official image no tag", "nvcr.io nested path", "enroot # form",
        "private host with port", "localhost", "digest", "uppercase repo", "trailing space", "empty tag",
        "bad digest", "hash without host", "empty", "malformed host"])
def test_parse_image(image, ref):
    assert parse_image(image) == ref


def test_whole_snapshot_shape_scan_matches_a_full_parse():
    """A synthetic 2,000-line file: the scan's per-block values equal one full safe parse."""
    from ruamel.yaml import YAML

    raw = master(*(row(f"m{i}-fp4-b200-vllm", tp=i % 8 + 1) for i in range(130)))
    full = YAML(typ="safe", pure=True).load(raw)
    keys = master_keys(_ctx_head(raw))
    assert list(keys) == list(full) and all(keys[k].value == v for k, v in full.items())


def test_only_removes_rows_in_the_older_seq_len_configs_layout():
    from rules.master.analysis import RowRemoval, only_removes_rows
    rows = [{"tp": 8, "conc-start": 4, "conc-end": 64}, {"tp": 4, "conc-start": 4, "conc-end": 64}]
    base = {"image": "x:1", "seq-len-configs": [{"isl": 1024, "osl": 1024, "search-space": rows},
                                                 {"isl": 8192, "osl": 1024, "search-space": rows[:1]}]}
    head = {"image": "x:1", "seq-len-configs": [{"isl": 1024, "osl": 1024, "search-space": rows[1:]}]}
    assert only_removes_rows(base, head) == RowRemoval(3, 1, 2, 1)
    assert only_removes_rows(base, {**head, "image": "x:2"}) is None  # a removal and an edit
    assert only_removes_rows(base, base) is None  # no change at all
    assert only_removes_rows(head, base) is None  # rows added
    assert only_removes_rows(base, {"image": "x:1"}) is None  # the field itself removed: a change
