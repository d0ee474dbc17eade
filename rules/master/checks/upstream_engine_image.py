"""Flags a vLLM or SGLang master-config key on an established SKU whose image is not the upstream project's.

## Why it matters
The review checklist makes it a hard rule (since July 2026, C7): a vendor that says vLLM or SGLang
runs first-class on its hardware benchmarks the images those projects publish,
`vllm/vllm-openai[-rocm]` and `lmsysorg/sglang[-rocm]` on Docker Hub. A vendor fork
(`rocm/sgl-dev`, `rocm/vllm-dev`, a personal `ghcr.io`/`quay.io` build) publishes a number for an
engine nobody else can run, under the vLLM or SGLang name. The only exceptions are new hardware
and a model architecture upstream does not support yet, and the sign-off has to document them.

## When it fires
On each master-config key the PR adds, or whose `image`, `framework` or runner SKU it changes (a
key changed only elsewhere keeps the image it was reviewed with): it fires when the framework is in
the vLLM family and the image's Docker Hub repository is not `vllm/vllm-openai` or
`vllm/vllm-openai-rocm`, or in the SGLang family and it is not `lmsysorg/sglang` or
`lmsysorg/sglang-rocm`, and the runner's SKU is one of `established_skus`. `#` is read as `/`,
and tags and `@sha256:` digests do not matter (pinning is master-image-unpinned's).

The family is the engine the framework serves: a `vllm` or `sglang` token in it (`vllm-disagg`,
`dynamo-vllm`, `llmd-vllm`, `sglang-disagg`, `dynamo-sglang`). Dynamo and llm-d schedule the
engine, but the build the benchmark measures is vLLM's or SGLang's, and the repository's Dynamo
keys run the upstream images. The SKU is the runner label's first `-` token after an optional
`cluster:` (`cluster:b200-dgxc` → `b200`). Images master-image-not-public reports (local files,
private registries, bare names, references that do not parse) are left to it.

The rule is read from the base revision's guidance (AGENTS.md, CONTRIBUTING.md,
`docs/PR_REVIEW_CHECKLIST.md`): a base whose guidance does not ask for the upstream images yet
(before 3 July 2026) is Skipped with that reason, and so is a review that did not read it. A
documented exception in the sign-off is for the reviewer to accept; the rule cannot read it.

## Example
    dsr1-fp8-mi355x-sglang-disagg:
      image: rocm/sgl-dev:v0.5.9-rocm700-mi35x-20260301
      runner: mi355x-disagg
      framework: sglang-disagg

## Fix
Run the upstream image (`lmsysorg/sglang-rocm:<release>` here), or, for new hardware or a new
architecture upstream cannot serve yet, document the exception in the sign-off's additional
detail section with the upstream maintainers' word.

## Options
`established_skus`: the SKUs the rule applies to (lower-case, as runner labels name them). The
default is the list of established (not new) hardware of the repository's sign-off verifier
prompt, Check 6: H100, H200, B200, B300, GB200, GB300, MI300X, MI325X, MI355X.
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
    key_info,
    parse_image,
    touched_rows,
)
from rules.master.engines import ESTABLISHED_SKUS, FAMILY_NAMES, UPSTREAM_REPOS, engine_family, runner_sku, written_rule

CODE = "RR109"
NAME = "upstream-engine-image"
SEVERITY = Severity.BLOCKING
PROOF = "written:C7"
ENFORCES = ("C7",)
DOCKER_HUB_HOSTS = frozenset({DOCKER_HUB, "index.docker.io", "registry-1.docker.io"})


class Options(RuleOptions):
    established_skus: tuple[str, ...] = ESTABLISHED_SKUS


def _public_owner(image: str) -> bool:
    """Whether master-image-not-public reports this image (so this rule says nothing about it)."""
    if image.startswith(LOCAL_IMAGE_PREFIXES) or image.lower().endswith(LOCAL_IMAGE_SUFFIXES):
        return True
    ref = parse_image(image)
    if ref is None or ref.host not in set(PUBLIC_REGISTRIES):
        return True
    return ref.host == DOCKER_HUB and ("/" not in ref.repository or ref.repository.startswith("library/"))


def _identity(value: object) -> tuple:
    v = value if isinstance(value, dict) else {}
    return v.get("image"), engine_family(v.get("framework")), runner_sku(v.get("runner"))


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    established = {s.lower() for s in options.established_skus}
    todo = []
    for info in touched_rows(ctx):
        if isinstance(info, Skipped):
            yield info
            continue
        family = engine_family(info.get("framework"))
        if family is None:
            continue
        base = key_info(ctx, info.key, "base")
        if base is not None and _identity(base.value) == _identity(info.value):
            continue  # image, engine and SKU as reviewed before
        todo.append((info, family))
    if not todo:
        return
    rule = written_rule(ctx.changeset, "upstream-image")
    if rule is None:
        yield Skipped("the base revision's guidance was not read, so whether it asks for upstream vLLM/SGLang "
                      "images is unknown")
        return
    if rule is False:
        yield Skipped("the base revision's guidance (AGENTS.md, CONTRIBUTING.md, the review checklist) does not "
                      "ask for upstream vLLM/SGLang images yet")
        return
    said = f"{rule.path}:{rule.line}: {rule.text}"
    ok: dict[str, list[str]] = defaultdict(list)
    for info, family in todo:
        runner, image, framework = info.get("runner"), info.get("image"), info.get("framework")
        sku = runner_sku(runner)
        if sku not in established:
            ok[f"runner `{runner}` is not an established SKU (new hardware is exempt)"].append(info.key)
            continue
        if not isinstance(image, str) or _public_owner(image):
            continue  # master-image-not-public reports it
        ref = parse_image(image)
        if ref is None:
            continue
        upstream = UPSTREAM_REPOS[family]
        if ref.host in DOCKER_HUB_HOSTS and ref.repository.lower() in upstream:
            ok[f"upstream {FAMILY_NAMES[family]} image `{ref.repository}`"].append(info.key)
            continue
        where = ref.repository if ref.host in DOCKER_HUB_HOSTS else f"{ref.host}/{ref.repository}"
        wanted = " or ".join(f"`{r}`" for r in upstream)
        yield Problem(info.path, info.line_of("image"),
                      f"`{info.key}` ({framework} on {sku}) runs `{image}`, not an upstream "
                      f"{FAMILY_NAMES[family]} image ({wanted})",
                      fix=f"Use {wanted} with a release tag, or document the exception (new hardware, or an "
                          "architecture upstream cannot serve yet) in the sign-off.",
                      evidence=(f"{info.key}.image = {image} (repository `{where}`)",
                                f"{info.key}.framework = {framework} ({FAMILY_NAMES[family]} family), "
                                f"runner = {runner} (SKU {sku}, established)", said))
    for why, keys in ok.items():
        yield Passed(f"{why}: {', '.join(keys)}")
