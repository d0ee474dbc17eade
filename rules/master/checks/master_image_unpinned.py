"""Flags a master-config `image` with no tag or a moving tag (`latest`, `nightly`, `dev-…`, `…-latest`).

## Why it matters
A benchmark result is only meaningful for the exact engine build that produced it. An image
without a tag means `:latest`, and moving tags are repointed at every build: `latest`,
`nightly`, `dev`, `main`, a `…-latest` suffix (`rocm/vllm-dev:deepseek-v4-latest`, #1282) or a
`dev-<branch>` tag with no date, version or commit in it (`lmsysorg/sglang:dev-dsv41`). A rerun,
another runner pool or the next sweep silently measures a different build, and nobody can tell
which one a published number came from. Tags that carry a version, a date or a commit hash
(`nightly-20260422-de962f32`, `v0.5.12-cu130`) are pinned.

## When it fires
On each master-config key the PR adds or changes (a changed master config that cannot be read, or a
key that does not parse, is skipped with the reason): it fires when the key's `image` has no tag (it
pulls `latest`) or a moving tag: `latest` anywhere in the tag, or `nightly`, `dev`, `main` and the
like unless another part of the tag is a version, a date or a commit hash. An `@sha256:` digest and
a version tag pass. A missing, non-string or malformed image is `master-image-not-public`'s (skipped
here).

## Example
    dsv4-fp4-b200-vllm:
      image: vllm/vllm-openai          # no tag: whatever `latest` is today
    dsv4-fp4-mi355x-vllm:
      image: rocm/vllm-dev:deepseek-v4-latest

## Fix
Pin a release tag (`vllm/vllm-openai:v0.20.1`) or a digest (`vllm/vllm-openai@sha256:…`), and
name the image in the changelog description when it changes.
"""
import re
from collections import defaultdict
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import parse_image, touched_rows

CODE = "RR102"
NAME = "master-image-unpinned"
SEVERITY = Severity.NIT
ENFORCES = ("C6",)
MOVING_WORDS = frozenset({"latest", "nightly", "dev", "main", "master", "edge", "stable", "rolling", "unstable",
                          "head", "tip", "current", "release"})
_VERSION = re.compile(
    r"^v?\d+(?:\.\d+)+[a-z0-9]*$|^v\d+$|^(?:rc|post|dev)\d+$|^\d{6,}$|^(?=.*\d)(?=.*[a-f])[0-9a-f]{7,}$"
)


def moving_tag(tag: str) -> str | None:
    """Why `tag` moves (the moving word in it), or None when a version, date or commit pins it.

    `latest` anywhere moves (a `latest` suffix is not pinned by a version next to it);
    `nightly`/`dev`/`main`… move unless another part of the tag is a version, a date (6+ digits,
    or a month-day part such as `0820` in `dev-nightly-0820`) or a commit hash.
    """
    parts = [p for p in re.split(r"[-_.+]", tag.lower()) if p]
    if not parts:
        return None
    if "latest" in parts:
        return "latest"
    word = next((p for p in parts if p in MOVING_WORDS), None)
    if word is None:
        return None
    pinned = (any(_VERSION.match(p) for p in parts) or bool(re.search(r"\d+\.\d+", tag))
              or bool(re.search(r"(?<!\d)20\d\d[-_.]?[01]\d[-_.]?[0-3]\d(?!\d)", tag))
              or any(re.fullmatch(r"(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])", p) for p in parts))  # MMDD
    return None if pinned else word


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
        elif moving_tag(ref.tag):
            word = moving_tag(ref.tag)
            yield Problem(
                info.path,
                line,
                f"image `{image}` uses the moving tag `{ref.tag}`",
                fix="Replace the moving tag with the release tag (or `@sha256:` digest) the sweep should measure.",
                evidence=(
                    f"{info.key}.image = {image}",
                    f"tag `{ref.tag}`: `{word}` is repointed at every build, and no version, date or "
                    f"commit in the tag pins it",
                ),
            )
        else:
            ok[(image, f"tag {ref.tag}")].append(info.key)
    for (image, how), keys in ok.items():
        yield Passed(f"image {image} is pinned ({how}): {', '.join(keys)}")
