"""Agreement of the changelog findings with the repository's own gates, on every real changelog PR.

    python benchmarks/changelog_gates.py [--repo MIRROR] [--limit N] [--prs 1717,2238] [--jobs 2]
                                         [--tool-python python3] [--cache FILE] [--list]

For every pull request of the InferenceX dev bundle (`../shared/inferencex/ix-dev.bundle`) whose
head changes `perf-changelog.yaml` against its merge base with `main`, this builds a two-commit
scratch repository (commit 1: the base's changelog, master configs and runners.yaml; commit 2:
the head's), puts the bundle **main** branch's `utils/` beside it (the trusted tooling, never the
PR's copy), and runs, in a separate process with an interpreter that has PyYAML and pydantic:

* the PR-run check: `utils/validate_perf_changelog.py --base-ref <base> --head-ref <head>`;
* the merge path: `utils/prepare_perf_changelog_merge.py canonicalize --base-ref <base>
  --pr-number N` on the head checkout.

Nothing of a PR is executed: the PR's files are data in the scratch repository; the code that
runs is the bundle main's `utils/`. The bot reviews the same base and head (`recipe-review`'s
rules in-process), judged by the conventions of the tooling that judges here (bundle main's
date), and the script compares:

* every rejection of a gate must be a blocking bot finding that names that gate;
* on a PR both gates accept, a blocking changelog finding must say "Both gates accept this"
  (a documented-contract rule), never name a gate.

Rejections caused only by *schema drift* — the PR-run check validates every master config with
main's schema, and keys the PR did not change fail it because the PR's base predates a schema
change — are not the PR's doing; they are counted and listed separately, not as disagreements.
Tool verdicts are cached (`--cache`, default in the temp directory) by tooling commit, base and
head, so a rerun only re-runs the bot. Prints the figures per gate and every disagreement.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.localgit import changeset_from_git  # noqa: E402
from rules.runner import run  # noqa: E402

BUNDLE = ROOT / ".." / "shared" / "inferencex" / "ix-dev.bundle"
CHANGELOG = "perf-changelog.yaml"
MASTER_NAMES = ("amd-master.yaml", "nvidia-master.yaml")
CONFIG_DIRS = ("configs", ".github/configs")
PR_RUN_SAYS = ("Rejected by the PR-run",)
MERGE_SAYS = ("the merge path rejects it at merge", "and by the merge path at merge")
CONTRACT_SAYS = ("Both gates accept this", "had no merge-path check")


def git(repo: Path | str, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    p = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, input=input)
    if check and p.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout


def mirror(path: str | None) -> Path:
    if path:
        return Path(path)
    target = Path(tempfile.gettempdir()) / "recipe-review-ix.git"
    if not target.exists():
        subprocess.run(["git", "clone", "-q", "--mirror", str(BUNDLE), str(target)], check=True)
    return target


def changelog_prs(repo: Path) -> list[tuple[int, str, str]]:
    """(number, head sha, merge-base sha) of every PR whose head changes the changelog."""
    refs = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/pull").decode().split("\n")
    main = git(repo, "rev-parse", "refs/heads/main").decode().strip()
    out = []
    for line in refs:
        m = re.match(r"refs/pull/(\d+)/head (\w+)", line)
        if not m:
            continue
        n, head = int(m.group(1)), m.group(2)
        mb = git(repo, "merge-base", main, head, check=False).decode().strip()
        if not mb:
            continue
        if subprocess.run(["git", "-C", str(repo), "diff", "--quiet", mb, head, "--", CHANGELOG]).returncode == 1:
            out.append((n, head, mb))
    return sorted(out)


def show(repo: Path, rev: str, path: str) -> bytes | None:
    p = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", f"{rev}:{path}"], capture_output=True)
    return p.stdout if p.returncode == 0 else None


def tree_files(repo: Path, rev: str) -> dict[str, bytes]:
    """The files the gates read, at their main-layout paths (configs/ at the root)."""
    out = {}
    raw = show(repo, rev, CHANGELOG)
    if raw is not None:
        out[CHANGELOG] = raw
    for d in CONFIG_DIRS:
        for name in (*MASTER_NAMES, "runners.yaml"):
            blob = show(repo, rev, f"{d}/{name}")
            if blob is not None and f"configs/{name}" not in out:
                out[f"configs/{name}"] = blob
    return out


@dataclasses.dataclass
class ToolVerdict:
    pr_run_ok: bool
    pr_run_error: str
    merge_ok: bool
    merge_error: str
    seconds: float


def _last_error(text: str) -> str:
    lines = [ln for ln in text.strip().split("\n") if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith(("ERROR:", "ValueError:", "KeyError:", "subprocess.CalledProcessError", "pydantic")):
            return ln.strip()
    return (lines[-1] if lines else "").strip()


def run_tools(repo: Path, utils: Path, number: int, base: str, head: str, python: str) -> ToolVerdict:
    t0 = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="gates-"))
    try:
        git(scratch, "init", "-q")
        git(scratch, "config", "user.email", "bench@example.invalid")
        git(scratch, "config", "user.name", "bench")
        (scratch / ".git" / "info" / "exclude").write_text("utils\n")
        (scratch / "utils").symlink_to(utils / "utils", target_is_directory=True)
        shas = []
        for rev in (base, head):
            for p in list(scratch.glob("configs/*")) + [scratch / CHANGELOG]:
                if p.exists():
                    p.unlink()
            for path, blob in tree_files(repo, rev).items():
                dest = scratch / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(blob)
            git(scratch, "add", "-A")
            git(scratch, "commit", "-q", "--allow-empty", "-m", rev[:12])
            shas.append(git(scratch, "rev-parse", "HEAD").decode().strip())
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        pr = subprocess.run([python, "utils/validate_perf_changelog.py", "--base-ref", shas[0], "--head-ref", shas[1],
                             "--changelog-file", CHANGELOG], cwd=scratch, capture_output=True, text=True, env=env,
                            timeout=600)
        mg = subprocess.run([python, "utils/prepare_perf_changelog_merge.py", "canonicalize", "--changelog-file",
                             CHANGELOG, "--base-ref", shas[0], "--pr-number", str(number)], cwd=scratch,
                            capture_output=True, text=True, env=env, timeout=600)
        return ToolVerdict(pr.returncode == 0, _last_error(pr.stderr + "\n" + pr.stdout) if pr.returncode else "",
                           mg.returncode == 0, _last_error(mg.stderr) if mg.returncode else "",
                           time.perf_counter() - t0)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


_STAGE_PATTERNS = [
    ("final-newline", r"does not end with a newline"),
    ("deleted-line", r"Deletions are not allowed"),
    ("no-additions", r"No additions found|No valid YAML entries"),
    ("master-schema", r"Master config entry '[^']+' failed validation|Duplicate configuration keys|Wildcard '\*'"),
    (
        "config-key",
        r"not found in master configs|No config keys matched|matched no config keys|Config key\(s\) not found",
    ),
    ("entry-schema", r"validation error.? for ChangelogEntry|ChangelogEntry validation"),
    ("added-yaml", r"yaml\.|Scanner|Parser|Composer|Constructor|mapping values are not allowed"),
    ("generator", r"CalledProcessError|generate_sweep_configs|failed validation"),
]


_MERGE_PATTERNS = [
    ("final-newline", r"does not end with a newline"),
    ("file-format", r"contains (CR|tabs|NUL)|is not UTF-8"),
    ("file-yaml", r"is not valid YAML"),
    ("entry-count", r"top-level config entries but YAML parsed"),
    ("entry-schema", r"fails ChangelogEntry validation|is not a mapping"),
    ("entries-deleted", r"entries were deleted"),
    ("entry-changed", r"changed; existing entries are immutable"),
    ("correction-invalid", r"correction is not canonical|do not mix historical"),
    ("added-pr-link", r"new PR entry must use|unexpected pr-link"),
    ("raw-prefix", r"changed historical perf-changelog.yaml bytes"),
    ("separator-history", r"separated from history"),
    ("separator-between", r"exactly one empty separator line"),
    ("trailing-empty-line", r"must end with one newline"),
    ("corrections-raw", r"pr-link corrections may not|outside a pr-link line|changed pr-link line"),
    ("no-change", r"no appended entry or pr-link correction"),
]


def merge_stage_of(error: str) -> str:
    for stage, pat in _MERGE_PATTERNS:
        if re.search(pat, error):
            return stage
    return "other"


def stage_of(error: str) -> str:
    for stage, pat in _STAGE_PATTERNS:
        if re.search(pat, error):
            return stage
    return "other"


@dataclasses.dataclass
class Outcome:
    number: int
    base: str
    head: str
    tool: ToolVerdict
    blocking: list[str]  # "CODE: message" of blocking findings
    drift: bool = False  # the PR-run rejection is schema drift on keys the PR did not change
    merge_drift: bool = False  # the merge path rejects the base's own history under main's entry schema
    bot_ms: float = 0.0
    crashed: bool = False


def bot_review(
    repo: Path, number: int, base: str, head: str, judge_time: int
) -> tuple[list[str], set[str], float, bool]:
    cs = changeset_from_git(repo, base, head, pr_number=number)
    cs = dataclasses.replace(cs, repo="SemiAnalysisAI/InferenceX", base_time=judge_time)
    t = time.perf_counter()
    report = run(cs)
    ms = (time.perf_counter() - t) * 1000
    crashed = any(f.code == "RR000" for f in report.findings)
    from rules.context import ReviewContext
    from rules.master.analysis import changed_keys

    changed = {c.key for c in changed_keys(ReviewContext(cs))}
    return [f"{f.code}: {f.message}" for f in report.findings if f.blocking], changed, ms, crashed


def _says(msgs: list[str], phrases) -> list[str]:
    return [m for m in msgs if any(p in m for p in phrases)]


# The tool's reason (stage) -> the rules whose findings report that reason.
PR_RUN_CODES = {"deleted-line": ("RR002", "RR015"), "final-newline": ("RR006", "RR015"), "master-schema": ("RR104",),
                "config-key": ("RR008", "RR018"), "generator": ("RR105",), "entry-schema": ("RR003", "RR018"),
                "no-additions": ("RR002",), "added-yaml": ("RR002", "RR003", "RR006", "RR012")}
MERGE_CODES = {"entry-changed": ("RR001", "RR002"), "added-pr-link": ("RR004",), "separator-history": ("RR007",),
               "separator-between": ("RR007",), "entries-deleted": ("RR002",), "raw-prefix": ("RR002",),
               "final-newline": ("RR006", "RR015"), "trailing-empty-line": ("RR006",),
               "entry-schema": ("RR003", "RR018"), "file-yaml": ("RR003", "RR006", "RR012"),
               "correction-invalid": ("RR002",), "no-change": ("RR002",), "entry-count": ("RR006",),
               "file-format": ("RR006",), "corrections-raw": ("RR002",)}


def evaluate(o: Outcome) -> list[tuple[str, str]]:
    """(kind, detail) of each disagreement."""
    bad = []
    t = o.tool
    pr_named = _says(o.blocking, PR_RUN_SAYS)
    merge_named = _says(o.blocking, MERGE_SAYS)
    if not t.pr_run_ok and not o.drift and pr_named:
        want = PR_RUN_CODES.get(stage_of(t.pr_run_error))
        if want and not any(m.split(":")[0] in want for m in pr_named):
            bad.append(("pr-run named, but not by a finding for the tool's reason", t.pr_run_error))
    if not t.merge_ok and not o.merge_drift and merge_named:
        want = MERGE_CODES.get(merge_stage_of(t.merge_error))
        if want and not any(m.split(":")[0] in want for m in merge_named):
            bad.append(("merge path named, but not by a finding for the tool's reason", t.merge_error))
    if not t.pr_run_ok and not o.drift and not pr_named:
        bad.append(("pr-run rejects, no blocking finding names it", t.pr_run_error))
    if not t.merge_ok and not o.merge_drift and not merge_named:
        bad.append(("merge path rejects, no blocking finding names it", t.merge_error))
    if t.pr_run_ok and pr_named:
        bad.append(("bot names the PR-run check, which accepts", pr_named[0]))
    if o.drift:  # the tool passed the newline, deletion, additions and YAML stages before it stopped
        early = [m for m in pr_named if m.split(":")[0] in ("RR002", "RR006", "RR015", "RR012")]
        if early:
            bad.append(("bot names the PR-run check for a stage the tool passed (before schema drift)", early[0]))
    if t.merge_ok and merge_named:
        bad.append(("bot names the merge path, which accepts", merge_named[0]))
    if t.pr_run_ok and t.merge_ok:
        loose = [m for m in o.blocking if re.match(r"RR0[0-4]\d:", m) and not any(p in m for p in CONTRACT_SAYS)
                 and m not in pr_named and m not in merge_named]
        if loose:
            bad.append(("both gates accept; blocking changelog finding without its gate", loose[0]))
    return bad


def load_cache(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def main(argv=None) -> int:  # noqa: C901 (the CLI driver: arguments, the parallel replay, then the report)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", help="a mirror clone of the bundle (default: cloned once into the temp directory)")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--prs", help="comma-separated PR numbers")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tool-python", default="python3", help="interpreter with PyYAML and pydantic for the tooling")
    ap.add_argument("--cache", help="tool-verdict cache (JSON)")
    ap.add_argument("--list", action="store_true", help="print every PR's verdicts and blocking codes")
    ap.add_argument("--json", help="write the outcomes here")
    args = ap.parse_args(argv)
    if not args.repo and not BUNDLE.exists():
        print(f"bundle not found at {BUNDLE}", file=sys.stderr)
        return 2
    check = subprocess.run([args.tool_python, "-c", "import yaml, pydantic"], capture_output=True)
    if check.returncode:
        print(f"{args.tool_python} lacks PyYAML or pydantic (the tooling needs both)", file=sys.stderr)
        return 2
    repo = mirror(args.repo)
    main_sha = git(repo, "rev-parse", "refs/heads/main").decode().strip()
    judge_time = int(git(repo, "show", "-s", "--format=%ct", main_sha).decode().strip())
    utils = Path(tempfile.mkdtemp(prefix="gates-utils-"))
    subprocess.run(f"git -C {repo} archive {main_sha} utils | tar -x -C {utils}", shell=True, check=True)
    cache_path = (
        Path(args.cache) if args.cache else Path(tempfile.gettempdir()) / f"recipe-review-gates-{main_sha[:12]}.json"
    )
    cache = load_cache(cache_path)
    prs = changelog_prs(repo)
    if args.prs:
        want = {int(x) for x in args.prs.split(",")}
        prs = [p for p in prs if p[0] in want]
    if args.limit:
        prs = prs[:args.limit]
    todo = [p for p in prs if f"{p[2]}..{p[1]}" not in cache]
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {
            pool.submit(run_tools, repo, utils, n, mb, head, args.tool_python): (n, head, mb) for n, head, mb in todo
        }
        for k, fut in enumerate(cf.as_completed(futs), 1):
            n, head, mb = futs[fut]
            try:
                cache[f"{mb}..{head}"] = dataclasses.asdict(fut.result())
            except (subprocess.TimeoutExpired, RuntimeError) as err:
                print(f"  #{n}: tools failed to run: {err}", file=sys.stderr)
            if k % 50 == 0:
                cache_path.write_text(json.dumps(cache))
                print(f"  tools: {k}/{len(todo)} PRs, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    cache_path.write_text(json.dumps(cache))
    shutil.rmtree(utils, ignore_errors=True)
    tools_s = time.perf_counter() - t0

    outcomes: list[Outcome] = []
    for n, head, mb in prs:
        if f"{mb}..{head}" not in cache:
            continue
        tv = ToolVerdict(**cache[f"{mb}..{head}"])
        blocking, changed, ms, crashed = bot_review(repo, n, mb, head, judge_time)
        o = Outcome(n, mb, head, tv, blocking, bot_ms=ms, crashed=crashed)
        m = re.search(r"Master config entry '([^']+)' failed validation", tv.pr_run_error)
        o.drift = bool(m) and m.group(1) not in changed
        o.merge_drift = bool(re.search(r"ERROR: base perf-changelog\.yaml (entry \d+ fails ChangelogEntry|has \d+ "
                                       r"top-level|is not valid YAML|root must)", tv.merge_error))
        outcomes.append(o)

    gates = {
        "pr-run": [o for o in outcomes if not o.tool.pr_run_ok],
        "merge": [o for o in outcomes if not o.tool.merge_ok],
    }
    drift = [o for o in outcomes if o.drift]
    both_ok = [o for o in outcomes if o.tool.pr_run_ok and o.tool.merge_ok]
    print(f"PRs whose head changes {CHANGELOG}: {len(outcomes)} (tools {tools_s:.0f} s for {len(todo)} uncached; "
          f"judged by the tooling of main {main_sha[:10]})")
    for name, rej in gates.items():
        said = MERGE_SAYS if name == "merge" else PR_RUN_SAYS
        real = [o for o in rej if not (o.drift if name == "pr-run" else o.merge_drift)]
        named = [o for o in real if _says(o.blocking, said)]
        stages = Counter(stage_of(o.tool.pr_run_error) if name == "pr-run" else merge_stage_of(o.tool.merge_error)
                         for o in real)
        print(
            f"  {name}: rejects {len(rej)}"
            + (f" ({len(drift)} schema drift only, excluded)" if name == "pr-run" else "")
            + (
                f" ({sum(o.merge_drift for o in rej)} rejecting the base's own history, excluded)"
                if name == "merge"
                else ""
            )
            + f"; a blocking finding names the gate on {len(named)} of {len(real)}"
            + f" ({100 * len(named) / max(len(real), 1):.1f} %); by stage: "
            + ", ".join(f"{k} {v}" for k, v in stages.most_common())
        )
    wrong_gate = [o for o in outcomes if evaluate(o) and any(k.startswith("bot names") for k, _ in evaluate(o))]
    print(f"  both gates accept: {len(both_ok)}; blocking changelog findings there: "
          f"{sum(1 for o in both_ok if any(re.match(r'RR0[0-4]', m) for m in o.blocking))} PRs, all contract-only "
          f"unless listed below; bot names a gate that accepts: {len(wrong_gate)} PRs")
    contract = Counter(m.split(":")[0] for o in both_ok for m in o.blocking if any(p in m for p in CONTRACT_SAYS))
    print("  documented-contract blocking findings on PRs both gates accept, by code: "
          + ", ".join(f"{c} {n}" for c, n in sorted(contract.items())))
    times = sorted(o.bot_ms for o in outcomes)
    if times:
        print(
            f"  bot time per PR: median {times[len(times) // 2]:.0f} ms, p95 "
            f"{times[int(len(times) * 0.95) - 1]:.0f} ms, "
            f"max {times[-1]:.0f} ms; rule crashes: {sum(o.crashed for o in outcomes)}"
        )
    print(f"  schema drift (PR-run rejects a master key the PR did not change): {len(drift)} PRs: "
          + ", ".join(f"#{o.number}" for o in drift[:40]) + (" …" if len(drift) > 40 else ""))
    mdrift = [o for o in outcomes if o.merge_drift]
    print(f"  history drift (the merge path rejects the base's own entries under main's entry schema): {len(mdrift)} "
          "PRs: " + ", ".join(f"#{o.number}" for o in mdrift[:40]) + (" …" if len(mdrift) > 40 else ""))
    dis = [(o, k, d) for o in outcomes for k, d in evaluate(o)]
    print(f"disagreements: {len(dis)} in {len({o.number for o, _, _ in dis})} PRs")
    for o, kind, detail in dis:
        print(f"  #{o.number} [{kind}] {detail[:220]}")
    if args.list:
        for o in outcomes:
            print(f"#{o.number} pr-run={'ok' if o.tool.pr_run_ok else stage_of(o.tool.pr_run_error)} "
                  f"merge={'ok' if o.tool.merge_ok else merge_stage_of(o.tool.merge_error)} drift={o.drift} "
                  f"blocking={[m.split(':')[0] for m in o.blocking]}")
    if args.json:
        Path(args.json).write_text(json.dumps([dataclasses.asdict(o) for o in outcomes], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
