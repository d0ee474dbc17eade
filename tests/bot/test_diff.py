import pytest

from bot.diff import added_lines, anchor, hunks

PATCH = "@@ -1,3 +1,4 @@\n a\n+b\n c\n d\n@@ -10,2 +11,3 @@\n x\n+y\n z"


def test_hunks_list_right_side_lines():
    hs = hunks(PATCH)
    assert [sorted(h.lines) for h in hs] == [[1, 2, 3, 4], [11, 12, 13]]
    assert hs[1].header == "@@ -10,2 +11,3 @@"
    assert added_lines(PATCH) == [2, 12]


@pytest.mark.parametrize("line,end,expected", [
    (2, None, (2, None, True)),
    (11, 13, (13, 11, True)),
    (3, 12, (4, 3, False)),      # clipped to the first hunk that holds part of the range
    (5, None, None),             # between hunks: not commentable
    (0, None, None),             # file-level finding
], ids=["single line", "range in one hunk", "range across hunks is clipped", "outside the diff", "no line"])
def test_anchor(line, end, expected):
    a = anchor(hunks(PATCH), line, end)
    assert (None if a is None else (a.line, a.start_line, a.exact)) == expected


@pytest.mark.parametrize(
    "patch", [None, "", "not a diff", "@@ garbage @@\n+x"], ids=["none", "empty", "prose", "bad header"]
)
def test_bad_patches_have_no_hunks(patch):
    assert hunks(patch) == [] and added_lines(patch) == []


def test_deletion_only_hunk_keeps_context_lines():
    hs = hunks("@@ -1,3 +1,2 @@\n a\n-b\n c")
    assert sorted(hs[0].lines) == [1, 2]
