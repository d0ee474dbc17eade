"""Time the changelog rules on a seed-size PR: a ~12,300-line changelog with a new entry inserted
five entries from the end (the #4867 shape, the slow path), and an appended entry (the fast path).

    python benchmarks/bench_changelog.py [--runs N]

The changelog is built from ../shared/inferencex/snapshot/perf-changelog.yaml, repeated with
unique pr-links up to ~12,300 lines; without ../shared a synthetic one of the same shape is used.
Prints the median and p95 of running all changelog rules through rules.runner.run(), and beside
it the time of a full ruamel round-trip parse of base + head (what the rules avoid).
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.changelog.checks import (  # noqa: E402
    changelog_append_only_mixed,
    changelog_entry_invalid,
    changelog_entry_misplaced,
    changelog_format_broken,
    changelog_history_changed,
    changelog_pr_link_placeholder,
    changelog_pr_link_wrong,
    changelog_separator_irregular,
)
from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.document import parse_yaml  # noqa: E402
from rules.runner import run  # noqa: E402

SNAPSHOT = ROOT / ".." / "shared" / "inferencex" / "snapshot" / "perf-changelog.yaml"
REPO = "SemiAnalysisAI/InferenceX"
RULES = [changelog_entry_misplaced, changelog_history_changed, changelog_entry_invalid, changelog_pr_link_wrong,
         changelog_pr_link_placeholder, changelog_format_broken, changelog_separator_irregular,
         changelog_append_only_mixed]
TARGET_LINES = 12_300
NEW = ("- config-keys:\n    - dsv4-fp4-b200-vllm\n  scenario-type:\n    - agentic-coding\n  description:\n"
       "    - \"Serve the TP8 arm with FULL_AND_PIECEWISE cudagraphs, capturing mixed batches.\"\n"
       "    - \"Replace the TP8 concurrency list [1, 4, 8, 16, 24] with [1, 4, 8, 14].\"\n"
       f"  pr-link: https://github.com/{REPO}/pull/99999\n")


def _synthetic_entry(i: int) -> str:
    return (f"- config-keys:\n    - model{i % 37}-fp{4 + i % 2 * 4}-b{200 + i % 3 * 100}-vllm\n  description:\n"
            f"    - \"Bump the image to v0.{i % 20}.{i % 7} and retune the concurrency list\"\n"
            f"    - \"Second line of the description for entry {i}\"\n"
            f"  pr-link: https://github.com/{REPO}/pull/{i}\n")


def build_changelog() -> tuple[str, str]:
    """(changelog text, where it came from)."""
    if SNAPSHOT.exists():
        seed = SNAPSHOT.read_text(encoding="utf-8")
        parts = [seed]
        lines = seed.count("\n")
        k = 0
        while lines < TARGET_LINES:
            k += 1
            copy = re.sub(r"/pull/(\d+)", lambda m, k=k: f"/pull/{int(m.group(1)) + 10_000 * k}", seed)
            parts.append("\n" + copy)
            lines += copy.count("\n") + 1
        text = "".join(parts)
        source = f"snapshot ({seed.count(chr(10)):,} lines) repeated with unique pr-links"
    else:
        out, i, lines = [], 0, 0
        while lines < TARGET_LINES:
            e = _synthetic_entry(i)
            out.append(e)
            lines += e.count("\n") + 1
            i += 1
        text = "\n".join(out)
        source = "synthetic (../shared absent)"
    # trim to about TARGET_LINES at an entry boundary
    cut = [m.start() for m in re.finditer(r"^- config-keys:", text, re.M)]
    keep = max(c for c in cut if text.count("\n", 0, c) <= TARGET_LINES - 8)
    return text[:keep].rstrip("\n") + "\n", source


def insert_five_from_end(base: str) -> str:
    starts = [m.start() for m in re.finditer(r"^- config-keys:", base, re.M)]
    at = starts[-5]
    return base[:at] + NEW + "\n" + base[at:]


def _time(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return sorted(out)


def _p95(xs: list[float]) -> float:
    return xs[max(0, int(round(len(xs) * 0.95)) - 1)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--parse-runs", type=int, default=5)
    args = ap.parse_args(argv)
    base, source = build_changelog()
    cases = {
        "inserted 5 entries from the end (#4867 shape)": insert_five_from_end(base),
        "appended at the end": base + "\n" + NEW,
    }
    print(f"changelog: {base.count(chr(10)):,} lines, {len(base.encode()):,} bytes — {source}")
    print(f"rules: {', '.join(r.CODE for r in RULES)} via rules.runner.run(); {args.runs} runs each\n")
    for label, head in cases.items():
        cs = ChangeSet(files=(FileChange("perf-changelog.yaml", "modified", base=base.encode(), head=head.encode()),),
                       pr_number=99999, repo=REPO)
        report = run(cs, rules=RULES)
        codes = sorted(f.code for f in report.findings)
        xs = _time(lambda cs=cs: run(cs, rules=RULES), args.runs)
        print(f"{label}:")
        print(f"  all changelog rules   median {statistics.median(xs):7.1f} ms   p95 {_p95(xs):7.1f} ms   "
              f"findings {codes}")
    full = _time(lambda: (parse_yaml("b.yaml", base.encode()), parse_yaml("h.yaml", head.encode())), args.parse_runs)
    print(f"\nfor comparison, a full ruamel round-trip parse of base + head: median {statistics.median(full):7.1f} ms "
          f"({args.parse_runs} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
