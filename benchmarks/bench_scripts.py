"""Script rules on a PR that changes 10 benchmark scripts of the real repository (issue #10 targets).

    python benchmarks/bench_scripts.py [--bundle PATH | --repo DIR] [--runs N]

Takes `refs/heads/main` of the InferenceX bundle, edits 10 single-node scripts (one added engine
flag each, the way a tuning PR does), commits that as a PR branch, builds the changeset the way
the CLI does (`bot.localgit.changeset_from_git`: tree listing, launchers, resolved scripts,
siblings, library) and measures, on a fresh review context each round:

1. every script rule except ShellCheck (parse, resolution, interpretation) [median ≤ 150 ms]: the
   first review in a fresh process (nothing cached), then the steady state of a running bot —
   each round gives the 10 changed scripts new content (a comment line with the round number), so
   their parses and interpretations are cold, while launchers, the library and sibling scripts,
   which the process has seen, come from the content-keyed caches;
2. the two ShellCheck rules cold (cache cleared) [≤ 1 s] and cached [~0].

Nothing in the repository is executed; the scripts are parsed and interpreted.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dataclasses import replace  # noqa: E402

from bot.localgit import changeset_from_git  # noqa: E402
from rules.changeset import ChangeSet  # noqa: E402
from rules.config import EngineConfig  # noqa: E402
from rules.context import ReviewContext  # noqa: E402
from rules.registry import ALL_RULES  # noqa: E402
from rules.runner import run  # noqa: E402
from rules.scripts import shellcheck  # noqa: E402

DEFAULT_BUNDLE = ROOT / ".." / "shared" / "inferencex" / "ix-dev.bundle"
SHELLCHECK = {"RR414", "RR415"}
SCRIPT_RULES = [r for r in ALL_RULES if r.__name__.startswith("rules.scripts.") and r.CODE not in SHELLCHECK]
SC_RULES = [r for r in ALL_RULES if r.CODE in SHELLCHECK]


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x",
           "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def make_pr(src: Path, work: Path) -> Path:
    """A clone of main with a branch `bench-10-scripts` editing 10 scripts."""
    repo = work / "ix"
    subprocess.run(["git", "clone", "-q", "--branch", "main", str(src), str(repo)], check=True)
    names = sorted(_git(repo, "ls-files", "benchmarks/single_node/fixed_seq_len/*.sh").split())
    picked = [n for n in names if "/deprecated/" not in n][::7][:10]
    _git(repo, "checkout", "-q", "-b", "bench-10-scripts")
    for n in picked:
        p = repo / n
        text = p.read_text()
        marker = "--port" if "--port" in text else "--model"
        p.write_text(text.replace(marker, "--stream-interval 10 " + marker, 1))
    _git(repo, "commit", "-qam", "tune 10 scripts")
    return repo


def _median(fn, runs: int) -> tuple[float, list[float], float]:
    """(median wall ms, wall times, median CPU ms of this process): on a shared machine the CPU
    time is what the code costs, the wall time adds the wait for a core."""
    times, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return statistics.median(times), times, statistics.median(cpu)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    ap.add_argument("--repo", type=Path, help="a clone (or mirror) holding refs/heads/main")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        src = args.repo or args.bundle
        repo = make_pr(Path(src), Path(tmp))
        t0 = time.perf_counter()
        cs = changeset_from_git(repo, "main", "bench-10-scripts", 1)
        fetch = (time.perf_counter() - t0) * 1000
        changed = [f.path for f in cs.files]
        print(f"PR: {len(changed)} scripts changed; changeset built with {len(cs.context)} context files "
              f"and a {len(cs.tree):,}-entry listing in {fetch:.0f} ms")
        config = EngineConfig()

        rounds = iter(range(1, 10_000))

        def fresh(n: int) -> ChangeSet:
            files = tuple(replace(f, head=f.head + f"# round {n}\n".encode()) if f.head else f for f in cs.files)
            return replace(cs, files=files)

        def script_rules(c=None):
            c = c or fresh(next(rounds))
            return run(c, config, rules=SCRIPT_RULES, ctx=ReviewContext(c, config))

        t0 = time.perf_counter()
        report = script_rules(cs)
        first = (time.perf_counter() - t0) * 1000
        med, times, cpu = _median(script_rules, args.runs)
        ctx = ReviewContext(cs, config)
        run(cs, config, rules=SCRIPT_RULES, ctx=ctx)
        from rules.scripts.resolve import review_points
        rp = review_points(ctx)
        print(f"script rules except ShellCheck ({len(SCRIPT_RULES)}): first review (cold process) {first:.0f} ms; "
              f"steady state median {med:.1f} ms (CPU {cpu:.1f} ms), max {max(times):.1f} ms [target ≤ 150 ms]; "
              f"{len(rp.keys)} keys, {len(rp.points)} points resolved; "
              f"{len(report.findings)} findings, {len(report.checks)} checks")
        shellcheck.clear_cache()
        t0 = time.perf_counter()
        sc = run(cs, config, rules=SC_RULES)
        cold = (time.perf_counter() - t0) * 1000
        warm, _, _ = _median(lambda: run(cs, config, rules=SC_RULES), 5)
        skipped = [c.detail for c in sc.checks if c.status == "skipped"]
        print(f"ShellCheck on {len(changed)} scripts: cold {cold:.0f} ms [target ≤ 1000 ms], cached median "
              f"{warm:.1f} ms [~0]; {len(sc.findings)} findings{'; skipped: ' + skipped[0] if skipped else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
