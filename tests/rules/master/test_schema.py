"""rules.master.schema: the repository's master-config models, their history and error locations."""
import copy

import pytest

from rules.conventions import AGENTX_V1, COMPONENT_METADATA, Conventions, at
from rules.master.schema import key_line, validate_key

SINGLE = {"image": "x:1", "model": "m", "model-prefix": "dsr1", "precision": "fp8", "framework": "sglang",
          "runner": "mi300x", "multinode": False,
          "scenarios": {"fixed-seq-len": [{"isl": 1024, "osl": 1024,
                                           "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 64}]}]}}
AGENTIC = {**SINGLE, "runner": "cluster:b200-dgxc",
           "scenarios": {"agentic-coding": [{"dram-utilization": 0.5, "search-space": [
               {"tp": 8, "kv-offloading": "dram", "kv-offload-backend": {"name": "lmcache"}, "conc-list": [8]}]}]}}


def _with(base, path, value):
    v = copy.deepcopy(base)
    node = v
    for p in path[:-1]:
        node = node[p]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return v


ROW = ("scenarios", "fixed-seq-len", 0, "search-space", 0)


@pytest.mark.parametrize("value, where, message", [
    (_with(SINGLE, (*ROW, "conc-list"), [1]), "scenarios.fixed-seq-len[0].search-space[0]", "Cannot specify both"),
    (_with(SINGLE, (*ROW, "pp"), 0), "scenarios.fixed-seq-len[0].search-space[0].pp", "greater than 0"),
    (_with(SINGLE, (*ROW, "pp"), "2"), "scenarios.fixed-seq-len[0].search-space[0].pp", "valid integer"),
    (_with(SINGLE, (*ROW, "spec-decoding"), "eagle"), "scenarios.fixed-seq-len[0].search-space[0].spec-decoding",
     "'mtp', 'draft_model' or 'none'"),
    (_with(SINGLE, ("scenarios",), {}), "scenarios", "At least one scenario type must be specified"),
    (_with(SINGLE, ("disagg",), True), "disagg", "Input should be False"),
    (_with(SINGLE, ("runner",), KeyError), "runner", "Field required"),
    (_with(AGENTIC, ("runner",), "b200"), "(the key)", "Agentic master configs must use a 'cluster:<name>' runner"),
    (_with(AGENTIC, ("scenarios", "agentic-coding", 0, "dram-utilization"), KeyError),
     "scenarios.agentic-coding[0]", "kv-offloading='dram' requires dram-utilization"),
    (_with(AGENTIC, ("scenarios", "agentic-coding", 0, "search-space", 0, "kv-offload-backend"), "lmcache"),
     "scenarios.agentic-coding[0].search-space[0].kv-offload-backend", "valid dictionary"),
    ([1, 2], "(the key)", "not a mapping"),
], ids=["list-and-range", "pp-zero", "pp-strict-int", "spec-enum", "no-scenario", "single-node-disagg",
        "missing-runner", "agentic-runner", "dram-needs-utilization", "backend-object", "not-a-mapping"])
def test_todays_schema_rejects(value, where, message):
    errs = validate_key(value, Conventions())
    assert errs and errs[0].where == where and message in errs[0].message


def test_todays_schema_accepts_the_valid_shapes():
    assert validate_key(SINGLE, Conventions()) == [] and validate_key(AGENTIC, Conventions()) == []
    lax = _with(SINGLE, (*ROW, "tp"), "8")  # `tp: int` is lax in the repository's model (a string "8" passes)
    assert validate_key(lax, Conventions()) == []


def test_history_of_kv_offload_backend():
    legacy = _with(AGENTIC, ("scenarios", "agentic-coding", 0, "search-space", 0, "kv-offload-backend"), "lmcache")
    assert validate_key(legacy, at(COMPONENT_METADATA - 1)) == []  # a string until 2026-07-13
    assert validate_key(AGENTIC, at(COMPONENT_METADATA - 1))  # the {name, version} object only after
    assert validate_key(_with(AGENTIC, ("runner",), "b200"), at(AGENTX_V1 - 1))  # before AgentX v1 …
    old = {**SINGLE, "scenarios": {"agentic-coding": [{"search-space": [{"tp": 8, "offloading": "cpu",
                                                                         "conc-list": [4]}]}]}}
    assert validate_key(old, at(AGENTX_V1 - 1)) == []  # … `offloading` and any runner were fine


def test_key_line_walks_the_block():
    text = ("k:\n  image: x\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n"
            "      search-space:\n      - { tp: 8, conc-start: 4, conc-end: 64 }\n      - { tp: 4, conc-list: [2] }\n")
    assert key_line(text, 100, ("scenarios", "fixed-seq-len", 0, "search-space", 1)) == 108
    assert key_line(text, 100, ("scenarios", "agentic-coding")) == 102  # missing: its parent
    assert key_line("k: [", 7, ("image",)) == 7  # unparsable: the key's line
