"""RR024 changelog-entry-missing-reach-unproven, and where RR009 keeps what reaches a benchmark.

Issue 21: a change to shared harness code that does not touch the command starting the engine or
the benchmark client (telemetry sampling, eval defaults) cannot be shown to move a benchmark's
numbers: RR024. Edits of that command stay RR009's (a nit too since its judged precision as a
blocking rule was 3 of 10: notes/proof.md).
"""
import pytest

from rules import run
from rules.changelog.checks import changelog_entry_missing as rr009
from rules.changelog.checks import changelog_entry_missing_for_cleanup as rr010
from rules.changelog.checks import changelog_entry_missing_reach_unproven as rr024
from rules.changeset import ChangeSet, FileChange
from tests.rules.changelog_helpers import patch_of
from tests.rules.mc_helpers import BASE, NV, ROWS, master, modified, row

LIB_PATH = "benchmarks/benchmark_lib.sh"
LIB = """#!/usr/bin/env bash
# Shared helpers.
export PORT="${PORT:-8888}"

start_gpu_monitor() {
    local interval="${1:-1}"
    nvidia-smi --query-gpu=power.draw --format=csv -lms $((interval * 1000)) > gpu.csv &
    GPU_MONITOR_PID=$!
}

run_benchmark_serving() {
    local model="" max_concurrency="" num_prompts=""
    while [[ $# -gt 0 ]]; do
        case $1 in
            --model) model="$2"; shift 2 ;;
            --max-concurrency) max_concurrency="$2"; shift 2 ;;
            --num-prompts) num_prompts="$2"; shift 2 ;;
            *) shift ;;
        esac
    done
    local benchmark_cmd=(
        python3 utils/bench_serving/benchmark_serving.py
        --model "$model"
        --base-url "http://0.0.0.0:$PORT"
        --num-prompts "$num_prompts"
        --max-concurrency "$max_concurrency"
        --num-warmups "$((2 * max_concurrency))"
    )
    if [[ "${USE_CHAT_TEMPLATE:-false}" == true ]]; then
        benchmark_cmd+=(--use-chat-template)
    fi
    echo "running benchmark_serving.py"
    "${benchmark_cmd[@]}"
}

run_eval() {
    local tasks="${EVAL_TASKS:-gsm8k}"
    local limit="${EVAL_LIMIT:-200}"
    lm_eval --model local-chat-completions --tasks "$tasks" --limit "$limit"
}
"""
JOB_PATH = "benchmarks/multi_node/x_utils/job.slurm"
JOB = """#!/bin/bash
#SBATCH --job-name=bench
if ! ibv_devinfo > /dev/null 2>&1; then
    echo "RDMA devices missing" >&2
fi
srun --nodes=2 bash server.sh
"""
SERVER_PATH = "benchmarks/multi_node/x_utils/server_x.sh"
SERVER = """#!/bin/bash
MEM_FRACTION=0.8
echo "starting sglang.launch_server on $(hostname)"
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --mem-fraction-static "$MEM_FRACTION" &
wait_for_ready "$PORT"
"""


def _change(path, base, head, title=None, *more):
    f = FileChange(path, "modified", base=base.encode(), head=head.encode(), patch=patch_of(base, head))
    return run(ChangeSet(files=(f, *more), title=title), rules=[rr009, rr010, rr024])


def _codes(r):
    return [(f.code, f.blocking) for f in r.findings]


@pytest.mark.parametrize("old, new", [
    ('local interval="${1:-1}"', 'local interval="${1:-5}"'),           # telemetry sampling interval
    ('local limit="${EVAL_LIMIT:-200}"', 'local limit="${EVAL_LIMIT:-500}"'),  # an eval default
    ('echo "running benchmark_serving.py"', 'echo "running the client"'),  # a message naming the client
], ids=["telemetry sampling", "eval default", "log line"])
def test_harness_edit_outside_the_commands_is_a_nit(old, new):
    r = _change(LIB_PATH, LIB, LIB.replace(old, new))
    assert _codes(r) == [("RR024", False)]
    f = r.findings[0]
    assert f.message.startswith(f"this PR changes the shared harness script `{LIB_PATH}` outside the engine and "
                                "benchmark-client commands and appends no perf-changelog entry")
    assert any("outside every command that starts the engine or the benchmark client" in e for e in f.evidence)


def test_a_revert_of_a_harness_edit_is_cleanup():
    r = _change(LIB_PATH, LIB, LIB.replace('${1:-1}', '${1:-5}'), 'Revert "Sample GPU power faster"')
    assert [f.code for f in r.findings] == ["RR010"]


