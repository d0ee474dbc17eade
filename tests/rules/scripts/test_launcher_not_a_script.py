"""RR413: a launcher committed as a regular file holding only a path."""
from rules import run
from rules.scripts.checks import launcher_not_a_script as rule
from tests.rules.scripts_helpers import repo

P = "runners/launch_b300-x.sh"


def test_bare_path_as_regular_file_is_blocking():
    (f,) = run(repo({P: "launch_b200-nb.sh\n"}), rules=[rule]).findings
    assert (f.line, f.blocking) == (1, True)
    assert f.message == f"launcher `{P}` is a regular file whose only content is `launch_b200-nb.sh`"


def test_symlink_with_the_same_text_is_fine():
    r = run(repo({P: "launch_b200-nb.sh"}, modes={P: "120000"}), rules=[rule])
    assert r.findings == [] and [c.detail for c in r.checks] == [f"{P} is a symlink to `launch_b200-nb.sh`"]


def test_real_launcher_passes_and_empty_one_fails():
    assert run(repo({P: "#!/bin/bash\nset -x\nbash benchmarks/x.sh\n"}), rules=[rule]).findings == []
    assert [f.code for f in run(repo({P: "#!/bin/bash\n# todo\n"}), rules=[rule]).findings] == ["RR413"]
