"""RR103 master-key-prefix-mismatch: a key must start with `<model-prefix>-`."""
import pytest

from rules import run
from rules.master.checks import master_key_prefix_mismatch as rule
from tests.rules.mc_helpers import NV, ROWS, change_one, row


def _run(key, prefix):
    return run(change_one((*ROWS, row(key, prefix=prefix))).changeset, rules=[rule])


@pytest.mark.parametrize("key, prefix, ok", [
    ("dsv4-fp4-gb200-vllm", "dsv4", True),
    ("glm5.2-fp4-gb200-sglang", "glm5.2", True),
    ("dsr1-fp4-gb200-vllm", "dsv4", False),
    ("dsv4fp4-gb200-vllm", "dsv4", False),
    ("dsv4", "dsv4", False),
    ("xdsv4-fp4-gb200-vllm", "dsv4", False),
    ("dsv4-fp4-gb200-vllm", "dsv4-fp4", True),
    ("DSV4-fp4-gb200-vllm", "dsv4", False),
], ids=["matches", "prefix with a dot", "other model", "no dash after prefix", "key equals prefix",
        "prefix not at start", "longer prefix still a prefix", "case differs"])
def test_prefix(key, prefix, ok):
    r = _run(key, prefix)
    if ok:
        assert r.findings == []
        assert any(c.status == "passed" and key in c.detail for c in r.checks)
    else:
        [f] = r.findings
        assert (f.code, f.path, f.line, f.blocking) == ("RR103", NV, 46, False)
        assert f"`{key}`" in f.message and f"`{prefix}-`" in f.message
        assert f"model-prefix: {prefix} (line 49)" in f.evidence


@pytest.mark.parametrize("prefix", ["''", "[dsv4]", "null"], ids=["empty", "list", "null"])
def test_missing_or_wrong_type_prefix_is_skipped(prefix):
    r = _run("dsv4-fp4-gb200-vllm", prefix)
    assert r.findings == [] and any(c.status == "skipped" and "model-prefix" in c.detail for c in r.checks)


def test_only_changed_keys_are_checked():
    bad = row("dsv4-fp4-b300-vllm", prefix="dsr1")
    r = run(
        change_one(
            (ROWS[0], bad, ROWS[2]), base=b"".join(x.encode() + b"\n" for x in (ROWS[0], bad, ROWS[2]))
        ).changeset,
        rules=[rule],
    )
    assert r.findings == [] and r.checks == []
