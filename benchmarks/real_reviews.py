"""How much of what real reviewers flagged on InferenceX PRs does our review reproduce?

    python benchmarks/real_reviews.py [--bundle PATH | --repo DIR] [--out FILE] [--jobs N]
        [--no-cache] [--category C ...] [--pr N ...] [--examples K]

Reads `../shared/inferencex/review-findings-dev.jsonl` (real review findings) and the git bundle
`ix-dev.bundle` beside it (cloned once with `git clone --mirror` into a temporary directory, or
reuse a clone with `--repo`). Every finding's `reviewed_commit` (and, for the upper bound, each of
its `same_day_commits`) is reviewed exactly as `recipe-review check --repo DIR --base
refs/heads/main --head COMMIT --pr-number PR --format json` would (merge-base(base, head)..head),
in-process and in a pool of `--jobs` workers, cached per (commit, PR) on disk under
`benchmarks/results/cache/` keyed by a hash of the review code.

Scoring of one in-scope reviewer finding against our findings on one commit (see
notes/real-reviews.md):

- caught: a finding of ours on the same file (paths compared with a leading `.github/` stripped)
  whose `line..end_line` is within ±3 lines of the reviewer's line (any line when the reviewer
  gave none; a file-level finding of ours matches only a reviewer finding without a line), from a
  rule that CATEGORY_RULES maps to the finding's category;
- partial: a mapped rule on the file but off the line, or an unmapped ("related") rule within the
  line window on that file;
- missed: neither;
- not evaluable: no `reviewed_commit`, a commit the bundle lacks, the file absent at the commit
  (also when it was renamed), or a review that errored.

Reviewer lines are re-anchored to the reviewed commit: a reviewer's line counts in the version of
the file the reviewer read, which is not always the recorded commit's (a later push, a rebase).
The comment sits on the last line of its diff `hunk`; when that line's text is not on the
reviewer's line at the commit but occurs exactly once in the file there, that occurrence is the
anchor (the row says `anchor: hunk line at N (reviewer line M)`); a comment on an added line
(`+` in its hunk) whose text occurs more than once is looked for among the lines the PR adds. A
reviewer line past the end of the file with no such occurrence is no anchor at all: the finding is
scored as one without a line (file and category), and its row says `anchor: beyond end of file (N
lines)`.

Strict recall = caught / evaluable (reviewed_commit only); the upper bound takes the best result
over reviewed_commit and same_day_commits. The other direction lists every blocking finding of
ours on the reviewed commits that no reviewer finding of that PR (any category) matches under the
same file/line rule. RR000 findings (rule crashes) are listed separately: they are bugs.
A finding that neither review catches may be judged by hand in `benchmarks/real_reviews_judged.json`
(absent at its reviewed commit, mistaken, a judgment call, or catchable). The report then adds a
**reproducible** recall beside the strict one: strict caught ÷ strict evaluable, leaving out the
findings judged absent or mistaken (a defect the reviewed commit does not hold can be caught by no
review of it), overall, per category and per issue family (`FAMILIES`). Strict recall stays the
headline and the ratchet; a judged entry whose pr, category or path no longer matches its index is
ignored and reported.

Writes a JSON report (default benchmarks/results/real_reviews.json).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_BUNDLE = ROOT / ".." / "shared" / "inferencex" / "ix-dev.bundle"
FINDINGS_NAME = "review-findings-dev.jsonl"
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_OUT = RESULTS / "real_reviews.json"
CACHE_DIR = RESULTS / "cache" / "real_reviews"
BASE = "refs/heads/main"
WINDOW = 3
CRASH_CODE = "RR000"
JUDGED = ROOT / "benchmarks" / "real_reviews_judged.json"
NOT_REPRODUCIBLE = ("absent", "mistaken")
# The category families the issues name their recall targets over.
FAMILIES: dict[str, tuple[str, ...]] = {
    "scripts and launchers (issue 10)": (
        "script_logic_bug", "launcher_bug", "lib_source_path", "config_script_missing", "script_name_mismatch",
        "mtp_env_missing", "mtp_flags_missing", "spec_decode_in_non_mtp", "sibling_flag_inconsistency",
        "benchmark_helper_bypass", "kv_cache_dtype", "prefix_cache_flag"),
    "engine semantics (issue 11)": (
        "max_num_seqs_vs_conc", "capture_size_vs_conc", "capture_list_exceeds_max_batch", "parallelism_label_mismatch",
        "gpu_count_parallelism", "disagg_node_count", "dram_budget", "offload_pool_arithmetic",
        "capture_list_decode_alignment", "mtp_chat_template"),
    "changelog and master configs (issue 12)": (
        "changelog_separator", "changelog_description_empty", "changelog_description_incomplete",
        "changelog_claim_wrong", "numeric_claim_wrong", "stale_comment", "changelog_test_entry",
        "changelog_empty_entry", "changelog_flag_wrong", "changelog_duplicate_entry", "pr_link_malformed",
        "search_space", "search_space_duplicate", "image_unpinned"),
}


class Row(NamedTuple):
    """One row of the category table: the rules that address the category, and why."""

    codes: tuple[str, ...]
    reason: str


# Category → the rule codes that address it. A code belongs in a row only when its rule's
# "Flags …" docstring line describes that category (read the rule and the findings of the
# category). A category no rule addresses yet has an empty tuple: its findings count as in-scope
# misses. Codes that are not registered yet may be listed when they are in PLANNED_CODES; any
# other unknown code is ignored (and reported), so later rule families can be wired in here first.
CATEGORY_RULES: dict[str, Row] = {
    # perf-changelog.yaml
    "pr_link_placeholder": Row(
        ("RR004", "RR005", "RR026"),
        "RR005 flags the `XXX` placeholder, RR004 every other non-canonical pr-link (TBD, TODO, xxxx); RR026 where no "
        "gate or written rule of the time forbade it",
    ),
    "pr_link_wrong": Row(
        ("RR004", "RR026"),
        "a pr-link that is not this PR's canonical link (RR026 where nothing of the time forbade it)",
    ),
    "pr_link_malformed": Row(
        ("RR004", "RR026"),
        "a pr-link without a PR number is not the canonical link (the merge path rejects it; RR026 before the "
        "merge path)",
    ),
    "pr_link_missing": Row(
        ("RR003", "RR004"), "a missing pr-link key breaks the entry schema and is not the canonical link"
    ),
    "changelog_misplaced": Row(
        ("RR001", "RR026"),
        "a new entry above existing entries instead of at the end (RR026 before the rule was written)",
    ),
    "changelog_history_edit": Row(
        ("RR002", "RR026"),
        "existing changelog entries edited or deleted (RR026 where only an unwritten convention forbade it)",
    ),
    "changelog_separator": Row(
        ("RR007", "RR002", "RR016", "RR026"),
        "irregular separators around new entries (RR007, rejected at merge), re-spaced historical bytes incl. the end "
        "of base (RR002), whitespace-only lines in new text (RR016)",
    ),
    "file_trailing_newline": Row(
        ("RR006", "RR015", "RR026"),
        "the changelog's final newline is part of the byte format (RR006); a base without one breaks every "
        "append (RR015)",
    ),
    "changelog_missing": Row(("RR009",), "a PR that changes configs, recipes or scripts without a changelog entry"),
    "changelog_keys_incomplete": Row(
        ("RR011",), "a master-config key the PR adds or changes that no new entry selects"
    ),
    "changelog_description_empty": Row(
        ("RR003", "RR017"), "an empty description list (RR003) or an empty/placeholder description item (RR017)"
    ),
    "changelog_empty_entry": Row(
        ("RR003", "RR018"),
        "an entry without keys, description or pr-link (RR003), an empty config-keys list or item (RR018)",
    ),
    "changelog_test_entry": Row(
        ("RR017", "RR019"), "a `test`/`TEMP … DO NOT MERGE` description (RR017), a wildcard-only `*` selection (RR019)"
    ),
    "changelog_duplicate_entry": Row(
        ("RR020",), "a second new entry with the same keys, or a copy of an existing entry"
    ),
    "changelog_flag_wrong": Row(
        ("RR021", "RR022", "RR023"),
        "evals-only/all-evals on keys whose throughput changes (RR021); an entry whose flags leave no job (RR022); an "
        "entry that only speaks of evals without evals-only (RR023)",
    ),
    "changelog_description_incomplete": Row(
        ("RR256",), "a changed image or engine flag that no description item mentions"
    ),
    "changelog_claim_wrong": Row(
        ("RR251", "RR252", "RR253", "RR254", "RR255"),
        "description claims vs the diff: values (RR251), versions (RR252), search space and arms (RR253), more/fewer "
        "configs (RR254), runner names (RR255)",
    ),
    "numeric_claim_wrong": Row(
        ("RR250", "RR251", "RR252", "RR253"),
        "a numeric claim (arithmetic, value, version transition, concurrency range) in a comment or description "
        "that is wrong",
    ),
    "stale_comment": Row(
        ("RR251", "RR421", "RR108"),
        "a comment whose numeric claim disagrees with the value it describes (RR251 in YAML, RR421 a script comment on "
        "a flag the PR changes), or calls a master key identical to one it no longer matches (RR108)",
    ),
    # master configs
    "image_unpinned": Row(
        ("RR102",), "an image without a tag or on a moving tag (`latest`, `…-latest`, bare `nightly`, `dev-<branch>`)"
    ),
    "yaml_duplicate_key": Row(("RR012",), "duplicate mapping keys are parse errors"),
    "search_space": Row(
        ("RR104", "RR106", "RR107"),
        "search-space shape the schema rejects (RR104, e.g. rows indented out of `search-space`), duplicate rows "
        "(RR106), a range narrowed to one point (RR107)",
    ),
    "search_space_duplicate": Row(("RR106",), "rows with the same topology and overlapping concurrencies"),
    "conc_list_recipe_mismatch": Row((), "no rule compares master conc-list with a recipe's concurrencies"),
    "config_script_missing": Row(
        ("RR401", "RR417"),
        "a key whose launcher (interpreted) runs a benchmark script that does not exist (RR401) or another "
        "framework's script (RR417)",
    ),
    "recipe_selector_missing": Row((), "no rule checks CONFIG_FILE selectors against the matrix"),
    "parallelism_label_mismatch": Row(
        ("RR303", "RR215", "RR216"),
        "a master-config label (dp-attn, ep) that the engine does not run: a hard-coded expert-parallel flag (RR303), "
        "DP attention not enabled (RR215), another expert-parallel size (RR216)",
    ),
    # recipes
    "recipe_container_mismatch": Row(("RR304",), "a multi-node recipe's model.container differs from the master image"),
    "gpu_count_parallelism": Row(("RR207",), "a role's GPU count differs from the product of its parallelism"),
    "disagg_node_count": Row(
        ("RR217", "RR223", "RR218"),
        "nodes × GPUs per node that do not fit workers × GPUs per worker (too few: RR217; idle nodes: RR223), or an "
        "NpMd name that is not the worker layout (RR218)",
    ),
    "dram_budget": Row(
        ("RR205", "RR206", "RR219"),
        "offload pool bytes vs TOTAL_CPU_DRAM_GB (RR205) or vs dram-utilization (RR206); any host pool above the "
        "node's budget or host DRAM (RR219)",
    ),
    "offload_pool_arithmetic": Row(
        ("RR205", "RR219"),
        "per-rank × ranks vs the pool total and the budget (RR205); pools of every type × ranks on a node vs budget "
        "and host (RR219)",
    ),
    "capture_size_vs_conc": Row(
        ("RR202", "RR204", "RR212", "RR213", "RR418"),
        "capture sizes vs the decode range max-num-seqs × (k + 1) (RR202, RR204); the capture cap (explicit, RR212, or "
        "the engine default, RR213) below the per-rank decode batch at the point's concurrency; a cap the script "
        "computes but never passes (RR418)",
    ),
    "capture_list_exceeds_max_batch": Row(("RR214",), "TensorRT-LLM CUDA-graph sizes above max_batch_size"),
    "capture_list_decode_alignment": Row(("RR203",), "decode capture sizes off the (k + 1) grid"),
    "max_num_seqs_vs_conc": Row(
        ("RR210", "RR211"),
        "the benchmarked concurrency above what the serving workers admit: an explicit cap (RR210) or the engine "
        "default (RR211)",
    ),
    "recipe_placeholder": Row((), "no rule flags unsubstituted placeholder tokens in recipes"),
    "mtp_env_missing": Row(
        ("RR411", "RR221"),
        "an MTP script without the speculative-decoding environment its MTP siblings set (RR411); an SGLang "
        "speculative recipe role without SGLANG_ENABLE_SPEC_V2 on an image that needs it (RR221)",
    ),
    "sibling_flag_inconsistency": Row(
        ("RR412", "RR411"),
        "a flag or variable ≥80 % of sibling scripts set (RR412), the MTP environment of MTP siblings (RR411)",
    ),
    # benchmark scripts and launchers
    "mtp_flags_missing": Row(
        ("RR411", "RR410"),
        "speculative settings of an MTP point: its environment (RR411), flags on the wrong scripts (RR410)",
    ),
    "mtp_chat_template": Row(
        ("RR302", "RR220"),
        "an MTP script's run_benchmark_serving without --use-chat-template (RR302), or an MTP srt-slurm recipe without "
        "benchmark.use_chat_template (RR220)",
    ),
    "expert_parallel_flag": Row(("RR303",), "--enable-expert-parallel not tied to EP_SIZE"),
    "header_comment": Row(("RR301",), "a header comment block at the top of a file"),
    "script_logic_bug": Row(
        ("RR404", "RR423", "RR405", "RR406", "RR407", "RR416", "RR414", "RR415", "RR418"),
        "script control flow read from the parse tree and the per-point command line: set -u reads (proven and "
        "might-be-unset), flags without values, commands overwritten, health checks without --fail, validated-unused "
        "variables, values never read, ShellCheck defects",
    ),
    "script_name_mismatch": Row(
        ("RR402", "RR401", "RR417"),
        "an added script no key reaches while its key runs another (RR402), the key's path missing (RR401) or another "
        "framework's script (RR417)",
    ),
    "launcher_bug": Row(
        ("RR413", "RR401", "RR402", "RR417", "RR414", "RR420", "RR405"),
        "a launcher that is no script (RR413), builds a missing (RR401) or wrong (RR402, RR417) script path, has a "
        "ShellCheck error (RR414), hands a `:selector[N]` CONFIG_FILE to a file tool (RR420), or never sets an input "
        "its script passes as a flag's value (RR405, on the launcher)",
    ),
    "lib_source_path": Row(("RR403",), "a `source` whose interpreted path does not exist"),
    "prefix_cache_flag": Row(
        ("RR412", "RR419"),
        "a prefix-cache flag the scenario's siblings set and this script lacks or drops (RR412); an agentic script "
        "that turns the prefix cache off (RR419)",
    ),
    "kv_cache_dtype": Row(("RR412",), "--kv-cache-dtype that the family's siblings set and this script lacks"),
    "max_model_len": Row((), "no rule checks max-model-len against the sequence lengths"),
    "spec_decode_in_non_mtp": Row(
        ("RR410", "RR422"),
        "speculative flags on the command line of a point without spec-decoding (RR410), or added to a plain-named "
        "script no point reaches (RR422)",
    ),
    "served_model_name_mismatch": Row((), "no rule checks served model names"),
    "staged_model_path_ignored": Row((), "no rule checks MODEL_PATH use"),
    "eval_context_not_wired": Row((), "no rule follows variables into the serve command"),
    "invalid_cli_flag": Row((), "no rule knows engine CLI flags"),
    "env_default_style": Row((), "no rule checks environment-default style"),
    "benchmark_client_args": Row((), "no rule checks benchmark client arguments"),
    "benchmark_helper_bypass": Row(
        ("RR409", "RR408"), "benchmark_serving.py run directly (RR409), sizes hard-coded in the client call (RR408)"
    ),
    # out of scope (in_scope false in the data): never scored
    "python_code_bug": Row((), "out of scope: Python tooling"),
    "workflow_bug": Row((), "out of scope: workflows"),
    "doc_command_bug": Row((), "out of scope: docs"),
    "doc_inaccuracy": Row((), "out of scope: docs"),
    "dead_code": Row((), "out of scope: code quality"),
    "dependency_build_from_source": Row((), "out of scope: process"),
    "error_message_wrong": Row((), "out of scope: code quality"),
    "image_capability_unverified": Row((), "out of scope: needs the image"),
    "unrelated_edit": Row((), "out of scope: process"),
    "upstream_recipe_request": Row((), "out of scope: process"),
    "reviewer_false_alarm": Row((), "out of scope: the reviewer was wrong"),
}

# Codes a row may name before their rule is registered: code → what it will flag. Empty today.
PLANNED_CODES: dict[str, str] = {}

RANK = {"caught": 3, "partial": 2, "missed": 1, "not_evaluable": 0}


# ---------------------------------------------------------------- the table and the registry

def registered_rules() -> dict[str, str]:
    """Registered rule code → the first line of its docstring ("Flags …")."""
    from rules.registry import ALL_RULES

    return {r.CODE: ((r.__doc__ or "").strip().splitlines() or [""])[0] for r in ALL_RULES}


def table_problems(table: dict[str, Row] = CATEGORY_RULES, registered: Iterable[str] | None = None,
                   planned: Iterable[str] = PLANNED_CODES) -> list[str]:
    """Codes the table names that are neither registered nor planned ("category: code")."""
    known = set(registered_rules() if registered is None else registered) | set(planned)
    return [f"{cat}: {code}" for cat, row in table.items() for code in row.codes if code not in known]


def active_codes(category: str, table: dict[str, Row], registered: Iterable[str]) -> frozenset[str]:
    """The registered codes mapped to `category` (unknown codes and categories: none)."""
    row = table.get(category)
    return frozenset(c for c in (row.codes if row else ()) if c in set(registered))


# ---------------------------------------------------------------- matching

def norm_path(path: str | None) -> str:
    """A path as compared: no leading `./` or `.github/` (older layouts kept configs there)."""
    p = (path or "").strip()
    while p.startswith("./"):
        p = p[2:]
    return p[len(".github/"):] if p.startswith(".github/") else p


def line_matches(our_line: int | None, our_end: int | None, their_line: int | None, window: int = WINDOW) -> bool:
    """Our span `our_line..our_end` is within ±window of their line. Their line None: any of ours
    matches; our line None (a file-level finding): only their line None matches."""
    if their_line is None:
        return True
    if not our_line:
        return False
    lo, hi = sorted((our_line, our_end or our_line))
    return lo - window <= their_line <= hi + window


def same_spot(ours: dict, theirs: dict, window: int = WINDOW) -> bool:
    return (norm_path(ours.get("path")) == norm_path(theirs.get("path"))
            and line_matches(ours.get("line"), ours.get("end_line"), theirs.get("line"), window))


class Outcome(NamedTuple):
    result: str                    # caught | partial | missed | not_evaluable
    codes: tuple[str, ...] = ()    # codes that caught it (caught) or came close (partial)
    reason: str = ""               # why not evaluable
    commit: str | None = None


def score(finding: dict, ours: list[dict], mapped: Iterable[str], window: int = WINDOW) -> Outcome:
    """Score one reviewer finding against our findings on one (evaluable) commit."""
    mapped = set(mapped)
    path = norm_path(finding.get("path"))
    on_file = [o for o in ours if norm_path(o.get("path")) == path]
    near = [o for o in on_file if line_matches(o.get("line"), o.get("end_line"), finding.get("line"), window)]
    caught = sorted({o["code"] for o in near if o["code"] in mapped})
    if caught:
        return Outcome("caught", tuple(caught))
    close = sorted({o["code"] for o in on_file if o["code"] in mapped} | {o["code"] for o in near})
    if close:
        return Outcome("partial", tuple(close))
    return Outcome("missed")


def best(outcomes: list[Outcome]) -> Outcome:
    """The best outcome (caught > partial > missed > not evaluable); the first on a tie."""
    top = outcomes[0]
    for o in outcomes[1:]:
        if RANK[o.result] > RANK[top.result]:
            top = o
    return top


# ---------------------------------------------------------------- scoring every finding

def candidate_commits(finding: dict) -> list[str | None]:
    """reviewed_commit first (None when force-pushed away), then the distinct same-day commits."""
    out: list[str | None] = [finding.get("reviewed_commit")]
    for c in finding.get("same_day_commits") or ():
        if c and c not in out:
            out.append(c)
    return out


def hunk_line(finding: dict) -> str | None:
    """The text of the line a review comment sits on: its diff hunk's last line (not a removed one)."""
    rows = [r for r in (finding.get("hunk") or "").split("\n") if r and not r.startswith("@@")]
    if not rows or rows[-1].startswith("-"):
        return None
    last = rows[-1][1:] if rows[-1][:1] in "+ " else rows[-1]
    return last if last.strip() else None


