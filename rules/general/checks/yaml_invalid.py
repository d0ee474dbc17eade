"""Flags a changed YAML file that does not parse, at the parser's line, in the parser's words.

## Why it matters
Every tool downstream (the sweep generator, the changelog processor, the launchers) loads these
files; one that does not parse fails the sweep after hours in the queue, or is skipped silently by
tooling that catches the error.

Duplicate mapping keys depend on the loader. The changelog's strict validator (`UniqueKeyLoader`
in `utils/validate_perf_changelog.py`, run on the merge path) rejects any duplicate, so a duplicate
the PR adds to `perf-changelog.yaml` fails the gate whatever the values. Master configs and
runners.yaml go through `load_config_files` (`yaml.safe_load`, `utils/matrix_logic/validation.py`),
and recipes through plain YAML loads too: those keep the last value and drop the earlier ones
without a word. There a duplicate is a finding only when the PR introduces it and an earlier
value differs from the last one, so the config silently runs something other than what is
written; a duplicate with equal values changes nothing, and one the base already had is not this
PR's.

Which files: the changelog, master configs, runners.yaml and recipes (the `paths` of the review
configuration). Other YAML — the repository's GitHub workflows above all — is not what this review
is about: GitHub parses a workflow file itself and reports a broken one on the workflow run
("Invalid workflow file"), and nothing about a benchmark depends on our reading of it.

## When it fires
On every changed, not removed, YAML file of a reviewed kind (changelog, master configs, recipes,
runners): it fires when the head does not parse, or has a duplicate key that this PR introduced and
that drops a value (in the changelog any new duplicate). Duplicates the base already has, and
duplicates with equal values outside the changelog, stay quiet. Large files with a known base are
parsed only in the top-level blocks the PR changed. Workflows and other YAML are out of scope.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      description: "one"
      description: "two"        # duplicate key

## Severity
A nit until its two forms are two rules: judged on ten sampled InferenceX PRs
(benchmarks/precision.py), 8 were files the gate cannot parse and 2 were duplicate keys no gate
rejects (one an intended override that keeps the last value). A changelog or master config the gate
cannot load is still blocked by the changelog and master-config gate rules.

## Fix
Correct the syntax at the reported line; remove or rename the duplicate key (keep the value that
is meant).
"""
from collections.abc import Iterator

from rules.changelog.analysis import changelog_diffs, short
from rules.changelog.gates import note
from rules.comments import edited_lines
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.document import LARGE_YAML_BYTES, MAX_YAML_BYTES, YamlError, changed_block_errors, load_values
from rules.finding import Passed, Problem, Severity
from rules.general.duplicates import Duplicate, duplicate_keys, new_duplicates

CODE = "RR012"
NAME = "yaml-invalid"
SEVERITY = Severity.NIT
ENFORCES = ("A8",)
YAML_SUFFIXES = (".yaml", ".yml")
# The kinds of YAML this review reads (rules/context.py `KINDS`); other YAML is out of scope.
REVIEWED_KINDS = ("changelog", "master_configs", "runners", "recipes")
# How the repository's tooling loads each kind, for the evidence of a dropped value.
LOADERS = {
    "master_configs": "the sweep generator loads master configs with `yaml.safe_load` (`load_config_files`), "
                      "which keeps the last of duplicate keys",
    "runners": "the sweep generator loads runners.yaml with `yaml.safe_load`, which keeps the last of duplicate keys",
    "recipes": "recipes are read with plain YAML loads, which keep the last of duplicate keys",
}


def _is_duplicate(error: YamlError) -> bool:
    return "duplicate key" in error.message


