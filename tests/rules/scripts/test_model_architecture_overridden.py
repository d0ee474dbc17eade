"""RR432 model-architecture-overridden: overrides that change the computation block; harmless ones pass."""
import pytest

from rules.changeset import ChangeSet, FileChange
from rules.runner import run
from rules.scripts.checks import model_architecture_overridden as rule

S = "benchmarks/single_node/fixed_seq_len/minimaxm3_fp4_mi355x.sh"
R = "benchmarks/multi_node/srt-slurm-recipes/vllm/model/agg.yaml"


CHECKLIST = "docs/PR_REVIEW_CHECKLIST.md"
POLICY = {CHECKLIST: b"- [ ] The model architecture is not changed by benchmark hacks.\n"}


def review(text, path=S, policy=POLICY):
    fc = FileChange(path, "added", head=text.encode())
    return run(ChangeSet(files=(fc,), base_context=policy, base_probed=frozenset({CHECKLIST})), rules=[rule])


@pytest.mark.parametrize("line,key", [
    ("""vllm serve "$MODEL" --hf-overrides '{"num_hidden_layers": 30}' --port 8000""", "num_hidden_layers"),
    ("""OPT_ARGS=(--hf-overrides '{"use_index_cache": true, "index_topk_freq": 4}')""", "index_topk_freq"),
    ("""HF_OVERRIDES_ARG="--hf-overrides '{\\"use_index_cache\\":true}'\"""", "use_index_cache"),
    ("""python3 -m sglang.launch_server --json-model-override-args '{"architectures": ["X"]}'""", "architectures"),
    ("""vllm serve m --hf-overrides '{"text_config": {"num_experts_per_tok": 4}}'""", "num_experts_per_tok"),
    ("""vllm serve m --hf-overrides='{"skip_mtp_layers": true}'""", "skip_mtp_layers"),
])
def test_computation_changing_overrides_block(line, key):
    r = review(f"#!/usr/bin/env bash\n{line}\n")
    (f,) = r.findings
    assert f.code == "RR432" and f.blocking and f"`{key}`" in f.message and f.line == 2


@pytest.mark.parametrize(
    "line",
    [
        """vllm serve m --hf-overrides '{"max_position_embeddings": """
        """262144, "rope_scaling": {"type": "yarn", "factor": 2}}'""",
        """vllm serve m --override-generation-config '{"temperature": 0.6, "top_p": 0.95}'""",
        "vllm serve m --max-model-len 8192",
        "# --hf-overrides '{\"num_hidden_layers\": 2}' was tried and dropped",
    ],
)
def test_harmless_or_absent_overrides_pass(line):
    assert review(f"#!/usr/bin/env bash\n{line}\n").findings == []


def test_recipe_yaml_key():
    text = "backend:\n  vllm_config:\n    aggregated:\n      hf-overrides:\n        num_hidden_layers: 8\n"
    (f,) = review(text, path=R).findings
    assert f.code == "RR432" and f.line == 4


def test_only_added_lines():
    base = "#!/usr/bin/env bash\nvllm serve m --hf-overrides '{\"num_hidden_layers\": 30}' --port 8000\n"
    head = base + "echo started\n"
    import difflib
    patch = "\n".join(list(difflib.unified_diff(base.splitlines(), head.splitlines(), lineterm=""))[2:])
    cs = ChangeSet(files=(FileChange(S, "modified", base=base.encode(), head=head.encode(), patch=patch),),
                   base_context=POLICY, base_probed=frozenset({CHECKLIST}))
    assert run(cs, rules=[rule]).findings == []


def test_a_base_without_the_rule_is_skipped():
    r = review("#!/usr/bin/env bash\nvllm serve m --hf-overrides '{\"num_hidden_layers\": 2}'\n", policy={})
    assert r.findings == [] and any(c.status == "skipped" and "does not forbid" in c.detail for c in r.checks)