def _hunk_added(finding: dict) -> bool:
    rows = [r for r in (finding.get("hunk") or "").split("\n") if r and not r.startswith("@@")]
    return bool(rows) and rows[-1].startswith("+")


def anchor(finding: dict, text: list[str] | None, added: set[int] | None = None) -> tuple[int | None, str]:
    """The reviewer's line as a line of the file at the commit (see the module docstring), and a
    note when it was moved ("" when kept). `added`: the lines the PR adds at the commit; a comment
    on an added line (`+` in its hunk) is looked for among them when its text occurs more than once."""
    line = finding.get("line")
    if not line or text is None:
        return line, ""
    want = hunk_line(finding)
    if want is not None and not (0 < line <= len(text) and text[line - 1] == want):
        at = [i + 1 for i, t in enumerate(text) if t == want]
        if len(at) > 1 and added is not None and _hunk_added(finding):
            at = [n for n in at if n in added]
        if len(at) == 1:
            return at[0], f"anchor: hunk line at {at[0]} (reviewer line {line})"
    if line > len(text):
        return None, f"anchor: beyond end of file ({len(text)} lines)"
    return line, ""


def outcome_on(finding: dict, commit: str | None, states: dict, present: Callable[[str, str], bool],
               mapped: Iterable[str], window: int = WINDOW,
               text: Callable[[str, str], list[str] | None] | None = None,
               added: Callable[[str, str], set[int] | None] | None = None) -> Outcome:
    """The outcome of one finding on one commit. `states[(pr, commit)]` is a review result:
    {"findings": [...]} or {"error": str} or {"missing": True} (commit not in the bundle);
    `present(commit, path)` says whether the file exists at the commit (either layout);
    `text(commit, path)`, when given, is the file's lines there (None: unknown), which re-anchor
    the reviewer's line (`anchor`)."""
    if finding.get("reviewer_mistaken"):
        return Outcome("not_evaluable", reason="reviewer mistaken (findings file)")
    if not commit:
        return Outcome("not_evaluable", reason="no reviewed_commit")
    state = states.get((finding["pr"], commit))
    if state is None or state.get("missing"):
        return Outcome("not_evaluable", reason="commit not in the bundle", commit=commit)
    if "error" in state:
        return Outcome("not_evaluable", reason=f"review error: {state['error']}", commit=commit)
    if not present(commit, finding.get("path") or ""):
        return Outcome("not_evaluable", reason="file absent at the commit", commit=commit)
    path = finding.get("path") or ""
    line, note = anchor(finding, text(commit, path) if text else None, added(commit, path) if added else None)
    o = score({**finding, "line": line}, state["findings"], mapped, window)
    return o._replace(commit=commit, reason=note)


