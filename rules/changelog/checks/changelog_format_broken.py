"""Flags a perf-changelog whose bytes break the file format: final newline, CR, tab, NUL, UTF-8, entry starts.

## Why it matters
The strict validator reads the changelog as bytes before YAML: it requires a final newline
(the PR-run check too, on every push), no empty line after the last entry, no CR, tab or NUL,
valid UTF-8, and one `- config-keys:` line at column 0 per entry (it counts those lines against
the parsed list). A file that breaks these is rejected on the merge path, and an entry that
starts with another key or is indented is miscounted by tooling that splits entries by line.
Each finding names the gate that rejects it.

## When it fires
On each changed, not removed, perf-changelog, reading only the bytes this PR wrote (from the first
line where head differs from base): it fires for a new carriage return, tab or NUL byte on a line
the base does not have, for bytes that are not UTF-8, for an end of file this PR changed that lacks
or doubles the final newline, and for entry starts that are not `- config-keys:` at column 0. Bytes
the base already had stay quiet. A changelog over the size limit is reported and not reviewed. A
changelog the review cannot read or compare is skipped with the reason.

## Example
    - description:                    # entry starts with another key
        - "Bump vLLM image"
      config-keys:
        - dsv4-fp4-b200-vllm
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867⏎⏎   # two final newlines

## Fix
End the file with exactly one newline; use spaces, LF line endings and UTF-8; start every entry
with `- config-keys:` at column 0. Do not run a formatter over the file.
"""
from collections.abc import Iterator

from rules.changelog.analysis import MAX_CHANGELOG_BYTES, changelog_diffs, short
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR006"
NAME = "changelog-format-broken"
SEVERITY = Severity.BLOCKING
PROOF = "written:A6"
ENFORCES = ("A6", "A7")

_BAD_BYTES = ((b"\r", "a carriage return (CR)"), (b"\t", "a tab"), (b"\0", "a NUL byte"))
_END_WINDOW = 4096


def _line_at(data: bytes, offset: int) -> tuple[int, bytes]:
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    return data.count(b"\n", 0, offset) + 1, data[start:end if end >= 0 else len(data)]


