"""Flags a new master-config key of another engine (TRT-LLM, ATOM, …) with no vLLM/SGLang key of its model on its SKU.

## Why it matters
The review checklist (since June 2026, C8) asks that a vendor claiming first-class vLLM/SGLang
support submits the vLLM or SGLang configuration of a model on its hardware before configs of
additional engines. Otherwise the published comparison shows a vendor engine for a model and SKU
with no open-engine number next to it. The exceptions are new hardware and a model architecture
vLLM/SGLang cannot serve yet, and the sign-off has to document them.

## When it fires
On each master-config key the PR adds (a key that exists at the base is never flagged): when its
framework is outside the vLLM/SGLang family and its runner's SKU is one of `established_skus`, it
fires unless the head master configs hold a vLLM- or SGLang-family key with the same
`model-prefix` and the same SKU (one the same PR adds counts). A new key of an engine that the base
already runs for that model and SKU (same framework, `model-prefix` and SKU: a variant, a split or a
rename of an existing config) passes: the order was settled when that engine first came.

The family is the engine the framework serves: a `vllm` or `sglang` token in it (`dynamo-vllm`,
`llmd-vllm`, `sglang-disagg`, … are in it; `trt`, `dynamo-trt`, `atom`, `atom-disagg` are not).
The repository's data decides it: with Dynamo keys counted, every other-engine key at the July 2026
main has its vLLM/SGLang sibling; with plain `vllm`/`sglang` only, 34 multinode GB200/GB300 keys
would not. The SKU is the runner label's first `-` token after an optional `cluster:`.

The rule is read from the base revision's guidance (AGENTS.md, CONTRIBUTING.md,
`docs/PR_REVIEW_CHECKLIST.md`): a base whose guidance does not state it yet (before 22 June 2026)
is Skipped with that reason, and so is a review that did not read it. A documented exception in the
sign-off is for the reviewer to accept; the rule cannot read it.

## Off by default
Judged below the bar for a blocking rule on sampled InferenceX PRs (benchmarks/precision.py): 1 true,
1 false. The false one restored a key from `configs/deprecated/*-master.yaml`, whose vLLM/SGLang
siblings sit there too: a review does not read the deprecated master configs, so the key looks new
and its siblings absent. Until it reads them, a repository switches it on with
`rules: {RR110: {enabled: true}}` in `.github/recipe-review.yml`.

## Example
    glm5-fp8-b200-trt:              # no glm5 vLLM or SGLang key runs on b200
      model-prefix: glm5
      runner: b200
      framework: trt

## Fix
Submit (or keep in this PR) the vLLM or SGLang config of the model on the SKU first, or document
the exception (new hardware, or an architecture vLLM/SGLang cannot serve yet) in the sign-off.

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
from rules.master.analysis import changed_keys, master_keys
from rules.master.engines import ESTABLISHED_SKUS, engine_family, runner_sku, written_rule

CODE = "RR110"
NAME = "engine-first-ordering"
SEVERITY = Severity.BLOCKING
PROOF = "written:C8"
DEFAULT_ENABLED = False  # below the blocking bar: it does not read configs/deprecated/ (see its docstring)
ENFORCES = ("C8",)


class Options(RuleOptions):
    established_skus: tuple[str, ...] = ESTABLISHED_SKUS


def _facts(value: object) -> tuple[object, object, str | None]:
    """(framework, model-prefix, SKU) of a key's value."""
    v = value if isinstance(value, dict) else {}
    return v.get("framework"), v.get("model-prefix"), runner_sku(v.get("runner"))


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    established = {s.lower() for s in options.established_skus}
    new = []
    for c in changed_keys(ctx):
        if c.status != "added" or c.head is None or not isinstance(c.head.value, dict):
            continue
        framework, prefix, sku = _facts(c.head.value)
        if engine_family(framework) is not None or not isinstance(framework, str):
            continue
        new.append((c.head, framework, prefix, sku))
    if not new:
        return
    rule = written_rule(ctx.changeset, "engine-first")
    if rule is None:
        yield Skipped("the base revision's guidance was not read, so whether it asks for vLLM/SGLang configs "
                      "before other engines is unknown")
        return
    if rule is False:
        yield Skipped("the base revision's guidance (AGENTS.md, CONTRIBUTING.md, the review checklist) does not "
                      "ask for vLLM/SGLang configs before other engines yet")
        return
    said = f"{rule.path}:{rule.line}: {rule.text}"
    siblings: dict[tuple[object, str | None], list[str]] = defaultdict(list)
    for k, info in master_keys(ctx, "head").items():
        framework, prefix, sku = _facts(info.value)
        if engine_family(framework) is not None:
            siblings[(prefix, sku)].append(k)
    before = {_facts(info.value) for info in master_keys(ctx, "base").values()}
    ok: dict[str, list[str]] = defaultdict(list)
    for info, framework, prefix, sku in new:
        if sku not in established:
            ok[f"runner `{info.get('runner')}` is not an established SKU (new hardware is exempt)"].append(info.key)
            continue
        if not isinstance(prefix, str) or not prefix:
            yield Skipped(f"config key `{info.key}` has no string `model-prefix`; engine order not checked",
                          path=info.path)
            continue
        if siblings.get((prefix, sku)):
            ok[f"{prefix} on {sku} has vLLM/SGLang key(s) {', '.join(sorted(siblings[(prefix, sku)])[:3])}"].append(
                info.key)
            continue
        if (framework, prefix, sku) in before:
            ok[f"the base already runs {framework} for {prefix} on {sku}"].append(info.key)
            continue
        elsewhere = sorted({s for (p, s) in siblings if p == prefix and s})
        yield Problem(info.path, info.line_of("framework"),
                      f"`{info.key}` adds {framework} for `{prefix}` on {sku}, but no vLLM or SGLang config of "
                      f"`{prefix}` runs on {sku}",
                      fix=f"Add the vLLM or SGLang config of `{prefix}` on {sku} first (or in this PR), or document "
                          "the exception (new hardware, or an architecture vLLM/SGLang cannot serve yet) in the "
                          "sign-off.",
                      evidence=(f"{info.key}: framework = {framework}, model-prefix = {prefix}, "
                                f"runner = {info.get('runner')} (SKU {sku}, established)",
                                f"vLLM/SGLang keys of `{prefix}` run on: {', '.join(elsewhere) or 'no SKU'}",
                                said))
    for why, keys in ok.items():
        yield Passed(f"{why}: {', '.join(keys)}")
