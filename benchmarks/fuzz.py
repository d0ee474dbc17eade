"""Fuzz the webhook and the rules engine at scale: ≥ 10,000 generated cases, 0 crashes, < 2 s per file.

Usage: python benchmarks/fuzz.py [--rules N] [--webhook N] [--payloads N] [--seed S] [--budget-s 2]

Phases (hypothesis strategies from tests/fuzz/strategies.py):
  rules-random     N random changesets (1-3 files: random YAML trees, mutated real files, adversarial
                   content at test-suite size, random bytes/text, garbage patches); an exception or an
                   RR000 (rule crashed) finding is a crash
  rules-hostile    every full-size hostile content (50,000-key maps, 9 MB scalar, 50 MB file, alias
                   bombs, 1,000-deep nesting, invalid UTF-8, binary, python tags …) × one path of each
                   kind (changelog also as a modification), one file per case, each timed
  webhook-random   N random deliveries (bodies, headers, forged/missing signatures, deep JSON, big bodies)
  webhook-payloads N signed payloads of every shape, mutated and wrong-typed
A webhook crash is a 5xx, or a rejected delivery that ran a handler or queued a job.

Prints, per phase: cases, crashes, median / p99 / max seconds per case and the slowest cases; exits 1
when anything crashed or a case went over the per-file budget.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rules.changeset import ChangeSet, FileChange  # noqa: E402
from rules.runner import CRASH_CODE, run  # noqa: E402
from tests.fuzz.strategies import (  # noqa: E402
    ADVERSARIAL_FULL,
    EVENTS,
    HEADER_NAMES,
    PATHS,
    changesets,
    header_values,
    mutated_payload,
    valid_like_payloads,
    webhook_bodies,
)

BUDGET_S = 2.0


class Phase:
    def __init__(self, name: str):
        self.name, self.times, self.crashes, self.slowest, self.over = name, [], [], [], []

    def record(self, seconds: float, what: str, crash: str | None = None) -> None:
        if seconds >= BUDGET_S:
            self.over.append((seconds, what))
        self.times.append(seconds)
        self.slowest.append((seconds, what))
        self.slowest = sorted(self.slowest, reverse=True)[:5]
        if crash:
            self.crashes.append(f"{what}: {crash}")

    def report(self, budget: float) -> bool:
        t = sorted(self.times) or [0.0]
        p99 = t[min(len(t) - 1, int(len(t) * 0.99))] if t else 0.0
        over = [x for x in t if x >= budget]
        print(f"{self.name:17s} cases {len(t):6d}  crashes {len(self.crashes):3d}  median {statistics.median(t):.4f} s"
              f"  p99 {p99:.3f} s  max {t[-1]:.3f} s  over {budget:g} s: {len(over)}")
        for s, what in self.slowest[:3]:
            print(f"    slowest {s:7.3f} s  {what}")
        for s, what in sorted(self.over, reverse=True)[3:30]:
            print(f"    over    {s:7.3f} s  {what}")
        for c in self.crashes[:10]:
            print(f"    CRASH {c}")
        return not self.crashes and not over


def describe(cs: ChangeSet) -> str:
    return ", ".join(f"{f.status} {f.path.rsplit('/', 1)[-1]} ({len(f.head or f.base or b''):,} B)" for f in cs.files)


def check_changeset(phase: Phase, cs: ChangeSet, what: str | None = None) -> None:
    start = time.perf_counter()
    try:
        report = run(cs)
        crashed = [f.message for f in report.findings if f.code == CRASH_CODE]
        crash = "; ".join(crashed) if crashed else None
    except Exception as err:  # the engine itself must never raise
        crash = f"{type(err).__name__}: {err}"
    phase.record(time.perf_counter() - start, what or describe(cs), crash)


def rules_random(n: int, seed_: int) -> Phase:
    phase = Phase("rules-random")

    @seed(seed_)
    @settings(max_examples=n, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(changesets())
    def case(cs):
        check_changeset(phase, cs)

    case()
    return phase


def rules_hostile() -> Phase:
    phase = Phase("rules-hostile")
    kinds = [PATHS[i] for i in (0, 3, 5, 6, 7, 8, 9, 10, 11)]  # one path per kind of file
    for name, make in sorted(ADVERSARIAL_FULL.items()):
        raw = make(0)
        for path in kinds:
            for status in ("added", "modified") if path == PATHS[0] else ("added",):
                fc = FileChange(path=path, status=status, head=raw, base=b"a: 1\n" if status == "modified" else None,
                                patch="@@ -1 +1 @@\n-a: 1\n+b" if status == "modified" else None)
                check_changeset(phase, ChangeSet(files=(fc,), pr_number=4867),
                                f"{name} as {status} {path} ({len(raw):,} B)")
    return phase


class Webhook:
    """The bot's Flask app with a recording queue and a spy handler (as tests/fuzz/test_webhook_fuzz.py)."""

    SECRET = b"fuzz-secret"
    REJECTED = {"bad-signature", "missing-headers", "too-large", "bad-json", "bad-payload"}

    def __init__(self, directory: Path):
        from tests.fuzz.test_webhook_fuzz import Harness

        self.h = Harness(directory)

    def post(self, phase: Phase, body: bytes, headers: dict, what: str) -> None:
        from bot.webhook import sign  # noqa: F401  (imported for symmetry with the tests)

        spy = self.h.spy
        before_h, before_j = len(spy.handled), len(spy.jobs)
        start = time.perf_counter()
        crash = None
        try:
            r = self.h.client.post("/webhook", data=body, headers=headers)
            outcome = (r.get_json(silent=True) or {}).get("outcome")
            if r.status_code >= 500:
                crash = f"HTTP {r.status_code}"
            elif r.status_code in (400, 401, 413) or outcome in self.REJECTED:
                if len(spy.jobs) != before_j:
                    crash = f"rejected ({outcome}) but queued a job"
                elif outcome != "bad-payload" and len(spy.handled) != before_h:
                    crash = f"rejected ({outcome}) but a handler ran"
        except Exception as err:
            crash = f"{type(err).__name__}: {err}"
        phase.record(time.perf_counter() - start, what, crash)