def score_all(findings: list[dict], states: dict, present: Callable[[str, str], bool],
              table: dict[str, Row], registered: Iterable[str], window: int = WINDOW,
              text: Callable[[str, str], list[str] | None] | None = None,
              added: Callable[[str, str], set[int] | None] | None = None) -> list[dict]:
    """Per-finding results: strict (reviewed_commit) and upper bound (best over same-day commits)."""
    registered = set(registered)
    out = []
    for i, f in enumerate(findings):
        mapped = active_codes(f["category"], table, registered)
        row = {"index": i, "category": f["category"], "reviewer": f["reviewer"], "pr": f["pr"],
               "path": f.get("path"), "line": f.get("line"), "in_scope": bool(f.get("in_scope")),
               "reviewed_commit": f.get("reviewed_commit"), "mapped_codes": sorted(mapped),
               "summary": f.get("summary", "")}
        if not row["in_scope"]:
            row["strict"] = row["upper"] = {"result": "out_of_scope"}
            out.append(row)
            continue
        outs = [outcome_on(f, c, states, present, mapped, window, text, added) for c in candidate_commits(f)]
        for key, o in (("strict", outs[0]), ("upper", best(outs))):
            row[key] = {"result": o.result, "codes": list(o.codes), "commit": o.commit}
            if o.reason:
                row[key]["reason"] = o.reason
        out.append(row)
    return out


