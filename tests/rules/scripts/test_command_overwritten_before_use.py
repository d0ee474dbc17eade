"""RR406: a command variable overwritten before it is used."""
from rules import run
from rules.scripts.checks import command_overwritten_before_use as rule
from tests.rules.scripts_helpers import repo

P = "benchmarks/multi_node/amd_utils/server_x.sh"


def test_overwritten_is_a_nit():
    text = '#!/bin/bash\nBENCH_CMD="bash bench.sh $MODEL"\nBENCH_CMD="SKIP"\neval "$BENCH_CMD"\n'
    (f,) = run(repo({P: text}), rules=[rule]).findings
    assert (f.line, f.blocking) == (3, False)
    assert f.message == "`BENCH_CMD` is overwritten at line 3 before its value from line 2 is used"


def test_used_between_guarded_or_appended_is_fine():
    for text in ('#!/bin/bash\nBENCH_CMD="a"\necho "$BENCH_CMD"\nBENCH_CMD="b"\n',
                 '#!/bin/bash\nBENCH_CMD="a"\nif [ "$DRY" = 1 ]; then BENCH_CMD="SKIP"; fi\n',
                 '#!/bin/bash\nSERVE_ARGS="--a"\nSERVE_ARGS+=" --b"\n',
                 '#!/bin/bash\nSERVE_ARGS=""\nSERVE_ARGS="--b"\n',
                 '#!/bin/bash\nLOG=a\nLOG=b\n'):
        assert run(repo({P: text}), rules=[rule]).findings == [], text
