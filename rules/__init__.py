"""Pure review rules: no network, no Flask, no PyGithub, no environment."""
from rules.changeset import ChangeSet, FileChange
from rules.config import EngineConfig, load_config
from rules.document import Document, parse_yaml
from rules.engine import Report, run
from rules.finding import Check, Finding, Passed, Problem, Severity, Skipped

__all__ = ["ChangeSet", "Check", "Document", "EngineConfig", "FileChange", "Finding", "Passed",
           "Problem", "Report", "Severity", "Skipped", "load_config", "parse_yaml", "run"]
