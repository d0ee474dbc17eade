"""RR423: bare reads under set -u that might be unset (a removed default, a likely misspelling)."""
from rules import run
from rules.scripts.checks import variable_maybe_unset_under_set_u as rule
from tests.rules.scripts_helpers import repo, script_path

P = script_path("x_fp8_b200.sh")


def test_default_removed_is_a_nit():
    old = '#!/bin/bash\nset -euo pipefail\nif [ "${HICACHE_RATIO:-2}" = 2 ]; then echo e; fi\n'
    new = '#!/bin/bash\nset -euo pipefail\nif [ "$HICACHE_RATIO" = 2 ]; then echo e; fi\n'
    (f,) = run(repo({P: ("modified", new, old)}), rules=[rule]).findings
    assert (f.line, f.blocking) == (3, False)
    assert f.message == ("`$HICACHE_RATIO` is read under `set -u` with no default: the base version read it with a "
                         "default; this line reads `$HICACHE_RATIO` bare")


def test_misspelling_is_a_nit():
    text = ('#!/bin/bash\nset -u\necho "$LATER"\nLATER=1\nSERVER_LOG=/tmp/s.log\necho "$SERVER_LGO"\n'
            'echo "$MODEL $HOME ${MAYBE:-x} $SLURM_X"\n')
    (f,) = run(repo({P: text}), rules=[rule]).findings  # `$LATER` is proven: variable-unset-under-set-u
    assert (
        f.message == "`$SERVER_LGO` is read under `set -u` with no default: nothing sets it; did you mean `SERVER_LOG`?"
    )


def test_a_guard_or_a_mapfile_sets_it():
    old = '#!/bin/bash\nset -euo pipefail\necho "${HICACHE_RATIO:-2}"\n'
    guarded = '#!/bin/bash\nset -euo pipefail\n: "${HICACHE_RATIO:?set HICACHE_RATIO}"\necho "$HICACHE_RATIO"\n'
    assert run(repo({P: ("modified", guarded, old)}), rules=[rule]).findings == []
    mapped = '#!/bin/bash\nset -euo pipefail\nmapfile -t HICACHE_RATIO < ratios.txt\necho "$HICACHE_RATIO"\n'
    assert run(repo({P: ("modified", mapped, old)}), rules=[rule]).findings == []


def test_a_launcher_that_passes_it_sets_it():
    from tests.rules.scripts_helpers import key, master
    old = '#!/bin/bash\nset -euo pipefail\nif [ "${HICACHE_RATIO:-2}" = 2 ]; then echo e; fi\n'
    new = '#!/bin/bash\nset -euo pipefail\nif [ "$HICACHE_RATIO" = 2 ]; then echo e; fi\n'
    p = script_path("glm5_fp8_b200.sh")
    cfg = {"configs/nvidia-master.yaml": master(key("glm5-fp8-b200-sglang"))}
    exports = ("#!/usr/bin/bash\nexport HICACHE_RATIO=4\n"
               "bash benchmarks/single_node/fixed_seq_len/${EXP_NAME%%_*}_${PRECISION}_b200.sh\n")
    cs = repo({p: ("modified", new, old)},
              extra={**cfg, "runners/launch_b200-nb.sh": exports, "runners/launch_b200-dgxc-slurm.sh": exports})
    assert run(cs, rules=[rule]).findings == []
