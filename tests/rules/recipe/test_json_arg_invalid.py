import pytest

from rules.recipe.checks import json_arg_invalid as rule
from tests.rules.recipe_helpers import codes, line_of, review, srt_recipe

CASES = [
    ("valid object", "speculative-config", '{"method":"mtp","num_speculative_tokens":2}', None),
    ("trailing comma", "speculative-config", '{"method":"mtp","num_speculative_tokens":2,}', "not valid JSON"),
    ("python True", "compilation-config", '{"use_inductor":True}', "not valid JSON"),
    ("unquoted key", "kv-transfer-config", "{kv_connector:NixlConnector}", "not valid JSON"),
    ("other JSON-looking arg", "deepep-config", '{"normal_dispatch":{"num_sms":96},}', "not valid JSON"),
    ("plain string arg is not JSON", "served-model-name", "org/model", None),
]


@pytest.mark.parametrize("key,value,expect", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_json(key, value, expect):
    text = srt_recipe({"decode": {key: value}})
    r = review(text, [rule])
    if expect is None:
        assert r.findings == []
    else:
        assert codes(r) == [("RR209", line_of(text, key))] and expect in r.findings[0].message
