"""The one table of rules, in the order they run.

Rules live by domain (`rules/<domain>/checks/<name>.py`, beside the domain's analysis module); a domain
never registers itself. Adding a rule = one module + one line in ALL_RULES (and its import).
"""
from __future__ import annotations

from rules.changelog.checks import (
    changed_config_not_selected,
    changelog_append_only_mixed,
    changelog_base_unterminated,
    changelog_config_key_empty,
    changelog_config_key_unknown,
    changelog_description_placeholder,
    changelog_entry_duplicate,
    changelog_entry_invalid,
    changelog_entry_misplaced,
    changelog_entry_missing,
    changelog_entry_missing_for_cleanup,
    changelog_entry_selects_no_jobs,
    changelog_evals_only_with_throughput_change,
    changelog_format_broken,
    changelog_history_changed,
    changelog_pr_link_placeholder,
    changelog_pr_link_wrong,
    changelog_separator_irregular,
    changelog_whitespace_only_line,
    changelog_wildcard_selection,
)
from rules.claims.checks import (
    changelog_config_count_claim_wrong,
    changelog_description_incomplete,
    changelog_runner_unknown,
    changelog_search_space_claim_wrong,
    changelog_version_claim_wrong,
    numeric_claim_disagrees_with_value,
    numeric_claim_false,
)
from rules.general.checks import (
    header_comment_block,
    yaml_invalid,
)
from rules.master.checks import (
    master_config_schema_invalid,
    master_config_sweep_generation_fails,
    master_image_not_public,
    master_image_unpinned,
    master_key_prefix_mismatch,
    search_space_degenerate_range,
    search_space_duplicate_row,
)
from rules.recipe.checks import (
    capture_default_below_concurrency,
    capture_list_decode_misaligned,
    capture_list_decode_short,
    capture_list_end_mismatch,
    capture_list_malformed,
    capture_range_below_concurrency,
    concurrency_exceeds_default_cap,
    concurrency_exceeds_engine_cap,
    dp_attention_not_passed,
    dram_budget_mismatch,
    ep_mismatch,
    gpus_per_role_mismatch,
    host_pool_exceeds_budget,
    json_arg_invalid,
    memory_fraction_out_of_range,
    mtp_recipe_chat_template_missing,
    mtp_recipe_environment_missing,
    offload_pool_mismatch,
    recipe_container_mismatch,
    recipe_name_workers_mismatch,
    trt_capture_exceeds_max_batch,
    workers_nodes_mismatch,
)
from rules.scripts.checks import (
    expert_parallel_unconditional,
    mtp_script_missing_chat_template,
)

ALL_RULES = (
    changelog_entry_misplaced,
    changelog_history_changed,
    changelog_entry_invalid,
    changelog_pr_link_wrong,
    changelog_pr_link_placeholder,
    changelog_format_broken,
    changelog_separator_irregular,
    changelog_config_key_unknown,
    changelog_entry_missing,
    changelog_entry_missing_for_cleanup,
    changed_config_not_selected,
    yaml_invalid,
    changelog_append_only_mixed,
    changelog_base_unterminated,
    changelog_whitespace_only_line,
    changelog_description_placeholder,
    changelog_config_key_empty,
    changelog_wildcard_selection,
    changelog_entry_duplicate,
    changelog_evals_only_with_throughput_change,
    changelog_entry_selects_no_jobs,
    master_image_not_public,
    master_image_unpinned,
    master_key_prefix_mismatch,
    master_config_schema_invalid,
    master_config_sweep_generation_fails,
    search_space_duplicate_row,
    search_space_degenerate_range,
    capture_list_malformed,
    capture_list_end_mismatch,
    capture_list_decode_misaligned,
    capture_list_decode_short,
    offload_pool_mismatch,
    dram_budget_mismatch,
    gpus_per_role_mismatch,
    memory_fraction_out_of_range,
    json_arg_invalid,
    concurrency_exceeds_engine_cap,
    concurrency_exceeds_default_cap,
    capture_range_below_concurrency,
    capture_default_below_concurrency,
    trt_capture_exceeds_max_batch,
    dp_attention_not_passed,
    ep_mismatch,
    workers_nodes_mismatch,
    recipe_name_workers_mismatch,
    host_pool_exceeds_budget,
    mtp_recipe_chat_template_missing,
    mtp_recipe_environment_missing,
    numeric_claim_false,
    numeric_claim_disagrees_with_value,
    changelog_version_claim_wrong,
    changelog_search_space_claim_wrong,
    changelog_config_count_claim_wrong,
    changelog_runner_unknown,
    changelog_description_incomplete,
    header_comment_block,
    mtp_script_missing_chat_template,
    expert_parallel_unconditional,
    recipe_container_mismatch,
)

_BY_KEY = {}
for _rule in ALL_RULES:
    for _key in (_rule.CODE, _rule.NAME):
        assert _key not in _BY_KEY, f"duplicate rule code or name {_key}"
        _BY_KEY[_key] = _rule


def by_code(key: str):
    """The rule with this code or name (case-insensitive code), or None."""
    return _BY_KEY.get(key) or _BY_KEY.get(key.upper())
