"""parse_yaml's fast path (C parser + line-annotated tree) matches the round-trip loader exactly."""
import io
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from rules.document import _NO_FAST, _fast_lined, parse_yaml

FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.yaml"))
SNIPPETS = {
    "scalars": "a: yes\nb: 0o14\nc: 1_000\nd: 1e3\ne: ~\nf: '898'\ng: 2026-01-01\nh: .inf\n",
    "nested": "base:\n  roles:\n    agg:\n      args: {tp: 8, list: [1, 2, 3]}\n      env:\n        - A\n        - B\n",
    "anchors": "x: &a {k: 1}\ny: *a\n",
    "comments": "# head\na: 1  # trailing\n\nb:\n  - 1 # item\n",
    "block scalar": "text: |\n  line one\n  line two\nnext: 2\n",
    "top list": "- config-keys:\n    - k\n  pr-link: x\n- config-keys: [j]\n",
}


def _walk(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            pos = node.lc.key(k)
            yield path + (k,), (pos[0], pos[1])
            yield from _walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            pos = node.lc.item(i)
            yield path + (i,), (pos[0], pos[1])
            yield from _walk(v, path + (i,))


def _reference(text):
    y = YAML(typ="rt")
    return y.load(io.StringIO(text))


@pytest.mark.parametrize("text", [*SNIPPETS.values(), *(p.read_text() for p in FIXTURES)],
                         ids=[*SNIPPETS, *(p.name for p in FIXTURES)])
def test_fast_tree_equals_round_trip_values_and_lines(text):
    fast = _fast_lined(text)
    assert fast is not _NO_FAST
    ref = _reference(text)
    assert fast == ref
    assert dict(_walk(fast)) == dict(_walk(ref))


@pytest.mark.parametrize("text", ["a: 1\na: 2\n", "base: &b {x: 1}\nover:\n  <<: *b\n  y: 2\n",
                                  "? [a, b]\n: 1\n", "k-1: {image: a:1}\n", "a: [1\n"],
                         ids=["duplicate key", "merge key", "complex key", "yaml 1.2 flow scalar", "syntax error"])
def test_fast_path_declines_what_it_cannot_match(text):
    assert _fast_lined(text) is _NO_FAST
    doc = parse_yaml("x.yaml", text)
    assert doc.ok == (_reference_ok(text))


def _reference_ok(text):
    try:
        YAML(typ="rt").load(io.StringIO(text))
        return True
    except Exception:
        return False


@pytest.mark.parametrize("text,needle", [
    ("k: " + "[" * 100 + "]" * 100 + "\n", "nest deeper than 64"),
    ("k: " + "{a: " * 80 + "1" + "}" * 80 + "\n", "nest deeper than 64"),
    ("a:\n" + " " * 600 + "b: 1\n", "indented more than 512"),
], ids=["deep flow sequence", "deep flow mapping", "huge indentation"])
def test_hostile_nesting_is_refused_before_parsing(text, needle):
    doc = parse_yaml("x.yaml", text)
    assert doc.error is not None and needle in doc.error.message


@pytest.mark.parametrize("text", ["a: '[[[[ {{{{'\nb: \"]]]\"\n" + "".join(f"c{i}: [1, 2]\n" for i in range(40)),
                                  "# [[[[[[ in a comment\n" * 80 + "a: 1\n"],
                         ids=["brackets in quotes", "brackets in comments"])
def test_brackets_in_quotes_and_comments_are_not_nesting(text):
    assert parse_yaml("x.yaml", text).ok


def test_fast_scalars_match_the_reference_exactly():
    text = ("a: x\nb: 12\nc: -7\nd: 0\ne: 007\nf: 1_000\ng: '12'\nh: yes\ni: 1.5\nj: 0x1F\nk: null\n"
            "l: \"quoted\"\nm: 2026-11-30\nn: +3\n")
    fast = _fast_lined(text)
    ref = _reference(text)
    # Round-trip keeps format-preserving int/float subclasses (ScalarInt, …); values and base types match.
    assert fast == ref and all(isinstance(ref[k], type(fast[k])) for k in ref)
