"""Wall time of the hostile and huge inputs the unit tests review, against the limits they used to assert.

The unit tests assert what bounds the work (a step budget, a size refused before parsing, a capped
search space), not the wall time, which depends on the machine and its load. This script runs the
same inputs (it calls those tests) and times each one; a case over its limit exits 1.

    python benchmarks/bounded_inputs.py [--json out.json] [--repeat 3]

Limits are seconds on a CI-sized machine (2 cores); each case's best of `--repeat` runs counts.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

from tests.rules.changelog import test_changelog_format_broken as cfb  # noqa: E402
from tests.rules.changelog import test_gates as gates  # noqa: E402
from tests.rules.claims import test_description as desc  # noqa: E402
from tests.rules.scripts import test_interpret as interp  # noqa: E402
from tests.rules.serving import test_settings as es  # noqa: E402


def _with_monkeypatch(test: Callable) -> Callable[[], None]:
    def run() -> None:
        with pytest.MonkeyPatch.context() as mp:
            test(mp)
    return run


def cases() -> list[tuple[str, float, Callable[[], None]]]:
    out: list[tuple[str, float, Callable[[], None]]] = []
    for name, text in es.HOSTILE.items():
        out.append((f"recipe: hostile {name}", 2.0,
                    lambda t=text: es.test_hostile_recipes_give_findings_or_skips_never_a_crash(t)))
    out.append(("recipe: 10,000-point search space", 20.0, es.test_ten_thousand_point_search_space_is_bounded))
    for name, text in interp.HOSTILE_SCRIPTS.items():
        out.append((f"script: {name}", 5.0, lambda t=text: interp.test_hostile_scripts_end_in_bounded_work(t)))
    out.append(("claims: 10,000 numbers in a description", 2.0,
                desc.test_ten_thousand_numbers_in_a_description_are_bounded))
    out.append(("changelog: 50 MB file", 2.0,
                _with_monkeypatch(cfb.test_fifty_megabyte_changelog_is_a_finding_not_a_crash)))
    out.append(("changelog: 6 MB file under the limit", 3.0, cfb.test_large_changelog_under_the_limit_is_reviewed))
    out.append(("changelog gates: 3,000-entry rewrite", 10.0, gates.test_large_rewrite_is_judged))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write the timings here")
    ap.add_argument("--repeat", type=int, default=1, help="runs per case; the best one counts")
    args = ap.parse_args(argv)
    rows, over = [], 0
    for name, limit, run in cases():
        best = float("inf")
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - t0)
        ok = best <= limit
        over += not ok
        rows.append({"case": name, "seconds": round(best, 3), "limit_s": limit, "ok": ok})
        print(f"{'ok ' if ok else 'OVER'} {best:7.2f} s  (limit {limit:5.1f} s)  {name}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
