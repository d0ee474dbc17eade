"""Flags a master-config `image` that is a local file or lives on a registry the runners cannot pull from publicly.

## Why it matters
Published results must be reproducible by anyone: the image a config benchmarks has to be
pullable from a public registry. A squashfs file or a path on one cluster (`/lustre/…/x.sqsh`)
or an image on a private registry makes the result impossible to reproduce and usually fails on
every other runner pool.

## When it fires
On each master-config key the PR adds or changes (a changed master config that cannot be read, or a
key that does not parse, is skipped with the reason): it fires when the key's `image` is hosted on a
registry outside `public_registries` (Docker Hub is always public), or is a bare Docker Hub name or
`library/` image (an official base image, not a published engine image). Local image files and paths
(`/…`, `./…`, `.sqsh`, `.sif`, `.tar`, …), keys without an image, and images that do not parse as a
reference stay quiet.

## Example
    dsv4-fp4-b200-vllm:
      image: /lustre/fsw/images/vllm-v0.20.1.sqsh      # local squashfs file
    dsv4-fp4-b300-vllm:
      image: myregistry.local:5000/vllm/vllm-openai:v0.20.1   # private registry
    minimaxm2.5-fp8-mi355x-sglang:
      image: minimax-m25-disagg:latest                  # no org: a locally built image

## Fix
Push the image to a public registry (Docker Hub `org/repo`, `nvcr.io/`, `ghcr.io/`, `quay.io/`,
`public.ecr.aws/`) and reference it by that name with a release tag, e.g.
`vllm/vllm-openai:v0.20.1`.

## Options
- `public_registries`: registry hosts treated as public, besides Docker Hub references without
  a host (`org/repo:tag`).
"""
from collections import defaultdict
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import (
    DOCKER_HUB,
    LOCAL_IMAGE_PREFIXES,
    LOCAL_IMAGE_SUFFIXES,
    PUBLIC_REGISTRIES,
    parse_image,
    touched_rows,
)

CODE = "RR101"
NAME = "master-image-not-public"
SEVERITY = Severity.BLOCKING
PROOF = "written:C5"
ENFORCES = ("C5",)
LOCAL_SUFFIXES = LOCAL_IMAGE_SUFFIXES
LOCAL_PREFIXES = LOCAL_IMAGE_PREFIXES


class Options(RuleOptions):
    # Registry hosts whose images anyone can pull (compared case-insensitively).
    public_registries: tuple[str, ...] = PUBLIC_REGISTRIES


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    public = {h.lower() for h in options.public_registries} | {DOCKER_HUB}
    ok: dict[tuple[str, str], list[str]] = defaultdict(list)
    for info in touched_rows(ctx):
        if isinstance(info, Skipped):
            yield info
            continue
        image = info.get("image")
        line = info.line_of("image")
        if image is None:
            yield Skipped(f"config key `{info.key}` has no `image`", path=info.path)
            continue
        if not isinstance(image, str):
            yield Problem(info.path, line, f"config key `{info.key}` has an `image` that is not a string: `{image!r}`",
                          evidence=(f"image: {image!r} ({type(image).__name__})",))
            continue
        evidence = (f"{info.key}.image = {image}",)
        if image.startswith(LOCAL_PREFIXES) or image.lower().endswith(LOCAL_SUFFIXES):
            yield Problem(info.path, line, f"image `{image}` is a local file or path, not a public registry image",
                          evidence=(*evidence, "a path or image file exists on one machine only"))
            continue
        ref = parse_image(image)
        if ref is None:
            yield Problem(info.path, line, f"image `{image}` is not a container image reference",
                          evidence=(*evidence, "expected `[registry/]org/repo:tag` or `…@sha256:<digest>`"))
            continue
        if ref.host not in public:
            yield Problem(
                info.path,
                line,
                f"image `{image}` is pulled from `{ref.host}`, which is not a public registry",
                evidence=(*evidence, f"public registries: Docker Hub, {', '.join(sorted(public - {DOCKER_HUB}))}"),
            )
            continue
        if ref.host == DOCKER_HUB and ("/" not in ref.repository or ref.repository.startswith("library/")):
            yield Problem(info.path, line,
                          f"image `{image}` names no Docker Hub organisation, so it is a locally built image "
                          "or an official base image, not a published engine image",
                          evidence=(*evidence, "Docker Hub engine images are `org/repo:tag` (e.g. `vllm/vllm-openai`); "
                                               "a bare name resolves to the `library/` namespace"))
            continue
        where = "Docker Hub" if ref.host == DOCKER_HUB else ref.host
        ok[(image, where)].append(info.key)
    for (image, where), keys in ok.items():
        yield Passed(f"image {image} is on a public registry ({where}): {', '.join(keys)}")
