"""A small benchmark repository as data, for the script rules: launchers, library, scripts, configs.

`repo(changed={path: text | (status, text, base)}, extra={path: text}, modes={path: mode})` builds a
ChangeSet the way the CLI and the App do: changed files with patches (every line added for an added
file), everything else as context, and the head tree listing.
"""
from __future__ import annotations

import difflib
import posixpath

from rules.changeset import ChangeSet, FileChange

LAUNCHER = """#!/usr/bin/bash
FRAMEWORK_SUFFIX=$([[ "$FRAMEWORK" == "trt" ]] && printf '_trt' || printf '')
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
BENCH_BASE="benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_b200"
BENCH_SCRIPT="${BENCH_BASE}_${FRAMEWORK}${SPEC_SUFFIX}.sh"
if [[ ! -f "$BENCH_SCRIPT" ]]; then
    BENCH_SCRIPT="${BENCH_BASE}${FRAMEWORK_SUFFIX}${SPEC_SUFFIX}.sh"
fi
srun --partition=main --gres=gpu:$TP --export=ALL,PORT=8888 bash "$BENCH_SCRIPT"
"""
# An AMD launcher that (like launch_mi300x-amds.sh) adds no framework suffix.
LAUNCHER_AMD = """#!/usr/bin/bash
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
bash benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_mi355x.sh
"""
LIB = """#!/usr/bin/env bash
export PORT="${PORT:-8888}"
check_env_vars() {
    local missing=()
    for v in "$@"; do
        if [[ -z "${!v:-}" ]]; then missing+=("$v"); fi
    done
    if [[ ${#missing[@]} -gt 0 ]]; then echo "missing ${missing[*]}"; exit 1; fi
}
run_benchmark_serving() {
    python3 utils/bench_serving/benchmark_serving.py "$@"
}
wait_for_server_ready() {
    until curl --fail -s "http://0.0.0.0:$PORT/health"; do sleep 5; done
}
"""
RUNNERS = """labels:
  b200:
    - b200-nb_0
    - b200-dgxc-slurm_0
  mi355x:
    - mi355x-amds_0
"""


def sglang_script(extra_flags: str = "", env: str = "", mtp: bool = False, source: str = "../../benchmark_lib.sh",
                  kv: str = "--kv-cache-dtype fp8_e4m3") -> str:
    spec = "--speculative-algorithm EAGLE --speculative-num-steps 3 \\\n    " if mtp else ""
    return f"""#!/usr/bin/env bash
source "$(dirname "$0")/{source}"
check_env_vars MODEL TP CONC ISL OSL
{env}
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port "$PORT" \\
    {spec}{kv} --mem-fraction-static 0.85 {extra_flags} > server.log 2>&1 &
wait_for_server_ready
run_benchmark_serving --model "$MODEL" --port "$PORT" --input-len "$ISL" --output-len "$OSL" \\
    --max-concurrency "$CONC" --num-prompts $((CONC * 10))
"""


def master(*blocks: str) -> str:
    return "\n".join(blocks) + "\n"


def key(name: str, model: str = "glm5", precision: str = "fp8", runner: str = "b200", framework: str = "sglang",
        spec: str | None = None, concs: str = "[4, 8]") -> str:
    sd = f"\n        spec-decoding: {spec}" if spec else ""
    return f"""{name}:
  image: lmsysorg/sglang:v0.5.9
  model: org/{model}
  model-prefix: {model}
  runner: {runner}
  precision: {precision}
  framework: {framework}
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - tp: 8{sd}
        conc-list: {concs}"""


BASE_FILES = {
    "configs/runners.yaml": RUNNERS,
    "runners/launch_b200-nb.sh": LAUNCHER,
    "runners/launch_b200-dgxc-slurm.sh": "launch_b200-nb.sh",
    "runners/launch_mi355x-amds.sh": LAUNCHER_AMD,
    "benchmarks/benchmark_lib.sh": LIB,
}
BASE_MODES = {"runners/launch_b200-dgxc-slurm.sh": "120000"}


def _patch(old: str | None, new: str) -> str:
    old_lines = (old or "").splitlines()
    new_lines = new.splitlines()
    diff = list(difflib.unified_diff(old_lines, new_lines, lineterm="", n=3))
    return "\n".join(diff[2:]) if diff else "@@ -1,0 +1,0 @@"


def repo(changed: dict, extra: dict | None = None, modes: dict | None = None, base_files: bool = True) -> ChangeSet:
    """A changeset of `changed` files over the base repository plus `extra` context files."""
    files_ctx = dict(BASE_FILES) if base_files else {}
    files_ctx.update(extra or {})
    all_modes = dict(BASE_MODES)
    all_modes.update(modes or {})
    changes = []
    for path, spec in changed.items():
        if isinstance(spec, tuple):
            status, text, base = (spec + (None,))[:3]
        else:
            status, text, base = "added", spec, None
        files_ctx.pop(path, None)
        if status == "removed":
            changes.append(FileChange(path, "removed", base=(base or "").encode(), patch=None))
            continue
        changes.append(FileChange(path, status, base=base.encode() if base is not None else None,
                                  head=text.encode(), patch=_patch(base if status != "added" else None, text)))
    tree: dict[str, str] = {}
    dirs = {""}
    # The current layout: scenario directories exist (empty ones are listed too).
    layout = (
        ["benchmarks/single_node/fixed_seq_len/.keep", "benchmarks/single_node/agentic/.keep"] if base_files else []
    )
    heads = [c.path for c in changes if c.status != "removed"] + list(files_ctx) + layout
    for p in heads:
        tree[p] = all_modes.get(p, "100644")
        d = posixpath.dirname(p)
        while d and d not in dirs:
            dirs.add(d)
            tree[d] = "040000"
            d = posixpath.dirname(d)
    return ChangeSet(files=tuple(changes), context={p: t.encode() for p, t in files_ctx.items()}, tree=tree,
                     listed=frozenset(dirs))


def script_path(name: str, scenario: str = "fixed_seq_len") -> str:
    return f"benchmarks/single_node/{scenario}/{name}"
