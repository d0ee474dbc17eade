"""Worst case per PR: every PR head of the InferenceX bundle reviewed by `recipe-review check` in a
fresh process, its wall time and peak memory (issue targets: every PR <= 1.5 s wall, start-up
included, and <= 150 MB; the seed review's rule time <= 30 ms and >= 1.5x faster than 0b49ab5).

Each PR head `refs/pull/N/head` (N < 2300 only: the PRs from 2300 on are held out and are filtered
out by the ref patterns themselves, before anything else reads them) is reviewed as

    python -m bot.cli check --base refs/heads/main --head <sha> --pr-number N --format json

with cwd a temporary non-bare clone of --repo (`git clone --shared`, so nothing is copied). `check`
itself diffs merge-base(base, head)..head (bot/localgit.changeset_from_git), as GitHub diffs a PR,
so the merge-base is not passed explicitly. The child imports this tree's `bot` and `rules`
(PYTHONPATH is set to the repository root). Its output is discarded; exit 0 (no blocking finding)
and 1 (blocking findings) are successes, 2 (usage or operational error), any other status, a
signal or the --timeout are failures and are listed. Wall time is perf_counter around Popen and
`os.wait4`; memory is the child's `ru_maxrss` from `os.wait4` (KiB on Linux; it covers the child
and the git processes it waited for, whichever peaked highest).

Also measured: start-up (median wall of 5 runs of `--help` and of `check` on an empty diff), and
the seed ratio: benchmarks/bench_review.py ("CPU time median") of this tree and of a temporary
`git worktree` of 0b49ab5 (the commit before the issue), each `--runs 15`, alternating old/new
twice with the same python; the old tree runs with its own cwd and sys.path (PYTHONPATH unset).

    python benchmarks/worst_case.py [--repo PATH] [--limit N] [--prs A,B,C] [--jobs N]
                                    [--timeout S] [--out FILE] [--seed-ratio | --no-seed]

--repo: a bare or non-bare git repository with refs/heads/main and refs/pull/N/head (default: a
mirror cloned into a temp dir from ../shared/inferencex/ix-dev.bundle; skipped when absent).
--jobs defaults to 1: on a shared machine timings are only meaningful sequentially.
--seed-ratio runs the seed ratio alone; --no-seed leaves it out of the full run.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / ".." / "shared" / "inferencex" / "ix-dev.bundle"
HELD_OUT_FROM = 2300  # PRs numbered from here on must never be reviewed, listed or read
OLD_COMMIT = "0b49ab5"  # the commit before the issue
WALL_TARGET_S, RSS_TARGET_MB = 1.5, 150.0
SEED_TARGET_MS, SEED_RATIO_TARGET = 30.0, 1.5
# fnmatch patterns of refs/pull/N/head for N < 2300 only, so that git never even lists the others
PR_REF_PATTERNS = tuple(f"refs/pull/{p}/head" for p in (
    "[0-9]", "[1-9][0-9]", "[1-9][0-9][0-9]", "1[0-9][0-9][0-9]", "2[0-2][0-9][0-9]"))
_PR_REF = re.compile(r"^refs/pull/([0-9]+)/head$")
_CPU_MEDIAN = re.compile(r"CPU time median ([0-9]+(?:\.[0-9]+)?) ms")


# -- pure helpers -------------------------------------------------------------------------------

def percentile(values, q: float) -> float:
    """The q-th percentile (0..100) of values, linear between closest ranks (numpy's default)."""
    xs = sorted(values)
    if not xs:
        return math.nan
    k = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def allowed_prs(refs) -> list[tuple[int, str]]:
    """(PR number, sha) of `(sha, refname)` pairs that are refs/pull/N/head with N < 2300, by number."""
    out = {}
    for sha, name in refs:
        m = _PR_REF.match(name)
        if m and int(m.group(1)) < HELD_OUT_FROM:
            out[int(m.group(1))] = sha
    return sorted(out.items())


def parse_pr_list(text: str) -> list[int]:
    """`--prs 12,345`: the numbers, refusing held-out ones (SystemExit)."""
    nums = [int(x) for x in text.replace(" ", "").split(",") if x]
    held = [n for n in nums if n >= HELD_OUT_FROM]
    if held:
        raise SystemExit(f"--prs: PRs from {HELD_OUT_FROM} on are held out and cannot be reviewed")
    return nums


def parse_cpu_median(output: str) -> float | None:
    """The "CPU time median X ms" figure of bench_review.py's output, or None."""
    m = _CPU_MEDIAN.search(output)
    return float(m.group(1)) if m else None


def status_of(returncode: int | None, timed_out: bool = False) -> str:
    """ok (0), findings (1: not a failure), error (2: usage or operational), crash, timeout."""
    if timed_out:
        return "timeout"
    return {0: "ok", 1: "findings", 2: "error"}.get(returncode, "crash")


FAILED = ("error", "crash", "timeout")


def summary(results: list[dict]) -> dict:
    walls = [r["wall_s"] for r in results]
    rss = [r["maxrss_mb"] for r in results]
    return {
        "count": len(results),
        "wall_s": {"p50": percentile(walls, 50), "p95": percentile(walls, 95), "max": max(walls, default=math.nan)},
        "maxrss_mb": {"p50": percentile(rss, 50), "p95": percentile(rss, 95), "max": max(rss, default=math.nan)},
        "over_wall": sum(w > WALL_TARGET_S for w in walls),
        "over_rss": sum(m > RSS_TARGET_MB for m in rss),
        "failures": [r for r in results if r["status"] in FAILED],
        "statuses": {s: sum(r["status"] == s for r in results) for s in sorted({r["status"] for r in results})},
    }


# -- git ----------------------------------------------------------------------------------------

def git(*args: str, cwd: Path | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def pr_heads(repo: Path) -> list[tuple[int, str]]:
    out = git("-C", str(repo), "for-each-ref", "--format=%(objectname) %(refname)", *PR_REF_PATTERNS)
    return allowed_prs(tuple(line.split(" ", 1)) for line in out.splitlines() if " " in line)


def working_clone(repo: Path, into: Path) -> Path:
    """A non-bare clone sharing repo's objects, with refs/heads/main = repo's main, checked out."""
    main = git("-C", str(repo), "rev-parse", "--verify", "refs/heads/main^{commit}").strip()
    dest = into / "work"
    git("clone", "--quiet", "--shared", "--no-checkout", str(repo), str(dest))
    git("-C", str(dest), "update-ref", "refs/heads/main", main)
    git("-C", str(dest), "checkout", "--quiet", "--force", "main")
    return dest


# -- measuring ----------------------------------------------------------------------------------

def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)  # this tree's bot and rules, whatever the virtualenv installed
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


def timed(argv: list[str], cwd: Path, timeout: float | None = None) -> dict:
    """Run argv as a fresh child: wall seconds, ru_maxrss in MB, exit code, stderr's last line."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        killed = threading.Event()

        def kill():
            killed.set()
            proc.kill()

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()
    return {"wall_s": round(wall, 4), "maxrss_mb": round(usage.ru_maxrss / 1024, 1),
            "returncode": proc.returncode, "timed_out": killed.is_set(), "stderr": tail[-1][:300] if tail else ""}


def check_argv(head: str, pr: int | None = None, base: str = "refs/heads/main") -> list[str]:
    argv = [sys.executable, "-m", "bot.cli", "check", "--base", base, "--head", head, "--format", "json"]
    return argv + (["--pr-number", str(pr)] if pr is not None else [])


def review(work: Path, pr: int, head: str, timeout: float) -> dict:
    r = timed(check_argv(head, pr), work, timeout)
    out = {"pr": pr, "head": head, "wall_s": r["wall_s"], "maxrss_mb": r["maxrss_mb"],
           "status": status_of(r["returncode"], r["timed_out"]), "returncode": r["returncode"]}
    if out["status"] in FAILED:
        out["stderr"] = r["stderr"]
    return out


def startup(work: Path) -> dict:
    """Median wall (s) of 5 runs of `--help` and of `check` on an empty diff (main..main)."""
    helps = [timed([sys.executable, "-m", "bot.cli", "--help"], work)["wall_s"] for _ in range(5)]
    empties = [timed(check_argv("refs/heads/main"), work)["wall_s"] for _ in range(5)]
    return {"help_s": statistics.median(helps), "empty_check_s": statistics.median(empties)}


def seed_ratio(runs: int = 15, rounds: int = 2) -> dict:
    """bench_review.py's CPU median of 0b49ab5 and of this tree, alternating old/new `rounds` times."""
    out: dict = {"old": [], "new": [], "error": None}
    tmp = Path(tempfile.mkdtemp(prefix="rr-old-"))
    old = tmp / "recipe-review"
    shared = (ROOT / ".." / "shared").resolve()
    try:
        if shared.is_dir():  # the old tree's ../shared: the same data as this tree reads
            (tmp / "shared").symlink_to(shared)
        proc = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), OLD_COMMIT],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            out["error"] = f"cannot make a worktree of {OLD_COMMIT}: {proc.stderr.strip()}"
            return out
        if not (old / "benchmarks" / "bench_review.py").exists():
            out["error"] = f"{OLD_COMMIT} has no benchmarks/bench_review.py"
            return out
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        for _ in range(rounds):
            for side, tree in (("old", old), ("new", ROOT)):
                p = subprocess.run([sys.executable, str(tree / "benchmarks" / "bench_review.py"), "--runs", str(runs)],
                                   cwd=tree, env=env, capture_output=True, text=True)
                ms = parse_cpu_median(p.stdout)
                if p.returncode != 0 or ms is None:
                    tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
                    out["error"] = f"{side} bench_review.py failed (exit {p.returncode}): {tail}"
                    return out
                out[side].append(ms)
        return out
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], capture_output=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def seed_report(s: dict) -> list[str]:
    lines = ["seed review rule time (bench_review.py CPU median, --runs 15, old/new alternating):"]
    if s["error"]:
        return lines + [f"  FAILED: {s['error']}"] + ([f"  measured so far: old {s['old']} new {s['new']}"]
                                                     if s["old"] or s["new"] else [])
    old, new = statistics.median(s["old"]), statistics.median(s["new"])
    ratio = old / new if new else math.inf
    lines += [f"  old ({OLD_COMMIT}) rounds: {', '.join(f'{x:.1f}' for x in s['old'])} ms -> {old:.1f} ms",
              f"  new (this tree)  rounds: {', '.join(f'{x:.1f}' for x in s['new'])} ms -> {new:.1f} ms",
              f"  ratio old/new {ratio:.2f}x; "
              f"new <= {SEED_TARGET_MS:.0f} ms: {'yes' if new <= SEED_TARGET_MS else 'NO'}; "
              f"ratio >= {SEED_RATIO_TARGET}: {'yes' if ratio >= SEED_RATIO_TARGET else 'NO'}"]
    return lines


