"""Flags a master-config key that does not start with its own `model-prefix` followed by `-`.

## Why it matters
Config keys are how the changelog, sweep filters, dashboards and wildcard selections
(`dsv4-*`) find a model's configs. A key that does not start with its `model-prefix` is missed
by every `<prefix>-*` selection and files its results under the wrong model, or the prefix itself
is wrong and the results land on another model's page.

## When it fires
On each master-config key the PR adds or changes (a changed master config that cannot be read, or a
key that does not parse, is skipped with the reason): it fires when the key does not start with its
`model-prefix` followed by `-`. A key without a string `model-prefix` is skipped.

## Example
    dsr1-fp4-b200-sglang:
      model-prefix: dsv4          # key says dsr1, prefix says dsv4

## Fix
Rename the key so it starts with `<model-prefix>-` (and update the changelog entry that selects
it), or correct `model-prefix` if the key is right.
"""
from collections import defaultdict
from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import touched_rows

CODE = "RR103"
NAME = "master-key-prefix-mismatch"
SEVERITY = Severity.NIT
ENFORCES = ("C2",)


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    ok: dict[str, list[str]] = defaultdict(list)
    for info in touched_rows(ctx):
        if isinstance(info, Skipped):
            yield info
            continue
        prefix = info.get("model-prefix")
        if not isinstance(prefix, str) or not prefix.strip():
            yield Skipped(f"config key `{info.key}` has no string `model-prefix`; prefix not checked", path=info.path)
            continue
        if info.key.startswith(f"{prefix}-"):
            ok[prefix].append(info.key)
            continue
        yield Problem(info.path, info.line,
                      f"config key `{info.key}` does not start with its model-prefix `{prefix}-`",
                      fix=f"Rename the key to start with `{prefix}-`, or correct `model-prefix` "
                          f"(line {info.line_of('model-prefix')}) if the key is right.",
                      evidence=(f"key: {info.key}", f"model-prefix: {prefix} (line {info.line_of('model-prefix')})"))
    for prefix, keys in ok.items():
        yield Passed(f"{len(keys)} key(s) start with model-prefix `{prefix}-`: {', '.join(keys)}")
