"""RR435 point-variable-defaulted: a fallback the PR adds to a per-point workflow variable where the base forbids it."""
import dataclasses

import pytest

from rules.runner import run
from rules.scripts.checks import point_variable_defaulted as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

S = script_path("glm5_fp8_b200.sh")
GUIDE = "AGENTS.md"
POLICY = (b"# Shell conventions\n\n"
          b"- Never give configuration the caller supplies a fallback such as `${VAR:-default}`.\n")
ANCHOR = "check_env_vars MODEL TP CONC ISL OSL\n"


def review(extra: str, policy: bytes | None = POLICY, base_extra: str = ""):
    base = sglang_script().replace(ANCHOR, f"{ANCHOR}{base_extra}\n" if base_extra else ANCHOR)
    text = base.replace(ANCHOR, f"{ANCHOR}{extra}\n")
    cs = repo({S: ("modified", text, base)})
    if policy is not None:
        cs = dataclasses.replace(cs, base_context={GUIDE: policy}, base_probed=frozenset({GUIDE}))
    return run(cs, rules=[rule])


@pytest.mark.parametrize("line", ['EP_SIZE="${EP_SIZE:-1}"', ': "${CONC:=16}"', 'echo "${DP_ATTENTION-false}"'])
def test_point_variable_fallbacks_are_nits(line):
    r = review(line)
    assert [f.code for f in r.findings] == ["RR435"] and not r.findings[0].blocking, r.findings


@pytest.mark.parametrize("line", [
    'PORT="${PORT:-8888}"',
    'CACHE="${HF_HUB_CACHE:-/root/.cache}"',
    'MY_KNOB="${MY_KNOB:-4}"',
    'if [ -n "${EP_SIZE:-}" ]; then echo ep; fi',
    'echo "${TP%%x*}"',
    'echo "$EP_SIZE"',
], ids=["own variable", "runner variable", "script knob", "empty default", "other operator", "bare read"])
def test_controls_pass(line):
    assert review(line).findings == []


def test_untouched_lines_are_not_this_prs():
    assert review("echo done", base_extra='EP_SIZE="${EP_SIZE:-1}"').findings == []


def test_skipped_when_the_base_does_not_state_it():
    r = review('EP_SIZE="${EP_SIZE:-1}"', policy=b"# Benchmarks\n\n- Keep scripts short.\n")
    assert r.findings == [] and [c.status for c in r.checks if c.name == rule.NAME] == ["skipped"]
