"""The script model: tree-sitter-bash parse, commands with their conditions, assignments, reads."""
import pytest

from rules.scripts.parse import MAX_SCRIPT_BYTES, Unreadable, parse


def script(*rows: str):
    s = parse("benchmarks/x.sh", ("\n".join(("#!/bin/bash",) + rows) + "\n").encode())
    assert not isinstance(s, Unreadable)
    return s


def test_commands_join_continuations_and_track_conditions():
    s = script('if [ "$EP_SIZE" -gt 1 ]; then',
               '  EP="--enable-expert-parallel"  # comment --use-chat-template',
               "fi",
               "for x in 1 2; do echo $x; done",
               "case $MODE in",
               "  a) run ;;",
               "esac",
               "vllm serve m \\",
               "  --tp 8")
    (ep,) = s.assigned("EP")
    assert [c.text for c in ep.conditions] == ['[ "$EP_SIZE" -gt 1 ]'] and ep.line == 3
    run = next(c for c in s.commands if c.name == "run")
    assert [c.text for c in run.conditions] == ["case $MODE in a"]
    echo = next(c for c in s.commands if c.name == "echo")
    assert [c.text for c in echo.conditions] == ["for x in 1 2"]
    serve = s.commands[-1]
    assert (serve.text, serve.line, serve.end_line, serve.conditions) == ("vllm serve m --tp 8", 9, 10, ())
    assert serve.literal_args() == ["serve", "m", "--tp", "8"]


def test_else_elif_and_lists_negate_earlier_conditions():
    s = script('if [[ "$A" == 1 ]]; then x=1', 'elif [[ "$B" == 2 ]]; then x=2', "else x=3", "fi",
               '[[ -f f ]] || y=1', '[[ -f g ]] && z=1')
    xs = s.assigned("x")
    assert [[str(c) for c in a.conditions] for a in xs] == [
        ['[[ "$A" == 1 ]]'], ['not ([[ "$A" == 1 ]])', '[[ "$B" == 2 ]]'],
        ['not ([[ "$A" == 1 ]])', 'not ([[ "$B" == 2 ]])']]
    assert [str(c) for c in s.assigned("y")[0].conditions] == ["not ([[ -f f ]])"]
    assert [str(c) for c in s.assigned("z")[0].conditions] == ["[[ -f g ]]"]


def test_assignments_arrays_declarations_and_prefixes():
    s = script("ARGS=(--a 1)", "ARGS+=(--b)", "export X=1 Y", "local Z=2", "declare -a ARR", "FOO=1 cmd --x",
               "f() { local L=3; }")
    kinds = [(a.name, a.declaration, a.append, a.array) for a in s.assignments]
    assert kinds == [("ARGS", None, False, True), ("ARGS", None, True, True), ("X", "export", False, False),
                     ("Y", "export", False, False), ("Z", "local", False, False), ("ARR", "declare", False, True),
                     ("FOO", "prefix", False, False), ("L", "local", False, False)]
    assert s.assigned("L")[0].function == "f" and "f" in s.functions
    cmd = s.commands_named("cmd")[0]
    assert [p.text.decode() for p in cmd.prefix] == ["FOO=1"]


def test_references_keep_their_operator():
    s = script('echo "$A ${B:-x} ${C%%_*} ${#D} ${E[@]} ${!F}"')
    assert [(r.name, r.operator, r.has_default) for r in s.references] == [
        ("A", None, False), ("B", ":-", True), ("C", "%%", False), ("D", "#", False), ("E", None, False)]


@pytest.mark.parametrize("line,on,off", [
    ("set -euo pipefail", {"e", "u", "p"}, set()),
    ("set -o nounset", {"u"}, set()),
    ("set +u", set(), {"u"}),
    ("set -x", {"x"}, set()),
], ids=["euo pipefail", "long nounset", "plus u", "xtrace"])
def test_set_options(line, on, off):
    (opt,) = script(line).set_options
    assert (set(opt.on), set(opt.off)) == (on, off)


def test_option_at_follows_top_level_sets():
    s = script("echo a", "set -u", "echo b", "set +u", "echo c")
    assert [s.option_at("u", n) for n in (2, 4, 6)] == [False, True, False]


def test_commands_inside_substitutions_are_commands_too():
    s = script('X=$(basename "$0")', "echo `date`")
    assert [c.name for c in s.commands] == ["basename", "echo", "date"]


def test_syntax_errors_are_listed_not_raised():
    s = script("if then fi )", "echo ok")
    assert s.errors and any(c.name == "echo" for c in s.commands)


@pytest.mark.parametrize("raw,why", [
    (b"\x00\x01binary", "binary"),
    (b"echo \xff\xfe", "UTF-8"),
    (b"#" * (MAX_SCRIPT_BYTES + 1), "not parsed"),
    (None, "not available"),
], ids=["binary", "not utf-8", "too large", "absent"])
def test_unreadable_scripts_say_why(raw, why):
    s = parse("x.sh", raw)
    assert isinstance(s, Unreadable) and why in s.reason
