"""recipe-review: the GitHub App and its CLI."""

__version__ = "0.1.0"