def _figures(rows: list[dict]) -> dict:
    n = Counter()
    for r in rows:
        n["findings"] += 1
        for key in ("strict", "upper"):
            n[f"{key}_{r[key]['result']}"] += 1
    fig = {"findings": n["findings"]}
    for key in ("strict", "upper"):
        evaluable = sum(n[f"{key}_{k}"] for k in ("caught", "partial", "missed"))
        fig[key] = {"caught": n[f"{key}_caught"], "partial": n[f"{key}_partial"], "missed": n[f"{key}_missed"],
                    "not_evaluable": n[f"{key}_not_evaluable"], "evaluable": evaluable,
                    "recall": (n[f"{key}_caught"] / evaluable) if evaluable else None}
    return fig


def summarize(rows: list[dict]) -> dict:
    """Overall, per-category and per-reviewer figures over the in-scope findings."""
    scoped = [r for r in rows if r["in_scope"]]
    by_cat, by_rev = defaultdict(list), defaultdict(list)
    for r in scoped:
        by_cat[r["category"]].append(r)
        by_rev[r["reviewer"]].append(r)
    return {"overall": _figures(scoped),
            "per_category": {k: _figures(v) for k, v in sorted(by_cat.items())},
            "per_reviewer": {k: _figures(v) for k, v in sorted(by_rev.items())}}