@pytest.mark.parametrize("old, new", [
    ('--num-warmups "$((2 * max_concurrency))"', '--num-warmups "$((3 * max_concurrency))"'),  # the client's load
    ('--num-prompts) num_prompts="$2"; shift 2 ;;', '--num-prompts) num_prompts="$(( $2 * 2 ))"; shift 2 ;;'),
    ('"${USE_CHAT_TEMPLATE:-false}" == true', '"${USE_CHAT_TEMPLATE:-true}" == true'),  # a guard of an argument
    ('export PORT="${PORT:-8888}"', 'export PORT="${PORT:-8000}"'),  # a default the command reads
    ('        --max-concurrency "$max_concurrency"\n', '        # no concurrency cap\n'),  # an argument deleted
    ('    "${benchmark_cmd[@]}"\n', '    timeout 3600 "${benchmark_cmd[@]}"\n'),  # how the command runs
], ids=["warmups", "argument parser", "argument guard", "top-level default", "argument deleted", "run line"])
def test_harness_edit_of_the_client_command_stays_blocking(old, new):
    assert old in LIB
    r = _change(LIB_PATH, LIB, LIB.replace(old, new))
    assert _codes(r) == [("RR009", False)]
    assert r.findings[0].message.startswith(f"this PR changes the script `{LIB_PATH}`")
    assert any("builds or runs the `benchmark_serving.py` command" in e for e in r.findings[0].evidence)


def test_comment_only_harness_edit_needs_nothing():
    assert _change(LIB_PATH, LIB, LIB.replace("# Shared helpers.", "# Shared helpers of every script.")).findings == []


def test_multi_node_helpers_are_harness_too():
    r = _change(JOB_PATH, JOB, JOB.replace("RDMA devices missing", "RDMA devices missing on $(hostname)"))
    assert _codes(r) == [("RR024", False)]
    r = _change(SERVER_PATH, SERVER, SERVER.replace("MEM_FRACTION=0.8", "MEM_FRACTION=0.85"))
    assert _codes(r) == [("RR009", False)]  # read by the engine's command
    r = _change(SERVER_PATH, SERVER, SERVER.replace("starting", "launching"))
    assert _codes(r) == [("RR024", False)]


def test_a_benchmark_script_edit_stays_blocking_and_its_comments_do_not_count():
    path = "benchmarks/single_node/fixed_seq_len/m_fp4_b200_vllm.sh"
    script = "#!/bin/bash\n# Serve M on B200.\nvllm serve \"$MODEL\" --max-num-seqs 64 &\nrun_eval --port 8888\n"
    assert _codes(_change(path, script, script.replace("run_eval --port 8888", "run_eval --port 8000"))) == [
        ("RR009", False)]  # the script a launcher runs is the benchmark: any code edit reaches it
    assert _change(path, script, script.replace("# Serve M", "# Serve model M")).findings == []


def test_a_result_label_change_alone_is_a_nit():
    router = "  router:\n    name: dyn\n    version: 1.0.0\n"
    base = master(ROWS[0], row("dsv4-fp4-b300-vllm", extra=router), ROWS[2])
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", extra=router.replace("1.0.0", "1.1.0")), ROWS[2])
    r = run(ChangeSet(files=(modified(NV, base, head, patch_of(base.decode(), head.decode())),)),
            rules=[rr009, rr010, rr024])
    assert _codes(r) == [("RR024", False)]
    assert "changes only result labels of `dsv4-fp4-b300-vllm`" in r.findings[0].message
    # control: the same key's image bumped (a field its jobs run) is RR009's
    head = master(ROWS[0], row("dsv4-fp4-b300-vllm", image="vllm/vllm-openai:v0.21.0", extra=router), ROWS[2])
    r = run(ChangeSet(files=(modified(NV, base, head, patch_of(base.decode(), head.decode())),)),
            rules=[rr009, rr010, rr024])
    assert _codes(r) == [("RR009", False)]


def test_a_proven_change_next_to_a_harness_edit_is_rr009s_alone():
    lib = FileChange(LIB_PATH, "modified", base=LIB.encode(), head=LIB.replace("${1:-1}", "${1:-5}").encode())
    head = BASE.replace(b"vllm/vllm-openai:v0.20.1", b"vllm/vllm-openai:v0.21.0", 1)
    r = run(ChangeSet(files=(lib, modified(NV, BASE, head, patch_of(BASE.decode(), head.decode())))),
            rules=[rr009, rr010, rr024])
    assert [f.code for f in r.findings] == ["RR009"]
    assert r.findings[0].path == NV


ENTRY_PATH = "benchmarks/single_node/fixed_seq_len/m_fp4_b200_vllm.sh"
ENTRY = """#!/bin/bash
source "$(dirname "$0")/../../benchmark_lib.sh"
vllm serve "$MODEL" --max-num-seqs 64 &
run_benchmark_serving --model "$MODEL" --max-concurrency "$CONC" --num-prompts "$((CONC * 10))"
"""