def _where(d: Duplicate) -> str:
    return ".".join(d.path + (d.key,)).replace(".[]", "[]")


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    checked = 0
    harmless: list[str] = []
    for f in ctx.changeset.files:
        if f.status == "removed" or not f.path.endswith(YAML_SUFFIXES):
            continue
        kind = ctx.kind(f.path)
        if kind not in REVIEWED_KINDS:
            continue  # workflows and other YAML: out of scope (see the docstring)
        if f.head is None:
            yield Problem(f.path, None, "file content was not available to the review, so it was not checked",
                          evidence=(f"status `{f.status}`, no head content",))
            continue
        error = None
        head, base = f.head_text, f.base_text
        if LARGE_YAML_BYTES < len(f.head) <= MAX_YAML_BYTES and head is not None and base is not None:
            # Large file with a known base: parse only the top-level blocks this PR changed.
            error, _ = changed_block_errors(f.path, head, base)
        elif kind == "recipes":
            error = ctx.head_doc(f.path).error  # the recipe rules need this parse anyway: share it
        else:
            error = load_values(f.path, f.head)[1]
        if error is not None and _is_duplicate(error) and head is not None:
            dups, syntax = duplicate_keys(head)
            if syntax is None:
                base_dups = duplicate_keys(base)[0] if base is not None else []
                new = new_duplicates(dups, base_dups)
                found = list(_duplicates(ctx, f.path, kind, error, new, edited_lines(f.patch)))
                yield from found
                old = [(d, "already in the base") for d in dups if d not in new]
                same = [(d, "equal values") for d in new if kind != "changelog" and not d.drops_a_value]
                harmless.extend(f"{f.path}: `{_where(d)}` (line {d.line:,}, {why})" for d, why in old + same)
                checked += not found
                continue
            error = syntax  # a syntax error after the duplicate: the parser stops there
        if error is not None:
            yield _parse_error(ctx, f.path, kind, error)
        else:
            checked += 1
    if checked:
        detail = f"{checked} changed YAML file(s) parse, with no duplicate keys"
        if harmless:
            detail = (f"{checked} changed YAML file(s) parse; duplicate keys that drop no value or that the base "
                      f"already has: " + "; ".join(harmless[:5]) + (f" and {len(harmless) - 5} more"
                                                                     if len(harmless) > 5 else ""))
        yield Passed(detail)


def _parse_error(ctx: ReviewContext, path: str, kind: str | None, error: YamlError) -> Problem:
    message, evidence = f"YAML does not parse: {error.message}", (f"parser error at line {error.line or '?'}",)
    if kind == "changelog":  # the changelog's two gates read it too: say which rejects it
        diff = next((d for d in changelog_diffs(ctx) if d.path == path), None)
        if diff is not None:
            n = note(ctx, diff, pr_run=("added-yaml", "entry-schema"), merge=("file-yaml", "entry-count"))
            message, evidence = n.on(message), (*evidence, *n.evidence)
    return Problem(path, error.line, message, evidence=evidence)


def _duplicates(ctx: ReviewContext, path: str, kind: str | None, error: YamlError,
                new: list[Duplicate], edited: frozenset[int]) -> Iterator[Problem]:
    for d in new:
        # On the occurrence the PR wrote (it may have written the first one above a base line).
        line = next((n for n in reversed(d.lines) if n in edited), d.line)
        others = ", ".join(f"{n:,}" for n in d.lines if n != line)
        if kind == "changelog":
            # The strict validator rejects every duplicate; the parser's own words when it names this one.
            if error.line in d.lines:
                yield _parse_error(ctx, path, kind, YamlError(line, error.message))
            else:
                yield _parse_error(ctx, path, kind, YamlError(line, f"duplicate key `{d.key}` (also at line {others})"))
            continue
        if not d.drops_a_value:
            continue
        dropped = next(t for v, t in zip(d.values, d.texts, strict=False) if v != d.values[-1])
        yield Problem(path, line,
                      f"Duplicate key `{_where(d)}` (also at line {others}): the last value `{short(d.texts[-1], 60)}` "
                      f"is used and `{short(dropped, 60)}` is silently dropped.",
                      evidence=(f"`{d.key}` is written {len(d.lines)} times in one mapping, at lines "
                                f"{', '.join(f'{n:,}' for n in d.lines)}, with different values",
                                LOADERS.get(kind or "", "plain YAML loads keep the last of duplicate keys"),
                                "the base does not have this duplicate"))