def load_judged(path: Path, findings: list[dict]) -> tuple[dict[int, dict], list[dict], list[dict]]:
    """index → judged entry, for entries whose pr, category and path match that finding; the
    entries that do not (stale after a change of the findings file); and the entries the findings
    file itself supersedes. Our judgements were made at the finding's `reviewed_commit` of the time;
    a row the data marks `"reviewed_commit_by": "hand"` was re-checked by reading every commit of
    the PR (and most of those are exactly the rows we had judged absent at the author's fix), and
    a row it marks `reviewer_mistaken` is left out of recall by `score`: for both the data's word
    stands and our judgement is not used."""
    if not path.exists():
        return {}, [], []
    data = json.loads(path.read_text())
    good, stale, superseded = {}, [], []
    for j in data.get("findings", ()):
        i = j.get("index")
        f = findings[i] if isinstance(i, int) and 0 <= i < len(findings) else None
        if f is None or (f["pr"], f["category"], f.get("path")) != (j.get("pr"), j.get("category"), j.get("path")):
            stale.append(j)
            continue
        if f.get("reviewed_commit_by") == "hand" or f.get("reviewer_mistaken"):
            superseded.append(j)
            continue
        good[i] = j
    return good, stale, superseded


def reproducible(rows: list[dict]) -> dict:
    """Strict caught ÷ strict evaluable without the findings judged absent or mistaken."""
    ev = [r for r in rows if r["in_scope"] and r["strict"]["result"] in ("caught", "partial", "missed")]
    kept = [r for r in ev if r.get("judged") not in NOT_REPRODUCIBLE]
    caught = sum(r["strict"]["result"] == "caught" for r in kept)
    judged = Counter(r["judged"] for r in ev if r.get("judged"))
    return {"caught": caught, "evaluable": len(kept), "left_out": len(ev) - len(kept),
            "recall": caught / len(kept) if kept else None, "judged": dict(sorted(judged.items())),
            "strict": {"caught": sum(r["strict"]["result"] == "caught" for r in ev), "evaluable": len(ev)}}


def by_family(rows: list[dict]) -> dict[str, dict]:
    return {name: reproducible([r for r in rows if r["category"] in cats]) for name, cats in FAMILIES.items()}


def other_direction(all_findings: list[dict], states: dict, pairs: Iterable[tuple[int, str]],
                    window: int = WINDOW) -> list[dict]:
    """Blocking findings of ours on the reviewed (pr, commit) pairs that no reviewer finding of
    that PR (any category) matches under the file/line rule."""
    by_pr = defaultdict(list)
    for f in all_findings:
        by_pr[f["pr"]].append(f)
    out = []
    for pr, commit in sorted(set(pairs), key=lambda p: (p[0], p[1])):
        state = states.get((pr, commit)) or {}
        for o in state.get("findings", ()):
            if o.get("severity") != "blocking" or o.get("code") == CRASH_CODE:
                continue
            if not any(same_spot(o, t, window) for t in by_pr[pr]):
                out.append({"pr": pr, "commit": commit, "code": o["code"], "path": o.get("path"),
                            "line": o.get("line"), "message": o.get("message", "")})
    return out


def other_by_code(other: list[dict], examples: int = 3) -> dict[str, dict]:
    """Per rule code: occurrences (one per reviewed commit), distinct findings (PR, path, message:
    the same finding on several commits of a PR counts once), PRs, and the first `examples`
    distinct findings, one PR each while PRs last."""
    groups: dict[str, dict] = {}
    for o in other:
        d = groups.setdefault(o["code"], {"count": 0, "distinct": {}, "prs": set()})
        d["count"] += 1
        d["prs"].add(o["pr"])
        d["distinct"].setdefault((o["pr"], norm_path(o["path"]), o["message"]), o)
    out = {}
    for code, d in sorted(groups.items(), key=lambda kv: (-len(kv[1]["distinct"]), kv[0])):
        uniq = list(d["distinct"].values())
        seen: set[int] = set()
        firsts = [o for o in uniq if not (o["pr"] in seen or seen.add(o["pr"]))]
        picked = (firsts + [o for o in uniq if o not in firsts])[:examples]
        out[code] = {"count": d["count"], "distinct": len(uniq), "prs": sorted(d["prs"]), "examples": picked}
    return out


def crashes(states: dict) -> list[dict]:
    return [{"pr": pr, "commit": commit, "message": o.get("message", "")}
            for (pr, commit), s in sorted(states.items()) for o in s.get("findings", ()) if o.get("code") == CRASH_CODE]


# ---------------------------------------------------------------- git and reviews

