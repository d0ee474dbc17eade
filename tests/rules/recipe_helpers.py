"""Hand-written recipes for the recipe-rule tests: a schema-2 bundle and srt-slurm role blocks."""
from __future__ import annotations

import difflib
import json
from pathlib import Path

from rules.changeset import ChangeSet, FileChange
from rules.runner import run

FIXTURES = Path(__file__).parent / "fixtures" / "recipes"
SCHEMA2 = (FIXTURES / "schema2_offload.yaml").read_text()
SCHEMA2_PATH = "inferencex-e2e/benchmarks/single_node/srt-slurm-recipes/kimik3.1/vllm/mi355x-fp4-mtp/agentic.yaml"
SRT_PATH = "benchmarks/multi_node/srt-slurm-recipes/vllm/model/agg-test.yaml"
MASTER_PATH = "inferencex-e2e/configs/amd-master.yaml"


def master(util: float = 0.2994, runner: str = "cluster:mi355x-amds") -> bytes:
    """A master row that references the schema-2 fixture with a dram-utilization."""
    return (
        "kimik3.1-fp4-mi355x-vllm-agentic-dspark:\n"
        "  image: vllm/vllm-openai-rocm:x\n"
        f"  runner: {runner}\n"
        "  multinode: false\n"
        "  srt-recipe-dir: kimik3.1/vllm/mi355x-fp4-mtp\n"
        "  srt-recipe: agentic.yaml\n"
        "  scenarios:\n"
        "    agentic-coding:\n"
        f"    - dram-utilization: {util}\n"
        "      search-space:\n"
        "      - { tp: 8, kv-offloading: dram, conc-list: [4, 8, 16, 24, 32, 48] }\n"
    ).encode()


def vllm_role(role: str = "aggregated", **args) -> dict:
    """One srt-slurm vLLM role block with JSON-string args given as dicts."""
    out = {}
    for k, v in args.items():
        key = k.replace("_", "-")
        out[key] = json.dumps(v, separators=(",", ":")) if isinstance(v, dict) else v
    return {role: out}


def srt_recipe(
    roles: dict, gpus: dict | None = None, engine: str = "vllm", gpn: int = 4, env: dict | None = None
) -> str:
    """An srt-slurm recipe text (JSON is valid YAML, but we emit block YAML for real lines)."""
    lines = ["name: test", "resources:", "  gpu_type: gb200", f"  gpus_per_node: {gpn}"]
    for k, v in (gpus or {}).items():
        lines.append(f"  gpus_per_{k}: {v}")
    lines += ["backend:", f"  type: {engine}", f"  {engine}_config:"]
    for role, args in roles.items():
        lines.append(f"    {role}:")
        for k, v in args.items():
            if isinstance(v, dict):
                lines.append(f"      {k}:")
                for kk, vv in v.items():
                    lines.append(f"        {kk}: {vv}")
            elif isinstance(v, str) and (v.startswith("{") or v.startswith("[")):
                lines.append(f"      {k}: '{v}'")
            else:
                lines.append(f"      {k}: {json.dumps(v) if isinstance(v, bool) else v}")
    if env:
        lines += ["benchmark:", "  env:"] + [f"    {k}: '{v}'" for k, v in env.items()]
    return "\n".join(lines) + "\n"


def patch(old: str, new: str) -> str:
    """The unified-diff hunks (GitHub's `patch` field) from old to new."""
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    return "\n".join(line for line in diff if not line.startswith(("---", "+++")))


def review(text: str, rules, path: str = SRT_PATH, base: str | None = None, context: dict | None = None):
    """Run `rules` on one recipe (added, or modified from `base` with a real patch)."""
    if base is None:
        fc = FileChange(path, "added", head=text.encode())
    else:
        fc = FileChange(path, "modified", base=base.encode(), head=text.encode(), patch=patch(base, text))
    return run(ChangeSet(files=(fc,), context=context or {}), rules=rules)


def codes(report) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in report.findings]


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for i, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in text")


