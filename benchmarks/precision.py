"""How often is a finding of ours right? Per-rule precision on real InferenceX pull requests.

    python benchmarks/precision.py [--bundle PATH | --repo DIR] [--jobs N] [--no-cache]
        [--out FILE] [--to-judge FILE] [--table FILE] [--rule CODE ...] [--seed N] [--per-rule K]

Reviews the head of every pull request in `../shared/inferencex/ix-dev.bundle`
(`refs/pull/<N>/head`) and every `reviewed_commit` of `review-findings-dev.jsonl`, each exactly as
`recipe-review check --repo DIR --base BASE --head COMMIT --pr-number N --format json`, BASE being the
PR's recorded base commit (else main as of the commit's time: `real_reviews.base_at`),
would (merge-base with that base), in-process, in `--jobs` workers, with `benchmarks/real_reviews.py`'s
per-commit cache (keyed by a hash of the review code).

Then, per rule:

- **findings** on the bundle (blocking or nit, as the rule is now), and the distinct PRs they are on;
- **PRs blocked** (blocking rules): PR heads with at least one finding of the rule;
- **a sample**: up to `--per-rule` distinct PRs (10 for a blocking rule, 5 for a nit: `PER_SEVERITY`),
  drawn with a fixed seed (`--seed`, default 4867) from the PRs the rule fires on, and one finding of
  each drawn PR (also drawn with the seed).
  The smaller sample is the first PRs of the same 10-PR draw; the rest of that draw counts too
  where it is judged already (a rule demoted after judging keeps its evidence);
  A PR's head is preferred to its reviewed commits; the same finding (fingerprint) on several
  commits of one PR counts once;
- **judged precision** over the sample, from `benchmarks/precision_judged.json`: judgements keyed by
  (PR, commit, fingerprint), each `true` (real, and as severe as the rule says), `nit` (real, but
  not blocking) or `false` (not real), with a reason that cites file:line at that commit. For a
  blocking rule precision is true ÷ judged; for a nit rule, (true + nit) ÷ judged.
- **status**: `unmeasured` with fewer than 3 judged findings on the bundle (a rule that never
  fires on the bundle is unmeasured, not passing), `pass` at ≥ 95 % (blocking) or ≥ 80 % (nit),
  else `below bar`; `unjudged` when a sampled finding has no judgement yet.

The judges are people (or agents) who did not write the rule, one rule family at a time; they
read the repository at the finding's commit, never the rule's code. `--to-judge FILE` writes the
sampled findings that have no judgement yet (PR, commit, path, line, message, evidence, the
rule's documentation) grouped by family, ready to hand out; their answers are merged into
`precision_judged.json` with `--merge FILE` (a JSON list of {pr, commit, fingerprint, verdict,
reason, judge}). A re-run judges only what it has not seen.

Also reported: the share of PR heads that get any blocking finding, and the crashes (RR000) and
review errors, which must be none. Writes a JSON report (default benchmarks/results/precision.json).
The ratchet over this report is tests/replay/test_precision.py.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_BUNDLE = ROOT / ".." / "shared" / "inferencex" / "ix-dev.bundle"
FINDINGS_NAME = "review-findings-dev.jsonl"
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_OUT = RESULTS / "precision.json"
JUDGED = ROOT / "benchmarks" / "precision_judged.json"
SEED = 4867
PER_RULE = 10
# Sampled PRs per rule by severity: a blocking finding is the expensive mistake (a red check), so
# blocking rules are judged on 10 PRs; a nit on 5 (its bar is lower and a wrong nit costs a reader a
# moment). `--per-rule N` sets both.
PER_SEVERITY = {"blocking": PER_RULE, "nit": 5}
MIN_JUDGED = 3
BAR = {"blocking": 0.95, "nit": 0.80}
VERDICTS = ("true", "nit", "false")
CRASH_CODE = "RR000"


def _real_reviews():
    """benchmarks/real_reviews.py (its review function, cache and git helpers), loaded once."""
    if "real_reviews" in sys.modules:
        return sys.modules["real_reviews"]
    spec = importlib.util.spec_from_file_location("real_reviews", ROOT / "benchmarks" / "real_reviews.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------- what to review

def pr_heads(repo: Path) -> dict[int, str]:
    """PR number → head commit, for every refs/pull/<N>/head of the mirror."""
    rr = _real_reviews()
    out = {}
    for line in rr._git(repo, "for-each-ref", "--format=%(objectname) %(refname)", "refs/pull").decode().splitlines():
        sha, ref = line.split(" ", 1)
        parts = ref.split("/")
        if len(parts) == 4 and parts[3] == "head" and parts[2].isdigit():
            out[int(parts[2])] = sha
    return out


def reviewed_commits(findings: Iterable[dict]) -> set[tuple[int, str]]:
    return {(f["pr"], f["reviewed_commit"]) for f in findings if f.get("reviewed_commit")}


# ---------------------------------------------------------------- rules and judgements

def rule_table() -> dict[str, dict]:
    """code → {name, severity, family, proof} for every registered rule, as it is now."""
    from rules.registry import ALL_RULES

    out = {}
    for m in ALL_RULES:
        out[m.CODE] = {"name": m.NAME, "severity": m.SEVERITY.value, "family": m.__name__.split(".")[1],
                       "proof": getattr(m, "PROOF", None)}
    return out


def judgement_key(pr: int, commit: str, fingerprint: str) -> str:
    return f"{pr}:{commit}:{fingerprint}"


def load_judged(path: Path = JUDGED) -> dict[str, dict]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {judgement_key(j["pr"], j["commit"], j["fingerprint"]): j for j in data.get("judgements", ())}


def save_judged(judged: dict[str, dict], path: Path = JUDGED) -> None:
    about = ("Judgements of sampled findings of benchmarks/precision.py, keyed by (pr, commit, fingerprint). "
             "verdict: true (real, and as severe as the rule says), nit (real, not blocking), false (not real). "
             "Each was made at the commit, by a judge who did not write the rule and did not read its code; "
             "reasons are the judges' own words and cite file:line at that commit.")
    rows = sorted(judged.values(), key=lambda j: (j["code"], j["pr"], j["commit"], j["fingerprint"]))
    path.write_text(json.dumps({"about": about, "judgements": rows}, indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def merge(answers: list[dict], judged: dict[str, dict]) -> tuple[int, list[str]]:
    """Add judges' answers; returns (added or changed, problems)."""
    problems, n = [], 0
    for a in answers:
        missing = [k for k in ("pr", "commit", "fingerprint", "code", "verdict", "reason", "judge") if not a.get(k)]
        if missing:
            problems.append(f"{a.get('pr')}:{a.get('fingerprint')}: missing {', '.join(missing)}")
            continue
        if a["verdict"] not in VERDICTS:
            problems.append(f"{a['pr']}:{a['fingerprint']}: verdict {a['verdict']!r} is not one of {VERDICTS}")
            continue
        row = {k: a[k] for k in ("pr", "commit", "fingerprint", "code", "verdict", "reason", "judge")}
        for k in ("path", "line", "message", "severity"):
            if a.get(k) is not None:
                row[k] = a[k]
        key = judgement_key(row["pr"], row["commit"], row["fingerprint"])
        if judged.get(key) != row:
            judged[key] = row
            n += 1
    return n, problems


