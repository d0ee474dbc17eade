"""Time `fix` on a ~12,000-line changelog with a new entry five entries from the end (the #4867 shape).

    python benchmarks/bench_fix.py [--runs N] [--cli-runs N]

The changelog is the one benchmarks/bench_changelog.py builds (../shared's snapshot repeated with
unique pr-links, or a synthetic file of the same shape). Measured, each as median and p95:

1. the changelog rebuild alone: `changelog_diffs` + `rules.changelog.fix.fix_changelog`;
2. `rules.fix.plan_fix` with every registered rule: the review, the rebuild, the patch of the
   result and the re-check of the fixed file — everything `recipe-review fix` and `/fix` compute;
3. `recipe-review fix --dry-run` as a command on a two-commit git repository (process start, git,
   the diff printed), for scale.

Target: (2) ≤ 100 ms.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from bench_changelog import NEW, REPO, _p95, build_changelog, insert_five_from_end  # noqa: E402

from rules.changelog.analysis import changelog_diffs  # noqa: E402
from rules.changelog.fix import _YAML_CHECKED, fix_changelog  # noqa: E402
from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.context import ReviewContext  # noqa: E402
from rules.fix import plan_fix  # noqa: E402

PATH = "perf-changelog.yaml"
NUMBER = 99999


def _time2(fn, runs: int) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms) per run, sorted: on a shared machine the CPU time is what the fix costs."""
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return sorted(wall), sorted(cpu)


def _show(label: str, runs: tuple[list[float], list[float]], note: str = "") -> None:
    wall, cpu = runs
    print(f"{label:<50} wall median {statistics.median(wall):7.1f} ms  p95 {_p95(wall):7.1f} ms   "
          f"CPU median {statistics.median(cpu):7.1f} ms  p95 {_p95(cpu):7.1f} ms{note}")


def rebuild(cs: ChangeSet) -> bytes:
    (d,) = changelog_diffs(ReviewContext(cs))
    return fix_changelog(d, cs.repo, cs.pr_number).content


def cli_repo(tmp: Path, base: str, head: str) -> Path:
    repo = tmp / "repo"
    env = ["-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / PATH).write_text(base)
    subprocess.run(["git", "-C", str(repo), *env, "add", PATH], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qm", "base"], check=True)
    subprocess.run(["git", "-C", str(repo), "checkout", "-qb", "pr"], check=True)
    (repo / PATH).write_text(head)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qam", "entry mid-file"], check=True)
    return repo


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--cli-runs", type=int, default=5)
    args = ap.parse_args(argv)
    base, source = build_changelog()
    head = insert_five_from_end(base)
    cs = ChangeSet(files=(FileChange(PATH, "modified", base=base.encode(), head=head.encode()),),
                   pr_number=NUMBER, repo=REPO)
    fixed = rebuild(cs)
    assert fixed == (base + "\n" + NEW).encode(), "the rebuild is not base + the entry"
    result = plan_fix(cs)
    assert [f.code for f in result.fixed] == ["RR001"] and result.files[0].new == fixed
    print(f"changelog: {base.count(chr(10)):,} lines, {len(base.encode()):,} bytes — {source}; "
          f"new entry five entries from the end")
    _show("1. changelog rebuild (analysis + fix_changelog)", _time2(lambda: rebuild(cs), args.runs))
    _show("2. plan_fix: every rule, fix, re-check", _time2(lambda: plan_fix(cs), args.runs),
          "   (target ≤ 100 ms; base YAML verdict cached)")

    def cold():
        _YAML_CHECKED.clear()
        plan_fix(cs)

    _show("2b. the same, first PR on a new main (base parsed)", _time2(cold, max(3, args.runs // 10)))
    with tempfile.TemporaryDirectory(prefix="bench-fix-") as tmp:
        repo = cli_repo(Path(tmp), base, head)
        cmd = [sys.executable, "-m", "bot.cli", "fix", "--repo", str(repo), "--base", "main", "--pr-number",
               str(NUMBER), "--dry-run"]
        out = []
        for _ in range(args.cli_runs):
            t = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, cwd=ROOT)
            out.append((time.perf_counter() - t) * 1000)
            assert proc.returncode == 0, proc.stderr.decode()
        out.sort()
        print(f"3. `recipe-review fix --dry-run` (process + git)   median {statistics.median(out):7.1f} ms   "
              f"p95 {_p95(out):7.1f} ms   ({args.cli_runs} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
