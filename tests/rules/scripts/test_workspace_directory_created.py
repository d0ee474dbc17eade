"""RR433 workspace-directory-created: an added line creating a /workspace directory blocks where the base forbids it."""
import dataclasses

import pytest

from rules.runner import run
from rules.scripts.checks import workspace_directory_created as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

S = script_path("glm5_fp8_b200.sh")
GUIDE = "AGENTS.md"
POLICY = b"# Benchmarks\n\n- While a benchmark runs, make no new directories below `/workspace` (files are fine).\n"
ANCHOR = "check_env_vars MODEL TP CONC ISL OSL\n"


def review(extra: str, policy: bytes | None = POLICY, base_extra: str = ""):
    base = sglang_script().replace(ANCHOR, f"{ANCHOR}{base_extra}\n" if base_extra else ANCHOR)
    text = base.replace(ANCHOR, f"{ANCHOR}{extra}\n")
    cs = repo({S: ("modified", text, base)})
    if policy is not None:
        cs = dataclasses.replace(cs, base_context={GUIDE: policy}, base_probed=frozenset({GUIDE}))
    return run(cs, rules=[rule])


@pytest.mark.parametrize("line", [
    "mkdir -p /workspace/traces",
    "mkdir /workspace/profiles_${CONC}",
    'OUT=/workspace/bench_out\nmkdir -p "$OUT"',
    'DATA="${DATA:-/workspace/dataset}"\nmkdir -p "${DATA}/shards"',
    "install -d -m 755 /workspace/cache",
    "git clone --depth 1 https://github.com/example/tool.git /workspace/tool",
    "huggingface-cli download org/model --local-dir /workspace/draft",
], ids=["mkdir", "mkdir with a variable name", "via an assignment", "via a self-default", "install -d",
        "git clone into", "download dir"])
def test_new_workspace_directories_block(line):
    r = review(line)
    assert [f.code for f in r.findings] == ["RR433"] and r.findings[0].blocking, r.findings
    assert "/workspace/" in r.findings[0].message and "AGENTS.md:3" in r.findings[0].evidence[0]


@pytest.mark.parametrize("line", [
    'mkdir -p "$RESULT_DIR"',
    "mkdir -p /workspace/results/traces",
    "echo started > /workspace/server.log",
    "cp config.yaml /workspace/config.yaml",
    "mkdir -p /tmp/bench_out",
    'mkdir -p "$OUT_DIR"',
    "cd /workspace",
    "git clone https://github.com/example/tool.git",
    "# mkdir -p /workspace/traces",
    "install -m 644 a.json /workspace/a.json",
], ids=["the workflow's result dir", "under the workflow's dir", "a file", "a copied file", "/tmp",
        "an unknown variable", "the checkout itself", "clone into the cwd", "a comment", "install a file"])
def test_controls_pass(line):
    assert review(line).findings == []


def test_untouched_lines_are_not_this_prs():
    r = review("echo done", base_extra="mkdir -p /workspace/traces")
    assert r.findings == []


def test_skipped_when_the_base_does_not_state_it():
    r = review("mkdir -p /workspace/traces", policy=b"# Benchmarks\n\n- Keep scripts short.\n")
    assert r.findings == []
    assert [c.status for c in r.checks if c.name == rule.NAME] == ["skipped"]


def test_skipped_when_the_guidance_was_not_read():
    r = review("mkdir -p /workspace/traces", policy=None)
    assert r.findings == []
    assert any(c.status == "skipped" and "not read" in c.detail for c in r.checks if c.name == rule.NAME)


def test_a_variable_set_apart_on_two_paths_is_not_read_as_one_literal():
    line = ('if [ "$TP" = 8 ]; then OUT=/workspace/out; else OUT=/tmp/out; fi\nmkdir -p "$OUT"')
    assert review(line).findings == []


def test_a_default_of_a_workflow_variable_is_not_the_value_it_runs_with():
    assert review('RESULT_DIR="${RESULT_DIR:-/workspace/logs}"\nmkdir -p "$RESULT_DIR"').findings == []


def test_files_outside_what_a_benchmark_runs_are_not_judged():
    text = "#!/bin/bash\nmkdir -p /workspace/traces\n"
    cs = repo({"experimental/slo/serve.sh": ("added", text, None)})
    cs = dataclasses.replace(cs, base_context={GUIDE: POLICY}, base_probed=frozenset({GUIDE}))
    assert run(cs, rules=[rule]).findings == []
