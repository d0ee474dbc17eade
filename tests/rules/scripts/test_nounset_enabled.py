"""RR434 nounset-enabled: an added `set -u` blocks where the base's guidance forbids it; RR404/RR423 leave its reads."""
import dataclasses

import pytest

from rules.runner import run
from rules.scripts.checks import nounset_enabled as rule
from rules.scripts.checks import variable_maybe_unset_under_set_u, variable_unset_under_set_u
from tests.rules.scripts_helpers import repo, script_path, sglang_script

S = script_path("glm5_fp8_b200.sh")
GUIDE = "AGENTS.md"
POLICY = b"# Shell conventions\n\n- Benchmark scripts must not use `set -u` (nor `set -o nounset`).\n"
SOFT = b"## Shell conventions (mandatory)\n\n- Avoid `set -euo pipefail` in benchmark scripts.\n"
ANCHOR = "check_env_vars MODEL TP CONC ISL OSL\n"


def review(extra: str, policy: bytes | None = POLICY, base_extra: str = "", rules=(rule,)):
    base = sglang_script().replace(ANCHOR, f"{ANCHOR}{base_extra}\n" if base_extra else ANCHOR)
    text = base.replace(ANCHOR, f"{ANCHOR}{extra}\n")
    cs = repo({S: ("modified", text, base)})
    if policy is not None:
        cs = dataclasses.replace(cs, base_context={GUIDE: policy}, base_probed=frozenset({GUIDE}))
    return run(cs, rules=list(rules))


@pytest.mark.parametrize("line", ["set -u", "set -euo pipefail", "set -eux", "set -o nounset", "set -e -o nounset"])
def test_nounset_blocks(line):
    r = review(line)
    assert [f.code for f in r.findings] == ["RR434"] and r.findings[0].blocking, r.findings
    assert "AGENTS.md:3" in r.findings[0].evidence[0]


def test_a_weaker_wording_under_a_mandatory_heading_counts():
    assert [f.code for f in review("set -euo pipefail", policy=SOFT).findings] == ["RR434"]


def test_a_weaker_wording_alone_is_advice():
    r = review("set -euo pipefail", policy=b"# Tips\n\n- Avoid `set -u` when you can.\n")
    assert r.findings == [] and [c.status for c in r.checks if c.name == rule.NAME] == ["skipped"]


@pytest.mark.parametrize("line", ["set -e", "set -eo pipefail", "set +u", "set -x", "# set -u", "echo set -u"])
def test_other_options_pass(line):
    assert review(line).findings == []


def test_untouched_lines_are_not_this_prs():
    assert review("echo done", base_extra="set -euo pipefail").findings == []


def test_skipped_when_the_base_does_not_state_it():
    r = review("set -u", policy=b"# Benchmarks\n\n- Keep scripts short.\n")
    assert r.findings == [] and [c.status for c in r.checks if c.name == rule.NAME] == ["skipped"]


def test_skipped_when_the_guidance_was_not_read():
    r = review("set -u", policy=None)
    assert r.findings == [] and [c.status for c in r.checks if c.name == rule.NAME] == ["skipped"]


def test_the_reads_it_makes_unsafe_are_not_reported_twice():
    line = 'set -u\necho "log: $SERVER_LOG_X"\nSERVER_LOG_X=/tmp/s.log'
    both = (rule, variable_unset_under_set_u, variable_maybe_unset_under_set_u)
    assert [f.code for f in review(line, rules=both).findings] == ["RR434"]
    # without the written rule, the read is RR404's
    codes = [f.code for f in review(line, policy=b"# Benchmarks\n", rules=both).findings]
    assert "RR404" in codes and "RR434" not in codes
