"""Flags a GPU memory fraction outside its valid range.

## Why it matters
Out of range, the engine refuses to start (or, for some versions, clamps silently), so the sweep
fails after queueing for GPUs, or measures a configuration nobody wrote. A value such as `9.0`
or `90` is almost always a typo for 0.90.

## When it fires
vLLM `gpu-memory-utilization` must be in (0, 1]; SGLang `mem-fraction-static` and TensorRT-LLM
`kv_cache_config.free_gpu_memory_fraction` in (0, 1). The real recipes hold these without
exception (RULES.md E15: 350/350, 341/341, 187/187).

## Example
    gpu-memory-utilization: 9.0

## Fix
Write the fraction as a number between 0 and 1 (0.90 for 90 %).
"""
from collections.abc import Iterator

from rules.added import anchor
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity
from rules.serving.recipe_points import Once, Value, as_number, changed_recipes, points_note, where

CODE = "RR208"
NAME = "memory-fraction-out-of-range"
SEVERITY = Severity.BLOCKING
PROOF = "written:E15"
ENFORCES = ("E15",)
# (engine, arg path, upper bound inclusive?)
FRACTIONS = (
    ("vllm", ("gpu-memory-utilization",), True),
    ("sglang", ("mem-fraction-static",), False),
    ("trtllm", ("kv_cache_config", "free_gpu_memory_fraction"), False),
)


def _lookup(role, keys) -> Value | None:
    if len(keys) == 1:
        return role.arg(keys[0])
    cur = role.args.get(keys[0])
    for k in keys[1:]:
        cur = cur.get(k) if isinstance(cur, dict) else None
    return cur if isinstance(cur, Value) else None


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    for path, points in changed_recipes(ctx):
        bad, good = Once(), Once()
        for point in points:
            for role in point.roles:
                for engine, keys, inclusive in FRACTIONS:
                    if role.engine not in (engine, None):
                        continue
                    v = _lookup(role, keys)
                    if v is None:
                        continue
                    name = ".".join(keys)
                    x = as_number(v.value)
                    rng = "(0, 1]" if inclusive else "(0, 1)"
                    ok = x is not None and 0 < x and (x <= 1 if inclusive else x < 1)
                    w = where(point, role)
                    if ok:
                        good.add((v.line, name), point.name, f"{name} {v.value} ∈ {rng}")
                        continue
                    msg = f"{name} is `{v.value}`, outside {rng}"
                    bad.add((v.line, msg), point.name, (w, v.line, msg, name))
        for (w, line, msg, name), names in bad.items():
            fix = "Write it as a fraction between 0 and 1 (0.90 for 90 %)."
            yield Problem(path, anchor(ctx, path, line), f"{w}: {msg}{points_note(names)}.", fix=fix,
                          evidence=(f"{name} must be in the range its engine accepts",))
        checks = [g for g, _ in good.items()]
        if checks:
            yield Passed(f"{path}: " + "; ".join(sorted(set(checks))) + " ✓", path=path)