# ---------------------------------------------------------------- counting and sampling

def occurrences(states: dict) -> dict[str, list[dict]]:
    """code → every finding of ours, one per (pr, commit, fingerprint), with where it was seen."""
    by_code: dict[str, list[dict]] = defaultdict(list)
    for (pr, commit), s in sorted(states.items()):
        seen = set()
        for f in s.get("findings", ()):
            key = (f["code"], f["fingerprint"])
            if key in seen:
                continue
            seen.add(key)
            by_code[f["code"]].append({**f, "pr": pr, "commit": commit})
    return by_code


def sample(code: str, found: list[dict], heads: dict[int, str], per_rule: int = PER_RULE,
           seed: int = SEED) -> list[dict]:
    """Up to `per_rule` distinct PRs drawn with the seed; one finding each (at the PR head when the
    rule fires there, else at one of its reviewed commits), also drawn with the seed."""
    rng = random.Random(f"{seed}:{code}")
    by_pr: dict[int, list[dict]] = defaultdict(list)
    for f in found:
        by_pr[f["pr"]].append(f)
    prs = sorted(by_pr)
    # Always draw PER_RULE PRs and their findings the same way, then keep the first `per_rule` of
    # the draw order: a smaller sample is a random subset of the larger one (same findings, same
    # judgements), not a different draw.
    drawn = rng.sample(prs, min(max(per_rule, PER_RULE), len(prs)))
    keep = set(drawn[:per_rule])
    out = []
    for pr in sorted(drawn):
        at_head = [f for f in by_pr[pr] if f["commit"] == heads.get(pr)]
        pool = sorted(at_head or by_pr[pr], key=lambda f: (f["commit"], f["path"] or "", f["line"] or 0,
                                                           f["fingerprint"]))
        choice = rng.choice(pool)
        if pr in keep:
            out.append(choice)
    return out


