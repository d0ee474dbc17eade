"""Sibling scripts: which benchmark scripts a script is compared with, and what each one sets.

A single-node script is named `<model>_<precision>_<sku>[_<framework>][_mtp].sh`. Its **family**
is the model prefix without its minor version (`glm5.1` → `glm5`, `minimaxm3` stays), its
**vendor** comes from the SKU (`mi*` → amd, else nvidia), its **engine** from what it launches
(`vllm serve`, `sglang.launch_server`, `trtllm-serve`, `atom`). Siblings are the other
single-node scripts (every scenario directory, never `deprecated/` nor `speedbench/`) of the same
family and engine when at least `min_family` exist; otherwise of the same engine and vendor in the
same directory. Environment variables are compared with siblings of the same vendor only: they
differ between the ROCm and CUDA builds of every engine (`VLLM_USE_BREAKABLE_CUDAGRAPH`, `RCCL_*`).
Archived scripts (`deprecated/`) are neither siblings nor compared: they record how a retired
configuration ran, on the engine versions of its time.

`features(ctx, path)` (a tree-sitter query, cached by content: siblings rarely change between
reviews) lists what a script sets: engine flags (every `--name` word outside comments,
in commands, arrays and strings, and the engine's single-dash spellings such as vLLM's `-tp`) and
environment variables (assigned, exported or prefixed `NAME=value cmd`, whose name starts with an
engine or runtime prefix). Both are keyed by the one spelling the engine's parser stores them
under (`rules.serving.flags`: SGLang's `--tp` and `--tensor-parallel-size` are `--tp-size`,
`--nsa-decode-backend` is `--dsa-decode-backend`, `--cuda-graph-max-bs` is
`--cuda-graph-max-bs-decode`; `SGL_X` is `SGLANG_X`); `spelled` keeps the spelling the script
wrote, for messages.
"""
from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass

import tree_sitter

from rules.cache import LRU
from rules.context import ReviewContext
from rules.scripts.names import candidates, family_of, name_parts, vendor_of
from rules.scripts.parse import Script, _parser, decode_script
from rules.scripts.resolve import parsed, resolutions_of
from rules.serving.defaults import image_version
from rules.serving.flags import canonical_env, canonical_flag, env_not_needed, short_flags

ENV_PREFIXES = ("SGLANG_", "VLLM_", "TRTLLM_", "TLLM_", "NCCL_", "RCCL_", "HIP_", "ROCM_", "HSA_", "AITER_", "ATOM_",
                "CUDA_", "TORCH_", "PYTORCH_", "NVIDIA_", "MORI_", "UCX_", "FLASHINFER_", "NVSHMEM_", "MIOPEN_",
                "GPU_", "AMD_", "TORCHINDUCTOR_", "SAFETENSORS_")
_FLAG = re.compile(r"(?<![\w-])(--[a-zA-Z][\w-]*)")
_ENGINE_WORD = re.compile(
    r"vllm serve|vllm\.entrypoints|sglang\.launch_server|sglang serve|trtllm-serve|atom\.entrypoints"
)


@dataclass(frozen=True)
class Features:
    path: str
    engine: str | None
    family: str | None
    vendor: str | None
    mtp: bool
    flags: dict  # flag (the engine's one spelling) → first line
    env: dict  # variable (as the engine reads it) → first line
    spelled: dict | None = None  # flag or variable (as keyed above) → the spelling the script wrote
    fixed: frozenset = frozenset()  # flags and variables set at least once outside any condition
    exported: frozenset = frozenset()  # variables that reach the environment (export, prefix, set -a)

    def spelling(self, name: str) -> str:
        return (self.spelled or {}).get(name, name)


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


_QUERY: list = []
_FEATURES_MAX = 4096
_FEATURES: LRU[Features | None] = LRU(_FEATURES_MAX)  # by path and content, across reviews


def _query():
    if not _QUERY:
        from rules.scripts.parse import _LANGUAGE
        _QUERY.append(tree_sitter.Query(_LANGUAGE, "(comment) @comment (command name: (command_name) @name) @command "
                                        "(variable_assignment name: (variable_name) @var) "
                                        "(declaration_command) @decl "
                                        "(if_statement) @cond (case_statement) @cond (while_statement) @cond "
                                        "(for_statement) @cond (c_style_for_statement) @cond "
                                        "(list) @cond"))
    return _QUERY[0]


