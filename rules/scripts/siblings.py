"""Sibling scripts: which benchmark scripts a script is compared with, and what each one sets.

A single-node script is named `<model>_<precision>_<sku>[_<framework>][_mtp].sh`. Its **family**
is the model prefix without its minor version (`glm5.1` → `glm5`, `minimaxm3` stays), its
**vendor** comes from the SKU (`mi*` → amd, else nvidia), its **engine** from what it launches
(`vllm serve`, `sglang.launch_server`, `trtllm-serve`, `atom`). Siblings are the other
single-node scripts (every scenario directory, `deprecated/` included, never `speedbench/`) of the same family and
engine when at least `min_family` exist; otherwise of the same engine and vendor in the same
directory. Environment variables are compared with siblings of the same vendor only: they differ
between the ROCm and CUDA builds of every engine (`VLLM_USE_BREAKABLE_CUDAGRAPH`, `RCCL_*`).

`features(ctx, path)` lists what a script sets: engine flags (every `--name` word outside comments,
in commands, arrays and strings) and environment variables (assigned, exported or prefixed
`NAME=value cmd`, whose name starts with an engine or runtime prefix).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from rules.context import ReviewContext
from rules.scripts.parse import Script, Unreadable, text_of
from rules.scripts.resolve import parsed

ENV_PREFIXES = ("SGLANG_", "VLLM_", "TRTLLM_", "TLLM_", "NCCL_", "RCCL_", "HIP_", "ROCM_", "HSA_", "AITER_", "ATOM_",
                "CUDA_", "TORCH_", "PYTORCH_", "NVIDIA_", "MORI_", "UCX_", "FLASHINFER_", "NVSHMEM_", "MIOPEN_",
                "GPU_", "AMD_", "TORCHINDUCTOR_", "SAFETENSORS_")
_FLAG = re.compile(r"(?<![\w-])(--[a-zA-Z][\w-]*)")
_ENGINE_WORD = re.compile(r"vllm serve|vllm\.entrypoints|sglang\.launch_server|sglang serve|trtllm-serve|atom\.entrypoints")
_NAME = re.compile(r"^(?P<model>[a-z0-9.]+?)_(?P<precision>[a-z0-9]+)_(?P<sku>[a-z0-9]+)(?P<rest>(?:_[\w.-]+)*)\.sh$")


@dataclass(frozen=True)
class Features:
    path: str
    engine: str | None
    family: str | None
    vendor: str | None
    mtp: bool
    flags: dict  # flag → first line
    env: dict  # variable → first line


def name_parts(path: str) -> tuple[str, str, str] | None:
    """(model, precision, sku) of a script name, or None."""
    m = _NAME.match(posixpath.basename(path))
    return (m.group("model"), m.group("precision"), m.group("sku")) if m else None


def family_of(model: str) -> str:
    return re.sub(r"\.\d+$", "", model)


def vendor_of(sku: str) -> str:
    return "amd" if sku.startswith("mi") else "nvidia"


def engine_of(text: str) -> str | None:
    if "sglang.launch_server" in text or re.search(r"\bsglang serve\b", text):
        return "sglang"
    if re.search(r"\bvllm serve\b", text) or "vllm.entrypoints" in text:
        return "vllm"
    if "trtllm-serve" in text:
        return "trt"
    if "atom.entrypoints" in text:
        return "atom"
    return None


def _code_text(script: Script) -> str:
    """The script's text with comments blanked (so a flag in a comment is not a flag set)."""
    raw = bytearray(script.text.encode("utf-8"))
    stack = [script.root]
    while stack:
        n = stack.pop()
        if n.type == "comment":
            raw[n.start_byte:n.end_byte] = b" " * (n.end_byte - n.start_byte)
            continue
        stack.extend(n.children)
    return raw.decode("utf-8", "replace")


