"""RR408: literal sizes in the benchmark client call."""
from rules import run
from rules.scripts.checks import benchmark_size_hard_coded as rule
from tests.rules.scripts_helpers import repo, script_path

P = script_path("x_fp8_b200.sh")


def test_literal_sizes_are_nits_with_the_variable_to_use():
    text = ('#!/bin/bash\nrun_benchmark_serving --model m --max-concurrency 64 \\\n  --num-prompts=640 '
            '--input-len "$ISL" --output-len 1024\n')
    got = [(f.line, f.message, f.blocking) for f in run(repo({P: text}), rules=[rule]).findings]
    assert got == [(2, "`--max-concurrency 64` is hard-coded; the harness passes `$CONC` per point", False),
                   (3, "`--num-prompts 640` is hard-coded; the harness passes `$CONC` per point", False),
                   (3, "`--output-len 1024` is hard-coded; the harness passes `$OSL` per point", False)]


def test_point_values_pass():
    text = '#!/bin/bash\nrun_benchmark_serving --max-concurrency "$CONC" --num-prompts $((CONC * 10))\n'
    assert run(repo({P: text}), rules=[rule]).findings == []
