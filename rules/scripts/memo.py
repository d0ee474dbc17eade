"""The interpretations shared across reviews: a launcher or script interpreted once per set of
input values it actually reads (`SHARED_MEMO`, used by `rules.scripts.resolve`)."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from rules.scripts.values import Files, Var


class _Memo:
    """Interpretations keyed by the input values they actually read and the answers the listing
    and files gave (points differing only in values a file never reads share one interpretation).
    One memo lives for the process (`SHARED_MEMO`): launchers and the library rarely change between
    reviews, and an entry is reused only when every recorded question gets the same answer.

    Bounded by entries (the least recently used goes first): a master config of a thousand points
    asks for thousands of interpretations of one launcher and one script, read in two rounds and
    again on the base; evicting a file's every entry at once made such reviews interpret everything
    again."""

    def __init__(self, size: int = 8192):
        self.size = size
        self.entries: OrderedDict[str, list[tuple[dict, dict, Any]]] = OrderedDict()
        self.order: OrderedDict[int, str] = OrderedDict()  # id(entry) -> name, least recently used first
        self.count = 0

    def get(self, name: str, env: dict, files: Files):
        for entry in self.entries.get(name, ()):
            reads, questions, value = entry
            if all(_same(env.get(k), v) for k, v in reads.items()) and files.answers(questions):
                self.order.move_to_end(id(entry))
                return value
        return None

    def put(self, name: str, reads: dict, questions: dict, value) -> None:
        entry = (reads, questions, value)
        self.entries.setdefault(name, []).append(entry)
        self.order[id(entry)] = name
        self.count += 1
        while self.count > self.size and self.order:
            oldest, owner = self.order.popitem(last=False)
            bucket = self.entries.get(owner, [])
            for i, e in enumerate(bucket):
                if id(e) == oldest:
                    del bucket[i]
                    break
            if not bucket:
                self.entries.pop(owner, None)
            self.count -= 1


SHARED_MEMO = _Memo()


def _same(a, b) -> bool:
    if isinstance(a, Var):
        a = a.scalar()
    if isinstance(b, Var):
        b = b.scalar()
    if a is None or b is None:
        return a is None and b is None
    return a == b