def features(ctx: ReviewContext, path: str, side: str = "head") -> Features | None:
    def compute() -> Features | None:
        if side == "head":
            script = parsed(ctx, path)
        else:
            from rules.scripts.parse import parse
            script = parse(path, ctx.changeset.base_bytes(path))
        if isinstance(script, Unreadable):
            return None
        code = _code_text(script)
        flags: dict = {}
        # Flags of helper and tool commands (the benchmark client, curl, pip, hf …) are not the
        # engine's: blank those commands, keep engine launches, computed commands and assignments.
        skip = bytearray(code.encode("utf-8"))
        for c in script.commands:
            if c.name is not None and not _ENGINE_WORD.search(text_of(c.node)):
                n = c.node
                skip[n.start_byte:n.end_byte] = b" " * (n.end_byte - n.start_byte)
        engine_code = skip.decode("utf-8", "replace")
        for i, line in enumerate(engine_code.split("\n"), start=1):
            for m in _FLAG.finditer(line):
                flags.setdefault(m.group(1).split("=", 1)[0].replace("_", "-"), i)
        env: dict = {}
        for a in script.assignments:
            if a.name.startswith(ENV_PREFIXES):
                env.setdefault(a.name, a.line)
        parts = name_parts(path)
        return Features(path, engine_of(code), family_of(parts[0]) if parts else None,
                        vendor_of(parts[2]) if parts else None,
                        posixpath.basename(path).endswith("_mtp.sh"), flags, env)

    return ctx.memo(("scripts", "features", side, path), compute)


def _single_node_dir(path: str) -> str | None:
    """`<root>benchmarks/single_node` for a benchmark script under it, else None (speedbench runs
    are another kind of benchmark). Archived (`deprecated/`) scripts are siblings too: they record
    how the family was run."""
    m = re.match(r"^(.*?benchmarks/single_node)/(?:[^/]+/){0,2}[^/]+\.sh$", path)
    if not m or "/speedbench/" in path:
        return None
    return m.group(1)


def candidates(ctx: ReviewContext, path: str) -> list[str]:
    """Scripts that may be siblings of `path` by name (same family, or same vendor and directory)."""
    top = _single_node_dir(path)
    parts = name_parts(path)
    if top is None or parts is None:
        return []
    fam, vendor = family_of(parts[0]), vendor_of(parts[2])
    cs = ctx.changeset
    names = set(cs.tree) | {f.path for f in cs.files if f.status != "removed"} | set(cs.context)
    out = []
    for p in names:
        if p == path or _single_node_dir(p) != top or cs.exists(p) is False or not p.endswith(".sh"):
            continue
        q = name_parts(p)
        if q is None:
            continue
        same_family = family_of(q[0]) == fam
        same_dir = posixpath.dirname(p) == posixpath.dirname(path) and vendor_of(q[2]) == vendor
        if same_family or same_dir:
            out.append(p)
    return sorted(out)


def siblings_of(ctx: ReviewContext, path: str, min_family: int = 4,
                mtp_only: bool = False) -> tuple[list[Features], str, bool]:
    """(siblings' features, which tier, family tier?) for a script; empty when its engine is unknown.

    Tier 1: same family and engine (any vendor) when at least `min_family` exist; tier 2: same
    engine and vendor in the same directory."""
    me = features(ctx, path)
    if me is None or me.engine is None or me.family is None:
        return [], "no engine or name to compare by", False
    feats = [f for f in (features(ctx, p) for p in candidates(ctx, path)) if f is not None and f.engine == me.engine
             and (not mtp_only or f.mtp)]
    fam = [f for f in feats if f.family == me.family]
    if len(fam) >= min_family:
        return fam, f"{me.family} {me.engine} scripts", True
    d = posixpath.dirname(path)
    tier2 = [f for f in feats if posixpath.dirname(f.path) == d and f.vendor == me.vendor]
    return tier2, f"{me.engine} scripts on {me.vendor} in {d}", False


def node_text(node) -> str:
    return text_of(node)


def engine_statement(ctx: ReviewContext, path: str) -> tuple[int, int | None]:
    """(first line, last line) of the statement that starts the engine: a command, or the array or
    string assignment holding its command line; (1, None) when none is found."""
    s = parsed(ctx, path)
    if not isinstance(s, Script):
        return 1, None
    for stmt in s.statements():
        if stmt.node.type in ("command", "variable_assignment") and _ENGINE_WORD.search(stmt.text):
            if stmt.node.type == "command" and stmt.name in ("echo", "printf", "cat", "tee"):
                continue
            return stmt.line, stmt.end_line
    return 1, None