def _entry(head, context=True):
    f = FileChange(ENTRY_PATH, "modified", base=ENTRY.encode(), head=head.encode(), patch=patch_of(ENTRY, head))
    cs = ChangeSet(files=(f,), context={LIB_PATH: LIB.encode()} if context else {})
    return run(cs, rules=[rr009, rr010, rr024])


def test_a_benchmark_script_that_only_adds_telemetry_calls_is_a_nit():
    head = ENTRY.replace("vllm serve", "start_gpu_monitor\nvllm serve")
    r = _entry(head)
    assert _codes(r) == [("RR024", False)]
    assert r.findings[0].message.startswith(f"this PR changes the script `{ENTRY_PATH}` only where it prints or calls "
                                            "library helpers that start no engine or client")
    assert any("`start_gpu_monitor`" in e for e in r.findings[0].evidence)
    assert _codes(_entry(head, context=False)) == [("RR009", False)]  # the library unread: nothing is known inert


@pytest.mark.parametrize("head", [
    ENTRY.replace("vllm serve", "export VLLM_USE_V2=1\nvllm serve"),        # the engine's environment
    ENTRY.replace("--max-num-seqs 64", "--max-num-seqs 128"),               # the serve command
    ENTRY.replace('"$((CONC * 10))"', '"$((CONC * 5))"'),                  # the client's load
], ids=["export", "serve flag", "client load"])
def test_a_benchmark_script_edit_that_reaches_the_run_stays_blocking(head):
    assert _codes(_entry(head)) == [("RR009", False)]


def test_re_spacing_a_line_of_a_benchmark_script_is_no_change():
    base = ENTRY.replace("vllm serve", "export VLLM_X=1 \nvllm serve")  # a trailing space
    head = base.replace("export VLLM_X=1 \n", "export VLLM_X=1\nstart_gpu_monitor\n")
    f = FileChange(ENTRY_PATH, "modified", base=base.encode(), head=head.encode(), patch=patch_of(base, head))
    r = run(ChangeSet(files=(f,), context={LIB_PATH: LIB.encode()}), rules=[rr009, rr010, rr024])
    assert _codes(r) == [("RR024", False)]


EVAL_BLOCK = '\nif [ "${RUN_EVAL}" = "true" ]; then\n    run_eval --port "$PORT"\n    export EVAL_DONE=1\nfi\n'


def test_an_edit_after_the_last_client_run_is_a_nit():
    # judged: an eval added after the throughput run changes no number the sweep records
    r = _entry(ENTRY + EVAL_BLOCK)
    assert _codes(r) == [("RR024", False)]
    assert "after the benchmark client has run" in r.findings[0].message
    assert any("come after the benchmark client's last run (line 4)" in e for e in r.findings[0].evidence)


def test_an_edit_before_the_client_or_around_a_client_in_a_loop_reaches_the_run():
    before = ENTRY.replace("run_benchmark_serving", EVAL_BLOCK.strip("\n") + "\nrun_benchmark_serving")
    assert _codes(_entry(before)) == [("RR009", False)]  # the export precedes the measurement
    looped = (
        ENTRY.replace("run_benchmark_serving", "for CONC in 4 8; do\nrun_benchmark_serving").rstrip("\n") + "\ndone\n"
    )
    f = FileChange(ENTRY_PATH, "modified", base=looped.encode(), head=(looped + EVAL_BLOCK).encode(),
                   patch=patch_of(looped, looped + EVAL_BLOCK))
    r = run(ChangeSet(files=(f,), context={LIB_PATH: LIB.encode()}), rules=[rr009, rr010, rr024])
    assert _codes(r) == [("RR009", False)]  # a client run in a loop: no line is surely after the last run


RECIPE_PATH = "benchmarks/multi_node/recipes/m/b200/1k1k_lowlat.yaml"
RECIPE = "backend:\n  type: sglang\nresources:\n  gpus_per_node: 8\n"


def _recipe(master_text: bytes | None):
    f = FileChange(RECIPE_PATH, "added", base=None, head=RECIPE.encode(), patch=patch_of("", RECIPE))
    context = {NV: master_text} if master_text is not None else {}
    return run(ChangeSet(files=(f,), context=context), rules=[rr009, rr010, rr024])


def test_a_recipe_nothing_names_is_a_nit_and_a_named_one_reaches_a_benchmark():
    r = _recipe(BASE)  # the master config read does not name the file
    assert _codes(r) == [("RR024", False)]
    assert "nothing the review read names `1k1k_lowlat.yaml`" in " ".join(r.findings[0].evidence)
    named = BASE.replace(b"  runner: b200\n", b"  runner: b200\n  config-file: recipes/m/b200/1k1k_lowlat.yaml\n", 1)
    assert _codes(_recipe(named)) == [("RR009", False)]
    assert _codes(_recipe(None)) == [("RR009", False)]  # no master config read: nothing is known about who reads it
