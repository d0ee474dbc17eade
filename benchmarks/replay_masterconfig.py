"""Replay the master-config rules over the real InferenceX data and count what they report.

    python benchmarks/replay_masterconfig.py [--list CODE ...]

1. Snapshot (../shared/inferencex/snapshot): every key of nvidia-master.yaml and amd-master.yaml
   treated as added, through RR101-RR103; and every one of the 772 changelog entries treated as
   new, through RR008 (historical entries name keys removed since, so unresolved items there are
   expected, not errors).
2. PR heads (prs-dev.jsonl.xz) that change a master config, through RR008-RR011 and RR101-RR103.
   The records hold only the files a PR changes, so the sibling master config (e.g. amd-master.yaml
   when only nvidia-master.yaml changed) is rebuilt as a key list: from another record with the
   same merge base when there is one ("exact"), else from the record nearest in time ("nearest").

Prints counts per rule and status, every blocking RR008/RR101/RR103 finding (or those of the codes
given with --list), and the median time per PR.
"""
from __future__ import annotations

import argparse
import bisect
import json
import lzma
import posixpath
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.changelog.checks import (  # noqa: E402
    changed_config_not_selected,
    changelog_config_key_unknown,
    changelog_entry_missing,
    changelog_entry_missing_for_cleanup,
)
from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.context import ReviewContext  # noqa: E402
from rules.master.analysis import master_files  # noqa: E402
from rules.master.checks import (  # noqa: E402
    master_image_not_public,
    master_image_unpinned,
    master_key_prefix_mismatch,
)
from rules.runner import run  # noqa: E402

SHARED = ROOT / ".." / "shared" / "inferencex"
MASTER_NAMES = ("nvidia-master.yaml", "amd-master.yaml")
IMAGE_RULES = [master_image_not_public, master_image_unpinned, master_key_prefix_mismatch]
PR_RULES = [changelog_config_key_unknown, changelog_entry_missing, changelog_entry_missing_for_cleanup,
            changed_config_not_selected, *IMAGE_RULES]
DEFAULT_LIST = ("RR008", "RR101", "RR103")


def snapshot() -> None:
    snap = SHARED / "snapshot"
    masters = {f"configs/{n}": (snap / n).read_bytes() for n in MASTER_NAMES}
    cs = ChangeSet(files=tuple(FileChange(p, "added", head=raw) for p, raw in masters.items()))
    keys = sum(len(mf.keys) for mf in master_files(ReviewContext(cs)))
    t0 = time.perf_counter()
    report = run(cs, rules=IMAGE_RULES)
    took = time.perf_counter() - t0
    print(f"snapshot: {keys} keys treated as added, RR101-RR103 in {took:.2f} s")
    print(f"  findings: {dict(Counter(f.code for f in report.findings)) or 'none'}")
    print(f"  checks:   {dict(Counter(f'{c.code} {c.status}' for c in report.checks))}")
    for f in report.findings:
        print(f"    {f.code} {f.path}:{f.line} {f.message}")
    changelog = (snap / "perf-changelog.yaml").read_bytes()
    cs = ChangeSet(files=(FileChange("perf-changelog.yaml", "added", head=changelog),), context=masters)
    report = run(cs, rules=[changelog_config_key_unknown])
    unknown = Counter(f.message.split("`")[1] for f in report.findings)
    print(f"snapshot changelog: all 772 entries treated as new, RR008: {len(report.findings)} unresolved items "
          f"({len(unknown)} distinct keys/patterns; historical entries name keys removed since)")


def _key_skeleton(keys: list[str]) -> bytes:
    return "".join(f"{k}:\n  removed-detail: true\n" for k in keys).encode()


def _records():
    with lzma.open(SHARED / "prs-dev.jsonl.xz", "rt", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def _is_master(name: str) -> bool:
    return name.endswith("-master.yaml") and "/deprecated/" not in name


def prs(list_codes: tuple[str, ...]) -> None:  # noqa: C901 (two passes over the recorded PRs, each with nested loops over files)
    # Pass 1: top-level keys of every master config at every merge base seen.
    by_base: dict[tuple[str, str], list[str]] = {}
    timeline: dict[str, list[tuple[int, list[str]]]] = defaultdict(list)
    for rec in _records():
        for f in rec["files"]:
            if _is_master(f["filename"]) and f.get("base_content") is not None and f["status"] != "added":
                cs = ChangeSet(files=(FileChange(f["filename"], "removed", base=f["base_content"].encode()),))
                [mf] = master_files(ReviewContext(cs), "base")
                by_base[(f["filename"], rec["base"])] = list(mf.keys)
                timeline[f["filename"]].append((rec["head_time"], list(mf.keys)))
    for series in timeline.values():
        series.sort(key=lambda t: t[0])
    # Pass 2: review every PR that changes a master config.
    counts: Counter = Counter()
    listed: list[str] = []
    times: list[float] = []
    rebuilt: Counter = Counter()
    for rec in _records():
        changed = [f["filename"] for f in rec["files"] if _is_master(f["filename"])]
        if not changed:
            continue
        cs = ChangeSet.from_record(rec)
        context: dict[str, bytes] = {}
        for d in {posixpath.dirname(p) for p in changed}:
            for name in MASTER_NAMES:
                sibling = posixpath.join(d, name)
                if sibling in changed:
                    continue
                keys = by_base.get((sibling, rec["base"]))
                if keys is not None:
                    rebuilt["exact"] += 1
                elif timeline.get(sibling):
                    series = timeline[sibling]
                    i = bisect.bisect_left([t for t, _ in series], rec["head_time"])
                    keys = series[min(i, len(series) - 1)][1]
                    rebuilt["nearest"] += 1
                else:
                    rebuilt["none"] += 1
                    continue
                context[sibling] = _key_skeleton(keys)
        cs = ChangeSet(cs.files, cs.pr_number, cs.repo, cs.title, context=context)
        t0 = time.perf_counter()
        report = run(cs, rules=PR_RULES)
        times.append(time.perf_counter() - t0)
        counts["PRs"] += 1
        for f in report.findings:
            counts[f"{f.code} {f.severity.value}"] += 1
            if f.code in list_codes:
                listed.append(f"    #{rec['number']} {f.code} {f.path}:{f.line} {f.message}")
        for c in report.checks:
            counts[f"{c.code} {c.status}"] += 1
    print(f"PR heads changing a master config: {counts.pop('PRs')}; sibling master rebuilt from another record: "
          f"{dict(rebuilt)}")
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}")
    print(f"  median {statistics.median(times) * 1000:.1f} ms per PR, max {max(times) * 1000:.0f} ms")
    print(f"findings of {', '.join(list_codes)}:")
    print("\n".join(listed) or "    none")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", nargs="*", default=list(DEFAULT_LIST), help="codes whose findings to print")
    args = ap.parse_args()
    if not (SHARED / "prs-dev.jsonl.xz").exists():
        sys.exit(f"shared data not found at {SHARED}")
    snapshot()
    prs(tuple(args.list))


if __name__ == "__main__":
    main()
