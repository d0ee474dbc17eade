"""Flags a changed YAML file that does not parse, at the parser's line, in the parser's words.

## Why it matters
Every tool downstream (the sweep generator, the changelog processor, the launchers) loads these
files; one that does not parse fails the sweep after hours in the queue, or is skipped silently by
tooling that catches the error. Duplicate mapping keys count as errors: a plain `safe_load` keeps
the last value and hides the first.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      description: "one"
      description: "two"        # duplicate key

## Fix
Correct the syntax at the reported line; remove or rename the duplicate key.
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs
from rules.changelog.gates import note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.document import LARGE_YAML_BYTES, MAX_YAML_BYTES, changed_block_errors, load_values
from rules.finding import Passed, Problem, Severity

CODE = "RR012"
NAME = "yaml-invalid"
SEVERITY = Severity.BLOCKING
PROOF = "gate"
YAML_SUFFIXES = (".yaml", ".yml")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    checked = 0
    for f in ctx.changeset.files:
        if f.status == "removed" or not f.path.endswith(YAML_SUFFIXES):
            continue
        if f.head is None:
            yield Problem(f.path, None, "file content was not available to the review, so it was not checked",
                          evidence=(f"status `{f.status}`, no head content",))
            continue
        error = None
        head, base = f.head_text, f.base_text
        if LARGE_YAML_BYTES < len(f.head) <= MAX_YAML_BYTES and head is not None and base is not None:
            # Large file with a known base: parse only the top-level blocks this PR changed.
            error, _ = changed_block_errors(f.path, head, base)
        elif ctx.kind(f.path) == "recipes":
            error = ctx.head_doc(f.path).error  # the recipe rules need this parse anyway: share it
        else:
            error = load_values(f.path, f.head)[1]
        if error is not None:
            message, evidence = f"YAML does not parse: {error.message}", (f"parser error at line {error.line or '?'}",)
            if ctx.kind(f.path) == "changelog":  # the changelog's two gates read it too: say which rejects it
                diff = next((d for d in changelog_diffs(ctx) if d.path == f.path), None)
                if diff is not None:
                    n = note(ctx, diff, pr_run=("added-yaml", "entry-schema"), merge=("file-yaml", "entry-count"))
                    message, evidence = n.on(message), (*evidence, *n.evidence)
            yield Problem(f.path, error.line, message, evidence=evidence)
        else:
            checked += 1
    if checked:
        yield Passed(f"{checked} changed YAML file(s) parse, with no duplicate keys")
