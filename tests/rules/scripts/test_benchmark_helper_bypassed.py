"""RR409: benchmark_serving.py called directly from a single-node script."""
from rules import run
from rules.scripts.checks import benchmark_helper_bypassed as rule
from tests.rules.scripts_helpers import repo, script_path


def test_direct_call_is_a_nit():
    text = '#!/bin/bash\npython3 utils/bench_serving/benchmark_serving.py --model m --num-prompts $((CONC * 5))\n'
    (f,) = run(repo({script_path("glm5_fp8_h200.sh"): text}), rules=[rule]).findings
    assert (f.line, f.blocking) == (2, False)
    assert f.message == ("the script runs `utils/bench_serving/benchmark_serving.py` directly instead of "
                         "`run_benchmark_serving`")


def test_the_helper_and_multi_node_scripts_are_fine():
    assert (
        run(repo({script_path("a.sh"): "#!/bin/bash\nrun_benchmark_serving --model m\n"}), rules=[rule]).findings == []
    )
    text = "#!/bin/bash\npython3 benchmark_serving.py --model m\n"
    assert run(repo({"benchmarks/multi_node/a.sh": text}), rules=[rule]).findings == []
