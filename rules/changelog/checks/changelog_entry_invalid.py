"""Flags a new perf-changelog entry that does not match the entry schema (keys, types, values).

## Why it matters
The sweep generator validates every added entry with a strict schema (`extra="forbid"`): an
unknown key, a string where a list is expected, an empty `description` or an `append-only` entry
that also asks for evals fails the changelog check after the PR is labelled, or worse, a lax
reading runs a different sweep than the author meant.

## When it fires
On every entry this PR adds to a changelog: it fires for each schema error the strict entry model
reports (an unknown or missing key, a wrong type, a value out of range). It stays quiet for an entry
that does not parse (`yaml-invalid` reports it; skipped here), for empty `config-keys` lists and
items (`changelog-config-key-empty`), and for an entry that has the shape its time's tooling
accepted (free-text description, no pr-link, on bases before that shape was retired). A changelog
the review cannot read or compare is skipped with the reason.

## Example
    - config-keys:
        - dsv4-fp4-b200-vllm
      description: "one line"          # must be a list of strings
      pr_link: https://github.com/SemiAnalysisAI/InferenceX/pull/4867   # unknown key (pr-link)

## Fix
Use exactly these keys: `config-keys` (non-empty list of strings), `description` (non-empty list
of strings), `pr-link` (string), and optionally `scenario-type` (list of `fixed-seq-len` /
`agentic-coding`), `evals-only`, `all-evals`, `append-only` (booleans, `true`/`false`) and
`eval-min-prefill-ep` (integer ≥ 1). `append-only: true` stands alone: no evals options with it.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from rules.changelog.analysis import Entry, changelog_diffs, short
from rules.changelog.gates import entry_schema_error, note
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.conventions import DESCRIPTION_LIST, conventions
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR003"
NAME = "changelog-entry-invalid"
SEVERITY = Severity.BLOCKING
PROOF = "gate"
ENFORCES = ("A12",)

SCENARIO_TYPES = ("fixed-seq-len", "agentic-coding")
EVAL_OPTIONS = ("evals-only", "all-evals", "eval-min-prefill-ep")


class ChangelogEntry(BaseModel):
    """One perf-changelog entry, as the target repository's validator defines it (strict types)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    config_keys: list[Annotated[str, StringConstraints(min_length=1)]] = Field(alias="config-keys", min_length=1)
    description: list[str] = Field(min_length=1)
    pr_link: str = Field(alias="pr-link")
    scenario_type: list[Literal["fixed-seq-len", "agentic-coding"]] | None = Field(
        None, alias="scenario-type", min_length=1)
    evals_only: bool = Field(False, alias="evals-only")
    all_evals: bool = Field(False, alias="all-evals")
    append_only: bool = Field(False, alias="append-only")
    eval_min_prefill_ep: int | None = Field(None, alias="eval-min-prefill-ep", ge=1)

    @model_validator(mode="after")
    def _append_only_alone(self) -> ChangelogEntry:
        if self.append_only:
            mixed = [k for k, on in (("evals-only", self.evals_only), ("all-evals", self.all_evals),
                                     ("eval-min-prefill-ep", self.eval_min_prefill_ep is not None)) if on]
            if mixed:
                raise PydanticCustomError("append_only_mixed", "append-only cannot be combined with {keys}",
                                          {"keys": mixed})
        return self


ALLOWED_KEYS = tuple(f.alias or name for name, f in ChangelogEntry.model_fields.items())


def _type_name(value) -> str:
    return {str: "string", bool: "boolean", int: "integer", float: "number", list: "list", dict: "mapping",
            type(None): "null"}.get(type(value), type(value).__name__)


def _item_line(entry: Entry, key: str, index: int) -> int | None:
    """Line of item `index` of a block-style list under `key`, if written one item per line."""
    key_line = entry.key_lines.get(key)
    if key_line is None:
        return None
    lines = entry.text.split("\n")
    seen = -1
    for k in range(key_line - entry.start_line + 1, len(lines)):
        text = lines[k]
        if text.startswith("  ") and not text.startswith("   ") and text.strip():
            break  # next top-level key
        if text.lstrip().startswith("- "):
            seen += 1
            if seen == index:
                return entry.start_line + k
    return None