def _bad_byte_problems(path: str, head: bytes, base: bytes, start: int) -> Iterator[Problem]:
    """Control bytes in text this PR wrote; `start` = a line start up to which head is base's bytes."""
    base_lines = None
    for ch, name in _BAD_BYTES:
        if head.count(ch, start) <= base.count(ch, start):
            continue  # nothing new of this kind (pre-existing history is not this PR's doing)
        if base_lines is None:
            base_lines = set(base.split(b"\n"))
        at = head.find(ch, start)
        while at >= 0:
            line, text = _line_at(head, at)
            if text not in base_lines:
                col = at - (head.rfind(b"\n", 0, at) + 1) + 1
                total = head.count(ch)
                yield Problem(path, line, f"Line {line:,} contains {name} at column {col}: "
                                          f"`{short(text.decode('utf-8', 'replace').replace(chr(0), '␀'))}`.",
                              fix="Use LF line endings and spaces; remove control characters.",
                              evidence=(f"{total:,} occurrence(s) in head, {base.count(ch):,} in base",))
                break
            at = head.find(ch, at + len(text) + 1)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:  # noqa: C901 (one branch per format problem: bytes, encoding, end of file, entry starts)
    for d in changelog_diffs(ctx):
        if d.oversize:
            yield Problem(d.path, None, f"The changelog is `{d.oversize:,}` bytes, over the "
                          f"{MAX_CHANGELOG_BYTES:,}-byte limit, so it was not reviewed.",
                          evidence=(f"the real changelog is well under 1 MB; limit {MAX_CHANGELOG_BYTES:,} bytes",))
            continue
        if d.skip_reason:
            yield Skipped(f"{d.path}: format not checked: {d.skip_reason}", path=d.path)
            continue
        if d.status == "removed" or d.head is None:
            continue
        head, base = d.head, d.base or b""
        start = head.rfind(b"\n", 0, d.prefix_len) + 1  # the line where head may first differ from base
        found = 0
        for p in _bad_byte_problems(d.path, head, base, start):
            found += 1
            n = note(ctx, d, pr_run=("added-yaml", "final-newline"), merge=("file-format", "file-yaml"),
                     lines=(p.line, p.line))
            yield Problem(p.path, p.line, n.on(p.message), fix=p.fix, evidence=(*p.evidence, *n.evidence))
        try:
            head[start:].decode("utf-8")
        except UnicodeDecodeError as err:
            line, text = _line_at(head, start + err.start)
            try:
                base.decode("utf-8")
                base_bad = False
            except UnicodeDecodeError:
                base_bad = text in set(base.split(b"\n"))
            if not base_bad:
                found += 1
                n = note(ctx, d, pr_run=("added-yaml",), merge=("file-format",))
                yield Problem(d.path, line, n.on(f"Byte `0x{head[start + err.start]:02x}` at line {line:,} is not "
                                                 f"valid UTF-8."),
                              fix="Save the file as UTF-8.",
                              evidence=(f"byte offset {start + err.start:,}: {err.reason}", *n.evidence))
        # The end of the file, when this PR changed it.
        if not head.isspace() and head and not (base and base.endswith(head[-_END_WINDOW:])):
            content_end = len(head.rstrip())
            newlines = d.head_line_count - (0 if head.endswith(b"\n") else 1)
            last = newlines - head[content_end:].count(b"\n") + 1  # line of the last non-blank byte
            last_text = head[head.rfind(b"\n", 0, content_end) + 1:content_end].decode("utf-8", "replace")
            if not head.endswith(b"\n"):
                found += 1
                n = note(ctx, d, pr_run=("final-newline",), merge=("file-format",),
                         contract="the documented contract (the file ends with exactly one newline)",
                         written="one-final-newline")
                problem = Problem(d.path, last, n.on(f"The file does not end with a newline after "
                                                     f"`{short(last_text.strip())}`."),
                                  fix="Add exactly one newline at the end of the file.",
                                  evidence=(f"last byte `{head[-1:].decode('utf-8', 'replace')!r}`", *n.evidence))
                if n.unproven:
                    found -= 1
                    yield Skipped(f"{d.path}: the missing final newline is not flagged here: {n.unproven}",
                                  path=d.path, unproven=problem)
                else:
                    yield problem
            elif head.endswith(b"\n\n"):
                extra = head[head.find(b"\n", content_end) + 1:]
                k = extra.count(b"\n")
                found += 1
                n = note(ctx, d, merge=("trailing-empty-line", "no-change"),
                         contract="the documented contract (the file ends with exactly one newline)",
                         written="one-final-newline")
                problem = Problem(
                    d.path,
                    last,
                    n.on(
                        f"The file ends with {k} extra blank line(s) after "
                        f"`{short(last_text.strip())}`; it must end with exactly one newline."
                    ),
                    end_line=last + k,
                    suggestion=d.head_lines()[last - 1],
                    fix="Delete the blank lines at the end of the file.",
                    evidence=(f"file tail after the last line: `{extra.decode('utf-8', 'replace')!r}`", *n.evidence),
                )
                if n.unproven:
                    found -= 1
                    yield Skipped(f"{d.path}: {k} extra blank line(s) at the end are not flagged here: {n.unproven}",
                                  path=d.path, unproven=problem)
                else:
                    yield problem
        # Entry starts: every new top-level item starts `- config-keys:` at column 0.
        for e in d.new_entries:
            if not e.well_formed_start:
                found += 1
                n = note(ctx, d, pr_run=("added-yaml", "entry-schema"), merge=("entry-count", "entry-schema"))
                yield Problem(d.path, e.start_line, n.on(f"This top-level item starts with "
                                                         f"`{short(e.text.split(chr(10))[0])}`, not `- config-keys:`."),
                              end_line=e.end_line,
                              fix="Start the entry with `- config-keys:` at column 0, then `description`, `pr-link`.",
                              evidence=("the validator counts `- config-keys:` lines at column 0 against the "
                                        "parsed entries", *n.evidence))
            for k, text in enumerate(e.text.split("\n")[1:], start=1):
                if text.lstrip().startswith("- config-keys:") and text[:1] in (" ", "\t"):
                    found += 1
                    n = note(ctx, d, pr_run=("added-yaml", "entry-schema"),
                             merge=("entry-count", "file-yaml", "entry-schema"))
                    yield Problem(
                        d.path,
                        e.start_line + k,
                        n.on(f"An entry starts indented: `{short(text)}`."),
                        end_line=e.start_line + k,
                        fix="Start every entry with `- config-keys:` at column 0, separated by one empty line.",
                        evidence=(
                            "an indented `- config-keys:` is not counted as an entry by the validator",
                            *n.evidence,
                        ),
                    )
        if not head or head.isspace():
            found += 1
            n = note(
                ctx, d, pr_run=("no-additions", "final-newline", "deleted-line"), merge=("file-format", "file-yaml")
            )
            what = "The new changelog is empty" if d.status == "added" else "The changelog is emptied"
            yield Problem(d.path, None, n.on(f"{what}; it must be a YAML list of entries."), evidence=n.evidence)
        if not found:
            yield Passed(f"{d.path}: ends with one newline; no new CR, tab or NUL; UTF-8; "
                         f"{len(d.new_entries)} new entr{'y starts' if len(d.new_entries) == 1 else 'ies start'} "
                         f"with `- config-keys:` at column 0", path=d.path)
