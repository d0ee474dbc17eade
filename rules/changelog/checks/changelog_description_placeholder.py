"""Flags a new perf-changelog entry whose description is empty, a placeholder or a bare do-not-merge note.

## Why it matters
The description is the only record of what a sweep measured and why; the dashboards and every
later reader rely on it. An empty item (`- ""`), a placeholder (`test`, `TBD`, `TODO`, `xxx`)
or a marker with nothing else (`DO NOT MERGE`, `TEMP: test`) passes both of the repository's
gates — the schema only asks for a non-empty list of strings — and, once merged, is immutable
history that says nothing (#1195's forgotten template, #938's and #339's `test` entries). What
the description should say is a nit of the repository's review practice (A17), not a gate.

## When it fires
On the entries this PR writes (rules/changelog/content.py: not another PR's entry, not an
existing entry it moved). A do-not-merge, `TEMP` or `WIP` marker is reported only when the item
says nothing once the marker is taken away: an experiment PR that tags a full description
`[DO NOT MERGE — experimental]` (#1770) or ends one with "Run-only PR; do not merge" (#1791)
has told its readers what it is, and the tag is the author's deliberate word that the PR is not
for merging.

## Example
    - config-keys:
        - gptoss-fp4-mi355x-atom
      description:
        - ""
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1195

## Fix
Describe what this PR changes for the selected configs (image `from → to`, flags, search-space
changes), one item per change; remove temporary test entries before merging.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from rules.changelog.analysis import Entry, changelog_diffs, short
from rules.changelog.content import accepted, not_own
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR017"
NAME = "changelog-description-placeholder"
SEVERITY = Severity.NIT
ENFORCES = ("A17",)

_PLACEHOLDER = re.compile(r"(?i)^(?:test(?:ing)?|tbd|todo|tba|wip|x{2,}|placeholder|temp|tmp|n/?a|none|null|"
                          r"description|desc|foo|bar|asdf|\.{2,}|…|-+|\?+)$")
_DO_NOT_MERGE = re.compile(r"(?i)\b(?:do[\s-]*not[\s-]*merge|don'?t[\s-]*merge|dnm)\b|^\s*\[?(?:temp|wip)\b[\]:]?")
# Every marker, with the brackets and dashes around it, for what the item says without them.
_MARKERS = re.compile(r"(?i)[\[(]?\s*(?:\b(?:do[\s-]*not[\s-]*merge|don'?t[\s-]*merge|dnm|temp|wip)\b)\s*[\])]?")
_PUNCT = "\"'`.:;!,-–—()[] "


def _item_lines(entry: Entry) -> list[int]:
    """Line of each block-list item under `description:` (the key's line when not block style)."""
    key_line = entry.key_lines.get("description")
    if key_line is None:
        return []
    lines = entry.text.split("\n")
    out = []
    for k in range(key_line - entry.start_line + 1, len(lines)):
        text = lines[k]
        if text.startswith("  ") and not text.startswith("   ") and text.strip() and not text.lstrip().startswith("- "):
            break
        if text.startswith("  ") and not text.startswith("    ") and not text.lstrip().startswith("- "):
            break
        if text.lstrip().startswith("- ") or text.strip() == "-":
            out.append(entry.start_line + k)
    return out


def verdict(item: str) -> str | None:
    """Why a description item says nothing, or None."""
    text = item.strip().strip("\"'`.:;!")
    if not text:
        return "is empty"
    if _PLACEHOLDER.match(text):
        return f"is the placeholder `{short(text, 40)}`"
    m = _DO_NOT_MERGE.search(item)
    if m:
        rest = _MARKERS.sub(" ", item).strip(_PUNCT)
        if not rest or _PLACEHOLDER.match(rest):
            return f"is a temporary note (`{short(m.group(0).strip(), 30)}`) that says nothing else"
    return None


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: descriptions not checked: {d.skip_reason}", path=d.path)
            continue
        good = 0
        for e in d.new_entries:
            if not_own(ctx, d, e) is not None:
                continue  # another PR's entry, or an existing one moved: not this PR's writing
            desc = e.data.get("description") if isinstance(e.data, dict) else None
            if not isinstance(desc, list) or not desc:
                continue  # missing or mistyped: changelog-entry-invalid
            lines = _item_lines(e)
            said = 0
            for k, item in enumerate(desc):
                if not isinstance(item, str):
                    continue
                why = verdict(item)
                if why is None:
                    said += 1
                    continue
                line = lines[k] if k < len(lines) else e.key_lines.get("description", e.start_line)
                yield Problem(d.path, line, f"Description item {k + 1} of the entry for `{e.summary}` {why}. "
                                            f"{accepted(ctx, d)}",
                              evidence=(f"entry {e.label} at lines {e.start_line:,}-{e.end_line:,}; "
                                        f"{len(desc)} description item(s)",))
            if said == len(desc):
                good += 1
        if good:
            yield Passed(f"{d.path}: {good} new entr{'y has' if good == 1 else 'ies have'} descriptive, "
                         f"non-placeholder description items", path=d.path)