def _problem(path: str, entry: Entry, err: dict) -> Problem:
    loc = err["loc"]
    key = str(loc[0]) if loc else ""
    kind = err["type"]
    value = err.get("input")
    line = entry.key_lines.get(key, entry.start_line)
    evidence = (f"entry `{entry.summary}` starting at line {entry.start_line:,}", f"validator: {err['msg']}")
    if kind == "missing":
        return Problem(path, entry.start_line, f"This entry lacks the required `{key}` key.",
                       end_line=entry.end_line, evidence=evidence)
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(key, ALLOWED_KEYS, n=1, cutoff=0.6)
        fix = (f"Rename `{key}` to `{close[0]}`." if close else
               f"Remove `{key}`; an entry allows only {', '.join(f'`{k}`' for k in ALLOWED_KEYS)}.")
        return Problem(path, line, f"`{key}` is not a changelog entry key.", fix=fix, evidence=evidence)
    if kind == "append_only_mixed":
        keys = err.get("ctx", {}).get("keys") or []
        other = keys[0] if keys else "evals-only"
        return Problem(path, entry.key_lines.get(other, entry.key_lines.get("append-only", line)),
                       f"`append-only: true` cannot be combined with `{'`, `'.join(keys)}`.",
                       fix="Drop the evals options from the append-only entry, or drop `append-only`.",
                       evidence=evidence)
    if len(loc) >= 2 and isinstance(loc[1], int):
        index = loc[1]
        item_line = _item_line(entry, key, index) or line
        if kind == "literal_error":
            return Problem(path, item_line, f"`{key}` item `{short(str(value))}` is not one of "
                           f"{', '.join(f'`{s}`' for s in SCENARIO_TYPES)}.", evidence=evidence)
        if kind == "string_too_short":
            return Problem(path, item_line, f"`{key}` item {index + 1} is an empty string.", evidence=evidence)
        return Problem(path, item_line, f"`{key}` item {index + 1} must be a string, not the "
                       f"{_type_name(value)} `{short(str(value))}`.", evidence=evidence)
    if kind == "too_short":
        return Problem(path, line, f"`{key}` is an empty list; it needs at least one item.", evidence=evidence)
    if kind == "list_type":
        return Problem(path, line, f"`{key}` must be a list, not the {_type_name(value)} `{short(str(value))}`.",
                       fix=f"Write `{key}:` with one `    - item` per line below it.", evidence=evidence)
    if kind == "bool_type":
        return Problem(path, line, f"`{key}` must be `true` or `false`, not the {_type_name(value)} "
                       f"`{short(str(value))}`.", evidence=evidence)
    if kind in ("int_type", "greater_than_equal"):
        return Problem(path, line, f"`{key}` must be an integer ≥ 1, not `{short(str(value))}`.", evidence=evidence)
    if kind == "string_type":
        return Problem(path, line, f"`{key}` must be a string, not the {_type_name(value)} `{short(str(value))}`.",
                       evidence=evidence)
    return Problem(path, line, f"`{key}` is invalid: {err['msg']} (`{short(str(value))}`).", evidence=evidence)


def _empty_key_item(err: dict) -> bool:
    loc = err["loc"]
    if not loc or loc[0] != "config-keys":
        return False
    value = err.get("input")
    if len(loc) == 1:
        return value is None or value == [] or err["type"] == "too_short"
    return value is None or (isinstance(value, str) and not value.strip())


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    for d in changelog_diffs(ctx):
        if d.skip_reason:
            yield Skipped(f"{d.path}: entries not validated: {d.skip_reason}", path=d.path)
            continue
        valid = 0
        for entry in d.new_entries:
            if entry.data is None:
                # YAML syntax errors are RR012's to report (it parses the whole file); say it here.
                yield Skipped(f"{d.path}: entry at line {entry.start_line:,} not validated: it "
                              f"{entry.error or 'did not parse'}", path=d.path)
                continue
            try:
                ChangelogEntry.model_validate(entry.data)
            except ValidationError as err:
                conv = conventions(ctx)
                if conv.admits(0, DESCRIPTION_LIST) and entry_schema_error(entry.data, conv) is None:
                    # The entry has the shape of its time (before #343: a free-text description with
                    # a `PR:` line, no pr-link key); neither that tooling nor a written rule asked more.
                    yield Skipped(f"{d.path}: entry at line {entry.start_line:,} has the entry shape of "
                                  f"{conv.label} (description text, no pr-link), which both accepted",
                                  path=d.path)
                    continue
                for e in err.errors(include_url=False):
                    if _empty_key_item(e):
                        continue  # changelog-config-key-empty reports empty config-keys lists and items
                    p = _problem(d.path, entry, e)
                    n = note(ctx, d, pr_run=("entry-schema", "added-yaml"), merge=("entry-schema", "file-yaml"),
                             contract="the documented contract (strict types: `true`/`false`, lists of strings)",
                             lines=(entry.start_line, entry.end_line))
                    yield Problem(p.path, p.line, n.on(p.message), end_line=p.end_line, fix=p.fix,
                                  suggestion=p.suggestion, evidence=(*p.evidence, *n.evidence))
                continue
            valid += 1
        if valid:
            yield Passed(f"{d.path}: {valid} new entr{'y matches' if valid == 1 else 'ies match'} the entry schema "
                         f"(keys {', '.join(ALLOWED_KEYS)})", path=d.path)
