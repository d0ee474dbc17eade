"""RR415: curated ShellCheck warnings on added lines."""
from rules import run
from rules.scripts.checks import shellcheck_warning as rule
from tests.rules.scripts_helpers import repo, script_path

P = script_path("x_fp8_b200.sh")


def test_a_quoted_for_list_is_a_nit_and_split_arrays_or_unassigned_names_are_not_defaults():
    text = ('#!/bin/bash\nserver_log=/tmp/s\necho "$server_lgo"\nARGS=( $EXTRA )\nvllm serve "$MODEL" $EXTRA\n'
            'for f in "$DIR/*.yaml"; do echo "$f"; done\n')
    got = [(f.line, f.message.split(":")[0], f.blocking) for f in run(repo({P: text}), rules=[rule]).findings]
    assert got == [(6, "ShellCheck SC2066", False)]  # SC2154, SC2206 are available through `codes`


def test_unassigned_names_are_available_through_codes():
    from rules.config import load_config
    from rules.registry import ALL_RULES
    config, errors = load_config({"rules": {"RR415": {"options": {"codes": [2154]}}}}, ALL_RULES)
    assert not errors
    text = '#!/bin/bash\nserver_log=/tmp/s\necho "$server_lgo"\n'
    assert [(f.line, f.message.split(":")[0]) for f in run(repo({P: text}), config, rules=[rule]).findings] == [
        (3, "ShellCheck SC2154")]


def test_symlinked_launcher_is_not_checked():
    r = run(repo({"runners/launch_x.sh": "launch_b200-nb.sh"}, modes={"runners/launch_x.sh": "120000"}), rules=[rule])
    assert r.findings == [] and r.checks == []


def test_at_most_max_files_scripts_are_checked_most_added_lines_first():
    from rules.config import load_config
    from rules.registry import ALL_RULES
    config, errors = load_config({"rules": {"RR415": {"options": {"max_files": 1}}}}, ALL_RULES)
    assert not errors
    small, big = script_path("a.sh"), script_path("b.sh")
    loop = 'for f in "$D/*.yaml"; do echo "$f"; done\n'
    cs = repo({small: '#!/bin/bash\n' + loop, big: '#!/bin/bash\necho 1\necho 2\n' + loop})
    r = run(cs, config, rules=[rule])
    assert [(f.path, f.line) for f in r.findings] == [(big, 4)]
    assert any(c.status == "skipped" and c.path == small and "at most 1 changed scripts" in c.detail for c in r.checks)
