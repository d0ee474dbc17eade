"""RR404: bare reads under set -u that nothing sets."""
from rules import run
from rules.scripts.checks import variable_unset_under_set_u as rule
from tests.rules.scripts_helpers import repo, script_path

P = script_path("x_fp8_b200.sh")


def test_default_removed_is_blocking():
    old = '#!/bin/bash\nset -euo pipefail\nif [ "${HICACHE_RATIO:-2}" = 2 ]; then echo e; fi\n'
    new = '#!/bin/bash\nset -euo pipefail\nif [ "$HICACHE_RATIO" = 2 ]; then echo e; fi\n'
    (f,) = run(repo({P: ("modified", new, old)}), rules=[rule]).findings
    assert (f.line, f.blocking) == (3, True)
    assert f.message == ("`$HICACHE_RATIO` is read under `set -u` with no default: the base version read it with a "
                         "default; this line reads `$HICACHE_RATIO` bare")


def test_default_removed_from_a_workflow_variable_counts_where_a_launcher_drops_it():
    from tests.rules.scripts_helpers import key, master
    old = '#!/bin/bash\nset -euo pipefail\nif [ "${EVAL_ONLY:-false}" = true ]; then echo e; fi\n'
    new = '#!/bin/bash\nset -euo pipefail\nif [ "$EVAL_ONLY" = true ]; then echo e; fi\n'
    p = script_path("glm5_fp8_b200.sh")
    cfg = {"configs/nvidia-master.yaml": master(key("glm5-fp8-b200-sglang"))}
    srun = repo({p: ("modified", new, old)}, extra=cfg)  # srun --export=ALL passes everything
    assert run(srun, rules=[rule]).findings == []
    docker = ("#!/bin/bash\ndocker run -e MODEL -e TP --entrypoint=/bin/bash img \\\n"
              "  benchmarks/single_node/fixed_seq_len/${EXP_NAME%%_*}_${PRECISION}_b200.sh\n")
    cs = repo({p: ("modified", new, old)}, extra={**cfg, "runners/launch_b200-nb.sh": docker})
    (f,) = run(cs, rules=[rule]).findings
    assert f.message.endswith("the base version read it with a default, and `runners/launch_b200-dgxc-slurm.sh` "
                              "does not pass it to the script")


def test_read_before_set_and_misspelling():
    text = ('#!/bin/bash\nset -u\necho "$LATER"\nLATER=1\nSERVER_LOG=/tmp/s.log\necho "$SERVER_LGO"\n'
            'echo "$MODEL $HOME ${MAYBE:-x} $SLURM_X"\n')
    msgs = [f.message for f in run(repo({P: text}), rules=[rule]).findings]
    assert msgs == ["`$LATER` is read under `set -u` with no default: it is first set at line 4, after this read",
                    "`$SERVER_LGO` is read under `set -u` with no default: nothing sets it; did you mean `SERVER_LOG`?"]


def test_without_set_u_or_after_set_plus_u_nothing():
    assert run(repo({P: '#!/bin/bash\necho "$SERVER_LGO"\nSERVER_LOG=1\n'}), rules=[rule]).findings == []
    assert run(repo({P: '#!/bin/bash\nset -u\nset +u\necho "$LATER"\nLATER=1\n'}), rules=[rule]).findings == []


def test_library_assignments_and_check_env_vars_count():
    text = '#!/bin/bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\nset -u\ncheck_env_vars PORX\necho "$PORT $PORX"\n'
    assert run(repo({P: text}), rules=[rule]).findings == []
