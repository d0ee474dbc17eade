"""The engine a master-config key serves, the SKU its runner is, and the base's upstream-engine rules.

The review checklist treats vLLM and SGLang apart from the other engines: on hardware they are
established on, their configs run the images the upstream projects publish (C7), and another
engine's config of a model comes after a vLLM or SGLang config of that model on that SKU (C8).

**Family.** A framework is in the vLLM (SGLang) family when one of its `-`-separated tokens is
`vllm` (`sglang`): `vllm`, `vllm-disagg`, `dynamo-vllm`, `llmd-vllm`; `sglang`, `sglang-disagg`,
`dynamo-sglang`. The orchestrators (Dynamo, llm-d) schedule the engine; the engine build the
benchmark measures is vLLM's or SGLang's. The repository's own data says so: its Dynamo vLLM and
SGLang keys run `vllm/vllm-openai` and `lmsysorg/sglang` images, and every key of another engine
at the July 2026 main has a vLLM/SGLang key of its model and SKU only when Dynamo keys count (34
multinode TRT-LLM and Dynamo keys on GB200/GB300 would have none if only plain `vllm`/`sglang`
counted). Everything else (`trt`, `dynamo-trt`, `atom`, `atom-disagg`, …) is another engine.

**SKU.** The runner names its SKU as its first `-`-separated token, after an optional
`cluster:` prefix: `b200-dgxc` → `b200`, `cluster:mi355x-amds` → `mi355x`, `gb300-nv` → `gb300`.
"""
from __future__ import annotations

import re
from typing import Any, Literal

from rules.changeset import ChangeSet
from rules.policy import Statement, written_statement

Family = Literal["vllm", "sglang"]

# The SKUs the verifier prompt and RULES list call established (not "new hardware").
ESTABLISHED_SKUS = ("h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x")

UPSTREAM_REPOS: dict[Family, tuple[str, ...]] = {
    "vllm": ("vllm/vllm-openai", "vllm/vllm-openai-rocm"),
    "sglang": ("lmsysorg/sglang", "lmsysorg/sglang-rocm"),
}
FAMILY_NAMES: dict[Family, str] = {"vllm": "vLLM", "sglang": "SGLang"}


def engine_family(framework: Any) -> Family | None:
    """`vllm` or `sglang` when the framework serves that engine (see the module docstring), else None."""
    if not isinstance(framework, str):
        return None
    tokens = set(re.split(r"[-_\s]+", framework.strip().lower()))
    if "vllm" in tokens:
        return "vllm"
    if "sglang" in tokens:
        return "sglang"
    return None


def runner_sku(runner: Any) -> str | None:
    """The SKU a runner label names (`cluster:b200-dgxc` → `b200`), lower-case, or None."""
    if not isinstance(runner, str) or not runner.strip():
        return None
    label = runner.strip().lower()
    label = label.split(":", 1)[1] if label.startswith("cluster:") else label
    sku = label.split("-", 1)[0]
    return sku or None


# --- the written rules at the base ---------------------------------------------------------------
# C7: a sentence asking for the upstream vLLM/SGLang images: "upstream" near the projects' Docker
# Hub organisations, or near vLLM/SGLang and "image"/"docker"/"container" (either order).
_UPSTREAM_IMAGE = re.compile(
    r"(?i)(?:\bupstream\b.{0,80}?(?:hub\.docker\.com/u/(?:vllm|lmsysorg)\b"
    r"|\b(?:vllm|sglang|lmsysorg)\b.{0,60}?\b(?:docker|images?|containers?)\b)"
    r"|\b(?:vllm|sglang)\b.{0,80}?\bupstream\b.{0,40}?\b(?:docker|images?|containers?)\b"
    r"|\b(?:images?|docker|containers?)\b.{0,60}?\bupstream\b.{0,30}?\b(?:vllm|sglang)\b)"
)
# C8: a sentence asking for the vLLM/SGLang config first: vLLM/SGLang … before … other/additional
# frameworks (or engines), or other frameworks … only after … vLLM/SGLang.
_ENGINE_FIRST = re.compile(
    r"(?i)(?:\b(?:vllm|sglang)\b.{0,160}?\bbefore\b.{0,40}?\b(?:additional|other|further|alternative)\s+"
    r"(?:inference\s+)?(?:frameworks?|engines?)\b"
    r"|\b(?:additional|other|further|alternative)\s+(?:inference\s+)?(?:frameworks?|engines?)\b.{0,80}?"
    r"\b(?:after|once)\b.{0,60}?\b(?:vllm|sglang)\b)"
)


def written_rule(cs: ChangeSet, which: Literal["upstream-image", "engine-first"]) -> Statement | None | Literal[False]:
    """The base's statement of C7 (`"upstream-image"`) or C8 (`"engine-first"`); False when its
    guidance has none yet; None when the guidance was not read."""
    pattern = _UPSTREAM_IMAGE if which == "upstream-image" else _ENGINE_FIRST
    # The checklist's own item first (CONTRIBUTING.md only summarises what the verifier checks).
    return written_statement(cs, pattern, first_in="PR_REVIEW_CHECKLIST.md")
