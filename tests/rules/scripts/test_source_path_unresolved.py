"""RR403: `source` of a path that does not exist."""
import pytest

from rules import run
from rules.scripts.checks import source_path_unresolved as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script


@pytest.mark.parametrize("source,expected", [
    ("../../benchmark_lib.sh", []),
    ("../benchmark_lib.sh", ["benchmarks/single_node/benchmark_lib.sh"]),
    ("../../../benchmark_lib.sh", ["benchmarks/../benchmark_lib.sh"]),
], ids=["right depth", "one level short", "one level too far"])
def test_library_depth(source, expected):
    p = script_path("x_fp8_b200.sh")
    r = run(repo({p: sglang_script(source=source)}), rules=[rule])
    got = [f.message for f in r.findings]
    if source == "../../../benchmark_lib.sh":
        assert got == ["`source benchmarks/single_node/fixed_seq_len/../../../benchmark_lib.sh` resolves to "
                       "`benchmark_lib.sh`, which does not exist"]
        return
    assert [m.split("resolves to `")[1].split("`")[0] for m in got] == expected
    assert all(f.line == 2 and f.blocking for f in r.findings)


def test_bash_source_and_variables_resolve():
    text = '#!/bin/bash\nHERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\nsource "$HERE/../lib.sh"\n'
    p = "benchmarks/multi_node/agentic/x.sh"
    r = run(repo({p: text}), rules=[rule])
    assert [f.message for f in r.findings] == [
        "`source benchmarks/multi_node/agentic/../lib.sh` resolves to `benchmarks/multi_node/lib.sh`, "
        "which does not exist"]


def test_unknown_paths_are_not_findings():
    text = '#!/bin/bash\nsource "$(git rev-parse --show-toplevel)/benchmarks/benchmark_lib.sh"\nsource /etc/profile\n'
    assert run(repo({script_path("x.sh"): text}), rules=[rule]).findings == []


def test_only_added_source_lines():
    p = script_path("x_fp8_b200.sh")
    old = sglang_script(source="../benchmark_lib.sh")
    new = old + "echo done\n"
    assert run(repo({p: ("modified", new, old)}), rules=[rule]).findings == []


def test_a_file_under_a_directory_made_at_run_time_is_not_judged():
    """A launcher clones a tool and makes its virtualenv, then sources its activate script."""
    from tests.rules.scripts_helpers import repo

    launcher = ("#!/bin/bash\ngit clone https://example.com/tool.git tool\ncd tool\nuv venv\n"
                "source .venv/bin/activate\n")
    r = run(repo({"runners/launch_x-nv.sh": launcher}), rules=[rule])
    assert r.findings == []
    assert any(c.status == "skipped" and "does not track" in c.detail for c in r.checks)
