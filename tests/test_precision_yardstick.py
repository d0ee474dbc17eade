"""benchmarks/precision.py without the real data: sampling, judgements, precision and status."""
import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def prec():
    spec = importlib.util.spec_from_file_location("precision", ROOT / "benchmarks" / "precision.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("precision", mod)
    spec.loader.exec_module(mod)
    return mod


def _f(code, pr, commit, fp, severity="blocking", path="a.yaml", line=1):
    return {"code": code, "name": "x", "severity": severity, "path": path, "line": line, "fingerprint": fp,
            "message": "m", "evidence": []}


def _states(rows):
    out = {}
    for pr, commit, f in rows:
        out.setdefault((pr, commit), {"findings": []})["findings"].append(f)
    return out


def test_sample_is_seeded_one_finding_per_pr_and_prefers_the_head(prec):
    found = [{**_f("RR1", pr, f"c{pr}", f"f{pr}{i}"), "pr": pr, "commit": c}
             for pr in range(1, 30) for i, c in enumerate((f"h{pr}", f"r{pr}"))]
    heads = {pr: f"h{pr}" for pr in range(1, 30)}
    a = prec.sample("RR1", found, heads, per_rule=10, seed=7)
    assert a == prec.sample("RR1", found, heads, per_rule=10, seed=7)
    assert len({f["pr"] for f in a}) == len(a) == 10
    assert all(f["commit"] == heads[f["pr"]] for f in a)
    assert a != prec.sample("RR1", found, heads, per_rule=10, seed=8)
    assert len(prec.sample("RR1", found[:4], heads, per_rule=10)) == 2  # fewer PRs than the sample


def test_a_smaller_sample_is_a_subset_of_the_full_one(prec):
    """Nits are judged on 5 PRs, blocking rules on 10: the 5 are findings the 10 already hold, so a
    judgement made for one sample size stays valid for the other."""
    found = [{**_f("RR1", pr, f"h{pr}", f"f{pr}{i}", line=i), "pr": pr, "commit": f"h{pr}"}
             for pr in range(1, 40) for i in range(3)]
    heads = {pr: f"h{pr}" for pr in range(1, 40)}
    full = prec.sample("RR1", found, heads, per_rule=10)
    small = prec.sample("RR1", found, heads, per_rule=5)
    assert len(small) == 5 and all(f in full for f in small)
    assert prec.PER_SEVERITY == {"blocking": 10, "nit": 5}


@pytest.mark.parametrize("severity,verdicts,want", [
    ("blocking", {"true": 9, "nit": 1}, 0.9),
    ("nit", {"true": 2, "nit": 6, "false": 2}, 0.8),
    ("blocking", {}, None),
])
def test_precision_of(prec, severity, verdicts, want):
    assert prec.precision_of(severity, Counter(verdicts)) == want


def test_status_unjudged_unmeasured_pass_and_below_bar(prec):
    rules = {"RR1": {"name": "a", "severity": "blocking", "family": "x", "proof": "gate"},
             "RR2": {"name": "b", "severity": "nit", "family": "x", "proof": None},
             "RR3": {"name": "c", "severity": "blocking", "family": "x", "proof": "gate"},
             "RR4": {"name": "d", "severity": "blocking", "family": "x", "proof": "gate"}}
    rows = [(pr, f"h{pr}", _f("RR1", pr, f"h{pr}", f"a{pr}")) for pr in range(1, 5)]
    rows += [(pr, f"h{pr}", _f("RR2", pr, f"h{pr}", f"b{pr}", "nit")) for pr in range(1, 3)]
    rows += [(pr, f"h{pr}", _f("RR3", pr, f"h{pr}", f"c{pr}")) for pr in range(1, 4)]
    heads = {pr: f"h{pr}" for pr in range(1, 5)}
    judged = {prec.judgement_key(pr, f"h{pr}", f"a{pr}"): {"verdict": "true"} for pr in range(1, 5)}
    judged.update({prec.judgement_key(pr, f"h{pr}", f"b{pr}"): {"verdict": "nit"} for pr in range(1, 3)})
    judged.update({prec.judgement_key(pr, f"h{pr}", f"c{pr}"): {"verdict": v}
                   for pr, v in zip(range(1, 4), ("true", "true", "false"), strict=True)})
    tab = prec.tabulate(_states(rows), heads, judged, rules)["rules"]
    assert tab["RR1"]["status"] == "pass" and tab["RR1"]["prs_blocked"] == 4
    assert tab["RR2"]["status"] == "unmeasured"  # 2 judged < 3
    assert tab["RR3"]["status"] == "below bar"
    assert tab["RR4"]["status"] == "unmeasured" and tab["RR4"]["findings"] == 0
    del judged[prec.judgement_key(1, "h1", "a1")]
    t2 = prec.tabulate(_states(rows), heads, judged, rules)
    assert t2["rules"]["RR1"]["status"] == "unjudged" and [f["fingerprint"] for f in t2["to_judge"]] == ["a1"]


def test_merge_refuses_incomplete_or_unknown_verdicts(prec):
    judged = {}
    n, problems = prec.merge([
        {"pr": 1, "commit": "c", "fingerprint": "f", "code": "RR1", "verdict": "true", "reason": "x.yaml:3 …",
         "judge": "j"},
        {"pr": 2, "commit": "c", "fingerprint": "g", "code": "RR1", "verdict": "maybe", "reason": "r", "judge": "j"},
        {"pr": 3, "commit": "c", "fingerprint": "h", "code": "RR1", "verdict": "false", "judge": "j"},
    ], judged)
    assert n == 1 and len(problems) == 2 and list(judged) == [prec.judgement_key(1, "c", "f")]


def test_markdown_table_has_a_row_per_rule_with_its_verdicts(prec):
    rep = {"blocked_heads": {"blocked": 3, "heads": 10, "share": 0.3},
           "rules": {"RR1": {"name": "a-rule", "severity": "blocking", "findings": 4, "prs": 3, "prs_blocked": 3,
                             "judged": 3, "sampled": 3, "verdicts": {"true": 2, "false": 1}, "precision": 2 / 3,
                             "status": "below bar"}}}
    out = prec.markdown_table(rep)
    assert out.splitlines()[0] == "PR heads with a blocking finding: 3/10 = 30.0 %"
    assert "| RR1 | a-rule | blocking | 4 | 3 | 3 | 3/3 | 2/0/1 | 66.7 % | below bar |" in out


def test_a_demoted_rule_keeps_the_judgements_of_its_full_draw(prec):
    """A nit is sampled on 5 PRs; when 10 of the draw were judged while it was blocking, all 10
    count (evidence is not thrown away), and an unjudged finding beyond the first 5 asks for nothing."""
    rules = {"RR1": {"name": "a", "severity": "nit", "family": "x", "proof": None}}
    rows = [(pr, f"h{pr}", _f("RR1", pr, f"h{pr}", f"a{pr}", "nit")) for pr in range(1, 21)]
    heads = {pr: f"h{pr}" for pr in range(1, 21)}
    found = [{**f, "pr": pr, "commit": c} for pr, c, f in rows]
    full = prec.sample("RR1", found, heads, per_rule=10)
    first = prec.sample("RR1", found, heads, per_rule=5)
    judged = {prec.judgement_key(f["pr"], f["commit"], f["fingerprint"]): {"verdict": "true"} for f in full}
    tab = prec.tabulate(_states(rows), heads, judged, rules)
    assert tab["rules"]["RR1"]["judged"] == 10 and tab["rules"]["RR1"]["status"] == "pass"
    rest = [f for f in full if f not in first]
    del judged[prec.judgement_key(rest[0]["pr"], rest[0]["commit"], rest[0]["fingerprint"])]
    tab = prec.tabulate(_states(rows), heads, judged, rules)
    assert tab["rules"]["RR1"]["judged"] == 9 and tab["to_judge"] == []
