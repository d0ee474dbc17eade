"""RR419: an agentic script that turns the prefix cache off."""
from rules import run
from rules.scripts.checks import agentic_prefix_cache_disabled as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

AGENTIC = script_path("glm5_fp8_b200.sh", "agentic")
FIXED = script_path("glm5_fp8_b200.sh")


def test_agentic_script_disabling_the_radix_cache_is_a_nit_on_the_flag_line():
    text = sglang_script(extra_flags="--disable-radix-cache")
    (f,) = run(repo({AGENTIC: text}), rules=[rule]).findings
    assert f.blocking is False and "--disable-radix-cache" in text.split("\n")[f.line - 1]
    assert f.message.startswith("agentic script turns the SGLang prefix cache off (`--disable-radix-cache`)")


def test_vllm_flag_in_a_variable_counts_and_comments_do_not():
    text = ('#!/usr/bin/env bash\n# we used to pass --no-enable-prefix-caching here\n'
            'PREFIX_FLAG="--no-enable-prefix-caching"\nvllm serve "$MODEL" $PREFIX_FLAG\n')
    (f,) = run(repo({AGENTIC: text}), rules=[rule]).findings
    assert f.line == 3 and "vLLM" in f.message


def test_fixed_seq_len_scripts_and_untouched_lines_are_not_flagged():
    text = sglang_script(extra_flags="--disable-radix-cache")
    assert run(repo({FIXED: text}), rules=[rule]).findings == []
    edited = text + "echo done\n"
    r = run(repo({AGENTIC: ("modified", edited, text)}), rules=[rule])
    assert r.findings == [] and any(c.status == "passed" for c in r.checks)
