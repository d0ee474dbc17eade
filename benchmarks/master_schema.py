"""The master-config schema (RR104) against the repository's own validation, on real history and its tests.

    python benchmarks/master_schema.py [--repo MIRROR] [--limit N] [--jobs 2] [--tool-python python3]
                                       [--skip-history] [--skip-cases]

1. **History.** For every first-parent commit of the dev bundle's `main` that changes a master
   config (from 2025-12-05, when `utils/matrix_logic/validation.py` appeared), every key of every
   master config is validated twice: by `rules.master.schema.validate_key` with the conventions of
   that commit's date, and by **that commit's own** `validation.py` (`validate_master_config` per
   key), run in a separate process on scratch copies of the commit's `utils/matrix_logic/` and
   master configs. Both verdicts are compared key by key.
2. **The repository's tests.** Each case of the bundle main's `utils/matrix_logic/test_validation.py`
   that expects a validation error of a master-config entry (48, listed in `CASES` with the test
   they mirror) is turned into a PR: bundle main's `configs/nvidia-master.yaml` plus one new key
   written with that change, and a changelog entry selecting it. The case counts when (a) main's
   own validation rejects the key (checked in a subprocess), (b) main's validation accepts the
   unchanged fixture, and (c) the bot raises RR104 on that key.

Nothing of a PR runs: the code executed in the subprocess is the repository's own main-branch
validation; the configs are data.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import copy
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ruamel.yaml import YAML  # noqa: E402

from benchmarks.changelog_gates import BUNDLE, git, mirror, show  # noqa: E402
from rules import conventions as C  # noqa: E402
from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.master.analysis import _scan  # noqa: E402
from rules.master.checks import master_config_schema_invalid as rr104  # noqa: E402
from rules.master.schema import validate_key  # noqa: E402
from rules.runner import run  # noqa: E402

DIRS = (".github/configs", "configs")
NAMES = ("amd-master.yaml", "nvidia-master.yaml")
DRIVER = r"""
import json, sys, yaml
sys.path.insert(0, "matrix_logic")
from validation import validate_master_config
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # what yaml.safe_load uses, in C when available
out = {}
for path in sys.argv[1:]:
    if path.endswith(".json"):  # a list of key blocks, each parsed on its own
        data = {}
        for i, text in enumerate(json.load(open(path))):
            try:
                data.update(yaml.load(text, Loader=LOADER) or {})
            except yaml.YAMLError as exc:
                data[f"rrkey-{i}"] = ("yaml", str(exc).splitlines()[0])
    else:
        data = yaml.load(open(path), Loader=LOADER)
    res = {}
    for key, entry in (data or {}).items():
        if isinstance(entry, tuple):
            res[key] = f"YAMLError: {entry[1]}"
            continue
        try:
            validate_master_config({key: entry})
            res[key] = None
        except Exception as exc:  # the repository's own verdict, whatever it raises
            res[key] = f"{type(exc).__name__}: " + " | ".join(x.strip() for x in str(exc).splitlines())[:600]
    out[path] = res
print(json.dumps(out))
"""

# -- 1. history -------------------------------------------------------------------------------


def history_commits(repo: Path) -> list[tuple[str, int]]:
    out = git(repo, "log", "--first-parent", "--format=%H %ct", f"--since=@{C.MASTER_SCHEMA}", "refs/heads/main",
              "--", *(f"{d}/{n}" for d in DIRS for n in NAMES)).decode().split("\n")
    return [(ln.split()[0], int(ln.split()[1])) for ln in out if ln.strip()]


def era_signature(conv: C.Conventions) -> tuple:
    return tuple(conv.since(getattr(C, n)) for n in dir(C) if n.isupper() and isinstance(getattr(C, n), int))


def run_validation(repo: Path, sha: str, blocks: list[str], python: str) -> list[str | None]:
    """Verdicts of `sha`'s own validation.py on each key block (renamed `rrkey-<i>`, one file)."""
    with tempfile.TemporaryDirectory(prefix="schema-") as tmp:
        t = Path(tmp)
        subprocess.run(["tar", "-x", "-C", str(t)], input=git(repo, "archive", sha, "utils/matrix_logic"), check=True)
        body = []
        for i, text in enumerate(blocks):
            first, _, rest = text.partition("\n")
            body.append(f"rrkey-{i}:" + first.split(":", 1)[1] + "\n" + rest)
        (t / "keys.json").write_text(json.dumps(body))
        (t / "utils" / "driver.py").write_text(DRIVER)
        p = subprocess.run([python, "driver.py", "../keys.json"], cwd=t / "utils", capture_output=True, text=True,
                           timeout=1800)
        if p.returncode:
            raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "driver failed")
        res = json.loads(p.stdout)["../keys.json"]
        return [res.get(f"rrkey-{i}", "missing from the tool's parse") for i in range(len(blocks))]


