"""What the App posts on a huge real PR, measured on the fake GitHub (issue targets in brackets).

InferenceX #1709 at `186b4e89` (an integration branch: 70 findings, 61 of them `RR011` in two master
configs) is loaded from `../shared/inferencex/ix-dev.bundle` into a scratch repository behind the
fake GitHub, and the bot reviews it over real HTTP:

1. `opened`: comments posted, per rule and file [≤ 1 per rule per file], in all [≤ 20].
2. A `synchronize` of the same head: writes [0].
3. `/ignore RR011 <reason>` by a `write` collaborator [refused], then by a `maintain` one [accepted:
   the check counts only the other blocking findings], then a push [still ignored].

    python benchmarks/huge_pr.py [--pr 1709 --head 186b4e89] [--json out.json]
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

from bot import render  # noqa: E402
from tests.bot.scenario import BundleScenario, writes  # noqa: E402

BUNDLE = ROOT / ".." / "shared" / "inferencex" / "ix-dev.bundle"


def top_comments(state) -> list[dict]:
    return [c for c in state["review_comments"] if c.get("in_reply_to_id") is None]


def head_check(state, number: int) -> dict:
    head = state["prs"][str(number)]["head"]["sha"]
    (cr,) = [r for r in state["check_runs"] if r["name"] == render.CHECK_RUN_NAME and r["head_sha"] == head]
    return cr


def dump(state, where: Path) -> None:
    where.mkdir(parents=True, exist_ok=True)
    for c in top_comments(state):
        (where / f"inline-{c['id']}.md").write_text(f"{c['path']}:{c['line']}\n\n{c['body']}")
    for c in state["issue_comments"]:
        (where / f"comment-{c['id']}.md").write_text(c["body"])


def measure(mirror: Path, number: int, head: str, work: Path, dump_to: Path | None = None) -> dict:
    out: dict = {"pr": number, "head": head}
    s = BundleScenario(work, mirror, number, head, collaborators={"maint": "maintain", "writer": "write"})
    try:
        t = time.monotonic()
        s.deliver("pull_request", s.payload("opened"))
        state = s.settle()
        out["review_s"] = round(time.monotonic() - t, 2)
        posted = top_comments(state)
        per = Counter((render.parse_finding_marker(c["body"])[0], c["path"]) for c in posted)
        out["comments"] = len(posted)
        out["max_per_rule_file"] = max(per.values(), default=0)
        out["per_rule_file"] = {f"{code} {path}": n for (code, path), n in sorted(per.items())}
        cr = head_check(state, number)
        out["check"] = [cr["conclusion"], cr["output"]["title"]]
        out["summary_chars"] = len(next(c["body"] for c in state["issue_comments"]
                                        if render.SUMMARY_MARKER in c["body"]))

        before = len(state["calls"])
        s.deliver("pull_request", s.payload("synchronize"))
        state = s.settle()
        out["rerun_calls"] = len(state["calls"]) - before
        out["rerun_writes"] = len(writes(state["calls"][before:]))

        s.comment("writer", "/ignore RR011 integration branch")
        state = s.settle()
        out["ignore_by_writer"] = [head_check(state, number)["output"]["title"],
                                   any("needs `maintain` permission" in c["body"] for c in state["issue_comments"])]
        s.comment("maint", "/ignore RR011 integration branch: the keys are swept by the follow-up PRs")
        state = s.settle()
        cr = head_check(state, number)
        out["ignore_by_maintainer"] = [cr["conclusion"], cr["output"]["title"]]
        changelog = s.show("perf-changelog.yaml")
        s.push({"perf-changelog.yaml": changelog.rstrip(b"\n") + b"\n"}, "touch the changelog")
        state = s.settle()
        cr = head_check(state, number)
        out["after_push"] = [cr["head_sha"][:8], cr["conclusion"], cr["output"]["title"]]
        out["open_threads"] = sum(1 for t in state["review_threads"] if not t["is_resolved"])
        if dump_to is not None:
            dump(state, dump_to)
    finally:
        s.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", type=Path, default=BUNDLE)
    ap.add_argument("--mirror", type=Path, help="an existing `git clone --mirror` of the bundle")
    ap.add_argument("--pr", type=int, default=1709)
    ap.add_argument("--head", default="186b4e89")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--dump", type=Path, help="write every posted body (Markdown) into this directory")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        mirror = args.mirror
        if mirror is None:
            if not args.bundle.exists():
                print(f"bundle not found: {args.bundle}", file=sys.stderr)
                return 2
            mirror = work / "ix.git"
            subprocess.run(["git", "clone", "-q", "--mirror", str(args.bundle), str(mirror)], check=True)
        result = measure(mirror, args.pr, args.head, work, args.dump)
    for k, v in result.items():
        print(f"{k:>22}: {v}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    ok = result["max_per_rule_file"] <= 1 and result["comments"] <= 20 and result["rerun_writes"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
