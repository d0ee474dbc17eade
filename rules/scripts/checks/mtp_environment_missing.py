"""Flags an MTP benchmark script whose engine lacks the speculative-decoding environment its MTP siblings set.

## Why it matters
Some engines switch speculative decoding to a different implementation through the
environment: SGLang's `SGLANG_ENABLE_SPEC_V2=1` selects the Spec V2 path its MTP recipes are
tuned for. An MTP script without it silently runs the legacy path and is not comparable with its
siblings (#1480: `glm5_fp8_h200_mtp.sh` set the EAGLE flags but not `SGLANG_ENABLE_SPEC_V2`;
#1075: `qwen3.5_fp4_b200_mtp.sh`).

## When it fires
On each MTP benchmark script the PR adds or changes whose engine has variables in `engine_env`,
compared with its MTP siblings (`rules.serving.siblings`): the MTP scripts of the same family and
engine on its vendor; when fewer than `min_siblings` are there but the family has enough on all
vendors, those of other vendors count only if none is on its vendor; when the family has too few
on any vendor, the MTP scripts of the same engine and vendor in its directory. Archived
(`deprecated/`) scripts are not siblings. With fewer than `min_siblings` siblings nothing is
compared, and a variable that fewer than `threshold` of them set is not reported. An added
script is checked as it is (a plain `X=1` without `export` does not reach the engine process, and
says so; one that sets it passes); a modified or moved one only when the PR drops the variable.
When the key's points resolve, the engine process's environment (exports, prefixes, what the
launcher passes) decides; otherwise the script's own assignments do. The finding sits on the
engine's launch.

A variable the engine version in use does not need is not missing (a passed check says why): the
version comes from the image of every key that runs the script (`lmsysorg/sglang:v0.5.12-cu130` →
SGLang 0.5.12) and the engine-defaults table says what that version does
(`rules.serving.flags`): SGLang runs spec V2 by default from 0.5.11
(`python/sglang/srt/environ.py`, `Envs.SGLANG_ENABLE_SPEC_V2 = EnvBool(True)`;
`ServerArgs._handle_speculative_decoding` falls back to V1 only when it is set false) and no
longer has the variable by 0.5.15. When no point resolves, or an image names no version (a
nightly tag), the comparison with the siblings stands.

## Example
    # every other glm5 SGLang MTP script on NVIDIA exports SGLANG_ENABLE_SPEC_V2=1
    python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE ...

## Fix
Set the variable for the engine process (`export SGLANG_ENABLE_SPEC_V2=1` before the launch, or
`SGLANG_ENABLE_SPEC_V2=1 python3 -m sglang.launch_server …`).

## Options
`engine_env`: per engine, the variables that select the speculative-decoding implementation
(default: SGLang's `SGLANG_ENABLE_SPEC_V2`).
`threshold` (default 0.8): the share of MTP siblings that must set a variable before its absence
is reported (not every image needs it: about half of the SGLang MTP scripts on main leave it
unset, by model family).
`min_siblings` (default 2): fewer MTP siblings than this and nothing is compared.
"""
from collections.abc import Iterator

from pydantic import Field

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.scripts.facts import changed_scripts, resolved_for, spec_mtp
from rules.scripts.parse import Script
from rules.scripts.resolve import parsed
from rules.serving.siblings import engine_statement, env_not_needed_here, features, siblings_of

CODE = "RR411"
NAME = "mtp-environment-missing"
SEVERITY = Severity.NIT


class Options(RuleOptions):
    engine_env: dict[str, tuple[str, ...]] = Field(default_factory=lambda: {"sglang": ("SGLANG_ENABLE_SPEC_V2",)})
    threshold: float = Field(default=0.8, gt=0, le=1)  # share of MTP siblings that set the variable
    min_siblings: int = Field(default=2, ge=1)  # fewer MTP siblings than this: nothing to compare with


def _engine_lines(ctx: ReviewContext, path: str, rs) -> tuple[int, int | None]:
    line, end = engine_statement(ctx, path)
    for r in rs:
        if r.engine is not None and r.engine.path == path:
            return r.engine.line, end if end and line == r.engine.line else None
    return line, end


def _exported(ctx: ReviewContext, path: str, var: str) -> bool:
    """The script exports `var` (or sets it as a command prefix), read from its assignments."""
    script = parsed(ctx, path)
    if not isinstance(script, Script):
        return False
    return any(a.name == var and a.declaration in ("export", "prefix") for a in script.assignments) or any(
        c.name in ("export", "env") and var in " ".join(x or "" for x in c.literal_args()) for c in script.commands)


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed]:
    for f in changed_scripts(ctx):
        me = features(ctx, f.path)
        if me is None or not me.mtp or me.engine not in options.engine_env:
            continue
        sibs, tier, _ = siblings_of(ctx, f.path, min_family=options.min_siblings, mtp_only=True)
        sibs = [s for s in sibs if s.vendor == me.vendor] or sibs
        if len(sibs) < options.min_siblings:
            continue
        rs = [r for r in resolved_for(ctx, f.path) if spec_mtp(r) and r.engine is not None]
        for var in options.engine_env[me.engine]:
            not_needed = env_not_needed_here(ctx, f.path, me.engine, var)
            if not_needed:
                yield Passed(f"{f.path}: `{var}` is not needed ({not_needed})", path=f.path)
                continue
            setting = [s for s in sibs if var in s.env]
            share = len(setting) / len(sibs)
            if share < options.threshold:
                continue
            if f.status != "added":
                base = features(ctx, f.base_path, "base")
                if base is None or var not in base.env or var in me.env:
                    continue  # not dropped by this PR (a move, an unrelated edit, or unset before too)
                verb = f"MTP script drops `{var}`"
            else:
                exported = all(var in r.engine.env and r.engine.env[var].value not in (None, "")
                               for r in rs) if rs else _exported(ctx, f.path, var)
                if exported:
                    yield Passed(f"{f.path}: `{var}` is set ({len(setting)}/{len(sibs)} {tier} set it)",
                                 path=f.path)
                    continue
                verb = (f"MTP script sets `{var}` without `export`: the {me.engine} process does not see it"
                        if var in me.env else f"MTP script does not set `{var}` for {me.engine}")
            names = ", ".join(f"`{s.path.rsplit('/', 1)[-1]}`" for s in setting[:4])
            line, end = _engine_lines(ctx, f.path, rs)
            yield Problem(f.path, line, end_line=end if end and end > line else None,
                          # dropping the variable is this PR's edit of the file, wherever the launch sits
                          cause=((f.path, None),) if f.status != "added" else (),
                          message=f"{verb}; {len(setting)} of {len(sibs)} MTP siblings set it",
                          evidence=(f"siblings ({tier}): {names}{' …' if len(setting) > 4 else ''}",
                                    f"checked in the engine process's environment of {len(rs)} resolved points"
                                    if rs else "no resolved point: the script's assignments were checked"))
