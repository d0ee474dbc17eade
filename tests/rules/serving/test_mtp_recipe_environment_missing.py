import pytest

from rules.serving.checks import mtp_recipe_environment_missing as rule
from tests.rules.recipe_helpers import MN_PATH, review, srt

SPEC = {"tp-size": 8, "speculative-algorithm": "EAGLE", "speculative-num-steps": 3}


@pytest.mark.parametrize("container,env,expect,status", [
    ("lmsysorg/sglang:v0.5.10-cu130", {"NCCL_X": "1"}, "SGLang 0.5.10, which runs the V1 worker", None),
    ("lmsysorg/sglang:v0.5.10-cu130", {"SGLANG_ENABLE_SPEC_V2": "1"}, None, "passed"),
    ("lmsysorg/sglang:v0.5.10-cu130", {"SGLANG_ENABLE_SPEC_V2": "0"}, "is `0`", None),
    ("lmsysorg/sglang:v0.5.11-cu130", {"NCCL_X": "1"}, None, "passed"),  # V2 is the default from 0.5.11
    ("lmsysorg/sglang:v0.4.9", {"NCCL_X": "1"}, None, "passed"),  # no V2 worker yet
    ("dynamo-sglang", {"NCCL_X": "1"}, None, "skipped"),
], ids=["0.5.10 without the variable", "set", "set to 0", "0.5.11 default on", "before V2 existed",
        "alias names no version"])
def test_env(container, env, expect, status):
    text = srt("sglang", {"decode": SPEC}, None, {"type": "sa-bench", "concurrencies": "64"}, env={"decode": env},
               container=container)
    r = review(text, [rule], path=MN_PATH)
    if expect is None:
        assert r.findings == [] and {c.status for c in r.checks} == {status}
    else:
        assert [f.code for f in r.findings] == ["RR221"] and expect in r.findings[0].message, r.findings


def test_suggestion_adds_the_variable_beside_the_others():
    text = srt(
        "sglang", {"decode": SPEC}, None, None, env={"decode": {"NCCL_X": "1"}}, container="lmsysorg/sglang:v0.5.10"
    )
    r = review(text, [rule], path=MN_PATH)
    assert r.findings[0].suggestion == '    NCCL_X: "1"\n    SGLANG_ENABLE_SPEC_V2: \'1\''
