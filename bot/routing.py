"""Route a webhook event to the handlers that turn it into jobs (no API calls on the request thread)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from bot.job_types import Job

Handler = Callable[[dict[str, Any], str], list[Job]]  # (payload, delivery_id) -> jobs


class Router:
    """`@router.register("pull_request", "opened", "synchronize")`; Router(*subrouters) composes."""

    def __init__(self, *others: Router):
        self._routes: dict[tuple[str, str | None], list[Handler]] = defaultdict(list)
        for o in others:
            for k, v in o._routes.items():
                self._routes[k].extend(v)

    def register(self, event: str, *actions: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            keys: tuple[str | None, ...] = actions or (None,)
            for a in keys:
                self._routes[(event, a)].append(fn)
            return fn
        return deco

    def handlers(self, event: str, action: str | None) -> list[Handler]:
        if not isinstance(action, str):  # a malformed payload (`"action": [..]`) is unroutable, not a 500
            action = None
        return self._routes.get((event, action), []) + (self._routes.get((event, None), []) if action else [])

    def handles(self, event: str) -> bool:
        return any(e == event for e, _ in self._routes)

    def dispatch(self, event: str, payload: dict[str, Any], delivery_id: str) -> list[Job]:
        jobs: list[Job] = []
        for h in self.handlers(event, payload.get("action")):
            jobs.extend(h(payload, delivery_id))
        return jobs
