"""RR418: a variable read, then given a value nothing reads."""
from rules import run
from rules.scripts.checks import value_never_read as rule
from tests.rules.scripts_helpers import repo, script_path

P = script_path("x_fp8_mi355x.sh")
HEAD = '#!/usr/bin/env bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\n'


def _script(launch: str, branch: str = 'CUDA_GRAPH_MAX_BS=16', before: str = "") -> str:
    return (HEAD + before + 'CUDA_GRAPH_MAX_BS="$CONC"\n'
            'if [ "$OFFLOADING" = hicache ] && [ "$CUDA_GRAPH_MAX_BS" -gt 16 ]; then\n'
            f'    {branch}\n'
            'fi\n'
            'python3 -m sglang.launch_server --model-path "$MODEL" \\\n'
            f'    {launch} \\\n'
            '    --tp "$TP"\n')


def _findings(text, raw: bool = False, **kw):
    return run(repo(text if raw else {P: text}, **kw), rules=[rule]).findings


def test_lost_cap_is_a_nit_on_the_flag_with_a_suggestion():
    (f,) = _findings(_script("--cuda-graph-max-bs $CONC"))
    assert (f.line, f.blocking) == (8, False)
    assert f.message == ("`--cuda-graph-max-bs $CONC` ignores `CUDA_GRAPH_MAX_BS`, which line 5 sets and nothing "
                         "reads afterwards")
    assert f.suggestion == '    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \\'
    assert any("line 5: `CUDA_GRAPH_MAX_BS=16`" in e for e in f.evidence)


def test_without_a_matching_flag_the_assignment_is_reported():
    (f,) = _findings(_script("--max-running-requests $CONC"))
    assert f.line == 5
    assert f.message == "`CUDA_GRAPH_MAX_BS` is assigned here, but nothing reads it afterwards: the value is lost"


def test_a_later_read_clears_it():
    assert _findings(_script('--cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS"')) == []
    assert _findings(_script('--cuda-graph-max-bs $((CUDA_GRAPH_MAX_BS * 2))')) == []  # bare name in arithmetic


def test_exported_looped_or_dynamic_variables_are_left_alone():
    assert _findings(_script("--cuda-graph-max-bs $CONC", before="export CUDA_GRAPH_MAX_BS\n")) == []
    assert _findings(_script("--cuda-graph-max-bs $CONC", before="set -a\n")) == []
    assert _findings(_script("--cuda-graph-max-bs $CONC", before='eval "$EXTRA"\n')) == []
    looped = (HEAD + 'N=1\nfor i in 1 2 3; do\n    echo "$N"\n    N=$((i * 2))\ndone\n')
    assert _findings(looped) == []


def test_a_read_in_a_function_or_the_library_counts():
    fn = _script("--cuda-graph-max-bs $CONC", before='show() { echo "$CUDA_GRAPH_MAX_BS"; }\n')
    assert _findings(fn) == []
    lib = '#!/usr/bin/env bash\nreport() { echo "$CUDA_GRAPH_MAX_BS"; }\n'
    assert _findings(_script("--cuda-graph-max-bs $CONC"), extra={"benchmarks/benchmark_lib.sh": lib}) == []


def test_only_assignments_the_pr_touches_or_whose_reads_it_removed():
    old = _script('--cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS"')
    new = _script("--cuda-graph-max-bs $CONC")
    (f,) = _findings({P: ("modified", new, old)}, raw=True)  # the PR removed the read on the launch line
    assert f.line == 8
    both = _script("--cuda-graph-max-bs $CONC")
    # dead before the PR, lines untouched
    assert _findings({P: ("modified", both + "echo done\n", both)}, raw=True) == []