def precision_of(severity: str, verdicts: Counter) -> float | None:
    judged = sum(verdicts[v] for v in VERDICTS)
    if not judged:
        return None
    good = verdicts["true"] + (verdicts["nit"] if severity == "nit" else 0)
    return good / judged


def tabulate(states: dict, heads: dict[int, str], judged: dict[str, dict], rules: dict[str, dict],
             per_rule: int | None = None, seed: int = SEED, only: Iterable[str] | None = None) -> dict:
    found = occurrences(states)
    only = set(only or ())
    table, to_judge = {}, []
    for code, info in sorted(rules.items()):
        if only and code not in only:
            continue
        fs = found.get(code, [])
        head_fs = [f for f in fs if heads.get(f["pr"]) == f["commit"]]
        picked = sample(code, fs, heads, per_rule if per_rule is not None else PER_SEVERITY[info["severity"]], seed)
        # A smaller sample is a prefix of the full draw; findings of the rest of the draw that were
        # judged already (while the rule had another severity) are counted too, never thrown away.
        chosen = {(f["pr"], f["commit"], f["fingerprint"]) for f in picked}
        picked += [f for f in sample(code, fs, heads, max(PER_RULE, len(picked)), seed)
                   if (f["pr"], f["commit"], f["fingerprint"]) not in chosen
                   and judgement_key(f["pr"], f["commit"], f["fingerprint"]) in judged]
        verdicts: Counter = Counter()
        rows = []
        for f in picked:
            j = judged.get(judgement_key(f["pr"], f["commit"], f["fingerprint"]))
            if j is None:
                to_judge.append(f)
            else:
                verdicts[j["verdict"]] += 1
            rows.append({"pr": f["pr"], "commit": f["commit"], "fingerprint": f["fingerprint"], "path": f["path"],
                         "line": f["line"], "verdict": j["verdict"] if j else None})
        n_judged = sum(verdicts.values())
        prec = precision_of(info["severity"], verdicts)
        unjudged = len(picked) - n_judged
        if unjudged:
            status = "unjudged"
        elif n_judged < MIN_JUDGED:
            status = "unmeasured"
        elif prec >= BAR[info["severity"]]:
            status = "pass"
        else:
            status = "below bar"
        table[code] = {
            **info,
            "findings": len({(f["pr"], f["fingerprint"]) for f in fs}),
            "findings_at_heads": len(head_fs),
            "prs": len({f["pr"] for f in fs}),
            "prs_blocked": len({f["pr"] for f in head_fs}) if info["severity"] == "blocking" else 0,
            "sampled": len(picked), "judged": n_judged, "unjudged": unjudged,
            "verdicts": dict(verdicts), "precision": prec, "status": status, "sample": rows,
        }
    return {"rules": table, "to_judge": to_judge}


