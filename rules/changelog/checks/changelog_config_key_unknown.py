"""Flags a `config-keys` item of a new changelog entry that names no master-config key.

## Why it matters
The sweep generator resolves every `config-keys` item of an added entry against the master
configs at the PR head: an exact key must exist, and a `*` pattern must match at least one key.
One unresolved item fails `check-changelog` ("Config key '…' not found in master configs" /
"No config keys matched the wildcard pattern …"), so no sweep runs for the whole PR. Only `*` is
a wildcard there: `?` is a literal character and never matches.

## When it fires
On every `config-keys` item of every entry this PR adds: it fires when the item (or `*` pattern)
matches no key of the head's master configs, listing the closest keys and noting when the PR removes
the key or uses `?`. It is skipped when no master config is available, when an entry does not parse,
or when a master config could not be read (the key may be there); non-string items are
`changelog-entry-invalid`'s.

## Example
    - config-keys:
        - dsv4-fp4-b200-vlm          # typo for dsv4-fp4-b200-vllm
        - dsv4-fp4-b?00-vllm         # `?` is not a wildcard
      description:
        - "Bump vLLM"
      pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX

## Fix
Use the exact key as it appears in `configs/*-master.yaml` (the closest existing keys are listed
with the finding), or a `*` pattern that matches the intended keys.
"""
import re
from collections.abc import Iterator

from rules.changelog.analysis import Entry, changelog_diffs
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import close_keys, master_files, master_keys, match_keys

CODE = "RR008"
NAME = "changelog-config-key-unknown"
SEVERITY = Severity.BLOCKING
PROOF = "gate"
ENFORCES = ("A13",)
LIST_ITEM = re.compile(r"^\s*-\s+(.*?)\s*$")


def item_lines(entry: Entry) -> list[tuple[str, int, str]]:
    """(item, 1-based head line, line text) for each `config-keys` item of a parsed entry.

    Items are matched to the block-list lines under `config-keys:` in order; a flow list
    (`config-keys: [a, b]`) or an unexpected layout puts every item on the `config-keys:` line.
    """
    items = entry.data.get("config-keys") if isinstance(entry.data, dict) else None
    if not isinstance(items, list):
        return []
    lines = entry.text.split("\n")
    first = entry.key_lines.get("config-keys", entry.start_line)
    offset = first - entry.start_line
    found: list[tuple[int, str]] = []
    for i in range(offset + 1, len(lines)):
        raw = lines[i]
        if raw.strip() == "" or raw.lstrip().startswith("#"):
            continue
        if not raw.startswith(" ") or not LIST_ITEM.match(raw):
            break
        found.append((entry.start_line + i, raw))
    head_line = (first, lines[offset] if 0 <= offset < len(lines) else "")
    if len(found) != len(items):
        found = [head_line] * len(items)
    return [(item, line, text) for item, (line, text) in zip(items, found, strict=True)]


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    new = [(d, e) for d in changelog_diffs(ctx) for e in d.new_entries]
    if not new:
        return
    files = master_files(ctx, "head")
    if not files:
        yield Skipped("no master config is available to the review, so config-keys were not resolved")
        return
    keys = master_keys(ctx, "head")
    base_keys = master_keys(ctx, "base")
    unreadable = [mf for mf in files if mf.error is not None]
    searched = f"searched {len(keys):,} keys in {', '.join(mf.path for mf in files)}"
    resolved: list[str] = []
    for diff, entry in new:
        if not isinstance(entry.data, dict):
            yield Skipped(f"entry at line {entry.start_line} of {diff.path} was not parsed "
                          f"({entry.error or 'no data'}); its config-keys were not resolved", path=diff.path)
            continue
        for item, line, text in item_lines(entry):
            if not isinstance(item, str):
                continue  # the entry-schema rule reports non-string items
            matched = match_keys(item, keys)
            if matched:
                resolved.append(f"`{item}` → {len(matched)} key(s)" if "*" in item else f"`{item}`")
                continue
            if unreadable:
                yield Skipped(f"config key `{item}` was not found, but {', '.join(mf.path for mf in unreadable)} "
                              "could not be read", path=diff.path)
                continue
            wildcard = "*" in item
            close = close_keys(item.replace("*", ""), keys) if wildcard else close_keys(item, keys)
            evidence = [searched]
            if close:
                evidence.append(f"closest existing keys: {', '.join(close)}")
            if "?" in item:
                evidence.append("`?` is not a wildcard in the changelog processor; only `*` is")
            at_base = match_keys(item, base_keys)
            if at_base:
                where = base_keys[at_base[0]].path
                evidence.append(f"`{at_base[0]}` exists at the base in {where}; this PR removes it")
            suggestion = None
            if (
                not wildcard
                and len(close) == 1
                and text.count(item) == 1
                and line != entry.key_lines.get("config-keys")
            ):
                suggestion = text.replace(item, close[0])
            message = (f"config-keys pattern `{item}` matches no master-config key" if wildcard
                       else f"config key `{item}` is not a key of any master config")
            fix = (f"Use `{close[0]}`, the closest existing key." if suggestion
                   else "Use an exact key from the master configs, or a `*` pattern that matches one.")
            gn = note(ctx, diff, pr_run=("config-key",), lines=(entry.start_line, entry.end_line))
            yield Problem(diff.path, line, gn.on(message), fix=fix, suggestion=suggestion,
                          evidence=(*evidence, *gn.evidence))
    if resolved:
        yield Passed(f"{len(resolved)} config-keys item(s) resolve against the master configs at head: "
                     f"{', '.join(resolved)}")
