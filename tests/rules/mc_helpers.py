"""Small hand-written master configs and changesets for the master-config rule tests."""
from __future__ import annotations

from rules.changeset import ChangeSet, FileChange
from rules.context import ReviewContext

NV = "configs/nvidia-master.yaml"
AMD = "configs/amd-master.yaml"
CHANGELOG = "perf-changelog.yaml"


def row(key: str, image: str = "vllm/vllm-openai:v0.20.1", prefix: str | None = None, tp: int = 8,
        extra: str = "") -> str:
    """One master-config block; `prefix` defaults to the key's first dash-separated token."""
    prefix = key.split("-")[0] if prefix is None else prefix
    return (
        f"{key}:\n"
        f"  image: {image}\n"
        f"  model: org/model\n"
        f"  model-prefix: {prefix}\n"
        f"  runner: b200\n"
        f"  precision: fp4\n"
        f"  framework: vllm\n"
        f"  multinode: false\n"
        f"{extra}"
        f"  scenarios:\n"
        f"    fixed-seq-len:\n"
        f"    - isl: 8192\n"
        f"      osl: 1024\n"
        f"      search-space:\n"
        f"      - {{ tp: {tp}, conc-start: 4, conc-end: 64 }}\n"
    )


def master(*rows: str) -> bytes:
    return "\n".join(rows).encode()


ROWS = (
    row("dsv4-fp4-b200-vllm"),
    row("dsv4-fp4-b300-vllm"),
    row("dsr1-fp8-h200-sglang", image="lmsysorg/sglang:v0.5.12"),
)
BASE = master(*ROWS)


def modified(path: str, base: bytes, head: bytes, patch: str | None = None) -> FileChange:
    return FileChange(path, "modified", base=base, head=head, patch=patch)


def ctx_of(*files: FileChange, context: dict | None = None, title: str | None = None) -> ReviewContext:
    return ReviewContext(ChangeSet(files=tuple(files), context=context or {}, title=title))


def change_one(head_rows: tuple[str, ...] | None = None, base: bytes = BASE, path: str = NV, **kw) -> ReviewContext:
    """A PR that modifies one master config from `base` to `head_rows`."""
    head = master(*(head_rows if head_rows is not None else ROWS))
    return ctx_of(modified(path, base, head), **kw)


def entry(*keys: str, pr: str = "XXX", flow: bool = False) -> str:
    """One changelog entry selecting `keys` (block list, or a flow list with `flow=True`)."""
    items = f" [{', '.join(keys)}]\n" if flow else "\n" + "".join(f"    - {k}\n" for k in keys)
    return (f"- config-keys:{items}  description:\n    - \"change\"\n"
            f"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{pr}\n")


CL_BASE = (entry("dsv4-fp4-b200-vllm", pr="1") + "\n" + entry("gone-fp8-h100-vllm", pr="2")).encode()


def changelog(*new_entries: str, base: bytes = CL_BASE) -> FileChange:
    """The changelog with `new_entries` appended (one blank line between entries)."""
    head = base + "".join("\n" + e for e in new_entries).encode()
    return FileChange(CHANGELOG, "modified", base=base, head=head)


def patch_for(added_at: list[int] | None = None, deleted_at: int | None = None) -> str:
    """A patch adding one line at each head line of `added_at`, or deleting one line at `deleted_at`."""
    hunks = [f"@@ -{n},0 +{n},1 @@\n+added" for n in added_at or []]
    if deleted_at is not None:
        hunks.append(f"@@ -{deleted_at},1 +{deleted_at},0 @@\n-deleted")
    return "\n".join(hunks)
