"""The one table of rules, in the order they run.

Rules live by domain (`rules/<domain>/checks/<name>.py`, beside the domain's analysis module); a domain
never registers itself. Adding a rule = one module + one line in ALL_RULES (and its import).
"""
from __future__ import annotations

from rules.changelog.checks import (
    changed_config_not_selected,
    changelog_append_only_mixed,
    changelog_config_key_unknown,
    changelog_entry_invalid,
    changelog_entry_misplaced,
    changelog_entry_missing,
    changelog_entry_missing_for_cleanup,
    changelog_format_broken,
    changelog_history_changed,
    changelog_pr_link_placeholder,
    changelog_pr_link_wrong,
    changelog_separator_irregular,
)
from rules.claims.checks import (
    numeric_claim_disagrees_with_value,
    numeric_claim_false,
)
from rules.general.checks import (
    header_comment_block,
    yaml_invalid,
)
from rules.master.checks import (
    master_image_not_public,
    master_image_unpinned,
    master_key_prefix_mismatch,
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
    benchmark_helper_bypassed,
    benchmark_size_hard_coded,
    command_overwritten_before_use,
    expert_parallel_unconditional,
    flag_missing_value,
    health_check_without_fail,
    launcher_not_a_script,
    mtp_environment_missing,
    mtp_script_missing_chat_template,
    script_framework_mismatch,
    script_missing_for_config,
    script_unreachable,
    shellcheck_error,
    shellcheck_warning,
    sibling_inconsistency,
    source_path_unresolved,
    speculative_flags_in_non_mtp_script,
    validated_variable_unused,
    variable_unset_under_set_u,
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
    master_image_not_public,
    master_image_unpinned,
    master_key_prefix_mismatch,
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
    header_comment_block,
    mtp_script_missing_chat_template,
    expert_parallel_unconditional,
    recipe_container_mismatch,
    script_missing_for_config,
    script_framework_mismatch,
    script_unreachable,
    source_path_unresolved,
    variable_unset_under_set_u,
    flag_missing_value,
    command_overwritten_before_use,
    health_check_without_fail,
    benchmark_size_hard_coded,
    benchmark_helper_bypassed,
    speculative_flags_in_non_mtp_script,
    mtp_environment_missing,
    sibling_inconsistency,
    launcher_not_a_script,
    shellcheck_error,
    shellcheck_warning,
    validated_variable_unused,
)

_BY_KEY = {}
for _rule in ALL_RULES:
    for _key in (_rule.CODE, _rule.NAME):
        assert _key not in _BY_KEY, f"duplicate rule code or name {_key}"
        _BY_KEY[_key] = _rule


def by_code(key: str):
    """The rule with this code or name (case-insensitive code), or None."""
    return _BY_KEY.get(key) or _BY_KEY.get(key.upper())
