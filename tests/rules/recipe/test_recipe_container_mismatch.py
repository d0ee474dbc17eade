"""RR304: a multi-node recipe's model.container must equal the master image of the keys that use it."""
import pytest

from rules import ChangeSet, FileChange, run
from rules.recipe.checks import recipe_container_mismatch as rule

NV = "configs/nvidia-master.yaml"
RECIPE_REF = "vllm/deepseek-v4/8k1k/disagg-gb200-mid-curve-megamoe-mtp2.yaml"
RECIPE = f"benchmarks/multi_node/srt-slurm-recipes/{RECIPE_REF}"
OLD, NEW = "vllm/vllm-openai:v0.20.1-ubuntu2404", "vllm/vllm-openai:v0.21.0-ubuntu2404"


def master(image: str = OLD, ref: str = f"recipes/{RECIPE_REF}", key: str = "dsv4-fp4-gb200-dynamo-vllm-mtp2") -> bytes:
    return f"""{key}:
  image: {image}
  runner: gb200
  multinode: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - prefill:
          num-worker: 1
          additional-settings:
          - "CONFIG_FILE={ref}"
        decode:
          num-worker: 1
""".encode()


def recipe(container: str = OLD, quote: str = '"') -> bytes:
    return f"name: x\nmodel:\n  path: dsv4\n  container: {quote}{container}{quote}  # pinned\n".encode()


def _run(*files, context=None):
    return run(ChangeSet(files=tuple(files), context=context or {}), rules=[rule])


CASES = [
    ("recipe bumped alone (#1390)", recipe(NEW), master(), [(RECIPE, 4)]),
    ("both agree", recipe(OLD), master(), []),
    ("alias container is not an image", recipe("dynamo-sglang"), master(), []),
    ("enroot host#path spelling", recipe("nvcr.io/nvidia/trt:1.3"), master("nvcr.io#nvidia/trt:1.3"), []),
    (
        "recipe referenced with a variant",
        recipe(NEW),
        master(ref=f"recipes/{RECIPE_REF}:zip_override_x[1]"),
        [(RECIPE, 4)],
    ),
    (
        "newer srt-recipe reference",
        recipe(NEW),
        master().replace(
            b'additional-settings:\n          - "CONFIG_FILE=recipes/' + RECIPE_REF.encode() + b'"',
            b"srt-recipe: " + RECIPE_REF.encode(),
        ),
        [(RECIPE, 4)],
    ),
    ("no master key references the recipe", recipe(NEW), master(ref="recipes/other.yaml"), []),
]


@pytest.mark.parametrize("name,recipe_text,master_text,expected", CASES, ids=[c[0] for c in CASES])
def test_changed_recipe(name, recipe_text, master_text, expected):
    r = _run(FileChange(RECIPE, "modified", base=recipe(OLD), head=recipe_text), context={NV: master_text})
    assert [(f.path, f.line) for f in r.findings] == expected
    assert all(f.code == "RR304" and f.blocking for f in r.findings)


def test_message_evidence_and_suggestion():
    r = _run(FileChange(RECIPE, "modified", base=recipe(OLD), head=recipe(NEW)), context={NV: master()})
    (f,) = r.findings
    assert f.message == (f"`model.container` is `{NEW}`, but master key `dsv4-fp4-gb200-dynamo-vllm-mtp2` "
                         f"has image `{OLD}`")
    assert f.suggestion == f'  container: "{OLD}"  # pinned'
    assert any("references" in e for e in f.evidence)


def test_master_bumped_alone_is_reported_on_the_image_line():
    head = master(NEW)
    patch = f"@@ -1,2 +1,2 @@\n dsv4-fp4-gb200-dynamo-vllm-mtp2:\n-  image: {OLD}\n+  image: {NEW}\n"
    r = _run(FileChange(NV, "modified", base=master(), head=head, patch=patch), context={RECIPE: recipe(OLD)})
    (f,) = r.findings
    assert (f.path, f.line) == (NV, 2)
    assert f.message == (f"`image` of `dsv4-fp4-gb200-dynamo-vllm-mtp2` is `{NEW}`, but its recipe `{RECIPE}` "
                         f"runs container `{OLD}`")


def test_master_change_with_recipe_not_in_review_is_skipped():
    r = _run(FileChange(NV, "modified", base=master(), head=master(NEW)))
    assert r.findings == [] and any(c.status == "skipped" for c in r.checks)


def test_no_master_config_known():
    r = _run(FileChange(RECIPE, "modified", base=recipe(OLD), head=recipe(NEW)))
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]


def test_unparsable_recipe_is_left_to_yaml_invalid():
    r = _run(FileChange(RECIPE, "modified", base=recipe(OLD), head=b"model: [\n"), context={NV: master()})
    assert r.findings == []


def test_schema_two_base_block():
    text = f"base:\n  model:\n    container: {NEW}\nzip_override_x:\n  a: [1]\n".encode()
    r = _run(FileChange(RECIPE, "added", head=text), context={NV: master()})
    assert [(f.path, f.line) for f in r.findings] == [(RECIPE, 3)]
