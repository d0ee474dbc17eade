"""What a PR's change reaches: a job's command (proven) or nothing a job runs (labels, comments).

Shared by the selection rules (RR011 and its nit RR025): a blocking finding needs the change to
reach a benchmark, so this module says what each change reaches.

## Master-config fields

The sweep generator (`utils/matrix_logic/generate_sweep_configs.py`, bundle main) copies a key's
`image`, `model`, `model-prefix`, `precision`, `framework`, `runner`, `multinode`, `disagg`, every
scenario's `isl`/`osl` and every search-space field (parallelism, concurrencies, `prefill` and
`decode` with their `additional-settings`, `kv-offloading`, `kv-offload-backend`'s name,
`kv-p2p-transfer`, the DRAM budget) into the matrix rows, and the benchmark workflows hand each row
to the job as its environment, which the launchers and scripts read. Two fields reach the rows
only as result metadata: `router` (`component_metadata`: the job gets it as `ROUTER_METADATA`
JSON, which only the result processing reads) and the `version` of `kv-offload-backend` (the job
reads the backend's `name` as `KV_OFFLOAD_BACKEND`; the whole object travels as
`KV_OFFLOAD_BACKEND_METADATA`, a label of the results). A change confined to those fields — or to
comments, which are no change of the value at all — reaches no job's command: it relabels results.
"""
from __future__ import annotations

from typing import Any

from rules.context import ReviewContext
from rules.master.analysis import changed_keys

# --------------------------------------------------------------------------------------------
# Master-config fields

# Field names whose value reaches the job only as a label of the results (see the docstring).
LABEL_FIELDS = ("router",)
# (parent field, field) pairs that are labels while the parent's other fields are not.
LABEL_SUBFIELDS = (("kv-offload-backend", "version"),)
MAX_CHANGED_FIELDS = 50


def changed_fields(base: Any, head: Any, path: tuple = ()) -> list[tuple]:
    """Paths (field names and list indices) where `head` differs from `base`, at most a few dozen.

    Lists of equal length are compared item by item; a list whose length changed is one change.
    """
    out: list[tuple] = []
    stack = [(base, head, path)]
    while stack and len(out) < MAX_CHANGED_FIELDS:
        b, h, p = stack.pop()
        if b == h:
            continue
        if isinstance(b, dict) and isinstance(h, dict):
            for k in sorted(set(b) | set(h), key=str, reverse=True):
                if k not in b or k not in h:
                    out.append((*p, k))
                elif b[k] != h[k]:
                    stack.append((b[k], h[k], (*p, k)))
        elif isinstance(b, list) and isinstance(h, list) and len(b) == len(h):
            for i in reversed(range(len(b))):
                if b[i] != h[i]:
                    stack.append((b[i], h[i], (*p, i)))
        else:
            out.append(p)
    return out


def is_label(field: tuple) -> bool:
    """A changed field that reaches the job only as a label of its results."""
    names = [f for f in field if isinstance(f, str)]
    if any(n in LABEL_FIELDS for n in names):
        return True
    return any(names[i:i + 2] == list(pair) for pair in LABEL_SUBFIELDS for i in range(len(names) - 1))


def field_name(field: tuple) -> str:
    """`scenarios.fixed-seq-len[0].search-space[1].router` for a changed field path."""
    out = ""
    for part in field:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(the whole value)"


def label_only_change(base: Any, head: Any) -> list[str] | None:
    """The changed label fields when every change between the two values of a key is a label; else None."""
    if not isinstance(base, dict) or not isinstance(head, dict):
        return None
    fields = changed_fields(base, head)
    if not fields or len(fields) >= MAX_CHANGED_FIELDS or not all(is_label(f) for f in fields):
        return None
    return [field_name(f) for f in fields]


def label_keys(ctx: ReviewContext) -> dict[str, list[str]]:
    """Changed master keys whose change reaches no job's command: key → the label fields changed."""

    def compute() -> dict[str, list[str]]:
        out = {}
        for c in changed_keys(ctx):
            if c.status != "changed" or c.head is None or c.base is None or c.head.error or c.base.error:
                continue
            labels = label_only_change(c.base.value, c.head.value)
            if labels:
                out[c.key] = labels
        return out

    return ctx.memo(("changelog", "label-keys"), compute)
