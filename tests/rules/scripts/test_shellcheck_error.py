"""RR414: curated ShellCheck errors on added lines (the real shellcheck binary)."""
from rules import run
from rules.scripts import shellcheck
from rules.scripts.checks import shellcheck_error as rule
from tests.rules.scripts_helpers import repo, script_path

P = script_path("x_fp8_b200.sh")


def test_always_true_test_is_blocking_and_names_the_code():
    text = '#!/bin/bash\nif [ -n $EVAL_ARGS ]; then echo yes; fi\nARGS=(a b)\nvllm serve m ${ARGS[@]}\n'
    got = {(f.line, f.message.split(":")[0]) for f in run(repo({P: text}), rules=[rule]).findings}
    assert got == {(2, "ShellCheck SC2070"), (4, "ShellCheck SC2068")}


def test_clean_script_and_unchanged_lines():
    clean = '#!/bin/bash\nif [ -n "$EVAL_ARGS" ]; then echo yes; fi\n'
    assert run(repo({P: clean}), rules=[rule]).findings == []
    bad = '#!/bin/bash\nif [ -n $EVAL_ARGS ]; then echo yes; fi\n'
    assert run(repo({P: ("modified", bad + "echo x\n", bad)}), rules=[rule]).findings == []


def test_missing_binary_or_timeout_is_skipped(monkeypatch):
    shellcheck.clear_cache()
    monkeypatch.setattr(shellcheck, "binary", lambda: None)
    r = run(repo({P: "#!/bin/bash\necho $x\n"}), rules=[rule])
    assert r.findings == [] and [c.status for c in r.checks] == ["skipped"]
    assert "not installed" in r.checks[0].detail


def test_timeout_is_skipped_and_not_cached():
    shellcheck.clear_cache()
    raw = b"#!/bin/bash\n" + b"echo $x\n" * 20000
    out = shellcheck.check(raw, timeout=0.001)
    assert out.error and "longer than" in out.error
    assert not any(k.startswith(shellcheck.blob_sha(raw)) for k in shellcheck._CACHE)


def test_cached_by_blob_sha():
    shellcheck.clear_cache()
    raw = b"#!/bin/bash\nif [ -n $A ]; then :; fi\n"
    first = shellcheck.check(raw)
    assert shellcheck.check(raw) is first and first.comments[0].name == "SC2070"
    assert shellcheck.blob_sha(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob
