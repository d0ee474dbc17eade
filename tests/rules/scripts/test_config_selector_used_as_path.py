"""RR420: a `:selector[N]` CONFIG_FILE handed to a file tool as a path."""
from rules import run
from rules.scripts.checks import config_selector_used_as_path as rule
from tests.rules.scripts_helpers import master, repo

CFG = "configs/nvidia-master.yaml"
LAUNCHER = "runners/launch_b200-nb.sh"


def disagg_key(config_file: str) -> str:
    return f"""glm5-fp4-b200-dynamo-sglang:
  image: lmsysorg/sglang:v0.5.9
  model: org/glm5
  model-prefix: glm5
  runner: b200
  precision: fp4
  framework: dynamo-sglang
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - conc-list: [64]
        prefill:
          num-worker: 1
          tp: 4
          ep: 1
          dp-attn: false
          additional-settings:
          - "CONFIG_FILE={config_file}"
        decode:
          num-worker: 1
          tp: 8
          ep: 1
          dp-attn: false"""


def launcher(path_arg: str = '"$CONFIG_FILE"') -> str:
    return ("#!/usr/bin/bash\nset -e\n"
            f'sed -i "s/^name:.*/name: runner/" {path_arg}\n'
            'srtctl apply -f "$CONFIG_FILE"\n')


SEL = "recipes/b200-fp4/glm5.yaml:zip_override_8k1k[0]"


def test_a_selector_value_the_pr_writes_is_blamed_on_its_master_line():
    old = master(disagg_key("recipes/b200-fp4/glm5-8k1k.yaml"))
    new = master(disagg_key(SEL))
    r = run(repo({CFG: ("modified", new, old)}, extra={LAUNCHER: launcher()}), rules=[rule])
    (f,) = r.findings
    assert not f.blocking and f.path == CFG and new.split("\n")[f.line - 1].strip() == f'- "CONFIG_FILE={SEL}"'
    assert "`runners/launch_b200-nb.sh:3` passes `$CONFIG_FILE` to `sed` as a path" in f.message


def test_a_launcher_edit_is_reported_on_the_launch_and_stripping_passes():
    cfg = master(disagg_key(SEL))
    stripped = launcher('"${CONFIG_FILE%%:*}"')
    (f,) = run(repo({LAUNCHER: ("modified", launcher(), stripped)}, extra={CFG: cfg}), rules=[rule]).findings
    assert (f.path, f.line) == (LAUNCHER, 3) and f"it is `{SEL}`" in f.message
    r = run(repo({LAUNCHER: ("modified", stripped, launcher())}, extra={CFG: cfg}), rules=[rule])
    assert r.findings == [] and any(c.status == "passed" for c in r.checks)


def test_without_a_selector_or_outside_the_change_nothing_is_reported():
    plain = master(disagg_key("recipes/b200-fp4/glm5-8k1k.yaml"))
    assert (
        run(repo({CFG: ("modified", plain + "\n", plain)}, extra={LAUNCHER: launcher()}), rules=[rule]).findings == []
    )
    sel = master(disagg_key(SEL))
    # the selector was already there and the launcher is untouched: not this PR's change
    assert run(repo({CFG: ("modified", sel + "\n", sel)}, extra={LAUNCHER: launcher()}), rules=[rule]).findings == []
