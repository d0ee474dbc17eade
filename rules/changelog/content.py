"""Whose work a new changelog entry is, for the rules that judge what an entry says or selects.

The content rules (changelog-description-placeholder, changelog-wildcard-selection,
changelog-entry-duplicate, changelog-evals-only-with-throughput-change,
changelog-evals-intent-unflagged) judge what a PR writes. Two kinds of "new" entry, as the byte
diff against the merge base finds them, are not what this PR wrote:

* **Rewritten history.** An entry whose signature (its text without the pr-link line and
  trailing spaces: `signature`) the base already holds at least as many times as the head does
  is an existing entry that was moved, re-linked or re-spaced, not a new one (#1161's "cleanup"
  reorders and re-links 18 existing entries). That the PR rewrote history is
  changelog-history-changed's finding; what the entry says is its original PR's.
* **Another PR's entry.** An entry whose `pr-link` names another pull request than this one
  records that PR's change: a branch that squashed a merge of main into one commit has main's
  entries in its diff against the old merge base (#671: 43 entries, none of them #671's), and a
  companion PR that runs the evals of another carries that PR's entry (#1283 for #1236). Whether
  the link is right is changelog-pr-link-wrong's question; the entry's content is not this PR's
  to answer for. Without the PR number every entry is this PR's.

`changelog_only(ctx)` says whether the PR changes nothing but changelogs: a PR that only appends
copies of existing entries re-runs their sweeps on purpose (a retrigger, an ingest recovery, a
re-append of an entry that lacked its link).

`accepted(ctx, d)` is the sentence with which these nits name the gates: both accept the entry
(no written contract is claimed: the description's content is a nit of the repository, A17, and
most of these practices are not written down at all).
"""
from __future__ import annotations

from collections import Counter

from rules.changelog.analysis import ChangelogDiff, Entry, _Builder, _split, changelog_diffs, new_entry_items, signature
from rules.changelog.gates import gates_for

# Past this many entries a file is not split to count signatures (the real file has ~800).
MAX_ENTRIES = 20_000


def _entries(data: bytes | None) -> list[Entry]:
    if not data or data.count(b"\n- ") >= MAX_ENTRIES:
        return []
    _, blocks = _split(data)
    b = _Builder(data)
    return [b.entry(k, blk, False) for k, blk in enumerate(blocks)]


def _probe(e: Entry) -> bytes:
    """The longest line of the entry's signature: every line of a copy's signature is in the file."""
    return max(signature(e.text).split("\n"), key=len).encode()


def signature_counts(ctx, d: ChangelogDiff) -> tuple[Counter, Counter, dict[str, Entry]]:
    """(base counts, head counts, first base entry) of the signatures of `d`'s new entries, counted
    only when one of them can be in the base at all (splitting the file is the costly part)."""

    def compute():
        sigs = {signature(e.text) for e in d.new_entries}
        if not sigs or not d.base or not any(_probe(e) in d.base for e in d.new_entries):
            return Counter(), Counter(), {}
        base, head, first = Counter(), Counter(), {}
        for b in _entries(d.base):
            s = signature(b.text)
            if s in sigs:
                base[s] += 1
                first.setdefault(s, b)
        if base:
            for h in _entries(d.head):
                s = signature(h.text)
                if s in base:
                    head[s] += 1
        return base, head, first

    return ctx.memo(("changelog-content", "signatures", d.path), compute)


def base_copy(ctx, d: ChangelogDiff, e: Entry) -> tuple[Entry, bool] | None:
    """The base entry `e` repeats (apart from its pr-link), and whether the head adds an instance of
    it (True: a copy; False: the same entry moved or re-linked, i.e. rewritten history); None."""
    base, head, first = signature_counts(ctx, d)
    s = signature(e.text)
    if not base.get(s):
        return None
    return first[s], head[s] > base[s]


def rewritten(ctx, d: ChangelogDiff, e: Entry) -> Entry | None:
    """The base entry that new entry `e` is, moved or re-linked (None: `e` is not history)."""
    hit = base_copy(ctx, d, e)
    return hit[0] if hit is not None and not hit[1] else None


def other_pr(ctx, e: Entry) -> int | None:
    """The other pull request `e`'s pr-link names (None: this PR's, a placeholder, or unknown)."""
    mine = ctx.changeset.pr_number
    theirs = e.pr_number
    return theirs if mine is not None and theirs is not None and theirs != mine else None


def not_own(ctx, d: ChangelogDiff, e: Entry) -> str | None:
    """Why new entry `e` is not this PR's own writing, or None."""
    n = other_pr(ctx, e)
    if n is not None:
        return f"its pr-link names #{n}"
    old = rewritten(ctx, d, e)
    if old is not None:
        return f"it is existing entry {old.label} (base line {old.start_line:,}), moved or re-linked"
    return None


def own_entry_items(ctx, what: str):
    """`new_entry_items` for the entries this PR wrote: (diff, entry) for each parsed new entry
    that is not another PR's and not rewritten history; a Skipped for a changelog not read."""
    for item in new_entry_items(ctx, what):
        if isinstance(item, tuple) and not_own(ctx, *item) is not None:
            continue
        yield item


def changelog_only(ctx) -> bool:
    """The PR changes changelog files and nothing else."""
    paths = {f.path for f in ctx.changeset.files}
    return bool(paths) and paths == {d.path for d in changelog_diffs(ctx)}


def accepted(ctx, d: ChangelogDiff) -> str:
    """How a content nit names the gates: both accept it (or they were not evaluated)."""
    report = gates_for(ctx, d)
    if report is None or report.skipped:
        return f"(Gates not evaluated: {report.skipped if report else 'no changelog diff'}.)"
    return "Both gates accept this."
