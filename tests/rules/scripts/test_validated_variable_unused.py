"""RR416: check_env_vars lists a variable nothing reads."""
from rules import run
from rules.scripts.checks import validated_variable_unused as rule
from tests.rules.scripts_helpers import repo, script_path

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
