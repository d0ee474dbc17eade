"""rules/ is pure: it imports no web framework, GitHub client, network library, bot code or env."""
import ast
import re
from pathlib import Path

import rules

FORBIDDEN = {
    "flask",
    "github",
    "requests",
    "urllib3",
    "httpx",
    "bot",
    "fakegithub",
    "redis",
    "rq",
    "socket",
    "subprocess",
}
ROOT = Path(rules.__file__).parent
# The one exception: the ShellCheck adapter starts the `shellcheck` binary, which reads the script
# as data on stdin (no rc file, no `source` following, empty environment, a timeout). Nothing a PR
# contains is executed by it; no other module may start a process.
SUBPROCESS_ALLOWED = {ROOT / "scripts" / "shellcheck.py"}


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
        allowed = {"subprocess"} if path in SUBPROCESS_ALLOWED else set()
        bad += [f"{path.name}: {m}" for m in _imports(tree) if m in FORBIDDEN - allowed]
        if "os.environ" in path.read_text() or "getenv" in path.read_text():
            bad.append(f"{path.name}: reads the environment")
    assert not bad


def test_only_the_shellcheck_adapter_starts_processes():
    """No module but the adapter imports subprocess or calls os.system/os.popen/os.exec*/spawn*, and the
    adapter passes the script on stdin with --norc and no -x."""
    starters = re.compile(r"\b(?:os\.(?:system|popen|exec\w*|spawn\w*|fork)|posix_spawn\w*|Popen|pty\.spawn)\b")
    for path in ROOT.rglob("*.py"):
        text = path.read_text()
        if path in SUBPROCESS_ALLOWED:
            continue
        assert "subprocess" not in set(_imports(ast.parse(text))), path
        assert not starters.search(text), path
    (adapter,) = SUBPROCESS_ALLOWED
    text = adapter.read_text()
    assert '"--norc"' in text and '"-x"' not in text and "input=raw" in text and "timeout=timeout" in text
    assert "shell=True" not in text
