"""rules.changelog.gates: the PR-run check and the merge path, reproduced stage by stage."""
import dataclasses

import pytest

from rules.changelog.gates import MERGE, PR_RUN, changelog_gates, entry_schema_error, gate_note, line_diff
from rules.context import ReviewContext
from rules.conventions import PR_RUN_MATRIX_ONLY, STRICT_VALIDATOR, WHITESPACE_DELETIONS_OK, Conventions, at
from tests.rules.changelog_helpers import BASE, NEW, changeset, entry, insert_before


def _gates(base, head, base_time=None, **kw):
    cs = dataclasses.replace(changeset(base, head, **kw), base_time=base_time)
    return changelog_gates(ReviewContext(cs))["perf-changelog.yaml"]


def _stages(report):
    return sorted({f.stage for f in report.pr_run}), sorted({f.stage for f in report.merge})


def test_clean_append_passes_both():
    g = _gates(BASE, BASE + "\n" + NEW)
    assert g.pr_run_ok and g.merge_ok


@pytest.mark.parametrize(
    "head, pr_run, merge",
    [
        (lambda: insert_before(BASE, 3), [], ["entry-changed", "raw-prefix"]),
        (lambda: BASE + "\n\n" + NEW, [], ["separator-history"]),
        (lambda: BASE + "\n" + NEW + "\n", [], ["trailing-empty-line"]),
        (lambda: BASE + "\n" + NEW.rstrip("\n"), ["final-newline"], ["file-format"]),
        (lambda: BASE + "\n" + NEW.replace("pull/4867", "pull/1"), [], ["added-pr-link"]),
        (
            lambda: BASE.replace("pull/4720", "pull/4721") + "\n" + NEW,
            ["deleted-line"],
            ["correction-invalid", "raw-prefix"],
        ),
        (
            lambda: BASE + "\n" + NEW.replace("  description:", "  description:\n    - a\n  description:"),
            [],
            ["file-yaml"],
        ),
        (
            lambda: BASE + "\n" + NEW.replace("  pr-link", "  pr_link"),
            ["entry-schema"],
            ["added-pr-link", "entry-schema"],
        ),
    ],
    ids=[
        "mid-file",
        "two-empty-lines",
        "extra-final-line",
        "no-final-newline",
        "other-pr-link",
        "historical-link-edited",
        "duplicate-key",
        "unknown-key",
    ],
)
def test_each_gate_rejects_what_its_tool_rejects(head, pr_run, merge):
    assert _stages(_gates(BASE, head())) == (pr_run, merge)


def test_pr_link_only_correction_the_two_gates_disagree_on():
    base = BASE.replace("pull/4720", "pull/XXX")
    g = _gates(base, BASE)
    assert _stages(g) == (["deleted-line"], [])


def test_whitespace_deletions_before_and_after_they_were_tolerated():
    base = BASE + "  \n"
    head = BASE + "\n" + NEW  # the historical "  " line at the end is rewritten
    assert _stages(_gates(base, head))[0] == []
    assert _stages(_gates(base, head, base_time=WHITESPACE_DELETIONS_OK - 1))[0] == ["deleted-line"]


def test_no_merge_path_before_the_strict_validator_and_strict_pr_run_for_one_day():
    head = insert_before(BASE, 3)
    early = _gates(BASE, head, base_time=STRICT_VALIDATOR - 1)
    assert early.merge == () and not early.merge_exists
    day = _gates(BASE, head, base_time=STRICT_VALIDATOR + 3600)
    assert "entry-changed" in _stages(day)[0]  # the PR-run check ran the strict functions that day
    assert _stages(_gates(BASE, head, base_time=PR_RUN_MATRIX_ONLY + 1))[0] == []


def test_gate_note_sentences():
    g = _gates(BASE, BASE + "\n\n" + NEW)
    n = gate_note(g, merge=("separator-history",))
    assert (n.gate, n.sentence) == (MERGE, "The PR-run check passes this; the merge path rejects it at merge.")
    assert n.evidence[0].startswith("merge path (today's tooling): `new changelog entries must be separated")
    assert gate_note(g, pr_run=("deleted-line",)).sentence.startswith("Both gates accept this")
    g2 = _gates(BASE, BASE + "\n" + NEW.rstrip("\n"))
    assert gate_note(g2, pr_run=("final-newline",), merge=("file-format",)).gate == PR_RUN


def test_line_diff_matches_git_on_the_usual_shapes():
    d = line_diff(b"a\nb\nc\n", b"a\nb\nX\nc\n")
    assert (d.deleted, [x for _, x in d.added]) == ((), [b"X"])
    d = line_diff(b"a\nb", b"a\nb\n\nc\n")  # no final newline in base: its last line is rewritten
    assert [x for _, _, x in d.deleted] == [b"b"] and [x for _, x in d.added] == [b"b", b"", b"c"]
    big = b"".join(b"line %d\n" % i for i in range(9000))
    d = line_diff(big, big.replace(b"line 10\n", b"line 10\nnew\n").replace(b"line 8000\n", b""))
    assert [x for _, _, x in d.deleted] == [b"line 8000"] and [x for _, x in d.added] == [b"new"]


