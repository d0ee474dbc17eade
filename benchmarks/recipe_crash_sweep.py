"""Run every recipe rule on every recipe file of every dev-bundle commit that has a review finding.

    python benchmarks/recipe_crash_sweep.py [--bundle PATH | --repo DIR] [--limit N]

The commits are the `reviewed_commit` and `same_day_commits` of every finding in
`../shared/inferencex/review-findings-dev.jsonl`. At each commit every recipe (`benchmarks/**` YAML)
is reviewed as an added file, with that commit's master configs and runners.yaml as context, by
all recipe rules (RR201–RR249, engine semantics included). Identical (recipe blob, context) pairs
are reviewed once. Prints the files, points and findings per code, the RR000 count (rule
crashes: must be 0) and the slowest files.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.registry import ALL_RULES  # noqa: E402
from rules.runner import run  # noqa: E402

SHARED = ROOT / ".." / "shared" / "inferencex"
RULES = [r for r in ALL_RULES if "RR201" <= r.CODE <= "RR249"]
CONTEXT_SUFFIXES = ("-master.yaml", "configs/runners.yaml")


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], input=data, check=True, capture_output=True).stdout


def commits(findings: Path) -> list[str]:
    out: list[str] = []
    for line in findings.read_text().splitlines():
        r = json.loads(line)
        for c in [r.get("reviewed_commit"), *(r.get("same_day_commits") or [])]:
            if c and c not in out:
                out.append(c)
    return out


def tree(repo: Path, commit: str) -> list[tuple[str, str]]:
    """(path, blob) of every file at a commit."""
    raw = git(repo, "ls-tree", "-r", "-z", commit)
    out = []
    for entry in raw.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        out.append((path.decode(), meta.split()[2].decode()))
    return out


def blobs(repo: Path, ids: list[str]) -> dict[str, bytes]:
    """Contents of blobs, read in one `git cat-file --batch`."""
    raw = git(repo, "cat-file", "--batch", data="".join(f"{i}\n" for i in ids).encode())
    out, pos = {}, 0
    for i in ids:
        header_end = raw.index(b"\n", pos)
        size = int(raw[pos:header_end].split()[2])
        out[i] = raw[header_end + 1: header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", type=Path, default=SHARED / "ix-dev.bundle")
    ap.add_argument("--repo", type=Path, help="an existing clone (skips cloning the bundle)")
    ap.add_argument("--limit", type=int, default=0, help="review at most this many commits")
    args = ap.parse_args()
    repo = args.repo
    if repo is None:
        repo = Path(tempfile.mkdtemp()) / "ix.git"
        subprocess.run(["git", "clone", "-q", "--mirror", str(args.bundle), str(repo)], check=True)
    todo = commits(SHARED / "review-findings-dev.jsonl")
    have = {c for c in todo if subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{c}^{{commit}}"],
                                               capture_output=True).returncode == 0}
    todo = [c for c in todo if c in have][: args.limit or None]
    counts, slow, seen = Counter(), [], set()
    crashes = []
    t0 = time.perf_counter()
    for commit in todo:
        files = tree(repo, commit)
        ctx_files = {p: b for p, b in files if p.endswith(CONTEXT_SUFFIXES) and "/deprecated/" not in p}
        recipes = [(p, b) for p, b in files if p.startswith("benchmarks/") and p.endswith((".yaml", ".yml"))]
        ctx_key = tuple(sorted(ctx_files.values()))
        fresh = [(p, b) for p, b in recipes if (b, ctx_key) not in seen]
        if not fresh:
            continue
        content = blobs(repo, sorted({b for _, b in fresh} | set(ctx_files.values())))
        context = {p: content[b] for p, b in ctx_files.items()}
        for path, blob in fresh:
            seen.add((blob, ctx_key))
            cs = ChangeSet(files=(FileChange(path, "added", head=content[blob]),), context=context)
            s = time.perf_counter()
            report = run(cs, rules=RULES)
            took = time.perf_counter() - s
            slow.append((took, commit[:10], path))
            counts["files"] += 1
            for f in report.findings:
                counts[f.code] += 1
                if f.code == "RR000":
                    crashes.append((commit, path, f.message))
            for c in report.checks:
                counts[f"{c.code} {c.status}"] += 1
        counts["commits"] += 1
    wall = time.perf_counter() - t0
    print(f"{counts['commits']} commits, {counts['files']} distinct (recipe, context) reviews, {wall:.1f} s")
    for k in sorted(k for k in counts if k.startswith("RR") and " " not in k):
        print(f"  {k}: {counts[k]} findings")
    print(f"RR000 (rule crashes): {len(crashes)}")
    for c in crashes[:20]:
        print("  ", *c)
    slow.sort(reverse=True)
    print("slowest:", ", ".join(f"{p.rsplit('/', 1)[-1]} {t * 1000:.0f} ms" for t, _, p in slow[:5]))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
