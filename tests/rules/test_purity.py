"""rules/ is pure: it imports no web framework, GitHub client, network library, bot code or env."""
import ast
from pathlib import Path

import rules

FORBIDDEN = {"flask", "github", "requests", "urllib3", "httpx", "bot", "fakegithub", "redis", "rq", "socket", "subprocess"}
ROOT = Path(rules.__file__).parent


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0]


def test_rules_import_nothing_impure():
    bad = []
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text())
        bad += [f"{path.name}: {m}" for m in _imports(tree) if m in FORBIDDEN]
        if "os.environ" in path.read_text() or "getenv" in path.read_text():
            bad.append(f"{path.name}: reads the environment")
    assert not bad
