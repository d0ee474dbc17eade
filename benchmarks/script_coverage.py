"""Resolution coverage of the master configs on a repository revision (issue #10's acceptance figure).

    python benchmarks/script_coverage.py [--repo DIR | --bundle PATH] [--rev REV] [--misses N]

For every key of every master config at REV (default: the bundle's `refs/heads/main`), resolve
each point (`rules.scripts.resolve`) and report, per launcher: points and keys resolved to an
existing benchmark script, to a full engine command line (no unknown word), handed to another tool
(no benchmark script: srt-slurm, llm-d), and the misses with their reason (`--misses` lists them).
Nothing in the repository is executed: launchers and scripts are interpreted.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.localgit import blobs, listing  # noqa: E402
from rules.changeset import ChangeSet  # noqa: E402
from rules.config import EngineConfig, path_matches  # noqa: E402
from rules.context import ReviewContext  # noqa: E402
from rules.master.analysis import master_keys  # noqa: E402
from rules.scripts.resolve import iter_unknown, key_points, resolve_point  # noqa: E402

DEFAULT_BUNDLE = ROOT / ".." / "shared" / "inferencex" / "ix-dev.bundle"


def changeset_at(repo: Path, rev: str) -> ChangeSet:
    """Every master config, runners.yaml, launcher and script at `rev` as context (no changed file)."""
    modes, dirs = listing(repo, rev)
    cfg = EngineConfig()
    p = cfg.paths
    wanted = (*p.master_configs, *p.runners, *p.launchers, *p.scripts)
    want = [x for x, m in modes.items() if m != "040000" and path_matches(x, wanted)]
    got = blobs(repo, [f"{rev}:{x}" for x in want])
    return ChangeSet(files=(), context={x: got[f"{rev}:{x}"] for x in want if got[f"{rev}:{x}"] is not None},
                     tree=modes, listed=dirs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, help="a clone of the repository (default: clone the bundle)")
    ap.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    ap.add_argument("--rev", default="refs/heads/main")
    ap.add_argument("--misses", type=int, default=0, help="list up to N missed keys with their reason")
    args = ap.parse_args(argv)
    repo = args.repo
    if repo is None:
        repo = Path(tempfile.mkdtemp()) / "ix.git"
        subprocess.run(["git", "clone", "-q", "--mirror", str(args.bundle), str(repo)], check=True)
    t0 = time.perf_counter()
    cs = changeset_at(repo, args.rev)
    ctx = ReviewContext(cs, EngineConfig())
    per: dict[str, Counter] = defaultdict(Counter)
    keys_by: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    misses: dict[str, list[str]] = defaultdict(list)
    reasons: Counter = Counter()
    npoints = 0
    for key in master_keys(ctx, "head"):
        for pt in key_points(ctx, key):
            npoints += 1
            r = resolve_point(ctx, pt)
            launcher = r.launcher_link or r.launcher or "(none)"
            c = per[launcher]
            c["points"] += 1
            keys_by[launcher]["all"].add(key)
            if r.no_script:
                c["handed off"] += 1
                keys_by[launcher]["handed off"].add(key)
                continue
            if r.script and r.script_exists:
                c["script"] += 1
                keys_by[launcher]["script"].add(key)
                if r.engine is not None and not list(iter_unknown(r)):
                    c["full"] += 1
                    keys_by[launcher]["full"].add(key)
                else:
                    why = next(iter_unknown(r), "no engine command")
                    reasons[why.split(":")[0][:90]] += 1
                continue
            why = (f"script `{r.script}` does not exist" if r.script else next(iter_unknown(r), "unresolved"))
            reasons[why[:90]] += 1
            misses[launcher].append(f"{key}: {why}")
    elapsed = time.perf_counter() - t0
    print(f"{len(master_keys(ctx, 'head'))} keys, {npoints} points resolved in {elapsed:.1f} s\n")
    print(f"{'launcher':38} {'keys':>5} {'script':>7} {'full cmd':>9} {'handed':>7}   "
          f"points not handed off: script / full")
    tot = Counter()
    for launcher in sorted(per):
        c, kb = per[launcher], keys_by[launcher]
        nk = len(kb["all"])
        tot.update(c)
        own = c["points"] - c["handed off"]  # points that run a benchmark script of this repository
        print(f"{launcher:38} {nk:5} {len(kb['script']):7} {len(kb['full']):9} {len(kb['handed off']):7}   "
              f"{own:5} pts: {c['script'] / max(1, own):6.1%} / {c['full'] / max(1, own):6.1%}")
    single = tot["points"] - tot["handed off"]
    print(f"\nall points: {tot['points']}; handed off {tot['handed off']}; of the rest {single}: "
          f"script {tot['script'] / max(1, single):.1%}, full command line {tot['full'] / max(1, single):.1%}")
    print("\nwhy a point is not fully resolved (top):")
    for why, n in reasons.most_common(15):
        print(f"  {n:5}  {why}")
    if args.misses:
        print("\nmisses:")
        for launcher, rows in sorted(misses.items()):
            for row in sorted(set(rows))[: args.misses]:
                print(f"  {launcher}: {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
