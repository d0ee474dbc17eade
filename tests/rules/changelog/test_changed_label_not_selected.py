"""RR025 changed-label-not-selected: a key whose only change is a results label (a nit)."""
from rules import run
from rules.changelog.checks import changed_config_not_selected as rr011
from rules.changelog.checks import changed_label_not_selected as rr025
from rules.changeset import ChangeSet
from tests.rules.changelog_helpers import patch_of
from tests.rules.mc_helpers import BASE, NV, ROWS, changelog, entry, master, modified, row

ROUTER = "  router:\n    name: dyn\n    version: 1.0.0\n"
WITH_ROUTER = row("dsv4-fp4-b300-vllm", extra=ROUTER)
ROUTER_BUMP = row("dsv4-fp4-b300-vllm", extra=ROUTER.replace("1.0.0", "1.1.0"))
BASE_R = master(ROWS[0], WITH_ROUTER, ROWS[2])


def _run(head_rows, *entries, base=BASE_R):
    head = master(*head_rows)
    files = [modified(NV, base, head, patch_of(base.decode(), head.decode()))]
    if entries:
        files.append(changelog(*entries))
    return run(ChangeSet(files=tuple(files)), rules=[rr011, rr025])


def test_a_router_version_bump_alone_is_a_nit_not_rr011():
    r = _run((ROWS[0], ROUTER_BUMP, ROWS[2]), entry("dsv4-fp4-b200-vllm"))
    assert [(f.code, f.blocking) for f in r.findings] == [("RR025", False)]
    assert "`router.version`" in r.findings[0].message


def test_a_backend_version_is_a_label_but_its_name_is_not():
    def kv(name, version):
        return row("dsv4-fp4-b300-vllm", extra=f"  kv-offload-backend:\n    name: {name}\n    version: {version}\n")
    base = master(ROWS[0], kv("lmcache", "0.3"), ROWS[2])
    label = _run((ROWS[0], kv("lmcache", "0.4"), ROWS[2]), entry("dsv4-fp4-b200-vllm"), base=base)
    assert [f.code for f in label.findings] == ["RR025"]
    name = _run((ROWS[0], kv("mooncake", "0.3"), ROWS[2]), entry("dsv4-fp4-b200-vllm"), base=base)
    assert [f.code for f in name.findings] == ["RR011"]


def test_a_label_change_next_to_a_real_change_stays_rr011():
    both = row("dsv4-fp4-b300-vllm", tp=4, extra=ROUTER.replace("1.0.0", "1.1.0"))
    r = _run((ROWS[0], both, ROWS[2]), entry("dsv4-fp4-b200-vllm"))
    assert [(f.code, f.blocking) for f in r.findings] == [("RR011", False)]


def test_selected_or_without_entry_says_nothing():
    assert _run((ROWS[0], ROUTER_BUMP, ROWS[2]), entry("dsv4-fp4-b300-vllm")).findings == []
    assert _run((ROWS[0], ROUTER_BUMP, ROWS[2])).findings == []  # changelog-entry-missing's question
    assert _run(ROWS, entry("dsv4-fp4-b200-vllm"), base=BASE).findings == []
