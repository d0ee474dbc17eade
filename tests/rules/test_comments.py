"""Comment scanning (YAML and shell), added lines, and the shell command model."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.changeset import FileChange
from rules.comments import added_lines, blocks, shell_comments, touched_lines, yaml_comments

YAML = """# head 1
# head 2
a: 1  # trailing
b: "x # not a comment" # yes
c: 'it''s # no'  # c2
d: don't # plain
e: |
  # inside a block scalar
  text
f: 2
g: "multi
  line # still quoted"
# tail
"""


def test_yaml_comments_respect_quotes_and_block_scalars():
    found = [(c.line, c.text, c.full) for c in yaml_comments(YAML)]
    assert found == [(1, "head 1", True), (2, "head 2", True), (3, "trailing", False), (4, "yes", False),
                     (5, "c2", False), (6, "plain", False), (13, "tail", True)]


def test_blocks_and_what_they_annotate():
    bs = blocks(YAML, yaml_comments(YAML))
    assert [(b.start, b.end, b.trailing, b.annotates) for b in bs][:2] == [(1, 2, False, 3), (3, 3, True, 3)]
    assert bs[-1].annotates is None  # last line: nothing below
    text, spans = bs[0].joined()
    assert text == "head 1\nhead 2"
    line, col = bs[0].locate(spans, text.index("2"))
    assert (line.line, col) == (2, 7)


SH = "\n".join([
    "#!/bin/bash",
    "# one",
    "X=1 # two",
    "echo \"a # b\" '#c' $# ${#X} a#b",
    "cat <<EOF",
    "# not a comment",
    "EOF",
    "cat <<-'END'",
    "\t# nor this",
    "\tEND",
    "run --a # three",
])


def test_shell_comments():
    assert [(c.line, c.text, c.full) for c in shell_comments(SH)] == [
        (2, "one", True), (3, "two", False), (11, "three", False)]


@pytest.mark.parametrize("patch,expected", [
    (None, None),
    ("", None),
    ("@@ -1,2 +1,3 @@\n a\n+b\n c\n", frozenset({2})),
], ids=["no patch", "empty patch", "one added line"])
def test_added_lines(patch, expected):
    assert added_lines(patch) == expected


def test_garbage_patch_has_no_added_lines():
    assert not added_lines("not a patch")


def test_touched_lines_of_added_file_is_everything():
    assert touched_lines(FileChange("a.yaml", "added", head=b"a\nb\n")) == frozenset({1, 2, 3})
    assert touched_lines(FileChange("a.yaml", "modified", head=b"a\n")) is None


def _plain_comment_col(raw, quote):
    """The character-by-character definition the fast `_yaml_comment_col` must agree with."""
    i, n, prev = 0, len(raw), None
    while i < n:
        c = raw[i]
        if quote == "'":
            if c == "'" and i + 1 < n and raw[i + 1] == "'":
                i += 2
                continue
            if c == "'":
                quote, prev = None, c
            i += 1
            continue
        if quote == '"':
            if c == "\\":
                i += 2
                continue
            if c == '"':
                quote, prev = None, c
            i += 1
            continue
        if c == "#" and (i == 0 or raw[i - 1] in " \t"):
            return i, None
        if c in "'\"" and (prev is None or prev in "[{," or (prev in ":-?" and raw[i - 1] in " \t")):
            quote = c
        elif c not in " \t":
            prev = c
        i += 1
    return None, quote


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="a #'\"\\\t:-?[{,x", max_size=30), st.sampled_from([None, "'", '"']))
def test_fast_comment_column_matches_the_plain_scan(raw, quote):
    from rules.comments import _yaml_comment_col

    assert _yaml_comment_col(raw, quote) == _plain_comment_col(raw, quote)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="ab: -#'\"|>\n\n  \t?[]{},x1", max_size=120))
def test_skipping_plain_lines_loses_no_comment(text):
    """The scan jumps over lines without `#`, quotes, `|` or `>`; visiting every line finds the same."""
    from rules.comments import _BLOCK_SCALAR, _comment_text, _yaml_comments

    expected, quote, block = [], None, None
    for no, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.lstrip(" ")
        indent = len(raw) - len(stripped)
        if block is not None:
            if not stripped.strip() or indent > block:
                continue
            block = None
        if quote is None and stripped.startswith("#"):
            expected.append((no, indent, _comment_text(raw, indent)[0], True))
            continue
        col, quote = _plain_comment_col(raw, quote)
        code = raw[:col] if col is not None else raw
        if col is not None:
            expected.append((no, col, _comment_text(raw, col)[0], False))
        if quote is None and _BLOCK_SCALAR.search(code.rstrip()):
            block = indent
    assert [(c.line, c.col, c.text, c.full) for c in _yaml_comments.__wrapped__(text)] == expected