def history(repo: Path, python: str, jobs: int, limit: int | None) -> None:
    """Every key version of every master config on main, our verdict vs that commit's validation.py.

    A key's verdict depends only on its text and the validation code, so the repository's
    validation runs once per distinct `validation.py` over all distinct key texts seen under it.
    """
    commits = history_commits(repo)[: limit or None]
    t0 = time.perf_counter()
    per_version: dict[str, dict[str, int]] = {}  # validation.py blob -> key text -> index
    version_commit: dict[str, str] = {}
    ours: dict[tuple, list] = {}
    versions_of: list[tuple[str, str, str, str, tuple]] = []  # (sha, file, key, vblob, our cache key)
    for sha, ts in commits:
        vblob = git(repo, "rev-parse", f"{sha}:utils/matrix_logic/validation.py", check=False).decode().strip()
        if not vblob or " " in vblob:
            continue
        version_commit.setdefault(vblob, sha)
        conv = C.at(ts)
        sig = era_signature(conv)
        for d in DIRS:
            for n in NAMES:
                blob = show(repo, sha, f"{d}/{n}")
                if blob is None:
                    continue
                mf = _scan(f"{d}/{n}", "head", blob)
                for k, info in mf.keys.items():
                    per_version.setdefault(vblob, {}).setdefault(info.text, len(per_version[vblob]))
                    h = (hashlib.sha1(info.text.encode()).hexdigest(), sig)
                    if h not in ours:
                        ours[h] = validate_key(info.value, conv) if info.error is None else ["unparsable"]
                    versions_of.append((sha, n, k, vblob, h, info.text))
    ours_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    truth: dict[str, list] = {}
    with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = {pool.submit(run_validation, repo, version_commit[v], list(texts), python): v
                for v, texts in per_version.items()}
        for fut in cf.as_completed(futs):
            truth[futs[fut]] = fut.result()
    tool_s = time.perf_counter() - t1
    keys = agree = rejected = 0
    disagree = []
    for sha, n, k, vblob, h, text in versions_of:
        theirs = truth[vblob][per_version[vblob][text]]
        mine = ours[h]
        keys += 1
        rejected += theirs is not None
        if bool(mine) == (theirs is not None):
            agree += 1
        else:
            disagree.append((sha, n, k, theirs, mine[0].message if mine and not isinstance(mine[0], str)
                             else (mine[0] if mine else None)))
    print(f"history: {len(commits)} first-parent main commits changing a master config since 2025-12-05; "
          f"{keys:,} key versions ({len(ours):,} distinct key texts × conventions; {len(per_version)} versions of "
          f"validation.py)")
    print(f"  each commit's own validation.py rejects {rejected} key versions; RR104's schema agrees on {agree:,} of "
          f"{keys:,} ({100 * agree / max(keys, 1):.2f} %)")
    print(f"  our validation {ours_s:.0f} s (scan + parse + validate), the repository's {tool_s:.0f} s")
    print(f"  disagreements: {len(disagree)}")
    seen = Counter()
    for sha, n, k, theirs, mine in disagree:
        sig = (k, theirs and theirs[:60], mine and str(mine)[:60])
        seen[sig] += 1
        if seen[sig] == 1:
            print(f"    {sha[:10]} {n} `{k}`: repository: {str(theirs)[:200]!r}; RR104: {mine!r}")
    if len(seen) < len(disagree):
        print(f"    ({len(disagree) - len(seen)} repeats of the same key and verdicts in later commits not shown)")


