import pytest

from rules.added import added_lines
from rules.document import parse_yaml
from rules.serving.recipe_points import as_int, capture, points
from tests.rules.recipe_helpers import SCHEMA2, line_of

ZIP = """\
base:
  name: t
  resources:
    gpus_per_node: 4
    gpus_per_decode: 4
  backend:
    type: sglang
    decode_environment:
      A: '1'
    sglang_config:
      decode:
        tensor-parallel-size: 4
        max-running-requests: 512
zip_override_x:
  name: [a, b]
  backend:
    sglang_config:
      decode:
        max-running-requests: [128, 256]
override_y:
  backend:
    sglang_config:
      decode:
        tensor-parallel-size: 8
"""


def test_schema2_points_merge_base_and_keep_lines():
    pts = points(parse_yaml("r.yaml", SCHEMA2))
    assert [p.name for p in pts] == ["override_gpu_kv_c1", "override_c4", "override_c8", "override_c16",
                                     "override_c24", "override_c32", "override_c48"]
    c32 = pts[5]
    agg = c32.roles[0]
    assert (c32.schema, agg.name, agg.engine) == (2, "agg", "vllm")
    # Inherited from base: base's line. Set in the override: the override's line.
    assert agg.arg("tensor-parallel-size").line == line_of(SCHEMA2, "tensor-parallel-size")
    assert agg.arg("max-num-seqs").value == 24
    assert c32.env("TOTAL_CPU_DRAM_GB").value == "898"
    cap = capture(agg)
    assert (cap.mode, cap.k, cap.mns, cap.mbt, cap.mccs, cap.decode_max) == (
        "FULL_AND_PIECEWISE",
        4,
        24,
        8192,
        8192,
        120,
    )
    assert cap.sizes_line == cap.k_line - 1  # JSON values carry the line of their string


def test_zip_and_plain_overrides():
    pts = points(parse_yaml("r.yaml", ZIP))
    assert [p.name for p in pts] == ["zip_override_x[0]", "zip_override_x[1]", "override_y"]
    mrr = [p.roles[0].arg("max-running-requests") for p in pts]
    assert [v.value for v in mrr] == [128, 256, 512]
    assert mrr[0].line == mrr[1].line == 19  # the zip list's items sit on its line
    assert pts[2].roles[0].arg("tensor-parallel-size").value == 8
    assert pts[0].roles[0].env["A"].value == "1" and pts[0].roles[0].gpus.value == 4


@pytest.mark.parametrize("text", ["", "a: [", "- 1\n- 2\n", "base: 3\n", "backend: {vllm_config: {decode: 5}}\n"],
                         ids=["empty", "invalid", "a list", "scalar base", "role not a mapping"])
def test_bad_input_gives_no_points(text):
    assert points(parse_yaml("r.yaml", text)) == []


def test_invalid_json_arg_is_reported_not_raised():
    text = "backend:\n  vllm_config:\n    decode:\n      compilation-config: '{bad'\n"
    role = points(parse_yaml("r.yaml", text))[0].roles[0]
    j = role.json("compilation-config")
    assert j.data is None and j.error and j.line == 4
    assert capture(role).sizes is None


@pytest.mark.parametrize("value,expect", [(8, 8), ("898", 898), ("1_000", 1000), (True, None), ("8.5", None), (8.0, 8)],
                         ids=["int", "numeric string", "underscores", "bool", "decimal string", "integral float"])
def test_as_int(value, expect):
    assert as_int(value) == expect


def test_added_lines_from_patch():
    patch = "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+C\n c\n@@ -10,2 +11,2 @@\n x\n+y\n"
    assert added_lines(patch) == {2, 3, 12}
    assert added_lines(None) == set()
