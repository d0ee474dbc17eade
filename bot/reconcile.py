"""Pure: compare what the rules found with what the bot already wrote, and plan only the difference.

Findings become items first (`bot.present`: singles, or one group per rule and file), without the
rules a maintainer ignored. Then each open bot thread is matched to an item — by fingerprint, else
by problem key — and kept; only unmatched items are posted, within what is left of the inline cap
(the cap counts the open threads, so a re-run of the same head posts nothing). Unmatched threads
are closed: as fixed when their problem is gone, silently as superseded when it is still there
(grouped now, ignored, or shown by another thread).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot import diff, render
from bot.present import Ignore, Item, View, group_fingerprint, items_of, problem_key, split_ignored
from rules.finding import Finding


@dataclass(frozen=True)
class PostedComment:
    """A top-level inline comment the bot wrote earlier (found by its marker)."""

    comment_id: int
    fingerprint: str
    code: str
    path: str
    thread_id: str | None = None
    resolved: bool = False
    fixed_noted: bool = False  # a closing reply ("fixed in <sha>", "superseded") exists already
    key: str | None = None  # problem key (from its marker, or derived from its message)
    body: str = ""

    @property
    def grouped(self) -> bool:
        return self.fingerprint == group_fingerprint(self.code, self.path)


@dataclass(frozen=True)
class InlineComment:
    item: Item
    path: str
    line: int
    start_line: int | None
    body: str

    @property
    def finding(self) -> Finding:
        return self.item.first

    def to_api(self) -> dict[str, str | int]:
        out: dict[str, str | int] = {"path": self.path, "line": self.line, "side": "RIGHT", "body": self.body}
        if self.start_line is not None:
            out.update(start_line=self.start_line, start_side="RIGHT")
        return out


@dataclass(frozen=True)
class CommentEdit:
    """A kept thread whose first comment must be rewritten (a group's list changed, or a reworded finding)."""

    comment_id: int
    code: str
    body: str


@dataclass(frozen=True)
class Closing:
    """A thread to resolve without a "fixed" reply; `why` is the reply when it cannot be resolved."""

    comment: PostedComment
    why: str


@dataclass
class ReviewPlan:
    items: list[Item] = field(default_factory=list)  # what the App shows (ignored rules left out)
    ignored: list[Finding] = field(default_factory=list)
    ignores: dict[str, Ignore] = field(default_factory=dict)
    inline: list[InlineComment] = field(default_factory=list)  # new comments to post
    inline_fingerprints: set[str] = field(default_factory=set)  # items visible inline (old + new)
    outside: list[Item] = field(default_factory=list)  # not inline: out of the diff or over the cap
    edits: list[CommentEdit] = field(default_factory=list)
    gone: list[PostedComment] = field(default_factory=list)  # problem disappeared: resolve, "fixed in"
    replaced: list[Closing] = field(default_factory=list)  # problem still there, shown elsewhere

    @property
    def empty(self) -> bool:
        return not self.inline and not self.gone and not self.replaced and not self.edits

    def view(self) -> View:
        return View(self.items, self.inline_fingerprints, self.ignored, self.ignores)


def _match(items: list[Item], open_: list[PostedComment]) -> dict[int, PostedComment]:
    """id(item) → the open thread showing it: same fingerprint first, then same problem key."""
    out: dict[int, PostedComment] = {}
    used: set[int] = set()
    for attr in ("fingerprint", "key"):
        for it in items:
            if id(it) in out or getattr(it, attr) is None:
                continue
            want = getattr(it, attr)
            p = next((p for p in open_ if p.comment_id not in used and getattr(p, attr) == want
                      and p.code == it.code and p.path == it.path and p.grouped == it.grouped), None)
            if p is not None:
                out[id(it)] = p
                used.add(p.comment_id)
    return out


def plan_review(findings: Iterable[Finding], hunks_by_path: Mapping[str, list[diff.Hunk]],
                posted: Iterable[PostedComment], max_inline: int = 30,
                ignores: Mapping[str, Ignore] | None = None, fix_offer: bool = False) -> ReviewPlan:
    """New inline comments, edits of kept ones, items for the summary, and threads to close.

    `fix_offer`: `/fix` is on for the repository (the misplaced-entry comment offers it).
    """
    ignores = dict(ignores or {})
    posted = list(posted)
    open_ = [p for p in posted if not p.resolved]
    counted, ignored = split_ignored(findings, ignores)
    items = items_of(counted, keep_grouped={(p.code, p.path) for p in open_ if p.grouped})
    plan = ReviewPlan(items=items, ignored=ignored, ignores=ignores)
    matched = _match(items, open_)
    budget = max_inline - len(matched)  # open threads count: the cap holds across runs
    for it in items:
        p = matched.get(id(it))
        if p is not None:
            plan.inline_fingerprints.add(it.fingerprint)
            if it.grouped:
                body = render.group_comment(it, fix_offer)
                if p.body.strip() != body.strip():
                    plan.edits.append(CommentEdit(p.comment_id, it.code, body))
            elif p.fingerprint != it.fingerprint:  # same problem, reworded: rewrite, never repost
                # Without a suggestion: the kept comment may sit on other lines than this finding.
                plan.edits.append(CommentEdit(p.comment_id, it.code, render.inline_comment(it.first, False, fix_offer)))
            continue
        anchor = None
        for f in it.members:  # a group sits on the first of its lines that is in the diff
            anchor = diff.anchor(hunks_by_path.get(f.path, []), f.line, f.end_line) if f.path else None
            if anchor is not None:
                break
        if anchor is None or budget <= 0:
            plan.outside.append(it)
            continue
        budget -= 1
        body = render.item_comment(it, with_suggestion=anchor.exact, fix_offer=fix_offer)
        plan.inline.append(InlineComment(it, it.path, anchor.line, anchor.start_line, body))
        plan.inline_fingerprints.add(it.fingerprint)
    kept = {p.comment_id for p in matched.values()}
    still = {f.fingerprint for f in counted} | {it.fingerprint for it in items}
    still_keys = {problem_key(f.code, f.path, f.message, f.line) for f in counted}
    grouped_now = {(it.code, it.path) for it in items if it.grouped}
    for p in open_:
        if p.comment_id in kept or p.fixed_noted:
            continue
        if p.code in ignores:
            plan.replaced.append(Closing(p, render.IGNORED_INSTEAD))
        elif p.fingerprint in still or (p.key is not None and p.key in still_keys):
            grouped = (p.code, p.path) in grouped_now and not p.grouped
            plan.replaced.append(Closing(p, render.GROUPED_INSTEAD if grouped else render.SAME_PROBLEM))
        else:
            plan.gone.append(p)
    return plan


def ignores_from(bodies: Iterable[str]) -> dict[str, Ignore]:
    """The `/ignore` state recorded in the bot's replies, oldest first: the last word per rule wins."""
    out: dict[str, Ignore] = {}
    for body in bodies:
        for code, on, by, reason in render.parse_ignore_markers(body):
            if on:
                out[code] = Ignore(code, by, reason)
            else:
                out.pop(code, None)
    return out


def plan_labels(current: Iterable[str], wanted: Iterable[str], owned: Iterable[str]) -> tuple[list[str], list[str]]:
    """(to_add, to_remove): only labels the bot owns are ever removed; empty when nothing differs."""
    current, wanted, owned = set(current), set(wanted), set(owned)
    add = sorted(wanted - current)
    remove = sorted((current - wanted) & owned)
    return add, remove