# -- 2. the repository's test cases -----------------------------------------------------------

SINGLE = {"image": "rocm/7.0:rocm7.0_ubuntu_22.04_sgl-dev-v0.5.2-rocm7.0-mi30x-20250915",
          "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1", "precision": "fp8", "framework": "sglang",
          "runner": "mi300x", "multinode": False,
          "scenarios": {"fixed-seq-len": [{"isl": 1024, "osl": 1024,
                                           "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 64}]}]}}
_P = {"hardware": "gb200", "num-worker": 5, "tp": 4, "ep": 4, "dp-attn": True,
      "additional-settings": ["PREFILL_MAX_NUM_TOKENS=8448", "PREFILL_MAX_BATCH_SIZE=1"]}
_D = {"hardware": "h100", "num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True,
      "additional-settings": ["DECODE_MAX_NUM_TOKENS=256", "DECODE_MAX_BATCH_SIZE=256"]}
MULTI = {"image": "nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.5.1-rc0.pre3", "model": "deepseek-r1-fp4",
         "model-prefix": "dsr1", "precision": "fp4", "framework": "dynamo-trt", "runner": "gb200", "multinode": True,
         "disagg": True, "kv-p2p-transfer": "nixl",
         "scenarios": {"fixed-seq-len": [{"isl": 1024, "osl": 1024, "search-space": [
             {"prefill": _P, "decode": _D, "conc-list": [2150]}]}]}}
AGENTIC = {**SINGLE, "runner": "cluster:b200-dgxc", "image": "vllm/vllm-openai:v0.21.0",
           "scenarios": {"agentic-coding": [{"dram-utilization": 0.8, "search-space": [
               {"tp": 4, "kv-offloading": "dram", "kv-offload-backend": {"name": "native"}, "conc-list": [16]}]}]}}
MULTI_NO_HW = copy.deepcopy(MULTI)
for _w in ("prefill", "decode"):
    del MULTI_NO_HW["scenarios"]["fixed-seq-len"][0]["search-space"][0][_w]["hardware"]

SS = ("scenarios", "fixed-seq-len", 0, "search-space", 0)
AG = ("scenarios", "agentic-coding", 0)
AGS = (*AG, "search-space", 0)
MN_ROW = ("scenarios", "fixed-seq-len", 0, "search-space", 0)


def set_(path, value):
    return ("set", path, value)


def drop(path):
    return ("del", path, None)


def replace_(path, value):
    return ("replace", path, value)


# (name, the test it mirrors, fixture, mutations)
CASES = [
    *[
        (
            f"worker-{f}-zero",
            f"TestWorkerConfig::test_worker_parallelism_fields_must_be_positive[{f}]",
            MULTI_NO_HW,
            [set_((*MN_ROW, "prefill", f), 0)],
        )
        for f in ("pp", "dcp-size", "pcp-size")
    ],
    (
        "worker-dcp-divides-tp",
        "TestWorkerConfig::test_worker_dcp_size_must_divide_tp",
        MULTI_NO_HW,
        [set_((*MN_ROW, "prefill", "dcp-size"), 3)],
    ),
    (
        "worker-missing-ep-dp-attn",
        "TestWorkerConfig::test_worker_config_missing_required_field",
        MULTI_NO_HW,
        [drop((*MN_ROW, "prefill", "ep")), drop((*MN_ROW, "prefill", "dp-attn"))],
    ),
    (
        "worker-extra-field",
        "TestWorkerConfig::test_worker_config_extra_field_forbidden",
        MULTI_NO_HW,
        [set_((*MN_ROW, "prefill", "unknown-field"), "value")],
    ),
    *[
        (
            f"router-metadata-{i}",
            f"TestAgenticMatrixEntries::test_component_metadata_requires_exact_non_empty_fields[{i}]",
            AGENTIC,
            [replace_(AGS, {"tp": 8, "kv-offloading": "none", "router": m, "conc-list": [1, 2]})],
        )
        for i, m in enumerate(
            [
                {"name": "vllm-router"},
                {"version": "0.1.14"},
                {"name": "vllm-router", "version": "0.1.14", "mode": "round-robin"},
                {"name": "", "version": "0.1.14"},
                {"name": "vllm-router", "version": ""},
            ]
        )
    ],
    *[
        (
            f"kv-p2p-transfer-{i}",
            f"TestAgenticMatrixEntries::test_kv_p2p_transfer_requires_a_non_empty_name[{i}]",
            MULTI_NO_HW,
            [drop(("kv-p2p-transfer",)), set_((*MN_ROW, "kv-p2p-transfer"), v)],
        )
        for i, v in enumerate(["", {"name": "nixl"}])
    ],
    (
        "backend-unknown-metadata",
        "TestAgenticMatrixEntries::test_kv_offload_backend_rejects_unknown_metadata",
        AGENTIC,
        [set_((*AGS, "kv-offload-backend"), {"name": "lmcache", "mode": "cpu"})],
    ),
    (
        "backend-image-version",
        "TestAgenticMatrixEntries::test_kv_offload_backend_rejects_image_as_version",
        AGENTIC,
        [set_((*AGS, "kv-offload-backend"), {"name": "lmcache", "version": "image:vllm/vllm-openai:v0.23.0"})],
    ),
    (
        "backend-requires-dram",
        "TestAgenticMatrixEntries::test_kv_offload_backend_requires_dram_mode",
        AGENTIC,
        [set_((*AGS, "kv-offloading"), "none")],
    ),
    (
        "dram-requires-backend",
        "TestAgenticMatrixEntries::test_dram_kv_offload_requires_backend",
        AGENTIC,
        [drop((*AGS, "kv-offload-backend"))],
    ),
    (
        "agentic-requires-kv-offloading",
        "TestAgenticMatrixEntries::test_single_node_agentic_requires_explicit_kv_offloading",
        AGENTIC,
        [replace_(AGS, {"tp": 8, "conc-list": [1, 2]})],
    ),
    (
        "dram-requires-utilization",
        "TestAgenticMatrixEntries::test_dram_kv_offload_requires_dram_utilization",
        AGENTIC,
        [drop((*AG, "dram-utilization"))],
    ),
    (
        "no-total-cpu-dram-gb",
        "TestAgenticMatrixEntries::test_agentic_search_space_rejects_total_cpu_dram_gb",
        AGENTIC,
        [set_((*AGS, "total-cpu-dram-gb"), 1000)],
    ),
    (
        "no-gpus-per-node",
        "TestAgenticMatrixEntries::test_gpus_per_node_is_not_a_master_config_field",
        AGENTIC,
        [set_((*AG, "gpus-per-node"), 8)],
    ),
    (
        "no-available-cpu-dram",
        "TestAgenticMatrixEntries::test_available_cpu_dram_is_not_a_master_config_field",
        AGENTIC,
        [set_((*AG, "available-cpu-dram-mib"), 2964436)],
    ),
    (
        "no-duration",
        "TestAgenticMatrixEntries::test_duration_is_not_a_master_config_field",
        AGENTIC,
        [set_((*AG, "duration"), 1800)],
    ),
    ("pp-zero", "TestSingleNodeSearchSpaceEntry::test_pp_must_be_positive_integer", SINGLE, [set_((*SS, "pp"), 0)]),
    (
        "dcp-divides-tp",
        "TestSingleNodeSearchSpaceEntry::test_dcp_size_must_divide_tp",
        SINGLE,
        [set_((*SS, "dcp-size"), 3), set_((*SS, "pcp-size"), 2)],
    ),
    (
        "range-and-list",
        "TestSingleNodeSearchSpaceEntry::test_cannot_have_both_range_and_list",
        SINGLE,
        [set_((*SS, "conc-list"), [4, 8, 16])],
    ),
    (
        "range-or-list",
        "TestSingleNodeSearchSpaceEntry::test_must_have_range_or_list",
        SINGLE,
        [drop((*SS, "conc-start")), drop((*SS, "conc-end"))],
    ),
    (
        "start-le-end",
        "TestSingleNodeSearchSpaceEntry::test_conc_start_must_be_lte_conc_end",
        SINGLE,
        [set_((*SS, "conc-start"), 64), set_((*SS, "conc-end"), 4)],
    ),
    *[
        (
            f"range-positive-{a}-{b}",
            f"TestSingleNodeSearchSpaceEntry::test_conc_range_values_must_be_positive[{a}-{b}]",
            SINGLE,
            [set_((*SS, "conc-start"), a), set_((*SS, "conc-end"), b)],
        )
        for a, b in ((0, 4), (-1, 4), (1, 0))
    ],
    (
        "list-positive",
        "TestSingleNodeSearchSpaceEntry::test_conc_list_values_must_be_positive",
        SINGLE,
        [drop((*SS, "conc-start")), drop((*SS, "conc-end")), set_((*SS, "conc-list"), [4, 0, 16])],
    ),
    (
        "multinode-missing-conc",
        "TestMultiNodeSearchSpaceEntry::test_missing_conc_specification",
        MULTI_NO_HW,
        [drop((*MN_ROW, "conc-list"))],
    ),
    (
        "hardware-both-or-neither",
        "TestMasterConfigEntries::test_master_hardware_requires_prefill_and_decode",
        MULTI,
        [drop((*MN_ROW, "decode", "hardware"))],
    ),
    (
        "single-multinode-true",
        "TestMasterConfigEntries::test_single_node_cannot_have_multinode_true",
        SINGLE,
        [set_(("multinode",), True)],
    ),
    (
        "multi-multinode-false",
        "TestMasterConfigEntries::test_multinode_cannot_have_multinode_false",
        MULTI,
        [set_(("multinode",), False)],
    ),
    (
        "single-kv-p2p",
        "TestMasterConfigEntries::test_single_node_rejects_kv_p2p_transfer",
        SINGLE,
        [set_(("kv-p2p-transfer",), "nixl")],
    ),
    (
        "router-image-version",
        "TestMasterConfigEntries::test_component_metadata_rejects_image_as_version",
        MULTI,
        [set_(("router",), {"name": "nixl", "version": "image:vllm/vllm-openai:v0.23.0"})],
    ),
    (
        "mixed-scope-router",
        "TestMasterConfigEntries::test_component_metadata_rejects_mixed_scopes[router]",
        MULTI,
        [
            set_(("router",), {"name": "component", "version": "1.0.0"}),
            set_((*MN_ROW, "router"), {"name": "component", "version": "1.0.0"}),
        ],
    ),
    (
        "mixed-scope-kv-p2p",
        "TestMasterConfigEntries::test_component_metadata_rejects_mixed_scopes[kv-p2p-transfer]",
        MULTI,
        [set_((*MN_ROW, "kv-p2p-transfer"), "nixl")],
    ),
    (
        "disagg-needs-kv-p2p",
        "TestMasterConfigEntries::test_disagg_requires_kv_p2p_transfer",
        MULTI,
        [drop(("kv-p2p-transfer",))],
    ),
    (
        "disagg-partial-kv-p2p",
        "TestMasterConfigEntries::test_disagg_rejects_partial_search_space_kv_p2p_transfer",
        MULTI,
        [
            drop(("kv-p2p-transfer",)),
            ("append", ("scenarios", "fixed-seq-len", 0, "search-space"), None),
            set_((*MN_ROW, "kv-p2p-transfer"), "nixl"),
        ],
    ),
    ("single-disagg", "TestMasterConfigEntries::test_disagg_requires_multinode", SINGLE, [set_(("disagg",), True)]),
    (
        "single-agentic-runner",
        "TestMasterConfigEntries::test_single_node_agentic_master_config_requires_cluster_runner",
        SINGLE,
        [
            set_(("runner",), "b200"),
            set_(("image",), "vllm/vllm-openai:test"),
            replace_(
                ("scenarios",),
                {"agentic-coding": [{"search-space": [{"tp": 8, "conc-list": [1], "kv-offloading": "none"}]}]},
            ),
        ],
    ),
    (
        "multi-agentic-runner",
        "TestMasterConfigEntries::test_multinode_agentic_master_config_requires_cluster_runner",
        MULTI,
        [
            set_(("runner",), "b200-multinode"),
            replace_(
                ("scenarios",),
                {
                    "agentic-coding": [
                        {
                            "search-space": [
                                {
                                    "spec-decoding": "none",
                                    "conc-list": [1],
                                    "prefill": {"hardware": "b200", "num-worker": 1, "tp": 4, "ep": 4, "dp-attn": True},
                                    "decode": {"hardware": "b200", "num-worker": 1, "tp": 8, "ep": 8, "dp-attn": False},
                                }
                            ]
                        }
                    ]
                },
            ),
        ],
    ),
    ("missing-model", "TestValidateMasterConfig::test_invalid_config_raises_valueerror", SINGLE, [drop(("model",))]),
    (
        "duplicate-across-files",
        "TestLoadConfigFiles::test_duplicate_keys_raise_error",
        SINGLE,
        [("duplicate", (), None)],
    ),
    (
        "missing-fields",
        "TestLoadConfigFiles::test_validation_runs_by_default",
        SINGLE,
        [replace_((), {"image": "test-image"})],
    ),
]


def mutate(fixture: dict, mutations) -> tuple[dict, bool]:
    value = copy.deepcopy(fixture)
    duplicate = False
    for op, path, arg in mutations:
        if op == "duplicate":
            duplicate = True
            continue
        if op == "replace" and not path:
            value = copy.deepcopy(arg)
            continue
        node = value
        for p in path[:-1]:
            node = node[p]
        if op in ("set", "replace"):
            node[path[-1]] = copy.deepcopy(arg)
        elif op == "del":
            del node[path[-1]]
        elif op == "append":
            node[path[-1]].append(copy.deepcopy(node[path[-1]][0]))
    return value, duplicate


def dump_key(key: str, value: dict) -> str:
    y = YAML(typ="safe", pure=True)
    y.default_flow_style = False
    buf = io.StringIO()
    y.dump({key: value}, buf)
    return buf.getvalue()


def main_rejects(repo: Path, python: str, entries: dict[str, dict]) -> dict[str, str | None]:
    with tempfile.TemporaryDirectory(prefix="cases-") as tmp:
        t = Path(tmp)
        subprocess.run(["tar", "-x", "-C", str(t)], input=git(repo, "archive", "refs/heads/main", "utils/matrix_logic"),
                       check=True)
        (t / "cases.yaml").write_text(json.dumps(entries))  # JSON is YAML
        (t / "utils" / "driver.py").write_text(DRIVER)
        p = subprocess.run([python, "driver.py", "../cases.yaml"], cwd=t / "utils", capture_output=True, text=True,
                           timeout=300)
        if p.returncode:
            raise RuntimeError(p.stderr)
        return json.loads(p.stdout)["../cases.yaml"]


def same_reason(ours: str, theirs: str) -> bool:
    """Does RR104's message name the field or the words of the repository's error?"""
    body = ours.split("`: ", 2)[-1].split(". Rejected by")[0]
    where = ours.split("`: `", 1)[1].split("`", 1)[0] if "`: `" in ours else ""
    field = where.rsplit(".", 1)[-1].split("[")[0] if where and where != "(the key)" else ""
    words = body.replace("Value error, ", "")[:40]
    return (words in theirs) or (bool(field) and field in theirs and body.split(" (")[0] in theirs) or \
        "Duplicate configuration keys" in ours


def cases(repo: Path, python: str) -> None:
    main_sha = git(repo, "rev-parse", "refs/heads/main").decode().strip()
    judge = int(git(repo, "show", "-s", "--format=%ct", main_sha).decode().strip())
    nv_path = next(f"{d}/nvidia-master.yaml" for d in DIRS if show(repo, main_sha, f"{d}/nvidia-master.yaml"))
    amd_path = nv_path.replace("nvidia", "amd")
    nv, amd = show(repo, main_sha, nv_path), show(repo, main_sha, amd_path)
    changelog = show(repo, main_sha, "perf-changelog.yaml")
    built = {}
    for name, test, fixture, muts in CASES:
        value, dup = mutate(fixture, muts)
        built[name] = (test, value, dup, fixture)
    truth = main_rejects(repo, python, {f"rrcase-{n}": v for n, (_, v, _, _) in built.items()})
    fixtures_ok = main_rejects(repo, python, {"single": SINGLE, "multi": MULTI, "multi-no-hw": MULTI_NO_HW,
                                              "agentic": AGENTIC})
    print(f"\ncases: {len(CASES)} error cases of main's utils/matrix_logic/test_validation.py, each as a PR adding one "
          f"key to {nv_path}")
    print(f"  fixtures accepted by main's validation: "
          f"{', '.join(k for k, v in fixtures_ok.items() if v is None)}"
          + ("" if all(v is None for v in fixtures_ok.values()) else f"; REJECTED: {fixtures_ok}"))
    caught = 0
    for name, (test, value, dup, _) in built.items():
        key = f"dsr1-fp8-rrcase-{name}"
        head_nv = nv + b"\n" + dump_key(key, value).encode()
        files = [FileChange(nv_path, "modified", base=nv, head=head_nv)]
        if dup:
            files.append(FileChange(amd_path, "modified", base=amd, head=amd + b"\n" + dump_key(key, value).encode()))
        entry = (f"\n- config-keys:\n    - {key}\n  description:\n    - \"case {name}\"\n"
                 f"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/99999\n").encode()
        files.append(FileChange("perf-changelog.yaml", "modified", base=changelog, head=changelog + entry))
        context = {p: b for p, b in ((amd_path, amd),) if not dup}
        cs = ChangeSet(files=tuple(files), context=context, pr_number=99999, repo="SemiAnalysisAI/InferenceX",
                       base_time=judge)
        found = [
            f for f in run(cs, rules=[rr104]).findings if key in f.message or "Duplicate configuration" in f.message
        ]
        tool = (
            truth.get(f"rrcase-{name}") if not dup else "ValueError: Duplicate configuration keys (load_config_files)"
        )
        ok = bool(found) and tool is not None and same_reason(found[0].message, tool)
        caught += ok
        mark = "caught" if ok else ("MISSED" if tool is not None else "main's validation accepts it")
        print(f"  {mark:8} {name:28} {test}\n           main: {str(tool)[:300]}\n           RR104: "
              f"{found[0].message[:150] if found else '-'}")
    print(f"  RR104 rejects {caught} of {len(CASES)} cases for the schema reason")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tool-python", default="python3")
    ap.add_argument("--skip-history", action="store_true")
    ap.add_argument("--skip-cases", action="store_true")
    args = ap.parse_args(argv)
    if not args.repo and not BUNDLE.exists():
        print(f"bundle not found at {BUNDLE}", file=sys.stderr)
        return 2
    repo = mirror(args.repo)
    if not args.skip_history:
        history(repo, args.tool_python, args.jobs, args.limit)
    if not args.skip_cases:
        cases(repo, args.tool_python)
    return 0


if __name__ == "__main__":
    sys.exit(main())


