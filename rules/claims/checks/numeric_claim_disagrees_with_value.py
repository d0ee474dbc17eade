"""Flags a numeric claim in a comment or changelog description that disagrees with the value it describes.

## Why it matters
A comment that explains a value ("898 GB across the 8 ranks" above `cpu_bytes_to_use`) goes
stale silently when the value is bumped and the comment is not; a changelog description that
says `dram-utilization 0.086` while the config it names says 0.09 misleads everyone who reads
the sweep history. Either the value or its explanation is wrong, and the reviewer cannot tell
which without redoing the work.

## When it fires
On comment blocks the PR wrote or edited in changed recipes, master configs and scripts, next to the
`key: value` lines they annotate: it fires when a claim uses an operand named after the key (same
unit, or a plain number beside a unitless value) that differs from the value written, and when a
byte value sits next to byte quantities the comment states, within `comparable_ratio` of it, and
none of them agrees with it. Values that cannot be read as a quantity, and quantities too far from
the value to be about it, are not compared.

## Example
    # 2700 blocks x 41,574,656 B = 112,251,571,200 B per rank, 898 GB across the 8 ranks
    cpu_bytes_to_use: 1000000000000

## Fix
Make the value and its explanation agree: update the comment to the new value's arithmetic, or
restore the value the comment explains.

## Options
`comparable_ratio` (default 1.25): a byte value is compared with the claim's byte quantities
that are within this factor of it; a claim about a quantity of another size (a per-rank figure
above a node total) is not a disagreement.
"""
from collections.abc import Iterator
from typing import Any

from pydantic import Field

from rules.claims.locate import changeset_claims
from rules.claims.parse import mentions, value_pairs, value_quantity
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity, Skipped

CODE = "RR251"
NAME = "numeric-claim-disagrees-with-value"
SEVERITY = Severity.NIT


class Options(RuleOptions):
    # Byte quantities within this factor of a byte value are the ones that must agree with it.
    comparable_ratio: float = Field(default=1.25, gt=1.0)


def _agrees(value: float, q) -> bool:
    lo, hi = q.interval(as_result=True)
    eps = 1e-12 * max(abs(lo), abs(hi), 1.0)
    return lo < value - eps < hi or lo < value + eps < hi or value == q.value


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def _operand_mentions(text: str, key: str, claim) -> list:
    """Numbers the text names `key` for that are also quantities of `claim`."""
    starts = {q.start for q in claim.quantities}
    return [q for q in mentions(text, key) if q.start in starts]


def _scalars(node: Any, out: dict[str, set]) -> dict[str, set]:
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out.setdefault(str(k), set()).add(float(v))
            else:
                _scalars(v, out)
    elif isinstance(node, list):
        for v in node:
            _scalars(v, out)
    return out


def check(ctx: ReviewContext, options: Options) -> Iterator[Problem | Passed | Skipped]:
    located, _ = changeset_claims(ctx)
    by_block: dict[tuple, list] = {}
    for lc in located:
        if lc.source == "comment" and lc.annotated_text and (lc.fresh or lc.annotated_fresh):
            by_block.setdefault((lc.path, lc.annotated_line, lc.text), []).append(lc)
    for (path, ann_line, _text), group in by_block.items():
        pairs = value_pairs(group[0].annotated_text)
        for key, raw in pairs:
            vq = value_quantity(key, raw)
            if vq is None:
                continue
            value, dim, _ulp = vq
            shown = f"{key}: {raw}"
            # A claim that names the key (`dram-utilization 0.086 × …`) must use its value.
            plain = value_quantity("", raw)  # the number as written, without the key's unit
            for lc in group:
                for q in _operand_mentions(lc.text, key, lc.claim):
                    if q.dim == dim:
                        ok = _agrees(value, q)
                    elif q.dim == "" and plain is not None and plain[1] == "":
                        ok = _agrees(plain[0], q)  # `total-cpu-dram-gb 898 × …` next to `total-cpu-dram-gb: 898`
                    else:
                        continue
                    if ok:
                        yield Passed(f"{path}:{lc.line}: `{key}` {q.text} in the comment = {raw} at line {ann_line} ✓",
                                     path=path, line=lc.line)
                    else:
                        yield Problem(
                            path,
                            lc.line,
                            f"comment says `{key}` is `{q.text}`, but line {ann_line} sets `{shown}`",
                            fix=f"Update the comment's arithmetic to `{key}` {raw}, or restore the value it explains.",
                            evidence=(f"claim: {lc.claim.text.strip()}", f"line {ann_line}: {shown}"),
                        )
            if dim != "B":
                continue
            # A byte value and the byte quantities the comment's claims state.
            quantities = {(q.start, q.text): q for lc in group for q in lc.claim.quantities if q.dim == "B"}
            comparable = [q for q in quantities.values() if q.value > 0 and value > 0
                          and max(q.value, value) / min(q.value, value) <= options.comparable_ratio]
            if not comparable:
                continue
            match = next((q for q in comparable if _agrees(value, q)), None)
            if match is not None:
                yield Passed(f"{path}:{ann_line}: `{shown}` = {_fmt(value)} B agrees with the comment's {match.text} ✓",
                             path=path, line=ann_line)
                continue
            nearest = min(comparable, key=lambda q: abs(q.value - value))
            lc = next(x for x in group if nearest in x.claim.quantities)
            yield Problem(path, ann_line,
                          f"`{shown}` is {_fmt(value)} B, but the comment above it works out `{nearest.text}`",
                          fix="Make the value and the comment's arithmetic agree (update whichever is stale).",
                          evidence=(f"claim at line {lc.line}: {lc.claim.text.strip()}",
                                    f"value {_fmt(value)} B vs stated {nearest.text} = {_fmt(nearest.value)} B",
                                    f"quantities within ×{options.comparable_ratio:g} of the value are compared"))
    yield from _descriptions(ctx, located)


def _descriptions(ctx: ReviewContext, located) -> Iterator[Problem | Passed | Skipped]:
    """Descriptions of new changelog entries: a key named with a number must match the config."""
    descs = [lc for lc in located if lc.source == "description" and lc.config_keys]
    if not descs:
        return
    from rules.master.analysis import master_keys, match_keys

    keys = master_keys(ctx)
    if not keys:
        yield Skipped("changelog description claims not compared: no master config is known")
        return
    for lc in descs:
        fields: dict[str, set] = {}
        names = []
        for item in lc.config_keys:
            for k in match_keys(item, keys):
                names.append(k)
                _scalars(keys[k].value, fields)
        for field_name, values in fields.items():
            for q in _operand_mentions(lc.text, field_name, lc.claim):
                if q.dim:
                    continue
                if any(abs(v - q.value) <= q.ulp / 2 + 1e-12 * abs(v) for v in values):
                    yield Passed(f"{lc.path}:{lc.line}: `{field_name}` {q.text} matches {', '.join(names)} ✓",
                                 path=lc.path, line=lc.line)
                    continue
                have = ", ".join(_fmt(v) for v in sorted(values))
                yield Problem(
                    lc.path,
                    lc.line,
                    f"description uses `{field_name}` `{q.text}`, but {', '.join(names)} sets {field_name} {have}",
                    fix=f"Use the configured {field_name} ({have}) in the description's arithmetic, or change "
                        "the config.",
                    evidence=(f"claim: {lc.claim.text.strip()}", f"{field_name} in {', '.join(names)}: {have}"),
                )
