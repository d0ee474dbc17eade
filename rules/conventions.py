"""The target repository's conventions, and when each came into force.

The repository's tooling (the changelog validator, the merge helper, the master-config schema and
the sweep generator) changed over time, and a PR is judged by the tooling of its **base
revision**: a PR branched before the org rename may link `InferenceMAX/InferenceMAX`, one
branched before the strict validator existed has no merge-path check. `conventions(ctx)` picks
the set in force at `ChangeSet.base_time` (the merge base's commit time, set by the CLI from
git); without a base time (a live PR on today's main) the newest conventions apply.

Each date is the commit on the repository's `main` that changed the behaviour (UTC):

| Since | Commit | Convention |
|---|---|---|
| 2025-12-05 | #251 `93e1b3ca1` | master configs validated by `utils/matrix_logic/validation.py` (pydantic, `extra="forbid"`) |
| 2025-12-17 | #343 `abdb40a28` | changelog entries: `description` is a list of strings, `pr-link` required |
| 2026-01-26 | #562 `8f30ee6e3` | changelog entry key `evals-only` |
| 2026-02-03 | #623 `2cfba562d` | the changelog check tolerates deleted whitespace-only lines |
| 2026-02-17 | `521d19951` (first new-org link on main) | the repository is `SemiAnalysisAI/InferenceX`; `InferenceMAX/InferenceMAX` links are the old org |
| 2026-05-01 | #1201 `b7ae44045` | master configs: `scenarios` (`fixed-seq-len`, `agentic-coding`) replace `seq-len-configs`; entry key `scenario-type` |
| 2026-06-02 | #1571 `1b234994f` | agentic `offloading` also accepts `lmcache`, `lmcache-mp`, `hicache` |
| 2026-06-18 | #1821 `862fcad18` | the strict validator and the merge helper (`prepare_perf_changelog_merge.py`) exist |
| 2026-06-19 | #1853 `c70778d99` | the PR-run check runs only the final-newline and matrix checks (strict functions: merge path only) |
| 2026-06-20 | #1854 `360997068` | entry key `all-evals`; `scenario-type` items are an enum; `conc-start`/`conc-end` > 0; full sweeps read single-node `conc-list` |
| 2026-07-03 | #1970 `303669b0e` | agentic: `kv-offloading` / `kv-offload-backend` / `dram-utilization`, `cluster:` runners; `duration` and `offloading` gone |
| 2026-07-06 | #2100 `da54b4241` | worker `hardware` (both roles or neither); single-node `disagg` must be false |
| 2026-07-07 | #2110 `af224d6c4` | `dcp-size` / `pcp-size` (tp divisible by dcp-size) |
| 2026-07-11 | #2166 `65b8d7f50`, #2167 `62b2c9bc7` | `pp`; worker `pp`/`dcp-size`/`pcp-size` |
| 2026-07-13 | #2096 `dbc515b38` | `router`, `kv-p2p-transfer` (required by `disagg: true`), `kv-offload-backend` is `{name, version}` |
| 2026-07-23 | (after the 2026-07-22 tooling) | entry keys `append-only`, `eval-min-prefill-ep` (RULES.md §2.1, §2.4) |

The newest master-config schema modelled is the tooling of 2026-07-22 (the bundle's `main`); the
Nov-2026 `inferencex-e2e/` layout has its own (`infx/matrix/validation.py`), not modelled: its
master configs are reported as not schema-checked rather than judged by an older schema.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


def _ts(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


# Commit times (UTC) of the changes in the table above.
MASTER_SCHEMA = _ts("2025-12-05T20:51:47")
DESCRIPTION_LIST = _ts("2025-12-17T23:11:02")
EVALS_ONLY = _ts("2026-01-26T18:25:01")
WHITESPACE_DELETIONS_OK = _ts("2026-02-03T18:31:49")
ORG_RENAME = _ts("2026-02-17T04:11:46")
SCENARIOS = _ts("2026-05-01T20:00:46")
OFFLOADING_MORE = _ts("2026-06-02T17:15:58")
STRICT_VALIDATOR = _ts("2026-06-18T08:09:59")
PR_RUN_MATRIX_ONLY = _ts("2026-06-19T04:26:40")
ALL_EVALS = _ts("2026-06-20T08:34:54")
AGENTX_V1 = _ts("2026-07-03T01:30:52")
WORKER_HARDWARE = _ts("2026-07-06T19:52:44")
CONTEXT_PARALLEL = _ts("2026-07-07T04:22:58")
PIPELINE_PARALLEL = _ts("2026-07-11T01:37:40")
WORKER_PARALLELISM = _ts("2026-07-11T02:14:56")
COMPONENT_METADATA = _ts("2026-07-13T22:05:33")
APPEND_ONLY = _ts("2026-07-23T00:00:00")

# The Nov-2026 layout (RULES.md §1.2) moved the project under `inferencex-e2e/` and the tooling to the
# `infx/` package, with a master-config schema of its own (`srt-recipe-dir`, `srt-recipe`, …) that
# is not in the data this project was built from: master configs under it are not schema-checked.
NEWER_LAYOUT_PREFIX = "inferencex-e2e/"


def schema_modelled(path: str) -> bool:
    """Is the master-config schema that governs `path` one of the modelled ones (the root layout)?"""
    return not path.startswith(NEWER_LAYOUT_PREFIX) and f"/{NEWER_LAYOUT_PREFIX}" not in f"/{path}"


CURRENT_REPO = "SemiAnalysisAI/InferenceX"
OLD_REPO = "InferenceMAX/InferenceMAX"


def _date(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class Conventions:
    """The repository's conventions at one base revision (`at(None)`: the newest)."""

    base_time: int | None = None
    # The base branch's tip when the PR is checked: on `pull_request` GitHub runs the merge of the
    # head into the tip, so a field the tip's tooling admits is valid even if the merge base's did
    # not have it yet. None = unknown (the merge base's tooling alone).
    tip_time: int | None = None

    def since(self, ts: int) -> bool:
        """Is the convention introduced at `ts` in force at this base?"""
        return self.base_time is None or self.base_time >= ts

    def admits(self, since: int, until: int) -> bool:
        """Does the gate's tooling accept something that exists in [since, until): at the merge base,
        or at the base tip that the PR-run check merges the head into?"""
        times = [t for t in (self.base_time, self.tip_time) if t is not None]
        if not times:
            return until >= 2**62  # today's tooling: what still exists
        return any(since <= t < until for t in times)

    @property
    def label(self) -> str:
        """How messages name the tooling that judges: `the tooling of 2026-06-02`, or `today's tooling`."""
        return "today's tooling" if self.base_time is None else f"the tooling of {_date(self.base_time)}"

    # -- changelog -------------------------------------------------------------------------------

    @property
    def merge_path(self) -> bool:
        """The merge helper (strict validator) exists."""
        return self.since(STRICT_VALIDATOR)

    @property
    def pr_run_strict(self) -> bool:
        """The PR-run check also ran the strict functions (2026-06-18 to 2026-06-19 only)."""
        return self.since(STRICT_VALIDATOR) and not self.since(PR_RUN_MATRIX_ONLY)

    @property
    def pr_run_final_newline(self) -> bool:
        """The PR-run check requires the head file to end with a newline (validator wrapper)."""
        return self.since(STRICT_VALIDATOR)

    @property
    def whitespace_deletions_ok(self) -> bool:
        return self.since(WHITESPACE_DELETIONS_OK)

    @property
    def canonical_repos(self) -> tuple[str, ...]:
        """Repositories whose `/pull/N` links are this PR's canonical link."""
        return (CURRENT_REPO,) if self.since(ORG_RENAME) else (OLD_REPO, CURRENT_REPO)

    def entry_keys(self) -> tuple[str, ...]:
        """The keys a changelog entry may have (at the merge base or at the base tip)."""
        keys = ["config-keys", "description", "pr-link"]
        never = 2**62
        if self.admits(EVALS_ONLY, never):
            keys.append("evals-only")
        if self.admits(SCENARIOS, never):
            keys.append("scenario-type")
        if self.admits(ALL_EVALS, never):
            keys.append("all-evals")
        if self.admits(APPEND_ONLY, never):
            keys += ["append-only", "eval-min-prefill-ep"]
        return tuple(keys)

    # -- master configs and the generator --------------------------------------------------------

    @property
    def master_schema(self) -> bool:
        return self.since(MASTER_SCHEMA)


def at(base_time: int | None) -> Conventions:
    return Conventions(base_time)


def conventions(ctx) -> Conventions:
    """The conventions in force at the PR's base revision (and what its base tip's tooling admits)."""
    return Conventions(getattr(ctx.changeset, "base_time", None), getattr(ctx.changeset, "base_tip_time", None))


def date_of(ts: int) -> str:
    return _date(ts)


# Added by issue 21 (the changelog content rules): when the eval selection of the sweep generator
# (`utils/matrix_logic/generate_sweep_configs.py`, run by `process_changelog.py` with `--evals-only`)
# took the forms `rules.master.matrix` models.
# 2026-06-21 #1879 `e7915589a`: `mark_eval_entries` (8k1k rows only, concurrency >= 16; single-node at
# the highest and median concurrency per group, multi-node per parallelism at its highest) and
# `mark_all_eval_entries` (every 8k1k row) as modelled. Earlier bases had other policies.
EVAL_SELECTION = _ts("2026-06-22T01:38:23")
# 2026-07-16 #1947 `295249127`: the eval pass also marks single-node agentic rows (one SWE-bench eval
# per key at its highest concurrency; every agentic row with `all-evals`).
AGENTIC_EVALS = _ts("2026-07-17T00:40:44")
