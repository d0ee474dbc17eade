"""RR416: check_env_vars lists a variable nothing reads."""
import pytest

from rules import run
from rules.scripts.checks import validated_variable_unused as rule
from tests.rules.scripts_helpers import LIB, repo, script_path

P = script_path("x_fp8_b200.sh")


def test_unused_validated_variable_is_a_nit():
    text = '#!/bin/bash\ncheck_env_vars MODEL \\\n  SPEC_DECODING\nvllm serve "$MODEL"\n'
    (f,) = run(repo({P: text}), rules=[rule]).findings
    assert (f.line, f.blocking) == (3, False)
    assert f.message == "`check_env_vars` requires `SPEC_DECODING`, but the script never reads it"
    text2 = "#!/bin/bash\ncheck_env_vars A B\necho ok\n"
    (g,) = run(repo({P: text2}), rules=[rule]).findings
    assert g.message == "`check_env_vars` requires `A`, `B`, but the script never reads them"


def test_reads_in_the_sourced_library_count():
    text = '#!/bin/bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\ncheck_env_vars PORT MODEL\necho "$MODEL"\n'
    assert run(repo({P: text}), rules=[rule]).findings == []


@pytest.mark.parametrize("use", [
    'echo $(( SPEC_DECODING * 2 ))',
    'BYTES="${BYTES_OVERRIDE:-$((SPEC_DECODING * 1024))}"',
    '(( SPEC_DECODING > 1 )) && echo big',
    "cat > run.sh <<'EOF'\necho $SPEC_DECODING\nEOF\nbash run.sh",
    "srun --nodes=1 bash <<'EOF'\necho ${SPEC_DECODING}\nEOF",
    "bash -c 'echo $SPEC_DECODING'",
], ids=["arithmetic", "arithmetic in a default", "arithmetic command", "written child script", "here-doc to srun",
        "bash -c"])
def test_reads_the_shell_does_count(use):
    text = f'#!/bin/bash\ncheck_env_vars MODEL SPEC_DECODING\nvllm serve "$MODEL"\n{use}\n'
    assert run(repo({P: text}), rules=[rule]).findings == []


def test_a_child_script_in_the_repository_counts_by_its_own_reads():
    child = script_path("x_child.sh")
    text = '#!/bin/bash\ncheck_env_vars MODEL SPEC_DECODING\nbash "$(dirname "$0")/x_child.sh"\n'
    assert (
        run(repo({P: text}, extra={child: '#!/bin/bash\necho "$MODEL $SPEC_DECODING"\n'}), rules=[rule]).findings == []
    )
    # control: a child that reads only MODEL leaves SPEC_DECODING unused
    (f,) = run(repo({P: text}, extra={child: '#!/bin/bash\necho "$MODEL"\n'}), rules=[rule]).findings
    assert f.message == "`check_env_vars` requires `SPEC_DECODING`, but the script never reads it"


def test_a_submitted_child_the_review_cannot_read_may_read_them():
    text = ('#!/bin/bash\ncheck_env_vars CONC_LIST PREFILL_EP\ngit clone https://example.invalid/x.git && cd x\n'
            'sbatch --nodes=2 ${EXTRA_ARGS} benchmark_disagg.slurm "$CONC_LIST"\n')
    r = run(repo({P: text}), rules=[rule])
    assert r.findings == []
    assert any(c.status == "skipped" and "`benchmark_disagg.slurm` (line 4)" in c.detail for c in r.checks)


def test_a_library_sourced_through_a_run_time_path_counts():
    lib = LIB + 'write_result() {\n    echo "$PRECISION"\n}\n'
    text = ('#!/bin/bash\nsource "$WORKSPACE/benchmarks/benchmark_lib.sh"\ncheck_env_vars MODEL PRECISION\n'
            'echo "$MODEL"\nwrite_result\n')
    assert run(repo({P: text}, extra={"benchmarks/benchmark_lib.sh": lib}), rules=[rule]).findings == []
