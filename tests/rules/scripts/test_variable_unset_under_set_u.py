"""RR404: bare reads under set -u that nothing sets."""
import pytest

from rules import run
from rules.scripts.checks import variable_unset_under_set_u as rule
from tests.rules.scripts_helpers import repo, script_path

P = script_path("x_fp8_b200.sh")


def test_a_removed_default_is_not_proof_that_the_variable_is_unset():
    # the container or the scheduler may set it: variable-maybe-unset-under-set-u (a nit) says so
    old = '#!/bin/bash\nset -euo pipefail\nif [ "${HICACHE_RATIO:-2}" = 2 ]; then echo e; fi\n'
    new = '#!/bin/bash\nset -euo pipefail\nif [ "$HICACHE_RATIO" = 2 ]; then echo e; fi\n'
    assert run(repo({P: ("modified", new, old)}), rules=[rule]).findings == []


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


def test_read_before_the_only_assignment_is_blocking():
    text = ('#!/bin/bash\nset -u\necho "$LATER"\nLATER=1\nSERVER_LOG=/tmp/s.log\necho "$SERVER_LGO"\n'
            'echo "$MODEL $HOME ${MAYBE:-x} $SLURM_X"\n')
    (f,) = run(repo({P: text}), rules=[rule]).findings
    assert (f.line, f.blocking) == (3, True)
    assert f.message == "`$LATER` is read under `set -u` with no default: it is first set at line 4, after this read"
    # the misspelling is read from names: a nit of variable-maybe-unset-under-set-u


@pytest.mark.parametrize("setter", [
    "mapfile -t LATER < /dev/null",
    "readarray -t LATER < /dev/null",
    "read -r LATER < /dev/null",
    "IFS=, read -r -a LATER <<< \"a,b\"",
    "declare -a LATER=()",
    ": \"${LATER:?LATER must be set}\"",
    ": \"${LATER:=x}\"",
    "printf -v LATER %s x",
    "check_env_vars LATER",
    "setup() { LATER=0; }\nsetup",
], ids=["mapfile", "readarray", "read", "read -a", "declare", "guard", "assigning default", "printf -v",
        "check_env_vars", "function"])
def test_a_variable_set_before_the_read_in_any_way_is_set(setter):
    text = f'#!/bin/bash\nset -u\n{setter}\necho "$LATER"\nLATER=1\n'
    assert run(repo({P: text}), rules=[rule]).findings == []


def test_reads_a_later_iteration_or_an_eval_may_set_are_not_proven():
    loop = '#!/bin/bash\nset -u\nfor i in 1 2; do\n  if [ "$i" = 2 ]; then echo "$PREV"; fi\n  PREV=$i\ndone\n'
    assert run(repo({P: loop}), rules=[rule]).findings == []
    ev = '#!/bin/bash\nset -u\neval "$(cat env.sh)"\necho "$LATER"\nLATER=1\n'
    assert run(repo({P: ev}), rules=[rule]).findings == []


def test_a_sourced_file_that_sets_it_counts_from_its_source_line():
    lib = "benchmarks/benchmark_lib.sh"
    from tests.rules.scripts_helpers import LIB
    text = ('#!/bin/bash\nset -u\nsource "$(dirname "$0")/../../benchmark_lib.sh"\necho "$SHARED"\nSHARED=2\n')
    assert run(repo({P: text}, extra={lib: LIB + "SHARED=1\n"}), rules=[rule]).findings == []
    # control: without it in the library the read comes before the script's own assignment
    assert len(run(repo({P: text}), rules=[rule]).findings) == 1


def test_without_set_u_or_after_set_plus_u_nothing():
    assert run(repo({P: '#!/bin/bash\necho "$SERVER_LGO"\nSERVER_LOG=1\n'}), rules=[rule]).findings == []
    assert run(repo({P: '#!/bin/bash\nset -u\nset +u\necho "$LATER"\nLATER=1\n'}), rules=[rule]).findings == []


def test_library_assignments_and_check_env_vars_count():
    text = ('#!/bin/bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\n'
            'set -u\ncheck_env_vars PORX\necho "$PORT $PORX"\n')
    assert run(repo({P: text}), rules=[rule]).findings == []