@pytest.mark.parametrize("data, conv, error", [
    ({"config-keys": ["k"], "description": ["x"], "pr-link": "l", "evals-only": "true"}, Conventions(), None),
    ({"config-keys": ["k"], "description": [""], "pr-link": "l"}, Conventions(), None),
    ({"config-keys": [None], "description": ["x"], "pr-link": "l"}, Conventions(), "config-keys.0"),
    ({"config-keys": ["k"], "description": ["x"], "pr-link": "l", "append-only": True}, at(1_784_000_000),
     "append-only: Extra inputs"),
    ({"config-keys": ["k"], "description": ["x"], "pr-link": "l", "all-evals": True}, at(1_780_000_000),
     "all-evals: Extra inputs"),
], ids=["lax-bool", "empty-description-passes-the-tool", "null-key", "append-only-before-it-existed",
        "all-evals-before-it-existed"])
def test_entry_schema_as_the_tool_reads_it(data, conv, error):
    got = entry_schema_error(data, conv)
    assert (got is None) if error is None else (error in got)


@pytest.mark.slow
def test_large_rewrite_is_judged():
    # Wall time of this input: benchmarks/bounded_inputs.py.
    base = "".join(entry(f"k{i}-fp8-h100-vllm", 1000 + i) + "\n" for i in range(3000))
    head = base.replace("Bump the image", "Bump the images") + "\n" + NEW
    ctx = ReviewContext(changeset(base.encode(), head.encode()))  # bytes: no patch to compute
    g = changelog_gates(ctx)["perf-changelog.yaml"]
    assert not g.pr_run_ok and not g.merge_ok


def _git_line_diff(tmp_path, base: bytes, head: bytes):
    """(deleted base line numbers with text, added head line numbers with text) as `git diff` reports them."""
    import re
    import subprocess
    (tmp_path / "a").write_bytes(base)
    (tmp_path / "b").write_bytes(head)
    out = subprocess.run(["git", "diff", "--no-index", "--no-color", "-U0", "a", "b"], cwd=tmp_path,
                         capture_output=True, check=False).stdout
    deleted, added, bl, hl = [], [], 0, 0
    for line in out.split(b"\n"):
        m = re.match(rb"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", line)
        if m:
            bl, hl = int(m[1]), int(m[2])
            continue
        if line.startswith(b"-") and not line.startswith(b"---"):
            deleted.append((bl, line[1:]))
            bl += 1
        elif line.startswith(b"+") and not line.startswith(b"+++"):
            added.append((hl, line[1:]))
            hl += 1
    return deleted, added


@pytest.mark.parametrize("base, head", [
    (b"a\nb\nc\n", b"a\nb\nX\n"),  # only the last line differs
    (b"a\nb\nc\n", b"X\nb\nc\n"),  # only the first line differs
    (b"a\nb\nc\n", b"a\nb\nc\nd\ne\n"),  # a pure insertion at the end
    (b"a\nb\nc\n", b"a\nb\nc\n"),  # identical
    (b"a\nb\nc", b"a\nb\nc\n\nd\n"),  # base without final newline, appended to
    (b"a\nb\nc", b"a\nb\nX"),  # neither ends with a newline; the last line differs
    (b"a\nb\nc\n", b"a\nb\nc"),  # head drops the final newline
    (b"Q\nA\nbc", b"Q\nX\nA\nxc"),  # common bytes at the end, inside the last line only
    (b"a\nX\n", b"aX\n"),  # the byte suffix starts mid-line in head
    (b"x\nA", b"y\nA"),  # the last line is equal but unterminated
    (b"a\n\nb\n", b"a\n\n\nb\n"),  # an inserted empty line next to an equal one
    (b"", b"a\n"),
    (b"a\n", b""),
], ids=["last-line", "first-line", "insert-at-end", "identical", "base-no-final-newline", "no-newlines",
        "head-drops-newline", "suffix-inside-last-line", "suffix-mid-line", "equal-unterminated-last",
        "empty-line-insert", "from-empty", "to-empty"])
def test_line_diff_agrees_with_git_on_prefix_and_suffix_edges(tmp_path, base, head):
    d = line_diff(base, head)
    assert ([(n, x) for n, _, x in d.deleted], list(d.added)) == _git_line_diff(tmp_path, base, head)


def test_line_diff_agrees_with_git_on_random_single_edits(tmp_path):
    import random
    rnd = random.Random(12)
    for _ in range(60):
        lines = [b"l%d" % i for i in range(rnd.randint(0, 12))]
        base = b"\n".join(lines) + (b"\n" if lines and rnd.random() < .8 else b"")
        new = list(lines)
        at_ = rnd.randint(0, len(new))
        op = rnd.choice(["insert", "delete", "replace"])
        if op == "insert":
            new[at_:at_] = [b"n%d" % k for k in range(rnd.randint(1, 3))]
        elif op == "delete" and new:
            del new[at_:at_ + rnd.randint(1, 3)]
        elif new:
            new[min(at_, len(new) - 1)] = b"r"
        head = b"\n".join(new) + (b"\n" if new and rnd.random() < .8 else b"")
        d = line_diff(base, head)
        assert ([(n, x) for n, _, x in d.deleted], list(d.added)) == _git_line_diff(tmp_path, base, head), (base, head)
