"""The explicit list of rules, in the order they run. Adding a rule = one module + one line here."""
from __future__ import annotations

from rules.checks import (
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
    numeric_claim_false,
    numeric_claim_disagrees_with_value,
    header_comment_block,
    mtp_script_missing_chat_template,
    expert_parallel_unconditional,
    recipe_container_mismatch,
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
    numeric_claim_false,
    numeric_claim_disagrees_with_value,
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
