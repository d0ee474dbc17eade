"""One bounded, thread-safe cache for analyses shared across reviews (by content).

The App reviews on several worker threads in one process (`bot/queue.py`), and a few analyses are
worth keeping between reviews: parsed launchers and the script library, runner tables, the points
of a master-config key, sibling features. Each is an `LRU` here, keyed by what its value depends
on (path and content, not the review), bounded in entries, and guarded by its own lock. A value is
computed outside the lock: two threads may compute the same value once each, and the first one
stored wins, which is harmless for pure functions of the key.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")
_MISSING = object()


class LRU(Generic[V]):
    """A least-recently-used map of at most `size` entries, safe to share between threads."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError("an LRU holds at least one entry")
        self.size = size
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, default=None):
        with self._lock:
            if key not in self._data:
                return default
            self._data.move_to_end(key)
            return self._data[key]

    def put(self, key: Hashable, value: V) -> V:
        """Store `value` (unless another thread stored one first) and return the stored value."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
            self._data[key] = value
            while len(self._data) > self.size:
                self._data.popitem(last=False)
            return value

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        hit = self.get(key, _MISSING)
        if hit is not _MISSING:
            return hit
        return self.put(key, compute())

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._data

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
