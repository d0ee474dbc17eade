"""Flags a multi-node recipe whose `model.container` image differs from the master config's `image`.

## Why it matters
For multi-node srt-slurm runs the recipe's `model.container` is the image that actually runs,
while the master config's `image` is what the results are labelled with (AGENTS.md: they "must
equal"). When only one side is bumped, the sweep publishes numbers for an image it did not run.
Real case: #1390 bumped `disagg-gb200-mid-curve-megamoe-mtp2.yaml` to `v0.21.0` while its master
keys stayed on `v0.20.1`.

## When it fires
Checked for changed recipes (against every master key that references them, by
`CONFIG_FILE=recipes/<path>` or `srt-recipe`/`srt-recipe-dir`) and for changed master keys
(against the referenced recipes the review has). A container that is an alias such as
`dynamo-sglang` (no `/` or `:`) is not an image reference and is not compared; enroot's
`nvcr.io#nvidia/x` spelling equals `nvcr.io/nvidia/x`.

## Example
    # configs/nvidia-master.yaml
    dsv4-fp4-gb200-dynamo-vllm-mtp2:
      image: vllm/vllm-openai:v0.20.1-ubuntu2404
      ... CONFIG_FILE=recipes/vllm/deepseek-v4/8k1k/disagg-gb200-mid-curve-megamoe-mtp2.yaml
    # the recipe
    model:
      container: vllm/vllm-openai:v0.21.0-ubuntu2404

## Fix
Bump both together: set the recipe's `model.container` to the master `image` (or the master
`image` to the recipe's, if the new image is the point of the PR).
"""
import re
from collections.abc import Iterator
from typing import Any

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import changed_keys, master_keys, recipe_refs

CODE = "RR304"
NAME = "recipe-container-mismatch"
SEVERITY = Severity.BLOCKING
PROOF = "written:D2"
ENFORCES = ("D2",)
_CONTAINER_LINE = re.compile(
    r"""^(?P<pre>\s*container:\s*)(?P<q>["']?)(?P<val>[^"'#\s]*)(?P=q)(?P<post>\s*(?:#.*)?)$"""
)


def same_image(a: str, b: str) -> bool:
    """Equal image references; enroot's `host#path` spelling equals `host/path`."""
    return a.strip().replace("#", "/", 1) == b.strip().replace("#", "/", 1)


def _looks_like_image(value: Any) -> bool:
    return isinstance(value, str) and ("/" in value or ":" in value)


def _ref_parts(ref: str) -> tuple[str, str | None]:
    """`recipes/a/b.yaml:zip_override_x[0]` → (`a/b.yaml`, `zip_override_x`)."""
    path, _, variant = ref.partition(":")
    path = path.strip().removeprefix("./").removeprefix("recipes/")
    variant = re.sub(r"\[\d+\]$", "", variant.strip()) or None
    return path, variant


def _matches(path: str, ref_path: str) -> bool:
    return bool(ref_path) and (path == ref_path or path.endswith("/" + ref_path))


def containers(data: Any, variant: str | None) -> list[tuple[tuple, str]]:
    """(key path, container) the recipe (or the named variant) runs, image refs and aliases alike."""
    if not isinstance(data, dict):
        return []
    out = []
    for keys in (("model", "container"), ("base", "model", "container")):
        node: Any = data
        for k in keys:
            node = node.get(k) if isinstance(node, dict) else None
        if isinstance(node, str):
            out.append((keys, node))
    if variant and "*" not in variant and isinstance(data.get(variant), dict):
        model = data[variant].get("model")
        if isinstance(model, dict) and isinstance(model.get("container"), str):
            out = [((variant, "model", "container"), model["container"])]
    return out


def _suggest(text: str, line: int | None, image: str) -> str | None:
    lines = text.split("\n")
    if not line or not 0 < line <= len(lines):
        return None
    m = _CONTAINER_LINE.match(lines[line - 1])
    if m is None:
        return None
    q = m.group("q")
    return f"{m.group('pre')}{q}{image}{q}{m.group('post')}"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:  # noqa: C901 (checks from both sides: changed recipes and changed master keys)
    recipes = [f for f in ctx.files_of("recipes") if f.status != "removed" and f.path.endswith((".yaml", ".yml"))]
    changed = [c for c in changed_keys(ctx) if c.status != "removed"]
    if not recipes and not changed:
        return
    keys = master_keys(ctx)
    if not keys:
        yield Skipped("no master config is known, so recipe containers were not compared with master images")
        return
    compared: set[tuple[str, str]] = set()
    changed_paths = {f.path for f in recipes}
    for f in recipes:
        # Only blocks that spell the file's name can reference it; parse just those.
        base = f.path.rsplit("/", 1)[-1]
        users = []
        for name, info in keys.items():
            if base not in info.text:
                continue
            for ref in recipe_refs(info.value):
                path, variant = _ref_parts(ref)
                if _matches(f.path, path):
                    users.append((name, variant))
        if not users:
            continue
        doc = ctx.head_doc(f.path)
        if not doc.ok:
            continue  # RR012 reports it
        for key, variant in users:
            compared.add((key, f.path))
            yield from _compare(ctx, key, f.path, doc, variant, at_recipe=True)
    # Changed master keys whose recipes the review has but the PR did not change.
    missing = 0
    for c in changed:
        for ref in recipe_refs(c.head.value if c.head else None):
            path, variant = _ref_parts(ref)
            hits = [p for p in ctx.changeset.head_paths() if _matches(p, path) and ctx.kind(p) == "recipes"]
            if not hits:
                missing += 1
                continue
            for p in hits:
                if (c.key, p) in compared or p in changed_paths:
                    continue
                compared.add((c.key, p))
                doc = ctx.head_doc(p)
                if doc.ok:
                    yield from _compare(ctx, c.key, p, doc, variant, at_recipe=False)
    if missing:
        yield Skipped(f"{missing} recipe reference(s) of changed master keys are not in the review "
                      "(upstream or unchanged recipes), so their containers were not compared")


def _compare(ctx: ReviewContext, key: str, path: str, doc, variant: str | None, at_recipe: bool):
    info = master_keys(ctx)[key]
    image = info.get("image")
    if not isinstance(image, str) or not image.strip():
        return
    for keypath, container in containers(doc.data, variant):
        if not _looks_like_image(container):
            continue
        if same_image(container, image):
            yield Passed(f"{path}: model.container `{container}` = {key} image ✓", path=path)
            continue
        line = doc.line_of(*keypath)
        evidence = (f"{path}:{line or '?'}: model.container = {container}",
                    f"{info.path}:{info.line_of('image')}: {key}.image = {image}",
                    f"{key} references {path}" + (f" (variant {variant})" if variant else ""))
        if at_recipe:
            yield Problem(path, line, f"`model.container` is `{container}`, but master key `{key}` has image `{image}`",
                          suggestion=_suggest(doc.text, line, image), evidence=evidence)
        else:
            yield Problem(info.path, info.line_of("image"),
                          f"`image` of `{key}` is `{image}`, but its recipe `{path}` runs container `{container}`",
                          evidence=evidence)
