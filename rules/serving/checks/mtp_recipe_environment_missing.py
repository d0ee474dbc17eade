"""Flags an SGLang speculative role whose environment leaves spec V2 off on an image that needs it.

## Why it matters
The V1 path is slower and is not what the other MTP points of the curve run, so the point is
measured on a different engine path than its siblings. (#1907's fourteen recipes without it ran
an SGLang 0.5.11 image, where spec V2 is already the default: not a finding.)

## When it fires
SGLang runs speculative decoding (EAGLE / MTP) on its V1 worker unless `SGLANG_ENABLE_SPEC_V2`
is set, from the release that added the V2 worker (≈ 0.5.4) up to the one that made it the
default (0.5.11: `environ.py` of that release sets `EnvBool(True)`; both from the engine-defaults
table). The
repository's SGLang MTP recipes and scripts set `SGLANG_ENABLE_SPEC_V2: '1'` in the role's
environment (`backend.{prefill,decode,aggregated}_environment`, or `roles.<role>.env`). The
SGLang version is read from the image tag (`lmsysorg/sglang:v0.5.10-cu130`); an image that names
no version (a `dynamo-sglang` alias) is reported as Skipped.

## Example
    container: lmsysorg/sglang:v0.5.10-cu130
    decode_environment: {}           # speculative-algorithm: EAGLE, no SGLANG_ENABLE_SPEC_V2

## Fix
Add `SGLANG_ENABLE_SPEC_V2: '1'` to the environment of every speculative role.
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.serving import defaults
from rules.serving.recipe_points import Once, Value, points_note
from rules.serving.settings import changed_settings, insert_after, where

CODE = "RR221"
NAME = "mtp-recipe-environment-missing"
SEVERITY = Severity.NIT
ENV = "SGLANG_ENABLE_SPEC_V2"
_ON = ("1", "true", "yes", "on")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for path, bps in changed_settings(ctx):
        bad, good, skipped = Once(), Once(), Once()
        for bp in bps:
            for es in bp.roles:
                if es.engine != "sglang" or es.speculative is None:
                    continue
                w = where(bp, es)
                v = es.env.get(ENV) if hasattr(es.env, "get") else None
                on = isinstance(v, Value) and str(v.value).strip().lower() in _ON
                if on:
                    good.add((es.role, v.line), bp.name, f"{w}: {ENV}={v.value} ✓")
                    continue
                if es.version is None:
                    image = es.image.value if es.image is not None else None
                    skipped.add(
                        (es.role, image),
                        bp.name,
                        f"{w}: image `{image}` names no SGLang version; whether spec V2 is the default is unknown",
                    )
                    continue
                a = defaults.lookup("sglang", "spec_v2", es.version)
                if a is None or a.value is not False:
                    good.add(
                        (es.role, "default"),
                        bp.name,
                        f"{w}: {a.label if a else 'SGLang ' + defaults.fmt_version(es.version)} ✓",
                    )
                    continue
                ver = defaults.fmt_version(es.version)
                state = f"`{ENV}` is `{v.value}`" if isinstance(v, Value) else f"no `{ENV}`"
                msg = (f"the role speculates ({es.speculative.label}) on SGLang {ver}, which runs the V1 worker unless "
                       f"{ENV} is set, and its environment has {state}")
                env_lines = (
                    [x.line for x in es.env.values() if isinstance(x, Value) and x.line]
                    if hasattr(es.env, "values")
                    else []
                )
                line = v.line if isinstance(v, Value) else (min(env_lines) if env_lines else es.speculative.line)
                sug = (
                    None
                    if isinstance(v, Value) or not env_lines
                    else insert_after(ctx, path, line, f"{ENV}: '1'", sibling=True)
                )
                bad.add((es.role, line), bp.name, (w, line, msg, sug))
        for (w, line, msg, sug), names in bad.items():
            at = anchor(ctx, path, line)
            yield Problem(path, at, f"{w}: {msg}{points_note(names)}.", suggestion=sug)
        for g, names in good.items():
            yield Passed(f"{path}: {g}{points_note(names)}", path=path)
        for s, names in skipped.items():
            yield Skipped(f"{path}: {s}{points_note(names)}", path=path)
