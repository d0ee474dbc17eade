"""A fake GitHub (REST + GraphQL over real HTTP) for tests, the demo and local runs.

`FakeGitHub` and `create_app` are imported on first use: `recipe-review`'s other commands register
`fake-github` (fakegithub.cli) without loading Flask and the server.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakegithub.server import FakeGitHub, create_app

__all__ = ["FakeGitHub", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from fakegithub import server

        return getattr(server, name)
    raise AttributeError(f"module 'fakegithub' has no attribute {name!r}")
