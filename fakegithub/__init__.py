"""A fake GitHub (REST + GraphQL over real HTTP) for tests, the demo and local runs."""
from fakegithub.server import FakeGitHub, create_app

__all__ = ["FakeGitHub", "create_app"]
