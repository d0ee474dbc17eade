"""RR417: a key whose launcher runs another framework's script."""
from rules import run
from rules.scripts.checks import script_framework_mismatch as rule
from tests.rules.scripts_helpers import key, master, repo, script_path, sglang_script

CFG = "configs/amd-master.yaml"
VLLM = '#!/bin/bash\nvllm serve "$MODEL" --tensor-parallel-size "$TP"\n'


def test_atom_key_on_a_launcher_without_framework_suffix():
    cs = repo({CFG: master(key("dsr1-fp8-mi355x-atom", model="dsr1", runner="mi355x", framework="atom"))},
              extra={script_path("dsr1_fp8_mi355x.sh"): sglang_script()})
    (f,) = run(cs, rules=[rule]).findings
    assert (f.path, f.line, f.blocking) == (CFG, 1, True)
    assert (
        f.message
        == "key `dsr1-fp8-mi355x-atom` (framework `atom`) runs `dsr1_fp8_mi355x.sh`, which starts sglang, not atom"
    )


def test_matching_engine_and_other_frameworks_pass():
    ok = repo({CFG: master(key("dsr1-fp8-mi355x-vllm", model="dsr1", runner="mi355x", framework="vllm"))},
              extra={script_path("dsr1_fp8_mi355x.sh"): VLLM})
    r = run(ok, rules=[rule])
    assert r.findings == [] and any(c.status == "passed" and "a vllm script" in c.detail for c in r.checks)
    dyn = repo({CFG: master(key("dsr1-fp8-mi355x-dyn", model="dsr1", runner="mi355x", framework="dynamo-sglang"))},
               extra={script_path("dsr1_fp8_mi355x.sh"): VLLM})
    assert run(dyn, rules=[rule]).findings == []
