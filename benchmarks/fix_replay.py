"""Replay `fix` over every real InferenceX PR whose head has a changelog finding it claims to fix.

    python benchmarks/fix_replay.py [--ix MIRROR] [--prs 1073,1811] [--limit N] [--no-validator]
                                    [--json OUT]

Reads ../shared/inferencex/ix-dev.bundle (cloned once into a temporary mirror unless `--ix` names
one). For every `refs/pull/<N>/head` that changes `perf-changelog.yaml` against
merge-base(main, head) and has an RR001, RR002, RR004, RR005, RR006 or RR007 finding, it runs
`rules.fix.plan_fix` (the code behind `recipe-review fix` and `/fix`) and checks the result:

1. **bytes**: the fixed file starts with the base bytes exactly, the rest is the separator the
   validator expects followed by head blocks (entries) in their head order, each unchanged apart
   from its `pr-link` line (this PR's canonical link) and whitespace-only lines, and every head
   block that is neither in base nor a historical entry (its link is another base entry's link)
   is among them — checked here on bytes, independently of the analysis the fix uses;
2. **re-check**: the six rules find nothing in the fixed file; and the stricter changelog rules
   that read only the changelog (`STRICT_CODES`: placement, history, links, format, separators,
   append-only, the base's final newline, whitespace-only lines) find nothing blocking either,
   while the content rules (`CONTENT_CODES`: schema, placeholder descriptions, empty config keys,
   duplicates; the fix does not write content) are counted before and after; and the emulated
   gates (`rules.changelog.gates`: the PR-run check's changelog stages and the merge path, by
   today's conventions) accept the fixed file;
3. **the repository's own validator** (`utils/` of the bundle's main, run in a separate process on
   a two-commit scratch repository: the merge base's tree, then the PR head's tree with the fixed
   changelog, main's `utils/` in the working tree):
   - the PR-run check, as CI invokes it: `validate_perf_changelog.py --base-ref base --head-ref pr`
     (it also runs `process_changelog.py`, which resolves the entries' config keys against the
     head's master configs and generates the sweep);
   - the merge path, as `merge_with_reuse.sh` invokes it: `prepare_perf_changelog_merge.py
     canonicalize --changelog-file perf-changelog.yaml --base-ref base --pr-number N` (the strict
     parse, compare and raw-byte checks); it must answer "already prepared".

Prints the counts, the PRs the fix refused (with its reason), and every failure of the checks
above with the validator's last error line. The validator needs PyYAML (a test dependency).
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.localgit import _patch_of  # noqa: E402
from rules.changelog.gates import changelog_gates  # noqa: E402
from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.context import ReviewContext  # noqa: E402
from rules.fix import plan_fix, with_heads  # noqa: E402
from rules.registry import by_code  # noqa: E402
from rules.runner import run  # noqa: E402

SHARED = ROOT / ".." / "shared" / "inferencex"
BUNDLE = SHARED / "ix-dev.bundle"
PRS = SHARED / "prs-dev.jsonl.xz"
REPO = "SemiAnalysisAI/InferenceX"
PATH = "perf-changelog.yaml"
CODES = ("RR001", "RR002", "RR004", "RR005", "RR006", "RR007")
RULES = [by_code(c) for c in CODES]
STRICT_CODES = ("RR001", "RR002", "RR004", "RR005", "RR006", "RR007", "RR014", "RR015", "RR016")
CONTENT_CODES = ("RR003", "RR017", "RR018", "RR020")
STRICT_RULES = [by_code(c) for c in STRICT_CODES + CONTENT_CODES]
_ENTRY = re.compile(rb"(?m)^- config-keys:")
_LINK_LINE = re.compile(rb"(?m)^  pr-link:[^\n]*$")
_ERROR_LINE = re.compile(r"^(?:ERROR: |[\w.]*(?:Error|Exception): )")
# Where a PR-run rejection comes from: the changelog diff itself, or a later stage (the entries'
# config keys against the head's master configs, main's master-config schema, sweep generation).
STAGES = (("master configs (main's schema vs the PR's tree)",
           re.compile(r"Master config entry|Input file .* does not exist|^\[loading the master configs\]")),
          ("entry config keys", re.compile(r"Config key '.*' not found|No config keys matched")),
          ("sweep generation", re.compile(r"generate_sweep_configs|CalledProcessError|Error generating")))


class Git:
    def __init__(self, path: Path):
        self.path = path

    def __call__(self, *args: str, check: bool = True, env: dict | None = None, input: bytes | None = None) -> bytes:
        proc = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True, input=input,
                              env={**os.environ, **(env or {})})
        if check and proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args[:3])}: {proc.stderr.decode(errors='replace').strip()}")
        return proc.stdout

    def blob(self, rev: str, path: str) -> bytes | None:
        proc = subprocess.run(["git", "-C", str(self.path), "cat-file", "blob", f"{rev}:{path}"], capture_output=True)
        return proc.stdout if proc.returncode == 0 else None


def mirror(path: str | None, tmp: Path) -> Git:
    if path:
        return Git(Path(path))
    dest = tmp / "ix.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(BUNDLE), str(dest)], check=True)
    return Git(dest)


def changeset(git: Git, number: int) -> tuple[ChangeSet, str] | None:
    ref = f"refs/pull/{number}/head"
    mb = git("merge-base", "refs/heads/main", ref, check=False).decode().strip()
    if not mb:
        return None
    status = git("diff", "--name-status", mb, ref, "--", PATH).decode().split()
    if not status:
        return None
    code = status[0][:1]
    kind = {"A": "added", "D": "removed"}.get(code, "modified")
    patch, _ = _patch_of(git("diff", mb, ref, "--", PATH))
    f = FileChange(PATH, kind, base=None if kind == "added" else git.blob(mb, PATH),
                   head=None if kind == "removed" else git.blob(ref, PATH), patch=patch)
    return ChangeSet(files=(f,), pr_number=number, repo=REPO), mb


# ---------------------------------------------------------------------------------------------
# 1. bytes, checked independently of rules.changelog


def _blocks(data: bytes) -> list[bytes]:
    starts = [m.start() for m in _ENTRY.finditer(data)]
    return [data[s:(starts[k + 1] if k + 1 < len(starts) else len(data))].rstrip() for k, s in enumerate(starts)]


def _norm(block: bytes) -> bytes:
    rows = block.replace(b"\r\n", b"\n").split(b"\n")
    return b"\n".join(b"" if not r.strip() else r for r in rows if not r.startswith(b"  pr-link:"))


def _link(block: bytes) -> bytes | None:
    m = _LINK_LINE.search(block)
    return m.group(0).split(b":", 1)[1].strip().strip(b"'\"") if m else None


def check_bytes(base: bytes, head: bytes, out: bytes, number: int) -> list[str]:
    problems = []
    if not out.startswith(base):
        return ["the fixed file does not start with the base bytes"]
    suffix = out[len(base):]
    if not suffix:
        extra = [b for b in _blocks(head) if b not in set(_blocks(base))]
        return [f"nothing appended, but head has {len(extra)} block(s) not in base"] if extra else []
    lead = b"" if base.endswith(b"\n\n") or not base else b"\n"
    if not suffix.startswith(lead + b"- config-keys:"):
        problems.append(f"the appended part starts with {suffix[:20]!r}")
    if not out.endswith(b"\n") or out.endswith(b"\n\n"):
        problems.append("the file does not end with exactly one newline")
    appended = [s for s in re.split(rb"\n\n(?=- config-keys:)", suffix[len(lead):].rstrip(b"\n"))]
    for a in appended:
        if _link(a) is not None and _link(a) != f"https://github.com/{REPO}/pull/{number}".encode():
            problems.append(f"appended entry has pr-link {_link(a)!r}")  # (no pr-link at all: RR003's)
    # Head blocks that are base blocks byte for byte are history; of the rest, one whose text
    # (pr-link aside) or whose link belongs to a base block missing from head is an edited
    # historical entry (restored from base); everything else is the PR's.
    left = Counter(_blocks(base))
    rest = []
    for b in _blocks(head):
        if left[b] > 0:
            left[b] -= 1
        else:
            rest.append(b)
    missing = [b for b, k in left.items() for _ in range(k)]
    missing_norms = Counter(_norm(b) for b in missing)
    missing_links = Counter(_link(b) for b in missing)
    wanted = []
    for b in rest:
        link = _link(b)
        own = link in (None, b"XXX") or link.endswith(b"/pull/XXX") or link.endswith(f"/{number}".encode())
        if missing_norms[_norm(b)] > 0:
            missing_norms[_norm(b)] -= 1
            continue
        if link is not None and not own and missing_links[link] > 0:
            missing_links[link] -= 1
            continue
        wanted.append(_norm(b))
    got = [_norm(a) for a in appended]
    if got != wanted:
        first = next((k for k, (x, y) in enumerate(zip(got, wanted, strict=False)) if x != y),
                     min(len(got), len(wanted)))
        problems.append(
            f"appended {len(got)} block(s), head has {len(wanted)} new block(s) (first difference at #{first})"
        )
    return problems


# ---------------------------------------------------------------------------------------------
# 3. the repository's own validator


class Scratch:
    """A repository whose history is exactly two commits (objects borrowed from the mirror)."""

    def __init__(self, git: Git, tmp: Path):
        self.git = git
        self.utils = tmp / "utils-main"
        self.utils.mkdir()
        archive = git("archive", "refs/heads/main", "utils")
        subprocess.run(["tar", "-x", "-C", str(self.utils)], input=archive, check=True)
        self.path = tmp / "scratch"
        subprocess.run(["git", "init", "-q", str(self.path)], check=True)
        (self.path / ".git" / "objects" / "info" / "alternates").write_text(str(git.path / "objects") + "\n")
        self.s = Git(self.path)
        self.index = tmp / "index"

    def prepare(self, mb: str, head_ref: str, content: bytes) -> None:
        g = self.git
        blob = g("hash-object", "-w", "--stdin", input=content).decode().strip()
        env = {"GIT_INDEX_FILE": str(self.index)}
        g("read-tree", f"{head_ref}^{{tree}}", env=env)
        g("update-index", "--add", "--cacheinfo", f"100644,{blob},{PATH}", env=env)
        tree = g("write-tree", env=env).decode().strip()
        ident = {"GIT_AUTHOR_NAME": "replay", "GIT_AUTHOR_EMAIL": "replay@example.com",
                 "GIT_COMMITTER_NAME": "replay", "GIT_COMMITTER_EMAIL": "replay@example.com"}
        a = g("commit-tree", "-m", "merge base", f"{mb}^{{tree}}", env=ident).decode().strip()
        b = g("commit-tree", "-m", "PR head, changelog fixed", "-p", a, tree, env=ident).decode().strip()
        self.s("update-ref", "refs/heads/base", a)
        self.s("update-ref", "refs/heads/pr", b)
        self.s("checkout", "-q", "-f", "pr")
        self.s("clean", "-q", "-fdx")
        shutil.rmtree(self.path / "utils", ignore_errors=True)
        shutil.copytree(self.utils / "utils", self.path / "utils")
        # Main's tooling reads `configs/`; PR trees from before the move keep them in `.github/configs/`.
        if not (self.path / "configs").exists() and (self.path / ".github" / "configs").is_dir():
            shutil.copytree(self.path / ".github" / "configs", self.path / "configs")
        assert self.s("rev-list", "--all").split() and len(self.s("rev-list", "--all").split()) == 2

    def _py(self, *args: str) -> tuple[int, str]:
        proc = subprocess.run([sys.executable, *args], cwd=self.path, capture_output=True, text=True, timeout=900)
        if proc.returncode == 0:
            return 0, proc.stdout.strip()
        text = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        errors = [ln for ln in text if _ERROR_LINE.match(ln)]
        message = (errors[-1] if errors else text[-1] if text else "").strip()
        if "in load_config_files" in proc.stderr:  # the traceback says where: loading the master configs
            message = f"[loading the master configs] {message}"
        return proc.returncode, message

    def pr_run(self) -> tuple[int, str]:
        return self._py("utils/validate_perf_changelog.py", "--base-ref", "base", "--head-ref", "pr")

    def merge_path(self, number: int) -> tuple[int, str]:
        return self._py("utils/prepare_perf_changelog_merge.py", "canonicalize", "--changelog-file", PATH,
                        "--base-ref", "base", "--pr-number", str(number), "--repo", REPO)


def ci_verdicts() -> dict[int, dict]:
    if not PRS.exists():
        return {}
    out = {}
    with lzma.open(PRS, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out[rec["number"]] = rec.get("verdicts") or {}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ix", help="an existing `git clone --mirror` of the bundle")
    ap.add_argument("--prs", help="comma-separated PR numbers (default: all)")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--no-validator", action="store_true", help="skip the repository's validator runs")
    ap.add_argument("--json", help="write every outcome to this file")
    args = ap.parse_args(argv)
    if not BUNDLE.exists() and not args.ix:
        print(f"no bundle at {BUNDLE}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="fix-replay-"))
    try:
        git = mirror(args.ix, tmp)
        scratch = None if args.no_validator else Scratch(git, tmp)
        verdicts = ci_verdicts()
        refs = git("for-each-ref", "--format=%(refname)", "refs/pull").decode().split()
        numbers = sorted(int(r.split("/")[2]) for r in refs)
        if args.prs:
            wanted = {int(x) for x in args.prs.split(",")}
            numbers = [n for n in numbers if n in wanted]
        outcomes, times = [], []
        touched = 0
        for n in numbers:
            got = changeset(git, n)
            if got is None:
                continue
            cs, mb = got
            touched += 1
            before = run(cs, rules=RULES)
            codes = sorted({f.code for f in before.findings})
            if not codes:
                continue
            if args.limit is not None and len(outcomes) >= args.limit:
                break
            t = time.perf_counter()
            result = plan_fix(cs, rules=RULES)
            times.append((time.perf_counter() - t) * 1000)
            o = {"pr": n, "codes": codes, "refused": [why for _, why in result.refused], "checks": {}}
            f0 = cs.files[0]
            if result.files:
                out = result.files[0].new
                o["bytes"] = check_bytes(f0.base or b"", f0.head or b"", out, n)
                fixed_cs = with_heads(cs, {PATH: out})
                recheck = run(fixed_cs, rules=RULES)
                o["recheck"] = sorted({f"{f.code}: {f.message}" for f in recheck.findings})
                strict = run(fixed_cs, rules=STRICT_RULES)
                o["strict"] = sorted({f"{f.code}: {f.message}" for f in strict.findings
                                      if f.blocking and f.code in STRICT_CODES})
                o["content_after"] = sorted({f.code for f in strict.findings if f.blocking and f.code in CONTENT_CODES})
                o["content_before"] = sorted({f.code for f in run(cs, rules=STRICT_RULES).findings
                                              if f.blocking and f.code in CONTENT_CODES})
                g = changelog_gates(ReviewContext(fixed_cs)).get(PATH)
                o["gates"] = {"pr_run": sorted({x.stage for x in g.changelog_pr_run}) if g else [],
                              "merge": sorted({x.stage for x in g.merge}) if g else []}
                o["restores_base"] = out == (f0.base or b"")
                if scratch is not None:
                    scratch.prepare(mb, f"refs/pull/{n}/head", out)
                    # A PR whose fixed changelog is its base no longer touches the file: CI skips the
                    # changelog gate for it (process_changelog would say "No additions found").
                    o["checks"]["pr_run"] = (0, "not run: the PR no longer changes the changelog") \
                        if o["restores_base"] else scratch.pr_run()
                    o["checks"]["merge_path"] = scratch.merge_path(n)
                ci = (verdicts.get(n) or {}).get("ci_gate") or {}
                o["ci_gate_unfixed"] = ci.get("passed")
            o["remaining"] = sorted({f.code for f in result.remaining})
            outcomes.append(o)
            if len(outcomes) % 50 == 0:
                print(f"... {len(outcomes)} PRs", file=sys.stderr, flush=True)
        report(outcomes, touched, times, scratch is not None)
        if args.json:
            Path(args.json).write_text(json.dumps(outcomes, indent=1))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


MERGE_CAUSES = (("the base's own history fails main's entry schema or YAML (not the PR's bytes)",
                 re.compile(r"base perf-changelog\.yaml (?:entry \d+ fails|is not valid YAML)")),
                ("a new entry fails the entry schema (RR003, needs a person)",
                 re.compile(r"PR perf-changelog\.yaml entry \d+ fails ChangelogEntry")),
                ("no changelog at the merge base (the PR adds the file)", re.compile(r"could not read .* at base")))


def merge_cause(check: tuple[int, str]) -> str | None:
    """Why the merge path did not accept the fixed file unchanged (None: it did)."""
    rc, message = check
    if rc == 0 and "already prepared" in message:
        return None
    for name, pattern in MERGE_CAUSES:
        if pattern.search(message):
            return name
    return "the fixed bytes"


def stage_of(message: str) -> str:
    for name, pattern in STAGES:
        if pattern.search(message):
            return name
    return "the changelog diff"


def report(outcomes: list[dict], touched: int, times: list[float], validated: bool) -> None:  # noqa: C901 (one branch per figure and per kind of failure it prints)
    fixed = [o for o in outcomes if not o["refused"]]
    refused = [o for o in outcomes if o["refused"]]
    code_counts = Counter(c for o in outcomes for c in o["codes"])
    print(f"{touched} PRs change {PATH}; {len(outcomes)} have RR001/RR002/RR004-RR007 findings "
          f"({', '.join(f'{c} {n}' for c, n in sorted(code_counts.items()))})")
    bytes_ok = [o for o in fixed if not o.get("bytes")]
    clean = [o for o in fixed if not o.get("recheck")]
    print(f"fixed: {len(fixed)}; bytes = base + the PR's entries: {len(bytes_ok)}; clean re-check: {len(clean)}")
    strict_ok = [o for o in fixed if not o.get("strict")]
    print(f"strict re-check ({', '.join(STRICT_CODES)}), no blocking finding: {len(strict_ok)}/{len(fixed)}")
    content_new = [o for o in fixed if set(o.get("content_after", ())) - set(o.get("content_before", ()))]
    content = Counter(c for o in fixed for c in o.get("content_after", ()))
    print(
        "  blocking content findings after the fix "
        f"({', '.join(f'{c} {n}' for c, n in sorted(content.items())) or 'none'}); "
        f"added by the fix: {len(content_new)}"
    )
    g_pr = [o for o in fixed if not o.get("gates", {}).get("pr_run")]
    g_mp = [o for o in fixed if not o.get("gates", {}).get("merge")]
    print(f"emulated gates accept the fixed file: PR-run changelog stages {len(g_pr)}/{len(fixed)}, "
          f"merge path {len(g_mp)}/{len(fixed)}")
    for name in ("pr_run", "merge"):
        stages = Counter(st for o in fixed for st in o.get("gates", {}).get(name, ()))
        if stages:
            print(f"  emulated {name} rejections by stage: {', '.join(f'{k} {n}' for k, n in stages.most_common())}")
    if validated:
        disagree = [
            o for o in fixed if bool(o.get("gates", {}).get("merge")) != bool(merge_cause(o["checks"]["merge_path"]))
        ]
        print(f"  emulated merge path vs the real one (accept/reject) disagree on {len(disagree)}: "
              + ", ".join(f"#{o['pr']} (emulated {o['gates']['merge'] or 'accept'}, real "
                          f"{(merge_cause(o['checks']['merge_path']) or 'accept')})" for o in disagree[:20]))
    if validated:
        pr_ok = [o for o in fixed if o["checks"].get("pr_run", (1,))[0] == 0]
        later = Counter(stage_of(o["checks"]["pr_run"][1]) for o in fixed if o["checks"]["pr_run"][0])
        mp = Counter(merge_cause(o["checks"]["merge_path"]) for o in fixed)
        restored = sum(1 for o in fixed if o.get("restores_base"))
        print(f"validator (bundle main), PR-run check accepts: {len(pr_ok)}/{len(fixed)} "
              f"({restored} of them restore the base exactly: the PR no longer touches the changelog, CI skips the "
              f"gate); merge path accepts unchanged: {mp.get(None, 0)}/{len(fixed)}")
        for cause, n in sorted(((c, n) for c, n in mp.items() if c), key=lambda kv: -kv[1]):
            print(f"  merge path rejections caused by {cause}: {n}")
        for stage, n in sorted(later.items(), key=lambda kv: -kv[1]):
            print(f"  PR-run rejections at: {stage}: {n}")
        unfixed_ci = Counter(o.get("ci_gate_unfixed") for o in fixed)
        print(f"  (CI gate on the unfixed heads, from the replay data: passed {unfixed_ci.get(True, 0)}, "
              f"failed {unfixed_ci.get(False, 0)}, unknown {unfixed_ci.get(None, 0)})")
    if times:
        print(f"plan_fix time per PR: median {statistics.median(times):.1f} ms, "
              f"p95 {sorted(times)[int(len(times) * 0.95) - 1]:.1f} ms, max {max(times):.1f} ms")
    print(f"\nnot repaired automatically ({len(refused)}):")
    for o in refused:
        print(f"  #{o['pr']} [{' '.join(o['codes'])}]: {o['refused'][0]}")
    bad = [o for o in fixed if o.get("bytes") or o.get("recheck") or o.get("strict")
           or set(o.get("content_after", ())) - set(o.get("content_before", ()))
           or (validated and ((o["checks"]["pr_run"][0] and stage_of(o["checks"]["pr_run"][1]) == "the changelog diff")
                              or merge_cause(o["checks"]["merge_path"]) == "the fixed bytes"))]
    print(f"\nfixed, but the bytes, the re-check, the merge path or the PR-run's changelog stage disagrees "
          f"({len(bad)}):")
    for o in bad:
        parts = []
        if o.get("bytes"):
            parts.append("bytes: " + "; ".join(o["bytes"]))
        if o.get("recheck"):
            parts.append("re-check: " + "; ".join(o["recheck"])[:200])
        if o.get("strict"):
            parts.append("strict re-check: " + "; ".join(o["strict"])[:200])
        added = set(o.get("content_after", ())) - set(o.get("content_before", ()))
        if added:
            parts.append("content findings added: " + ", ".join(sorted(added)))
        if "pr_run" in o["checks"] and o["checks"]["pr_run"][0] \
                and stage_of(o["checks"]["pr_run"][1]) == "the changelog diff":
            parts.append(f"pr_run: {o['checks']['pr_run'][1][:200]}")
        if "merge_path" in o["checks"] and merge_cause(o["checks"]["merge_path"]) == "the fixed bytes":
            parts.append(f"merge_path: {o['checks']['merge_path'][1][:200]}")
        print(f"  #{o['pr']} [{' '.join(o['codes'])}] (CI gate on the unfixed head: {o.get('ci_gate_unfixed')}): "
              + " | ".join(parts))


if __name__ == "__main__":
    sys.exit(main())
