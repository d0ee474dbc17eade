"""Pure review rules: no network, no Flask, no PyGithub, no environment."""
from __future__ import annotations

from collections.abc import Mapping

from rules import config as _config
from rules.changeset import ChangeSet, FileChange
from rules.config import EngineConfig
from rules.document import Document, parse_yaml
from rules.finding import Check, Finding, Passed, Problem, Severity, Skipped
from rules.registry import ALL_RULES
from rules.runner import Report, run


def load_config(data: Mapping | None) -> tuple[EngineConfig, list[str]]:
    """Validate a parsed `.github/recipe-review.yml` against the registered rules (see rules.config)."""
    return _config.load_config(data, ALL_RULES)


def load_repo_config(raw: bytes | None, path: str = _config.CONFIG_PATH) -> tuple[EngineConfig, list[str]]:
    """The repository config file's bytes validated against the registered rules (see rules.config)."""
    return _config.load_repo_config(raw, ALL_RULES, path)


__all__ = ["ALL_RULES", "ChangeSet", "Check", "Document", "EngineConfig", "FileChange", "Finding", "Passed",
           "Problem", "Report", "Severity", "Skipped", "load_config", "load_repo_config", "parse_yaml", "run"]
