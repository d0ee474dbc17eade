"""Benchmark scripts by name: which scripts may be siblings of a script, with no script read.

A single-node script is named `<model>_<precision>_<sku>[_<framework>][_mtp].sh`. Its **family**
is the model prefix without its minor version (`glm5.1` → `glm5`, `minimaxm3` stays), its
**vendor** comes from the SKU (`mi*` → amd, else nvidia), its **arch** is the GPU generation of
the SKU. `candidates(ctx, path)` lists the single-node scripts at head (never `deprecated/` nor
`speedbench/`) of the same family, or of the same vendor in the same directory: the scripts a
review reads to compare `path` with (`rules.serving.siblings` compares what they set).
"""
from __future__ import annotations

import posixpath
import re

from rules.context import ReviewContext

_NAME = re.compile(r"^(?P<model>[a-z0-9.]+?)_(?P<precision>[a-z0-9]+)_(?P<sku>[a-z0-9]+)(?P<rest>(?:_[\w.-]+)*)\.sh$")


def name_parts(path: str) -> tuple[str, str, str] | None:
    """(model, precision, sku) of a script name, or None."""
    m = _NAME.match(posixpath.basename(path))
    return (m.group("model"), m.group("precision"), m.group("sku")) if m else None


def family_of(model: str) -> str:
    return re.sub(r"\.\d+$", "", model)


def vendor_of(sku: str) -> str:
    return "amd" if sku.startswith("mi") else "nvidia"


def arch_of(sku: str) -> str:
    """The GPU generation of a SKU: engines build and tune per generation (Hopper's Marlin MXFP4
    kernels, Blackwell's TRT-LLM attention, CDNA3 vs CDNA4 AITER kernels)."""
    if sku.startswith(("h100", "h200", "h20", "gh200")):
        return "hopper"
    if sku.startswith(("b200", "b300", "gb200", "gb300", "b100")):
        return "blackwell"
    if sku.startswith(("mi300", "mi325")):
        return "cdna3"
    if sku.startswith(("mi350", "mi355")):
        return "cdna4"
    return sku


def _single_node_dir(path: str) -> str | None:
    """`<root>benchmarks/single_node` for a benchmark script under it, else None: speedbench runs
    are another kind of benchmark, and archived (`deprecated/`) scripts ran retired configurations
    on the engines of their time (a flag or variable they set says nothing about a script today)."""
    m = re.match(r"^(.*?benchmarks/single_node)/(?:[^/]+/){0,2}[^/]+\.sh$", path)
    if not m or "/speedbench/" in path or "/deprecated/" in path:
        return None
    return m.group(1)


def _script_index(ctx: ReviewContext) -> dict[str, list[tuple[str, str, str]]]:
    """`<root>benchmarks/single_node` → [(path, family, vendor)] of every single-node script at head."""
    def compute():
        cs = ctx.changeset
        names = set(cs.tree) | {f.path for f in cs.files if f.status != "removed"} | set(cs.context)
        out: dict = {}
        for p in names:
            if not p.endswith(".sh") or "single_node/" not in p:
                continue
            top = _single_node_dir(p)
            q = name_parts(p)
            if top is None or q is None or cs.exists(p) is False:
                continue
            out.setdefault(top, []).append((p, family_of(q[0]), vendor_of(q[2])))
        return out

    return ctx.memo(("scripts", "script-index"), compute)


def candidates(ctx: ReviewContext, path: str) -> list[str]:
    """Scripts that may be siblings of `path` by name (same family, or same vendor and directory)."""
    top = _single_node_dir(path)
    parts = name_parts(path)
    if top is None or parts is None:
        return []
    fam, vendor = family_of(parts[0]), vendor_of(parts[2])
    d = posixpath.dirname(path)
    return sorted(p for p, f, v in _script_index(ctx).get(top, ()) if p != path and (
        f == fam or (v == vendor and posixpath.dirname(p) == d)))
