"""Flags a changed image or engine setting of the selected keys that the new changelog entry's description does not mention.

## Why it matters
The changelog is how anyone reading a result learns what changed between two sweeps, and the
repository asks the description to state the old→new image and the material runtime changes
(RULES.md A17). When a PR bumps a key's image or changes a serving flag of the script its key
runs (`--gpu-memory-utilization 0.90 → 0.95`, a new `--kv-cache-dtype fp8`, an engine environment
variable) and the description only says "update vllm image" or nothing about it (#1991, #2124),
the history loses the cause of a step in the curve. A nit: the change still runs.

## When it fires
- **Image**: a selected key's image changed and no new entry selecting it names the new version in
  any usual form: the tag, its release number (`0.5.7` for `v0.5.7-rocm700-mi35x`), its build date
  (`20260603`, or `June 3` in words), its commit hash, the start of its digest, an abbreviated tag.
- **Engine setting**: a flag, an engine environment variable, or an assignment an engine flag takes
  its value from, that the PR adds or changes in a script it *modifies*, where the engine command
  the launcher builds for a selected key takes it from that script. The key is matched to the
  script the launcher routes it to (by `SPEC_DECODING`, the framework and the other point values,
  `rules.scripts.resolve.resolve_point`), not by the script's name. Not settings: anything in a
  script the PR adds (a new script's settings are the benchmark the entry adds), the settings of a
  key the PR adds, settings only the rows the PR adds take (a new arm's own branch), paths, ports,
  names, logging and source revisions, the parallelism flags (the rows say tp/ep/dp-attn), a new
  flag that spells out a default (`--dtype auto`), and a value written differently (`0.90` → `0.9`).
- **Mentioned** when an entry selecting such a key names the setting (`--kv-cache-dtype`,
  `kv_cache_dtype`, `kv cache dtype`), the distinctive words of its name (`KV cache`, `paged
  attention` for `…_PAGED_ATTN`), or its new value (`fp8`, `0.9`).

## Example
    # benchmarks/single_node/minimaxm3_fp4_b300_mtp.sh
    -    --gpu-memory-utilization 0.90 \
    +    --gpu-memory-utilization 0.95 \
    description:
      - "Update search space"

## Off by default
Judged below the 80 % bar for a nit on sampled InferenceX PRs (benchmarks/precision.py): 1 true, 2
nit, 2 false (a variable that moved, not new; a change the description does name). A repository
switches it on with `rules: {RR256: {enabled: true}}` in `.github/recipe-review.yml`.

## Fix
Add a description item per material change: the image `from → to`, each flag with its old and
new value.
"""
from collections.abc import Iterator

from rules.claims.description import description_claims, omissions
from rules.config import RuleOptions
from rules.context import ReviewContext
from rules.finding import Passed, Problem, Severity

CODE = "RR256"
NAME = "changelog-description-incomplete"
SEVERITY = Severity.NIT
DEFAULT_ENABLED = False  # below the nit bar (notes/proof.md); a repository can switch it on
MAX_LISTED = 5


def check(ctx: ReviewContext, options: RuleOptions) -> Iterator[Problem | Passed]:
    entries = [ec for ec in description_claims(ctx) if ec.items and ec.keys]
    if not entries:
        return
    missing: dict[int, list[tuple[str, str]]] = {}
    for ec, what, ev in omissions(ctx):
        missing.setdefault(id(ec), []).append((what, ev))
    for ec in entries:
        gaps = missing.get(id(ec))
        if not gaps:
            continue
        what = "; ".join(m for m, _ in gaps[:MAX_LISTED]) + (f"; and {len(gaps) - MAX_LISTED} more"
                                                             if len(gaps) > MAX_LISTED else "")
        line = ec.entry.key_lines.get("description", ec.entry.start_line)
        yield Problem(ec.path, line, f"The description of the entry for `{ec.entry.summary}` does not mention: {what}.",
                      evidence=tuple(ev for _, ev in gaps[:MAX_LISTED]))
    if not missing:
        yield Passed(f"the descriptions of {len(entries)} new entr{'y' if len(entries) == 1 else 'ies'} mention every "
                     f"image and engine-flag change of their keys and scripts")