def cc(sizes=None, mode="FULL_AND_PIECEWISE", mccs=None) -> dict:
    """A compilation-config dict."""
    out = {"cudagraph_mode": mode}
    if mccs is not None:
        out["max_cudagraph_capture_size"] = mccs
    if sizes is not None:
        out["cudagraph_capture_sizes"] = sizes
    return out


def spec(k: int) -> dict:
    return {"method": "mtp", "num_speculative_tokens": k}


def ladder(step: int, top: int, prefill=(256, 512, 1024, 2048, 4096, 8192)) -> list[int]:
    return list(range(step, top + 1, step)) + list(prefill)


def _yaml_lines(value, indent: int) -> list[str]:
    pad = " " * indent
    out = []
    for k, v in value.items():
        if isinstance(v, dict):
            out.append(f"{pad}{k}:")
            out += _yaml_lines(v, indent + 2)
        elif isinstance(v, list):
            out.append(f"{pad}{k}: {json.dumps(v)}")
        elif isinstance(v, bool):
            out.append(f"{pad}{k}: {json.dumps(v)}")
        elif isinstance(v, str) and (v.startswith("{") or v.startswith("[")):
            out.append(f"{pad}{k}: '{v}'")
        elif isinstance(v, str):
            out.append(f"{pad}{k}: {json.dumps(v)}")
        elif v is None:
            out.append(f"{pad}{k}: null")
        else:
            out.append(f"{pad}{k}: {v}")
    return out


def srt(engine: str = "sglang", roles: dict | None = None, resources: dict | None = None,
        benchmark: dict | None = None, env: dict | None = None, container: str | None = None,
        name: str = "test", backend: dict | None = None) -> str:
    """An srt-slurm recipe: `roles` maps prefill/decode/aggregated to engine args (dicts become
    nested YAML; dict values of vLLM JSON args are written as JSON strings)."""
    doc: dict = {"name": name}
    if container:
        doc["model"] = {"path": "example/model", "container": container}
    doc["resources"] = {"gpu_type": "gb200", "gpus_per_node": 4, **(resources or {})}
    be: dict = {"type": engine, **(backend or {})}
    for role, e in (env or {}).items():
        be[f"{role}_environment"] = e
    cfg = {}
    for role, args in (roles or {}).items():
        out = {}
        for k, v in args.items():
            if (
                engine == "vllm"
                and isinstance(v, dict)
                and k in ("compilation-config", "speculative-config", "kv-transfer-config")
            ):
                out[k] = json.dumps(v, separators=(",", ":"))
            else:
                out[k] = v
        cfg[role] = out
    be[f"{engine}_config"] = cfg
    doc["backend"] = be
    if benchmark is not None:
        doc["benchmark"] = benchmark
    return "\n".join(_yaml_lines(doc, 0)) + "\n"


def mc_row(key: str, recipe: str, prefill: dict | None = None, decode: dict | None = None, conc=(64,),
           extra: str = "") -> bytes:
    """A multinode master row whose prefill role names `recipe` (CONFIG_FILE=recipes/<recipe>)."""
    def block(name, labels):
        lines = [f"        {name}:"] + [f"          {k}: {json.dumps(v)}" for k, v in labels.items()]
        if name == "prefill":
            lines += ["          additional-settings:", f"          - \"CONFIG_FILE=recipes/{recipe}\""]
        return lines
    lines = [f"{key}:", "  image: lmsysorg/sglang:v0.5.12", "  runner: gb200-nv", "  multinode: true",
             "  scenarios:", "    fixed-seq-len:", "    - isl: 1024", "      osl: 1024", "      search-space:",
             f"      - conc-list: {json.dumps(list(conc))}"]
    lines += block("prefill", prefill or {"num-worker": 1, "tp": 4, "ep": 1, "dp-attn": False})
    lines += block("decode", decode or {"num-worker": 1, "tp": 4, "ep": 1, "dp-attn": False})
    return ("\n".join(lines) + "\n" + extra).encode()


MN_PATH = "benchmarks/multi_node/srt-slurm-recipes/sglang/model/8k1k/disagg-1p1d.yaml"
NV_MASTER = "configs/nvidia-master.yaml"
