"""RR006 changelog-format-broken: byte-level format of the changelog file."""

import pytest

from rules.changelog.analysis import MAX_CHANGELOG_BYTES
from rules.changelog.checks import changelog_format_broken as rr006
from tests.rules.changelog_helpers import BASE, NEW, append, apply_suggestion, entry, review


def _findings(head, base=BASE, **kw):
    return [(f.code, f.line, f.message) for f in review(base, head, rr006, **kw).findings]


def test_well_formed_append_passes():
    r = review(BASE, append(BASE), rr006)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_no_final_newline():
    head = append(BASE).rstrip("\n")
    assert _findings(head) == [
        (
            "RR006",
            head.count("\n") + 1,
            "The file does not end with a newline after "
            "`pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867`. Rejected by the PR-run "
            "`check-changelog` on this push and by the merge path at merge.",
        )
    ]


@pytest.mark.parametrize("tail, n", [("\n", 1), ("\n\n", 2), ("  \n\n", 2)],
                         ids=["two-newlines", "three-newlines", "whitespace-line-then-empty"])
def test_extra_blank_lines_at_the_end(tail, n):
    head = append(BASE) + tail
    r = review(BASE, head, rr006)
    assert len(r.findings) == 1
    f = r.findings[0]
    assert f"ends with {n} extra blank line(s)" in f.message and f.line == append(BASE).count("\n")
    assert f.message.endswith("The PR-run check passes this; the merge path rejects it at merge.")
    assert any("final appended changelog entry must end with one newline" in e for e in f.evidence)
    assert apply_suggestion(head, f) == append(BASE)


def test_a_final_whitespace_only_line_is_not_a_format_error():
    """The validator only rejects a final *empty* line (`\\n\\n`); `"  \\n"` is RR016's nit."""
    assert _findings(append(BASE) + "  \n") == []


@pytest.mark.parametrize("bad, what", [
    ("\r", "a carriage return (CR)"), ("\t", "a tab"), ("\0", "a NUL byte"),
], ids=["cr", "tab", "nul"])
def test_control_characters_in_new_text(bad, what):
    new = NEW.replace('"Serve', f'"Serve{bad}', 1)
    head = append(BASE, new)
    line = head.count("\n") - 1  # the description line
    got = _findings(head)
    assert [(c, ln) for c, ln, _ in got] == [("RR006", line)] and what in got[0][2]


def test_crlf_file_reports_the_first_new_line():
    head = append(BASE).replace("\n", "\r\n")
    got = _findings(head)
    assert got[0][1] == 1 and "carriage return" in got[0][2]


def test_pre_existing_tab_in_history_is_not_this_prs_problem():
    base = BASE.replace('"Bump the image"', '"Bump\tthe image"', 1)
    assert _findings(append(base), base=base) == []


def test_invalid_utf8():
    head = append(BASE).encode().replace(b"Serve the", b"Serve \xff the")
    line = head.count(b"\n") - 1
    assert _findings(head) == [
        (
            "RR006",
            line,
            f"Byte `0xff` at line {line:,} is not valid UTF-8. Rejected by the PR-run `check-changelog` on this push "
            "and by the merge path at merge.",
        )
    ]


def test_entry_starting_with_another_key():
    other = "- description:\n    - \"x\"\n  config-keys:\n    - k\n  pr-link: XXX\n"
    head = append(BASE, other)
    got = _findings(head)
    assert got == [
        (
            "RR006",
            head.count("\n") - 4,
            "This top-level item starts with `- description:`, not `- config-keys:`. The PR-run check passes this; the "
            "merge path rejects it at merge.",
        )
    ]


def test_indented_entry_start():
    head = append(BASE, NEW + "\n  - config-keys:\n      - k\n")
    got = _findings(head)
    assert [(c, ln) for c, ln, _ in got] == [("RR006", head.count("\n") - 1)] and "starts indented" in got[0][2]


def test_empty_changelog_added():
    assert _findings("", base=None, status="added") == [
        (
            "RR006",
            0,
            "The new changelog is empty; it must be a YAML list of entries. Rejected by the PR-run `check-changelog` "
            "on this push and by the merge path at merge.",
        )
    ]


def test_first_entry_into_an_empty_changelog():
    r = review("", entry("k", 4867), rr006)
    assert r.findings == []


def test_fifty_megabyte_changelog_is_a_finding_not_a_crash(monkeypatch):
    from rules.changelog import analysis

    loaders = []
    real = analysis.YAML
    monkeypatch.setattr(analysis, "YAML", lambda *a, **kw: loaders.append(a) or real(*a, **kw))
    big = ((BASE + "\n") * (50 * 1024 * 1024 // len(BASE)) + NEW).encode()  # bytes: no test-side diff
    r = review(BASE.encode(), big, rr006)
    assert loaders == []  # refused by its size before any YAML parse (wall time: benchmarks/bounded_inputs.py)
    assert len(r.findings) == 1 and r.findings[0].line == 0
    assert f"over the {MAX_CHANGELOG_BYTES:,}-byte limit" in r.findings[0].message


def test_large_changelog_under_the_limit_is_reviewed():
    big = build_big(6 * 1024 * 1024)
    mid = big.index("- config-keys:", len(big) // 2)
    head = big[:mid] + NEW + "\n" + big[mid:]
    r = review(big.encode(), head.encode(), rr006)  # wall time: benchmarks/bounded_inputs.py
    assert r.findings == []


def build_big(size: int) -> str:
    out, i = [], 0
    total = 0
    while total < size:
        e = entry(f"key-{i}", 10_000 + i) + "\n"
        out.append(e)
        total += len(e)
        i += 1
    return "".join(out)