def blocked_share(states: dict, heads: dict[int, str], rules: dict[str, dict]) -> dict:
    reviewed = [pr for pr, c in heads.items() if (pr, c) in states and "findings" in states[(pr, c)]]
    touching = [pr for pr in reviewed if states[(pr, heads[pr])]["findings"]]
    blocked = [pr for pr in reviewed
               if any(f.get("severity") == "blocking" for f in states[(pr, heads[pr])]["findings"])]
    return {"heads": len(reviewed), "heads_with_findings": len(touching), "blocked": len(blocked),
            "share": len(blocked) / len(reviewed) if reviewed else None}


def crashes(states: dict) -> list[dict]:
    return [{"pr": pr, "commit": c, "message": f.get("message", "")} for (pr, c), s in sorted(states.items())
            for f in s.get("findings", ()) if f.get("code") == CRASH_CODE]


# ---------------------------------------------------------------- the whole run

def evaluate(bundle: Path | None = None, repo: Path | None = None, findings_path: Path | None = None,
             jobs: int = 2, cache: bool = True, per_rule: int | None = None, seed: int = SEED,
             only: Iterable[str] | None = None, judged_path: Path = JUDGED,
             progress: Callable[[str], None] | None = None) -> dict:
    rr = _real_reviews()
    t0 = time.perf_counter()
    bundle = Path(bundle or DEFAULT_BUNDLE)
    findings_path = Path(findings_path or bundle.parent / FINDINGS_NAME)
    with tempfile.TemporaryDirectory(prefix="precision-") as tmp:
        if repo is None:
            repo = rr.clone_bundle(bundle, Path(tmp) / "ix.git")
        repo = Path(repo)
        heads = pr_heads(repo)
        pairs = set(heads.items()) | reviewed_commits(rr.load_findings(findings_path))
        states, stats = rr.run_reviews(repo, pairs, jobs=jobs, cache_dir=rr.CACHE_DIR if cache else None,
                                       progress=progress)
    rules = rule_table()
    judged = load_judged(judged_path)
    tab = tabulate(states, heads, judged, rules, per_rule, seed, only)
    return {
        "meta": {"bundle": bundle.name, "findings_file": findings_path.name, "seed": seed, "per_rule": per_rule,
                 "min_judged": MIN_JUDGED, "bar": BAR, "pr_heads": len(heads), "reviews": dict(stats),
                 "pairs": len(pairs), "source_hash": rr.source_hash(), "wall_s": round(time.perf_counter() - t0, 1),
                 "judgements": len(judged)},
        "blocked_heads": blocked_share(states, heads, rules),
        "rules": tab["rules"],
        "to_judge": tab["to_judge"],
        "rule_crashes": crashes(states),
        "review_errors": [{"pr": pr, "commit": c, "error": s["error"]} for (pr, c), s in sorted(states.items())
                          if "error" in s],
    }


def to_judge_packets(rep: dict) -> dict:
    """The unjudged sampled findings, grouped by rule family, with each rule's documentation."""
    from rules.registry import ALL_RULES
    from rules.runner import doc_sections

    docs = {m.CODE: m for m in ALL_RULES}
    families: dict[str, list[dict]] = defaultdict(list)
    for f in rep["to_judge"]:
        info = rep["rules"][f["code"]]
        m = docs[f["code"]]
        sec = doc_sections(m)
        families[info["family"]].append({
            "pr": f["pr"], "commit": f["commit"], "fingerprint": f["fingerprint"], "code": f["code"],
            "name": f["name"], "severity": f["severity"], "path": f["path"], "line": f["line"],
            "end_line": f.get("end_line"), "message": f["message"], "fix": f.get("fix"),
            "evidence": f.get("evidence", []),
            "rule_summary": sec.get("summary", ""), "rule_why": sec.get("Why it matters", ""),
        })
    return dict(sorted(families.items()))


def _pct(p: float | None) -> str:
    return "  n/a" if p is None else f"{100 * p:5.1f} %"


