"""The command parser, table-driven, with the near misses named."""
import pytest

from bot.commands import BY_NAME, COMMANDS, help_text, level, parse, suggestion_for

CASES = [
    ("plain command", "/review", [("review", ())]),
    ("command with arguments", "/sweep fail-fast all-evals", [("sweep", ("fail-fast", "all-evals"))]),
    ("command after prose lines", "Looks good.\n\n/sweep enabled", [("sweep", ("enabled",))]),
    ("two commands in one comment", "/sweep off\n/review", [("sweep", ("off",)), ("review", ())]),
    ("up to three leading spaces", "   /review", [("review", ())]),
    ("trailing spaces", "/review   ", [("review", ())]),
    ("alias /use", "/use 12345", [("use", ("12345",))]),
    ("quoted command in a reply", "> /sweep fail-fast\nI disagree", []),
    ("nested quote", "> > /review", []),
    ("command mid-line", "please run /review now", []),
    ("fenced code block", "```\n/sweep fail-fast\n```", []),
    ("tilde fence", "~~~\n/review\n~~~", []),
    ("text after a closed fence counts", "```\n/x\n```\n/review", [("review", ())]),
    ("indented code", "    /review", []),
    ("url path is not a command", "https://example.com/review", []),
    ("empty body", "", []),
    ("slash alone", "/", []),
    ("wrong case is not the command", "/Review", [("Review", ())]),
    ("unknown command", "/frobnicate now", [("frobnicate", ("now",))]),
]


@pytest.mark.parametrize("body,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_parse(body, expected):
    assert [(c.name, c.args) for c in parse(body)] == expected


def test_known_unknown_and_suggestion():
    cmds = parse("/Review\n/frobnicate\n/help")
    assert [c.known for c in cmds] == [False, False, True]
    assert suggestion_for("Review") == "/review" and suggestion_for("frobnicate") is None


def test_alias_maps_to_its_spec():
    assert BY_NAME["use"] is BY_NAME["reuse-sweep-run"]


def test_help_lists_every_command_and_who_may_use_it():
    text = help_text()
    for c in COMMANDS:
        assert c.usage.split()[0] in text
    assert "`maintain` permission or higher" in text and "anyone" in text


@pytest.mark.parametrize("role,needed,ok", [("admin", "maintain", True), ("maintain", "maintain", True),
                                            ("write", "maintain", False), ("triage", "write", False),
                                            ("read", "read", True), ("none", "read", False),
                                            ("bogus", "read", False)])
def test_permission_levels(role, needed, ok):
    assert (level(role) >= level(needed)) is ok
