"""Flags a master-config `image` with no tag or the moving tag `latest`.

## Why it matters
A benchmark result is only meaningful for the exact engine build that produced it. An image
without a tag means `:latest`, and `latest` moves: a rerun, another runner pool or the next sweep
silently measures a different build, and nobody can tell which one a published number came from.

## Example
    dsv4-fp4-b200-vllm:
      image: vllm/vllm-openai          # no tag: whatever `latest` is today
    dsv4-fp4-b300-vllm:
      image: vllm/vllm-openai:latest

## Fix
Pin a release tag (`vllm/vllm-openai:v0.20.1`) or a digest (`vllm/vllm-openai@sha256:…`), and
name the image in the changelog description when it changes.
"""
from collections import defaultdict
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import parse_image, touched_rows

CODE = "RR102"
NAME = "master-image-unpinned"
SEVERITY = Severity.NIT
MOVING_TAGS = ("latest",)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    ok: dict[tuple[str, str], list[str]] = defaultdict(list)
    for info in touched_rows(ctx):
        if isinstance(info, Skipped):
            yield info
            continue
        image = info.get("image")
        ref = parse_image(image) if isinstance(image, str) else None
        if ref is None:
            # master-image-not-public reports missing, non-string and malformed images.
            yield Skipped(f"config key `{info.key}`: image `{image}` is not a registry reference; pinning not checked",
                          path=info.path)
            continue
        line = info.line_of("image")
        if ref.digest:
            ok[(image, f"digest {ref.digest[:19]}…")].append(info.key)
        elif ref.tag is None:
            yield Problem(info.path, line, f"image `{image}` has no tag, so it pulls whatever `latest` is at run time",
                          fix=f"Pin a release tag or digest, e.g. `{image}:<version>` or `{image}@sha256:<digest>`.",
                          evidence=(f"{info.key}.image = {image}", "no `:tag` and no `@sha256:` digest"))
        elif ref.tag.lower() in MOVING_TAGS:
            yield Problem(info.path, line, f"image `{image}` uses the moving tag `{ref.tag}`",
                          fix="Replace the moving tag with the release tag (or `@sha256:` digest) the sweep should measure.",
                          evidence=(f"{info.key}.image = {image}", f"tag `{ref.tag}` is repointed at every release"))
        else:
            ok[(image, f"tag {ref.tag}")].append(info.key)
    for (image, how), keys in ok.items():
        yield Passed(f"image {image} is pinned ({how}): {', '.join(keys)}")
