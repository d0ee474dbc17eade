"""Master configs of several engines and a base checklist, for the engine-ordering and upstream-image tests."""
from __future__ import annotations

import dataclasses

from rules.changeset import ChangeSet, FileChange

NV = "configs/nvidia-master.yaml"
AMD = "configs/amd-master.yaml"
CHECKLIST = "docs/PR_REVIEW_CHECKLIST.md"
# Our own wording of the two checklist items, not the repository's.
POLICY = (b"# Checklist\n"
          b"- [ ] vLLM and SGLang configs use the upstream docker images of those projects on established GPUs.\n"
          b"- [ ] The vLLM or SGLang config of a model was merged before other frameworks on that hardware.\n")
OLD_POLICY = b"# Checklist\n- [ ] Evals pass.\n"


def key(name: str, framework: str, image: str, runner: str = "b200", prefix: str | None = None) -> str:
    prefix = name.split("-")[0] if prefix is None else prefix
    return (f"{name}:\n  image: {image}\n  model: org/model\n  model-prefix: {prefix}\n  runner: {runner}\n"
            f"  precision: fp8\n  framework: {framework}\n  multinode: false\n  scenarios:\n"
            f"    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n"
            f"      - {{ tp: 8, conc-start: 4, conc-end: 64 }}\n")


def master(*blocks: str) -> bytes:
    return "\n".join(blocks).encode()


def changeset(base: tuple[str, ...], head: tuple[str, ...], path: str = NV, policy: bytes | None = POLICY,
              context: dict | None = None, probed: bool = True) -> ChangeSet:
    """A PR that turns the master config `path` from `base` keys into `head` keys."""
    f = (FileChange(path, "modified", base=master(*base), head=master(*head)) if base
         else FileChange(path, "added", head=master(*head)))
    cs = ChangeSet(files=(f,), context=context or {})
    if not probed:
        return cs
    return dataclasses.replace(cs, base_context={CHECKLIST: policy} if policy is not None else {},
                               base_probed=frozenset({CHECKLIST}))
