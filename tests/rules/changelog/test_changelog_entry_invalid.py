"""RR003 changelog-entry-invalid: each new entry matches the entry schema."""
import pytest

from rules.changelog.checks import changelog_entry_invalid as rr003
from rules.general.checks import yaml_invalid as rr012
from tests.rules.changelog_helpers import BASE, REPO, append, review

LINK = f"https://github.com/{REPO}/pull/4867"
GOOD = f"- config-keys:\n    - dsv4-fp4-b200-vllm\n  description:\n    - \"x\"\n  pr-link: {LINK}\n"


def _entry(*lines: str) -> str:
    return "\n".join(lines) + "\n"


CASES = [
    ("unknown-key", GOOD + "  pr_link: x\n", 6, "`pr_link` is not a changelog entry key."),
    (
        "description-string",
        _entry("- config-keys:", "    - k", '  description: "one line"', f"  pr-link: {LINK}"),
        3,
        "`description` must be a list, not the string `one line`.",
    ),
    (
        "config-keys-string",
        _entry("- config-keys: k", "  description:", "    - x", f"  pr-link: {LINK}"),
        1,
        "`config-keys` must be a list, not the string `k`.",
    ),
    (
        "config-key-int",
        _entry("- config-keys:", "    - k", "    - 5", "  description:", "    - x", f"  pr-link: {LINK}"),
        3,
        "`config-keys` item 2 must be a string, not the integer `5`.",
    ),
    (
        "empty-description",
        _entry("- config-keys:", "    - k", "  description: []", f"  pr-link: {LINK}"),
        3,
        "`description` is an empty list; it needs at least one item.",
    ),
    (
        "missing-pr-link",
        _entry("- config-keys:", "    - k", "  description:", "    - x"),
        1,
        "This entry lacks the required `pr-link` key.",
    ),
    (
        "pr-link-int",
        _entry("- config-keys:", "    - k", "  description:", "    - x", "  pr-link: 4867"),
        5,
        "`pr-link` must be a string, not the integer `4867`.",
    ),
    (
        "bool-as-string",
        GOOD + '  evals-only: "true"\n',
        6,
        "`evals-only` must be `true` or `false`, not the string `true`.",
    ),
    ("bool-yes", GOOD + "  append-only: yes\n", 6, "`append-only` must be `true` or `false`, not the string `yes`."),
    ("ep-zero", GOOD + "  eval-min-prefill-ep: 0\n", 6, "`eval-min-prefill-ep` must be an integer ≥ 1, not `0`."),
    ("ep-string", GOOD + "  eval-min-prefill-ep: two\n", 6, "`eval-min-prefill-ep` must be an integer ≥ 1, not `two`."),
    (
        "scenario-unknown",
        GOOD + "  scenario-type:\n    - agentic\n",
        7,
        "`scenario-type` item `agentic` is not one of `fixed-seq-len`, `agentic-coding`.",
    ),
    (
        "scenario-empty",
        GOOD + "  scenario-type: []\n",
        6,
        "`scenario-type` is an empty list; it needs at least one item.",
    ),
    (
        "append-only-with-evals",
        GOOD + "  append-only: true\n  evals-only: true\n",
        7,
        "`append-only: true` cannot be combined with `evals-only`.",
    ),
]


BOTH = " Rejected by the PR-run `check-changelog` on this push and by the merge path at merge."
CONTRACT = (" Both gates accept this; only the documented contract (strict types: `true`/`false`, lists of "
            "strings) forbids it.")
# Both gates' lax pydantic reads a quoted "true" as a boolean, and YAML 1.1 reads `yes` as true.
LAX_OK = {"bool-as-string", "bool-yes"}


@pytest.mark.parametrize("name, text, line, message", CASES, ids=[c[0] for c in CASES])
def test_schema_problems(name, text, line, message):
    head = append(BASE, text)
    first = head.count("\n") - text.count("\n")  # lines before the new entry
    r = review(BASE, head, rr003)
    gate = CONTRACT if name in LAX_OK else BOTH
    assert [(f.code, f.line - first, f.message) for f in r.findings] == [("RR003", line, message + gate)]


@pytest.mark.parametrize("extra", [
    "",
    "  scenario-type:\n    - agentic-coding\n    - fixed-seq-len\n",
    "  evals-only: true\n  all-evals: false\n  eval-min-prefill-ep: 2\n",
    "  append-only: true\n",
], ids=["minimal", "scenario-types", "evals-options", "append-only"])
def test_valid_entries_pass(extra):
    r = review(BASE, append(BASE, GOOD + extra), rr003)
    assert r.findings == [] and r.checks[0].status == "passed"


def test_unknown_key_suggests_the_close_name():
    f = review(BASE, append(BASE, GOOD + "  evals_only: true\n"), rr003).findings[0]
    assert f.fix == "Rename `evals_only` to `evals-only`."


def test_yaml_syntax_error_is_reported_once_by_rr012():
    bad = GOOD + "  description:\n    - y\n"  # duplicate key
    r = review(BASE, append(BASE, bad), rr003, rr012)
    assert [f.code for f in r.findings] == ["RR012"]
    assert any(c.code == "RR003" and c.status == "skipped" for c in r.checks)


@pytest.mark.parametrize("keys", ["    - ''", "    -"], ids=["empty-string", "null"])
def test_empty_config_key_items_are_left_to_rr018(keys):
    text = _entry("- config-keys:", keys, "  description:", "    - x", f"  pr-link: {LINK}")
    assert review(BASE, append(BASE, text), rr003).findings == []


def test_only_new_entries_are_validated():
    base = BASE + "\n- config-keys:\n    - old\n  description: not a list\n  pr-link: 1\n"
    r = review(base, append(base, GOOD), rr003)
    assert r.findings == []
