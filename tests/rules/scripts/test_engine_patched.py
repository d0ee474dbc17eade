"""RR430 engine-patched: added lines that patch the engine block, unless this PR files its waiver."""
import dataclasses

import pytest

from rules.runner import run
from rules.scripts.checks import engine_patched as rule
from tests.rules.scripts_helpers import repo, script_path, sglang_script

S = script_path("glm5_fp8_b200.sh")
DIST = "/usr/local/lib/python3.12/dist-packages"
CHECKLIST = "docs/PR_REVIEW_CHECKLIST.md"
POLICY = b"- [ ] Nothing patches the engine: the image runs as shipped unless a waiver covers the patch.\n"


def with_policy(cs, text=POLICY):
    return dataclasses.replace(cs, base_context={CHECKLIST: text} if text is not None else {},
                               base_probed=frozenset({CHECKLIST}))


def review(extra_lines: str, pr=77, changed=None):
    text = sglang_script().replace(
        "check_env_vars MODEL TP CONC ISL OSL\n", f"check_env_vars MODEL TP CONC ISL OSL\n{extra_lines}\n"
    )
    cs = repo({S: ("modified", text, sglang_script()), **(changed or {})})
    return run(dataclasses.replace(with_policy(cs), pr_number=pr), rules=[rule])


@pytest.mark.parametrize(
    "line",
    [
        f"sed -i '102,108d' {DIST}/flashinfer/jit/cubin_loader.py",
        f"IDX={DIST}/vllm/model_executor/layers/indexer.py\nsed -i 's/a/b/' \"$IDX\"",
        "git apply /tmp/vllm-scheduler-fix.patch",
        f"patch -p1 -d {DIST} < fix.patch",
        "git clone https://github.com/vllm-project/vllm.git && cd vllm\ngit apply ../fix.patch",
        f"cp scheduler.py {DIST}/vllm/v1/core/sched/scheduler.py",
        'pip install "git+https://github.com/someone/vllm.git@fix#egg=vllm"',
        "pip install /tmp/wheels/sglang-0.5.9+fix-py3-none-any.whl",
        "git clone https://github.com/sgl-project/sglang.git && cd sglang\npip install --no-deps -e python/",
        "python3 - <<'PY'\nimport vllm, pathlib\np = pathlib.Path(vllm.__file__).parent / 'config.py'\n"
        "p.write_text(p.read_text().replace('a', 'b'))\nPY",
        "sed -i 's|x = 1|x = 2|' atom/models/deepseek_v4.py",
        'FIX=/sgl-workspace/sglang/python/sglang/srt/disaggregation/mori/conn.py\n'
        'EXTRA_MOUNTS="-v $PWD/patches/conn.py:${FIX}:ro"',
    ],
    ids=[
        "sed dist-packages",
        "sed via variable",
        "git apply engine patch",
        "patch -d site-packages",
        "git apply in engine clone",
        "cp over engine",
        "git URL fork",
        "wheel file",
        "editable checkout",
        "python here-doc",
        "relative engine package path",
        "mount over an engine file",
    ],
)
def test_engine_patches_block(line):
    r = review(line)
    assert [f.code for f in r.findings] == ["RR430"] and r.findings[0].blocking, r.findings
    assert "waiver" in r.findings[0].message


@pytest.mark.parametrize(
    "line",
    [
        "pip install -q datasets pandas",
        'python3 -m pip install -q --no-cache-dir "lm-eval[api]" || true',
        "pip install --upgrade --force-reinstall flashinfer-python==0.3.1.post1",
        'sed -i "s/^name:.*/name: \\"${RUNNER_NAME}\\"/" "$CONFIG_FILE"',
        "export LD_LIBRARY_PATH=/opt/venv/lib/python3.10/site-packages/mooncake:$LD_LIBRARY_PATH",
        "git clone https://github.com/example/srt-slurm.git && cd srt-slurm\nuv pip install -e .",
        'echo done > "$RESULT_DIR/out.txt"',
        f"# sed -i 's/a/b/' {DIST}/vllm/x.py (not needed any more)",
        "git clone https://github.com/example/srt-slurm.git && cd srt-slurm\n"
        "git apply ../runners/patches/srt-slurm-vllm-port.patch",
        f"patch --dry-run -p1 -d {DIST} < fix.patch",
        "git apply --check /tmp/vllm-scheduler-fix.patch",
        'docker run -v "$HF_HUB_CACHE:/root/.cache/huggingface" -v "$PWD:/workspace" image',
    ],
    ids=[
        "pypi tools",
        "lm-eval",
        "released pinned version",
        "sed own config",
        "library path",
        "harness checkout",
        "own output",
        "comment",
        "harness checkout patched",
        "dry run",
        "apply --check",
        "mounts of weights and workspace",
    ],
)
def test_not_engine_patches(line):
    assert review(line).findings == []


def test_only_added_lines_count():
    base = sglang_script().replace(
        "check_env_vars MODEL TP CONC ISL OSL\n",
        f"check_env_vars MODEL TP CONC ISL OSL\nsed -i 's/a/b/' {DIST}/vllm/x.py\n",
    )
    head = base.replace("0.85", "0.88")
    cs = with_policy(repo({S: ("modified", head, base)}))
    assert run(cs, rules=[rule]).findings == []


def test_waiver_of_this_pr_exempts():
    line = f"sed -i 's/a/b/' {DIST}/vllm/x.py"
    assert review(line, changed={"docs/waiver/77.md": "# waiver\n"}).findings == []
    r = review(line, changed={"docs/waiver/76.md": "# another PR's waiver\n"})
    assert [f.code for f in r.findings] == ["RR430"] and "docs/waiver/77.md" in r.findings[0].fix


def test_a_base_that_does_not_forbid_patches_is_skipped():
    text = sglang_script().replace(
        "check_env_vars MODEL TP CONC ISL OSL\n",
        f"check_env_vars MODEL TP CONC ISL OSL\nsed -i 's/a/b/' {DIST}/vllm/x.py\n",
    )
    cs = repo({S: ("modified", text, sglang_script())})
    for c, why in (
        (with_policy(cs, None), "does not forbid"),
        (with_policy(cs, b"# Checklist\n- [ ] Evals pass.\n"), "does not forbid"),
        (cs, "was not read"),
    ):
        r = run(c, rules=[rule])
        assert r.findings == [] and any(ch.status == "skipped" and why in ch.detail for ch in r.checks)