def print_report(rep: dict, out=sys.stdout) -> None:
    p = lambda *a: print(*a, file=out)  # noqa: E731
    m, b = rep["meta"], rep["blocked_heads"]
    p(f"precision: {m['pr_heads']} PR heads + reviewed commits = {m['pairs']} reviews "
      f"({m['reviews'].get('reviewed', 0)} run, {m['reviews'].get('cached', 0)} cached, "
      f"{m['reviews'].get('missing', 0)} missing, {m['reviews'].get('errors', 0)} errors), {m['wall_s']} s")
    p(f"PR heads with a blocking finding: {b['blocked']}/{b['heads']} = {_pct(b['share'])}")
    p(f"{'rule':<7} {'sev':<8} {'findings':>8} {'PRs':>5} {'blocked':>7} {'judged':>6}  {'T/N/F':<8} "
      f"{'precision':>9}  status")
    for code, r in rep["rules"].items():
        v = r["verdicts"]
        tnf = f"{v.get('true', 0)}/{v.get('nit', 0)}/{v.get('false', 0)}"
        p(f"{code:<7} {r['severity']:<8} {r['findings']:>8} {r['prs']:>5} {r['prs_blocked']:>7} "
          f"{r['judged']:>3}/{r['sampled']:<2}  {tnf:<8} {_pct(r['precision']):>9}  {r['status']}")
    if rep["rule_crashes"]:
        p(f"RULE CRASHES (RR000): {len(rep['rule_crashes'])}")
    if rep["review_errors"]:
        p(f"REVIEW ERRORS: {len(rep['review_errors'])}")
    p(f"unjudged sampled findings: {len(rep['to_judge'])}")


def markdown_table(rep: dict) -> str:
    """The per-rule table of a report, as notes/precision.md shows it."""
    b = rep["blocked_heads"]
    lines = [
        f"PR heads with a blocking finding: {b['blocked']}/{b['heads']} = {_pct(b['share']).strip()}",
        "",
        "| Rule | Name | Severity | Findings | PRs | PR heads blocked | Judged | true/nit/false | Precision | Status |",
        "|---|---|---|---:|---:|---:|---:|---|---:|---|",
    ]
    for code, r in rep["rules"].items():
        v = r["verdicts"]
        lines.append(f"| {code} | {r['name']} | {r['severity']} | {r['findings']} | {r['prs']} | {r['prs_blocked']} | "
                     f"{r['judged']}/{r['sampled']} | {v.get('true', 0)}/{v.get('nit', 0)}/{v.get('false', 0)} | "
                     f"{_pct(r['precision']).strip()} | {r['status']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    ap.add_argument("--repo", type=Path, help="an existing mirror clone of the bundle")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--to-judge", type=Path, help="write the unjudged sampled findings here, by family")
    ap.add_argument("--merge", type=Path, action="append",
                    help="merge judges' answers (a JSON list) into precision_judged.json (repeatable)")
    ap.add_argument("--merge-only", action="store_true", help="merge the answers and stop (no review)")
    ap.add_argument("--table", type=Path, help="also write the per-rule table as Markdown here")
    ap.add_argument("--rule", action="append", help="only these rule codes")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--per-rule", type=int, default=None, help="PRs sampled per rule (default: 10 blocking, 5 nit)")
    args = ap.parse_args(argv)
    if args.merge:
        judged = load_judged()
        n, problems = 0, []
        for path in args.merge:
            k, bad = merge(json.loads(path.read_text(encoding="utf-8")), judged)
            n, problems = n + k, problems + bad
        for pr in problems:
            print(f"refused: {pr}", file=sys.stderr)
        save_judged(judged)
        print(f"merged {n} judgements into {JUDGED.name} ({len(judged)} in all)")
        if problems or args.merge_only:
            return 1 if problems else 0
    rep = evaluate(bundle=args.bundle, repo=args.repo, jobs=args.jobs, cache=not args.no_cache,
                   per_rule=args.per_rule, seed=args.seed, only=args.rule,
                   progress=lambda s: print(s, file=sys.stderr))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rep, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print_report(rep)
    if args.table:
        args.table.write_text(markdown_table(rep), encoding="utf-8")
    if args.to_judge:
        args.to_judge.write_text(json.dumps(to_judge_packets(rep), indent=1, ensure_ascii=False) + "\n",
                                 encoding="utf-8")
        print(f"wrote {len(rep['to_judge'])} findings to judge to {args.to_judge}")
    return 1 if rep["rule_crashes"] or rep["review_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