def signed(secret: bytes, event: str, body: bytes) -> dict:
    from bot.webhook import sign

    return {"X-GitHub-Event": event, "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(secret, body), "Content-Type": "application/json"}


def webhook_random(hook: Webhook, n: int, seed_: int) -> Phase:
    phase = Phase("webhook-random")

    @seed(seed_)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(EVENTS), webhook_bodies(),
           st.dictionaries(st.sampled_from(HEADER_NAMES), header_values, max_size=4), st.booleans())
    def case(event, body, overrides, keep_signature):
        headers = signed(hook.SECRET if keep_signature else b"forged", event, body)
        headers.update(overrides)
        headers = {k: v for k, v in headers.items() if "\x00" not in v}
        hook.post(phase, body, headers, f"{event!r} {len(body):,} B body, headers {sorted(overrides)}")

    case()
    return phase


def webhook_payloads(hook: Webhook, n: int, seed_: int) -> Phase:
    phase = Phase("webhook-payloads")

    @seed(seed_)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(valid_like_payloads, mutated_payload()), st.sampled_from(["pull_request", "issue_comment"]))
    def case(payload, event):
        body = json.dumps(payload).encode()
        hook.post(phase, body, signed(hook.SECRET, event, body), f"{event} {body[:80]!r}")

    case()
    return phase


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", type=int, default=6000, help="random changesets")
    ap.add_argument("--webhook", type=int, default=3000, help="random deliveries")
    ap.add_argument("--payloads", type=int, default=1500, help="signed payloads of any shape")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--budget-s", type=float, default=2.0, help="per-file time budget")
    ap.add_argument("--skip-hostile", action="store_true", help="skip the full-size hostile files")
    args = ap.parse_args()
    import logging

    logging.disable(logging.CRITICAL)  # rule crashes are counted from RR000 findings, not from logs
    global BUDGET_S
    BUDGET_S = args.budget_s
    started = time.perf_counter()
    phases = [rules_random(args.rules, args.seed)] if args.rules else []
    if not args.skip_hostile:
        phases.append(rules_hostile())
    with tempfile.TemporaryDirectory() as d:
        hook = Webhook(Path(d))
        if args.webhook:
            phases.append(webhook_random(hook, args.webhook, args.seed))
        if args.payloads:
            phases.append(webhook_payloads(hook, args.payloads, args.seed))
    print(f"\nfuzz: {sum(len(p.times) for p in phases):,} cases in {time.perf_counter() - started:.0f} s "
          f"(seed {args.seed})")
    ok = all([p.report(args.budget_s) for p in phases])
    total_crashes = sum(len(p.crashes) for p in phases)
    worst = max((p.slowest[0] for p in phases if p.slowest), default=(0.0, ""))
    print(f"total crashes {total_crashes}; max seconds per case {worst[0]:.3f} ({worst[1]})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