def _extract(path: str, raw: bytes | None) -> Features | None:  # noqa: C901 (one loop per tree-sitter capture kind)
    """Features of one script's bytes, with a tree-sitter query (no full model needed)."""
    text, why = decode_script(raw)
    if text is None:
        return None
    src = text.encode("utf-8")
    tree = _parser().parse(src)
    caps = tree_sitter.QueryCursor(_query()).captures(tree.root_node)
    code = bytearray(src)
    for n in caps.get("comment", ()):
        code[n.start_byte:n.end_byte] = b" " * (n.end_byte - n.start_byte)
    full = code.decode("utf-8", "replace")
    # Flags of helper and tool commands (the benchmark client, curl, pip, hf …) are not the
    # engine's: blank those commands, keep engine launches, computed commands and assignments.
    for n in caps.get("command", ()):
        name = n.child_by_field_name("name")
        head = name.named_children[0] if name is not None and name.named_children else None
        if head is not None and head.type == "word" and not _ENGINE_WORD.search(
                src[n.start_byte:n.end_byte].decode("utf-8", "replace")):
            code[n.start_byte:n.end_byte] = b" " * (n.end_byte - n.start_byte)
    engine = engine_of(full)
    # Lines under a condition (if/case/loops, the right side of `&&`/`||`): a setting only there
    # depends on the point, it is not a constant of the script.
    conditional: set[int] = set()
    for n in caps.get("cond", ()):
        first = n.start_point[0] + 1
        if n.type == "list" and n.children:
            first = n.children[-1].start_point[0] + 1
        conditional.update(range(first, n.end_point[0] + 2))
    fixed: set = set()
    flags: dict = {}
    spelled: dict = {}
    for i, line in enumerate(code.decode("utf-8", "replace").split("\n"), start=1):
        for word in [m.group(1) for m in _FLAG.finditer(line)] + short_flags(line):
            name = canonical_flag(engine, word)
            flags.setdefault(name, i)
            spelled.setdefault(name, word.split("=", 1)[0].replace("_", "-"))
            if i not in conditional:
                fixed.add(name)
    exported: set = set()
    set_a = re.search(r"(?m)^\s*set\s+-[a-z]*a", full) is not None
    for n in caps.get("decl", ()):
        head = src[n.start_byte:n.end_byte].decode("utf-8", "replace")
        if head.startswith("export") or re.match(r"(declare|typeset)\s+-\w*x", head):
            exported.update(
                re.findall(r"(?<![\w$])([A-Za-z_]\w*)(?==|\s|$)", head.split(None, 1)[1] if " " in head else "")
            )
    env: dict = {}
    for n in caps.get("var", ()):
        written = n.text.decode("utf-8", "replace")
        if written.startswith(ENV_PREFIXES) or written.startswith("SGL_"):
            name = canonical_env(engine, written)
            line = n.start_point[0] + 1
            env.setdefault(name, line)
            spelled.setdefault(name, written)
            if line not in conditional:
                fixed.add(name)
            assignment = n.parent
            if set_a or written in exported or (assignment is not None and assignment.parent is not None
                                                and assignment.parent.type == "command"):
                exported.add(name)
    parts = name_parts(path)
    return Features(path, engine, family_of(parts[0]) if parts else None,
                    vendor_of(parts[2]) if parts else None, posixpath.basename(path).endswith("_mtp.sh"), flags, env,
                    spelled, frozenset(fixed), frozenset(canonical_env(engine, x) for x in exported))


def features(ctx: ReviewContext, path: str, side: str = "head") -> Features | None:
    """What a script sets (memoized per review, and across reviews by path and content)."""
    def compute() -> Features | None:
        raw = ctx.changeset.head_bytes(path) if side == "head" else ctx.changeset.base_bytes(path)
        if raw is None:
            return None
        return _FEATURES.get_or_compute((path, hashlib.sha1(raw).hexdigest()), lambda: _extract(path, raw))

    return ctx.memo(("scripts", "features", side, path), compute)


def siblings_of(ctx: ReviewContext, path: str, min_family: int = 4,
                mtp_only: bool = False) -> tuple[list[Features], str, bool]:
    """(siblings' features, which tier, family tier?) for a script; empty when its engine is unknown.

    Tier 1: same family, engine and vendor when at least `min_family` exist (ROCm and CUDA
    scripts of one model differ on purpose in their environment); else same family and engine on
    any vendor when that many exist; tier 2: same engine and vendor in the same directory."""
    me = features(ctx, path)
    if me is None or me.engine is None or me.family is None:
        return [], "no engine or name to compare by", False
    feats = [f for f in (features(ctx, p) for p in candidates(ctx, path)) if f is not None and f.engine == me.engine
             and (not mtp_only or f.mtp)]
    fam = [f for f in feats if f.family == me.family]
    same_vendor = [f for f in fam if f.vendor == me.vendor]
    if len(same_vendor) >= min_family:
        return same_vendor, f"{me.family} {me.engine} scripts on {me.vendor}", True
    if len(fam) >= min_family:
        return fam, f"{me.family} {me.engine} scripts", True
    d = posixpath.dirname(path)
    tier2 = [f for f in feats if posixpath.dirname(f.path) == d and f.vendor == me.vendor]
    return tier2, f"{me.engine} scripts on {me.vendor} in {d}", False


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


def env_not_needed_here(ctx: ReviewContext, path: str, engine: str | None, name: str) -> str | None:
    """Why the engine every resolved point of `path` runs does not need `name` (its version, read
    from the point's image, already defaults to what scripts set, or no longer reads it); None when
    some point may need it, no point resolves, or an image names no version."""
    versions = {image_version(r.point.values.get("image"), engine) for r in resolutions_of(ctx, path)}
    if not versions or None in versions:
        return None
    reasons = [env_not_needed(engine, name, v) for v in sorted(versions)]
    if not all(reasons):
        return None
    return reasons[0]