def report(results: list[dict], start: dict | None) -> list[str]:
    s = summary(results)
    w, m = s["wall_s"], s["maxrss_mb"]
    lines = [f"{s['count']} PR heads reviewed (statuses: "
             + ", ".join(f"{k} {v}" for k, v in s["statuses"].items()) + ")",
             f"wall      p50 {w['p50']:.3f} s  p95 {w['p95']:.3f} s  max {w['max']:.3f} s",
             f"maxrss    p50 {m['p50']:.1f} MB  p95 {m['p95']:.1f} MB  max {m['max']:.1f} MB",
             f"over {WALL_TARGET_S} s: {s['over_wall']}; over {RSS_TARGET_MB:.0f} MB: {s['over_rss']}; "
             f"failures (exit 2, crash, timeout): {len(s['failures'])}"]
    if start:
        lines.append(f"start-up: --help median {start['help_s']:.3f} s; check on an empty diff median "
                     f"{start['empty_check_s']:.3f} s (5 runs each)")
    lines.append("10 slowest:")
    for r in sorted(results, key=lambda r: -r["wall_s"])[:10]:
        lines.append(f"  #{r['pr']:<5} {r['head'][:10]}  {r['wall_s']:.3f} s  {r['maxrss_mb']:.1f} MB  {r['status']}")
    top = sorted(results, key=lambda r: -r["maxrss_mb"])[:3]
    if top:
        lines.append("largest memory: " + ", ".join(f"#{r['pr']} {r['maxrss_mb']:.1f} MB" for r in top))
    for r in s["failures"]:
        lines.append(f"  FAILED #{r['pr']} {r['head'][:10]} {r['status']} (exit {r['returncode']}): "
                     f"{r.get('stderr', '')}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, help="bare or non-bare git repository (default: clone of the bundle)")
    ap.add_argument("--limit", type=int, help="review only the first N PR heads (by number)")
    ap.add_argument("--prs", help="comma-separated PR numbers (< 2300)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel checks (default 1: sequential timing)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per check before it is killed")
    ap.add_argument("--out", type=Path, help="JSON file: per PR {pr, head, wall_s, maxrss_mb, status}")
    seed = ap.add_mutually_exclusive_group()
    seed.add_argument("--seed-ratio", action="store_true", help="only the seed-ratio measurement")
    seed.add_argument("--no-seed", action="store_true", help="leave the seed-ratio measurement out")
    args = ap.parse_args()

    if args.seed_ratio:
        print("\n".join(seed_report(seed_ratio())), flush=True)
        return 0
    wanted = parse_pr_list(args.prs) if args.prs else None
    with tempfile.TemporaryDirectory(prefix="worst-case-") as tmp:
        tmp = Path(tmp)
        if args.repo is not None:
            repo = args.repo.resolve()
        elif BUNDLE.exists():
            repo = tmp / "mirror.git"
            git("clone", "--quiet", "--mirror", str(BUNDLE.resolve()), str(repo))
        else:
            print("skipped: ../shared absent (give --repo PATH)")
            return 0
        heads = pr_heads(repo)
        if wanted is not None:
            have = dict(heads)
            missing = [n for n in wanted if n not in have]
            if missing:
                print(f"not found: {', '.join(map(str, missing))}", file=sys.stderr)
            heads = [(n, have[n]) for n in wanted if n in have]
        if args.limit is not None:
            heads = heads[:args.limit]
        work = working_clone(repo, tmp)
        print(f"{len(heads)} PR heads (< {HELD_OUT_FROM}) to review, jobs {args.jobs}", flush=True)
        start = startup(work)
        results: list[dict] = []
        t0 = time.monotonic()

        def one(item):
            return review(work, item[0], item[1], args.timeout)

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for i, r in enumerate(pool.map(one, heads), 1):
                results.append(r)
                if i % 100 == 0:
                    print(f"  {i}/{len(heads)} done, {time.monotonic() - t0:.0f} s", flush=True)
        if args.out:
            args.out.write_text(json.dumps(
                [{k: r[k] for k in ("pr", "head", "wall_s", "maxrss_mb", "status")}
                 | ({"stderr": r["stderr"]} if "stderr" in r else {}) for r in results], indent=1) + "\n")
        print("\n".join(report(results, start)), flush=True)
    if not args.no_seed:
        print("\n".join(seed_report(seed_ratio())), flush=True)
    failures = summary(results)["failures"]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
