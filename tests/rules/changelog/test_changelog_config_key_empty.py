"""RR018 changelog-config-key-empty: an empty config-keys list or item selects nothing (#1791)."""
import pytest

from rules.changelog.checks import changelog_config_key_empty as rr018
from tests.rules.changelog_helpers import BASE, REPO, append, review

LINK = f"https://github.com/{REPO}/pull/4867"
REST = f"  description:\n    - \"Enable power monitoring\"\n  pr-link: {LINK}\n"


@pytest.mark.parametrize(
    "keys, line, what, gate",
    [
        (
            "- config-keys:\n    -\n    - dsv4-fp4-b200-vllm\n",
            2,
            "`config-keys` item 1 of the entry for",
            "Rejected by the PR-run",
        ),
        ("- config-keys:\n    - ''\n", 2, "is a blank string", "Rejected by the PR-run"),
        ("- config-keys:\n", 1, "has no `config-keys` list", "Rejected by the PR-run"),
        ("- config-keys: []\n", 1, "has an empty `config-keys` list", "Rejected by the PR-run"),
    ],
    ids=["null-item", "blank-string", "null-list", "empty-list"],
)
def test_empty_selection_is_blocking(keys, line, what, gate):
    text = keys + REST
    head = append(BASE, text)
    first = head.count("\n") - text.count("\n")
    [f] = review(BASE, head, rr018).findings
    assert (f.code, f.blocking, f.line - first) == ("RR018", True, line)
    assert what in f.message and gate in f.message


def test_blank_string_passes_the_schema_but_not_key_resolution():
    head = append(BASE, "- config-keys:\n    - ''\n" + REST)
    [f] = review(BASE, head, rr018).findings
    # lax pydantic accepts "", the merge path too; process_changelog fails to resolve it
    assert f.message.endswith("Rejected by the PR-run `check-changelog` on this push.")


def test_non_empty_keys_pass():
    r = review(BASE, append(BASE, "- config-keys:\n    - dsv4-fp4-b200-vllm\n" + REST), rr018)
    assert r.findings == [] and r.checks[0].status == "passed"
