"""Flags a master-config key the repository's own schema rejects (unknown field, type, range, shape).

## Why it matters
The repository validates every master config with strict pydantic models
(`utils/matrix_logic/validation.py`, `extra="forbid"`) before it generates a sweep: an unknown
field (`seq-len-configs` where `scenarios` is expected, #1195), a missing `isl`, a `conc-start`
above its `conc-end`, both `conc-list` and a range, a `tp` not divisible by `dcp-size`, an
agentic config on a runner that is not `cluster:…`, `disagg: true` without `kv-p2p-transfer`.
`load_config_files` validates *all* master configs, so one bad key fails `check-changelog` for
every changelog PR until it is fixed, and the sweep generator refuses to run. The check follows
the schema of the PR's base revision (fields and rules exist from the commit that added them;
dates in `rules/conventions.py`): a PR is judged by the tooling it was branched from, unless it
changes `utils/matrix_logic/validation.py` itself (then only errors no schema change explains —
a missing required field, a value of the wrong shape — are reported, and the check says so).

## When it fires
On the master-config keys the PR adds or changes, when the base's conventions include the master
schema: it fires for each schema error of a key (the sweep generator's own model, with its defaults)
and for the file-set checks its loader runs over the head's master configs (a key in two files, …).
When the PR changes the schema's own source, keys are checked only for missing fields and wrong
shapes, not for fields or values the new schema may add. Master configs of a layout the emulation
does not model, and keys that cannot be read, are skipped; long lists are cut after a few keys and
errors per key.

## Example
    gptoss-fp4-mi355x-atom:
      image: rocm/atom:rocm7.1.1-ubuntu24.04-pytorch2.9-atom0.1.1
      multinode: false
      seq-len-configs:                 # the schema wants `scenarios: {fixed-seq-len: [...]}`
        - {isl: 1024, osl: 1024, search-space: [{tp: 1, conc-start: 4, conc-end: 16}]}

## Fix
Write the key as the schema of the base branch defines it; the message names the field, its
path inside the key and the schema's own words.
"""
from __future__ import annotations

from collections.abc import Iterator

from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.conventions import conventions, schema_modelled
from rules.finding import Passed, Problem, Severity, Skipped
from rules.master.analysis import changed_keys
from rules.master.matrix import file_set_failures, schema_changed, schema_failures
from rules.master.schema import key_line

CODE = "RR104"
NAME = "master-config-schema-invalid"
SEVERITY = Severity.BLOCKING
PROOF = "gate"
ENFORCES = ("C1",)
MAX_PER_KEY = 3
MAX_KEYS = 50  # keys reported one by one; the rest in one summary finding
GATE = ("Rejected by the PR-run `check-changelog` (its `load_config_files` validates every master config) on any "
        "changelog push, and by the sweep generator.")


def _model(value) -> str:
    if not isinstance(value, dict):
        return "a master-config entry (a mapping)"
    return "MultiNodeMasterConfigEntry" if value.get("multinode", False) else "SingleNodeMasterConfigEntry"


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed | Skipped]:
    conv = conventions(ctx)
    if not conv.master_schema:
        yield Skipped(f"the master-config schema of {conv.label} (before 2025-12-05) is not modelled")
        return
    live = [c for c in changed_keys(ctx) if c.head is not None]
    if not live:
        return
    own = schema_changed(ctx)
    if own:
        yield Skipped(f"this PR changes the master-config schema itself (`{own}`): its keys are checked only for "
                      "missing fields and wrong shapes, not for fields or values the new schema may add")
    bad = {}
    failing = schema_failures(ctx)
    for n, (info, errs) in enumerate(failing):
        bad[info.key] = errs
        if n >= MAX_KEYS:
            continue
        for e in errs[:MAX_PER_KEY]:
            line = key_line(info.text, info.line, e.path)
            value = "" if e.kind in ("missing",) or isinstance(e.value, (dict, list)) else f" (`{e.value!r}`)"
            yield Problem(info.path, line,
                          f"`{info.key}`: `{e.where}`: {e.message.rstrip('.')}{value}. {GATE}",
                          evidence=(f"schema of {conv.label}: {_model(info.value)}, error type `{e.kind}`",
                                    f"{len(errs)} schema error(s) in this key"))
    if len(failing) > MAX_KEYS:
        rest = failing[MAX_KEYS:]
        yield Problem(rest[0][0].path, rest[0][0].line,
                      f"{len(rest):,} more added or changed keys fail the master-config schema (first: "
                      f"`{rest[0][0].key}`: `{rest[0][1][0].where}`: {rest[0][1][0].message.rstrip('.')}). {GATE}",
                      evidence=(f"{len(failing):,} keys fail in all; the first {MAX_KEYS} are reported one by one",))
    for path, message, line in file_set_failures(ctx):
        yield Problem(path, line, f"{message}. {GATE}",
                      evidence=("`load_config_files` checks every master config file at head",))
    newer = sorted({c.head.path for c in live if not schema_modelled(c.head.path)})
    for path in newer:
        yield Skipped(f"{path}: the master-config schema of this layout (`infx/matrix/validation.py`) is not "
                      "modelled; its keys were not schema-checked", path=path)
    unreadable = [c for c in live if c.head.error is not None]
    for c in unreadable:
        yield Skipped(f"config key `{c.key}` was not validated: {c.head.error}", path=c.path)
    ok = [c.key for c in live if c.key not in bad and c.head.error is None and schema_modelled(c.head.path)]
    if ok:
        shown = ", ".join(f"`{k}`" for k in ok[:6]) + (f" and {len(ok) - 6} more" if len(ok) > 6 else "")
        yield Passed(f"{len(ok)} added or changed key(s) pass the master-config schema of {conv.label}: {shown}")