def _git(repo: Path, *args: str, input: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def clone_bundle(bundle: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--mirror", str(bundle), str(dest)], check=True, capture_output=True)
    return dest


def existing_commits(repo: Path, commits: Iterable[str]) -> set[str]:
    commits = sorted(set(commits))
    if not commits:
        return set()
    out = _git(repo, "cat-file", "--batch-check", input="".join(f"{c}^{{commit}}\n" for c in commits).encode())
    return {c for c, line in zip(commits, out.decode().splitlines(), strict=False)
            if not line.endswith(" missing")}


def path_variants(path: str) -> list[str]:
    p = norm_path(path)
    return [p, ".github/" + p]


def present_paths(repo: Path, queries: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (commit, normalized path) pairs whose file exists at the commit in either layout."""
    asks = sorted({(c, v) for c, p in queries for v in path_variants(p)})
    if not asks:
        return set()
    out = _git(repo, "cat-file", "--batch-check", input="".join(f"{c}:{v}\n" for c, v in asks).encode())
    return {(c, norm_path(v)) for (c, v), line in zip(asks, out.decode().splitlines(), strict=False)
            if not line.endswith(" missing")}


def file_texts(repo: Path, queries: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
    """(commit, normalized path) → the file's lines there (either layout), for the files that exist."""
    asks = sorted({(c, v) for c, p in queries for v in path_variants(p)})
    if not asks:
        return {}
    out = _git(repo, "cat-file", "--batch", input="".join(f"{c}:{v}\n" for c, v in asks).encode())
    texts: dict[tuple[str, str], list[str]] = {}
    pos = 0
    for c, v in asks:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[-1])
        body = out[pos:pos + size].decode("utf-8", "replace")
        pos += size + 1
        texts[(c, norm_path(v))] = body[:-1].split("\n") if body.endswith("\n") else body.split("\n")
    return texts


def added_lines(repo: Path, queries: Iterable[tuple[str, str]]) -> dict[tuple[str, str], set[int]]:
    """(commit, normalized path) → the head lines the PR adds to the file (merge-base(main, commit)..commit)."""
    out: dict[tuple[str, str], set[int]] = {}
    bases: dict[str, str] = {}
    for c, p in sorted(set(queries)):
        if c not in bases:
            try:
                bases[c] = _git(repo, "merge-base", BASE, c).decode().strip()
            except RuntimeError:
                bases[c] = ""
        if not bases[c]:
            continue
        try:
            diff = _git(repo, "diff", "-U0", "--no-color", bases[c], c, "--", *path_variants(p)).decode(
                "utf-8", "replace"
            )
        except RuntimeError:
            continue
        lines: set[int] = set()
        for m in re.finditer(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", diff, re.M):
            start, count = int(m.group(1)), int(m.group(2) or 1)
            lines.update(range(start, start + count))
        out[(c, norm_path(p))] = lines
    return out


_RECORDED_BASES: dict[int, str] | None = None


def recorded_bases(path: Path | None = None) -> dict[int, str]:
    """PR number → the base commit GitHub reported for it (`base` of `prs-dev.jsonl.xz`): the tip of
    the branch the PR targeted, which is an integration branch for some PRs, not main."""
    global _RECORDED_BASES
    if _RECORDED_BASES is None:
        import lzma

        path = path or DEFAULT_BUNDLE.parent / "prs-dev.jsonl.xz"
        out: dict[int, str] = {}
        if path.exists():
            with lzma.open(path, "rt", encoding="utf-8") as fh:
                for line in fh:
                    rec = json.loads(line)
                    if rec.get("base"):
                        out[int(rec["number"])] = rec["base"]
                    if rec.get("title"):
                        _RECORDED_TITLES[int(rec["number"])] = rec["title"]
        _RECORDED_BASES = out
    return _RECORDED_BASES


_RECORDED_TITLES: dict[int, str] = {}


def recorded_title(pr: int | None) -> str | None:
    """The PR's title as `prs-dev.jsonl.xz` records it (what the App reads from the pull request and
    `check --title` takes), or None."""
    recorded_bases()
    return _RECORDED_TITLES.get(pr) if pr is not None else None


def base_at(repo: str, commit: str, pr: int | None = None) -> str:
    """The base a commit of PR `pr` is reviewed against. The PR's recorded base commit when the
    bundle has it (the branch it really targeted, at the time); else `main` as it was when
    `commit` was made: the last commit of `refs/heads/main` committed no later than it (the
    bundle's main tip when none is). Either way the base tip (whose tooling the PR-run check runs,
    `ChangeSet.base_tip_time`) is the contemporary one, not the bundle's July-2026 tip, whose
    gates did not exist when the PR was pushed."""
    recorded = recorded_bases().get(pr) if pr is not None else None
    if recorded and subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{recorded}^{{commit}}"],
                                   capture_output=True).returncode == 0:
        return recorded
    ct = subprocess.run(["git", "-C", str(repo), "show", "-s", "--format=%ct", commit],
                        capture_output=True, text=True).stdout.strip()
    if ct:
        out = subprocess.run(["git", "-C", str(repo), "rev-list", "-1", f"--before={ct}", BASE],
                             capture_output=True, text=True).stdout.strip()
        if out:
            return out
    return BASE


def review(repo: str, commit: str, pr: int) -> dict:
    """What `recipe-review check --repo REPO --base $(base_at REPO COMMIT PR) --head COMMIT --pr-number PR
    --title TITLE --format json` prints (TITLE: the recorded PR title), minus `checks` (not scored):
    {"findings": [...]} (+ "config_errors"), or {"error": message} when the review could not run."""
    from bot.localgit import gather_from_git
    from rules.runner import run

    try:
        base = base_at(repo, commit, pr)
        got = gather_from_git(Path(repo), base, commit, pr, title=recorded_title(pr))
        changeset, config, config_errors = got.changeset, got.config, got.config_errors
        report = run(changeset, config)
    except Exception as err:  # counted and reported, never fatal
        return {"error": f"{type(err).__name__}: {err}"}
    out = {"findings": [f.to_dict() for f in report.findings]}
    if config_errors:
        out["config_errors"] = config_errors
    return out


def _review_task(args: tuple[str, str, int]) -> tuple[str, int, dict]:
    repo, commit, pr = args
    return commit, pr, review(repo, commit, pr)


def source_hash(root: Path = ROOT) -> str:
    """A hash of the review code: everything under rules/, bot/localgit.py, bot/cli.py and this file."""
    h = hashlib.sha256()
    files = sorted(p for p in (root / "rules").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files += [root / "bot" / "localgit.py", root / "bot" / "gather.py", root / "bot" / "cli.py",
              root / "benchmarks" / "real_reviews.py"]
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def run_reviews(repo: Path, pairs: Iterable[tuple[int, str]], jobs: int = 2, cache_dir: Path | None = CACHE_DIR,
                progress: Callable[[str], None] | None = None) -> tuple[dict, Counter]:
    """Review every (pr, commit) pair; states[(pr, commit)] as `outcome_on` reads them."""
    pairs = sorted(set(pairs))
    have = existing_commits(repo, {c for _, c in pairs})
    states: dict = {}
    stats = Counter()
    todo = []
    cdir = (cache_dir / source_hash()) if cache_dir else None
    for pr, commit in pairs:
        if commit not in have:
            states[(pr, commit)] = {"missing": True}
            stats["missing"] += 1
            continue
        if cdir and (cdir / f"{commit}-{pr}.json").exists():
            try:
                states[(pr, commit)] = json.loads((cdir / f"{commit}-{pr}.json").read_text(encoding="utf-8"))
                stats["cached"] += 1
                continue
            except (OSError, json.JSONDecodeError):
                pass
        todo.append((str(repo), commit, pr))
    if cdir and todo:
        cdir.mkdir(parents=True, exist_ok=True)

    def done(commit: str, pr: int, result: dict) -> None:
        states[(pr, commit)] = result
        stats["reviewed"] += 1
        if "error" in result:
            stats["errors"] += 1
        elif cdir:  # errors are not cached: they may be operational
            tmp = cdir / f".{commit}-{pr}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
            tmp.replace(cdir / f"{commit}-{pr}.json")
        if progress and stats["reviewed"] % 50 == 0:
            progress(f"  {stats['reviewed']}/{len(todo)} reviews")

    if jobs <= 1 or len(todo) <= 1:
        for t in todo:
            done(*_review_task(t))
    else:
        import multiprocessing

        # spawn (no fork of a possibly threaded parent); the initializer lets the workers import
        # this module by whatever name it was loaded under
        here = str(Path(__file__).resolve().parent)
        with ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=exec,
            initargs=(f"import sys; sys.path[:0] = [{here!r}, {str(ROOT)!r}]",),
        ) as pool:
            futures = [(t, pool.submit(_review_task, t)) for t in todo]
            for (_, commit, pr), fut in futures:
                try:
                    done(*fut.result())
                except Exception as err:  # a worker died (e.g. killed): an error, not a crash
                    done(commit, pr, {"error": f"worker: {type(err).__name__}: {err}"})
    return states, stats


# ---------------------------------------------------------------- the whole evaluation

def load_findings(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def evaluate(bundle: Path | None = None, repo: Path | None = None, findings_path: Path | None = None,
             jobs: int = 2, cache_dir: Path | None = CACHE_DIR, categories: Iterable[str] | None = None,
             prs: Iterable[int] | None = None, examples: int = 3, table: dict[str, Row] | None = None,
             progress: Callable[[str], None] | None = None) -> dict:
    """Run the whole benchmark and return the report (what --out writes)."""
    t0 = time.perf_counter()
    bundle = Path(bundle or DEFAULT_BUNDLE)
    findings_path = Path(findings_path or bundle.parent / FINDINGS_NAME)
    table = CATEGORY_RULES if table is None else table
    all_findings = load_findings(findings_path)
    chosen = [f for f in all_findings
              if (not categories or f["category"] in set(categories)) and (not prs or f["pr"] in set(prs))]
    registered = registered_rules()
    with tempfile.TemporaryDirectory(prefix="real-reviews-") as tmp:
        if repo is None:
            repo = clone_bundle(bundle, Path(tmp) / "ix.git")
        repo = Path(repo)
        t_clone = time.perf_counter() - t0
        scoped = [f for f in chosen if f.get("in_scope")]
        pairs = {(f["pr"], c) for f in scoped for c in candidate_commits(f) if c}
        strict_pairs = {(f["pr"], f["reviewed_commit"]) for f in scoped if f.get("reviewed_commit")}
        states, stats = run_reviews(repo, pairs, jobs=jobs, cache_dir=cache_dir, progress=progress)
        have = {c for (_, c), s in states.items() if not s.get("missing")}
        present_set = present_paths(repo, {(c, f.get("path") or "") for f in scoped for c in candidate_commits(f)
                                           if c in have})
        # for a file absent at its commit: does it exist at the PR head (renamed or added later)?
        heads = existing_commits(repo, {f["pr_head"] for f in scoped if f.get("pr_head")})
        absent_heads = present_paths(repo, {(f["pr_head"], f.get("path") or "") for f in scoped
                                            if f.get("pr_head") in heads})
        texts = file_texts(repo, {(c, f.get("path") or "") for f in scoped if f.get("line")
                                  for c in candidate_commits(f) if c in have})
        adds = added_lines(repo, {(c, f.get("path") or "") for f in scoped if f.get("line") and _hunk_added(f)
                                  for c in candidate_commits(f) if c in have})
    present = lambda commit, path: (commit, norm_path(path)) in present_set  # noqa: E731
    text = lambda commit, path: texts.get((commit, norm_path(path)))  # noqa: E731
    add = lambda commit, path: adds.get((commit, norm_path(path)))  # noqa: E731
    rows = score_all(chosen, states, present, table, registered, text=text, added=add)
    judged, stale, superseded = load_judged(JUDGED, all_findings)
    index_of = {id(f): i for i, f in enumerate(all_findings)}
    for r, f in zip(rows, chosen, strict=False):
        j = judged.get(index_of[id(f)])
        if j is not None:
            r["judged"] = j["class"]
    figures = summarize(rows)
    other = other_direction(all_findings, states, strict_pairs & {p for p, s in states.items() if "findings" in s})
    by_code = other_by_code(other, examples)
    not_eval = []
    for r in rows:
        if r["in_scope"] and r["strict"]["result"] == "not_evaluable":
            item = {"index": r["index"], "pr": r["pr"], "path": r["path"], "line": r["line"],
                    "category": r["category"], "reason": r["strict"]["reason"], "upper": r["upper"]["result"]}
            if r["strict"]["reason"] == "file absent at the commit":
                f = chosen[r["index"]]
                item["at_pr_head"] = (f.get("pr_head"), norm_path(f.get("path"))) in absent_heads
            not_eval.append(item)
    # reviewer lines moved to the reviewed commit, or dropped past its end
    anchors = [{"index": r["index"], "pr": r["pr"], "path": r["path"], "line": r["line"], "category": r["category"],
                "reason": r["strict"]["reason"], "strict": r["strict"]["result"]}
               for r in rows if r["in_scope"] and r["strict"].get("reason", "").startswith("anchor:")]
    unknown = table_problems(table, registered, planned=())
    return {
        "meta": {"findings_file": findings_path.name, "bundle": bundle.name, "base": BASE, "window": WINDOW,
                 "jobs": jobs, "filters": {"category": sorted(categories or []), "pr": sorted(prs or [])},
                 "source_hash": source_hash(), "reviews": dict(stats), "pairs": len(pairs),
                 "reviewed_commits": len({c for _, c in strict_pairs}),
                 "clone_s": round(t_clone, 2), "wall_s": round(time.perf_counter() - t0, 2)},
        "table": {cat: {"codes": list(row.codes), "active": sorted(active_codes(cat, table, registered)),
                        "reason": row.reason, "flags": {c: registered[c] for c in row.codes if c in registered}}
                  for cat, row in table.items()},
        "table_codes_not_registered": unknown,
        "categories_without_row": sorted({f["category"] for f in chosen} - set(table)),
        **figures,
        "findings": rows,
        "not_evaluable": not_eval,
        "anchors": anchors,
        "reproducible": {"overall": reproducible(rows), "families": by_family(rows),
                         "per_category": {k: reproducible([r for r in rows if r["category"] == k])
                                          for k in sorted({r["category"] for r in rows})},
                         "judged_file": JUDGED.name, "stale_judgements": stale,
                         "superseded_judgements": [j["index"] for j in superseded]},
        "other_direction": {"count": len(other),
                            "by_code": by_code,
                            "findings": other},
        "rule_crashes": crashes(states),
        "review_errors": [{"pr": pr, "commit": c, "error": s["error"]} for (pr, c), s in sorted(states.items())
                          if "error" in s],
    }


# ---------------------------------------------------------------- printing

def _pct(fig: dict) -> str:
    r = fig["recall"]
    return f"{fig['caught']}/{fig['evaluable']} = {100 * r:5.1f} %" if r is not None else "  n/a"


def _line(name: str, fig: dict, width: int) -> str:
    s, u = fig["strict"], fig["upper"]
    return (f"  {name:<{width}} {fig['findings']:>4}  strict {_pct(s):<18} partial {s['partial']:>3}  "
            f"missed {s['missed']:>3}  n/e {s['not_evaluable']:>3}   upper {_pct(u)}")


def print_report(rep: dict, examples: int = 3, out=sys.stdout) -> None:  # noqa: C901 (one loop per section of the printed report)
    p = lambda *a: print(*a, file=out)  # noqa: E731
    m = rep["meta"]
    p(f"real reviews: {m['reviewed_commits']} reviewed commits, {m['pairs']} (PR, commit) reviews "
      f"({m['reviews'].get('reviewed', 0)} run, {m['reviews'].get('cached', 0)} cached, "
      f"{m['reviews'].get('missing', 0)} commits missing, {m['reviews'].get('errors', 0)} errors), "
      f"jobs {m['jobs']}, window ±{m['window']}")
    o = rep["overall"]
    p(f"overall ({o['findings']} in-scope findings): strict recall {_pct(o['strict'])}, "
      f"upper bound {_pct(o['upper'])}")
    width = max([len(k) for k in rep["per_category"]] + [len(k) for k in rep["per_reviewer"]] + [8])
    p("\nper category (findings, strict caught/evaluable, partial, missed, not evaluable, upper):")
    for k, fig in rep["per_category"].items():
        codes = ",".join(rep["table"].get(k, {}).get("active", [])) or "-"
        p(_line(k, fig, width) + f"   [{codes}]")
    p("\nper reviewer:")
    for k, fig in rep["per_reviewer"].items():
        p(_line(k, fig, width))
    if rep["table_codes_not_registered"]:
        p(f"\ntable codes not registered (ignored): {', '.join(rep['table_codes_not_registered'])}")
    if rep["categories_without_row"]:
        p(f"categories without a table row (scored as unmapped): {', '.join(rep['categories_without_row'])}")
    p(f"\nnot evaluable ({len(rep['not_evaluable'])}, strict):")
    for r in rep["not_evaluable"]:
        extra = ""
        if "at_pr_head" in r:
            extra = (
                " (present at the PR head: renamed or added later)"
                if r["at_pr_head"]
                else " (absent at the PR head too)"
            )
        p(f"  #{r['pr']} {r['path']}:{r['line']}  {r['reason']}{extra}; upper: {r['upper']}")
    rp = rep.get("reproducible")
    if rp:
        def _r(fig: dict) -> str:
            pct = f"{100 * fig['recall']:5.1f} %" if fig["recall"] is not None else "  n/a"
            return (f"{fig['caught']}/{fig['evaluable']} = {pct} (strict {fig['strict']['caught']}/"
                    f"{fig['strict']['evaluable']}; {fig['left_out']} judged absent or mistaken left out)")
        p(f"\nreproducible recall (strict, without findings judged absent or mistaken in {rp['judged_file']}):")
        p(f"  overall: {_r(rp['overall'])}")
        for name, fig in rp["families"].items():
            p(f"  {name}: {_r(fig)}")
        if rp["stale_judgements"]:
            p(f"  {len(rp['stale_judgements'])} judged entries no longer match their finding (ignored)")
    if rep.get("anchors"):
        p(f"\nreviewer lines re-anchored to the reviewed commit, or dropped past its end "
          f"({len(rep['anchors'])}, strict):")
        for r in rep["anchors"]:
            p(f"  #{r['pr']} {r['path']}:{r['line']}  {r['reason']}; strict: {r['strict']}")
    missed = defaultdict(list)
    for r in rep["findings"]:
        if r["in_scope"] and r["strict"]["result"] in ("missed", "partial"):
            missed[r["category"]].append(r)
    p("\nmissed findings by category (strict; partial marked with ~ and the codes that came close):")
    for cat in sorted(missed, key=lambda c: (-len(missed[c]), c)):
        p(f"  {cat} ({len(missed[cat])})")
        for r in missed[cat]:
            mark = "~" if r["strict"]["result"] == "partial" else " "
            near = f" [{','.join(r['strict']['codes'])}]" if r["strict"]["codes"] else ""
            summary = " ".join(r["summary"].split())
            p(f"   {mark}#{r['pr']} {r['path']}:{r['line'] if r['line'] is not None else '-'}{near}  "
              f"{summary[:110]}{'…' if len(summary) > 110 else ''}")
    od = rep["other_direction"]
    p(f"\nother direction: {od['count']} blocking findings of ours that no reviewer finding of the PR matches:")
    p("  (occurrences count each reviewed commit; distinct counts a finding once per PR)")
    for code, d in od["by_code"].items():
        p(f"  {code}: {d['distinct']} distinct ({d['count']} occurrences) on {len(d['prs'])} PRs")
        for e in d["examples"][:examples]:
            msg = " ".join(e["message"].split())
            p(f"     #{e['pr']} {e['commit'][:10]} {e['path']}:{e['line'] if e['line'] is not None else '-'}  "
              f"{msg[:110]}{'…' if len(msg) > 110 else ''}")
    p(f"\nRR000 (rule crashes, bugs): {len(rep['rule_crashes'])}")
    for c in rep["rule_crashes"]:
        p(f"  #{c['pr']} {c['commit'][:10]}  {c['message']}")
    p(f"review errors: {len(rep['review_errors'])}")
    for e in rep["review_errors"]:
        p(f"  #{e['pr']} {e['commit'][:10]}  {e['error']}")
    p(f"\nwall time {m['wall_s']:.1f} s (clone {m['clone_s']:.1f} s)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE, help="the InferenceX git bundle")
    ap.add_argument("--repo", type=Path, help="reuse an existing clone of the bundle instead of cloning")
    ap.add_argument("--findings", type=Path, help=f"the review findings (default: {FINDINGS_NAME} beside the bundle)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the JSON report")
    ap.add_argument("--jobs", type=int, default=2, help="review worker processes")
    ap.add_argument("--no-cache", action="store_true", help="ignore and do not write the per-commit review cache")
    ap.add_argument("--category", action="append", help="only findings of this category (repeatable)")
    ap.add_argument("--pr", action="append", type=int, help="only findings of this PR (repeatable)")
    ap.add_argument("--examples", type=int, default=3, help="examples per rule code in the other direction")
    args = ap.parse_args(argv)
    findings = args.findings or args.bundle.parent / FINDINGS_NAME
    for need in ([findings] + ([] if args.repo else [args.bundle])):
        if not need.exists():
            print(f"real_reviews: {need} not found", file=sys.stderr)
            return 2
    rep = evaluate(bundle=args.bundle, repo=args.repo, findings_path=findings, jobs=args.jobs,
                   cache_dir=None if args.no_cache else CACHE_DIR, categories=args.category, prs=args.pr,
                   examples=args.examples, progress=lambda s: print(s, file=sys.stderr))
    print_report(rep, args.examples)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rep, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    out = args.out.resolve()
    print(f"report: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
