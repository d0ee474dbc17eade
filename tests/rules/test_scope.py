"""Whose problem: a finding on lines the PR does not touch is reported as already in the base."""
import types

import pytest

from rules import ChangeSet, FileChange, Problem, Severity, run
from rules.config import RuleOptions
from rules.scope import touched

BASE_YAML = "keys:\n  a-key:\n    image: x:1\n    tp: 4\n  b-key:\n    image: y:1\n    tp: 8\n"
HEAD_YAML = BASE_YAML.replace("tp: 4", "tp: 2")
YAML_PATCH = "@@ -2,3 +2,3 @@\n   a-key:\n     image: x:1\n-    tp: 4\n+    tp: 2\n"
SCRIPT_BASE = "#!/bin/bash\nvllm serve m \\\n  --tp 4 \\\n  --max-num-seqs 8\necho done\nexit 0\n"
SCRIPT_HEAD = SCRIPT_BASE.replace("--max-num-seqs 8", "--max-num-seqs 16")
SCRIPT_PATCH = "@@ -3,3 +3,3 @@\n   --tp 4 \\\n-  --max-num-seqs 8\n+  --max-num-seqs 16\n echo done\n"
DELETE_PATCH = "@@ -4,3 +4,2 @@\n   --max-num-seqs 8\n-echo done\n exit 0\n"

CS = ChangeSet(files=(
    FileChange("m.yaml", "modified", base=BASE_YAML.encode(), head=HEAD_YAML.encode(), patch=YAML_PATCH),
    FileChange("s.sh", "modified", base=SCRIPT_BASE.encode(), head=SCRIPT_HEAD.encode(), patch=SCRIPT_PATCH),
    FileChange("new.yaml", "added", head=b"a: 1\n"),
    FileChange("big.yaml", "modified", base=b"a: 1\n", head=b"a: 2\n", patch=None),
), context={"other.yaml": b"a: 1\n"})


@pytest.mark.parametrize("path,line,end,want", [
    ("m.yaml", 4, None, True),          # the line the PR wrote
    ("m.yaml", 2, None, True),          # the key whose block the PR changed
    ("m.yaml", 1, None, True),          # the top-level key holding it
    ("m.yaml", 5, None, False),         # a sibling key the PR did not change
    ("m.yaml", 6, 7, False),            # its lines
    ("m.yaml", None, None, True),       # a file-level finding on a changed file
    ("s.sh", 2, None, True),            # the command the PR edited (continued lines)
    ("s.sh", 3, None, True),
    ("s.sh", 5, None, False),           # a line after the command
    ("s.sh", 6, None, False),
    ("new.yaml", 1, None, True),        # a file the PR adds
    ("big.yaml", 1, None, True),        # no patch: nothing proves it untouched
    ("other.yaml", 1, None, False),     # a file the PR does not change
    ("", None, None, True),             # no path at all (a changeset-level finding)
], ids=lambda v: str(v))
def test_touched(path, line, end, want):
    assert touched(CS, path, line, end) is want


def test_a_deletion_touches_the_lines_beside_it():
    cs = ChangeSet(files=(FileChange("s.sh", "modified", base=SCRIPT_BASE.encode(),
                                     head=SCRIPT_BASE.replace("echo done\n", "").encode(), patch=DELETE_PATCH),))
    assert touched(cs, "s.sh", 4) and touched(cs, "s.sh", 5)
    assert not touched(cs, "s.sh", 1)


DOC = "Flags a thing.\n\n## Why it matters\nBecause.\n\n## Example\n    x\n\n## Fix\nDo it.\n"


def _rule(problems, severity=Severity.BLOCKING):
    """A rule that reports `problems` on the PR's head (none on the base replay, where m.yaml is as it was)."""
    def check(ctx, options):
        f = ctx.changeset.file("m.yaml")
        if f is not None and f.head != f.base:
            yield from problems
    return types.SimpleNamespace(CODE="RR990", NAME="thing-broken", SEVERITY=severity, check=check, __doc__=DOC,
                                 __name__="rules.x.checks.thing_broken", Options=RuleOptions)


def test_a_problem_the_base_already_has_is_in_the_base_even_on_a_touched_key():
    """The PR touches a-key (tp 4 → 2); the rule's complaint about a-key's image was as true before."""
    def check(ctx, options):
        text = ctx.changeset.file("m.yaml").head.decode()
        if "image: x:1" in text:
            yield Problem("m.yaml", 3, "a-key's image `x:1` is not pinned by digest")
        if "tp: 2" in text:
            yield Problem("m.yaml", 4, "a-key runs `tp: 2`")
    rule = types.SimpleNamespace(CODE="RR990", NAME="thing-broken", SEVERITY=Severity.BLOCKING, check=check,
                                 __doc__=DOC, __name__="rules.x.checks.thing_broken", Options=RuleOptions)
    r = run(CS, rules=[rule])
    assert [f.message for f in r.findings] == ["a-key runs `tp: 2`"]
    assert [f.message for f in r.in_base] == ["a-key's image `x:1` is not pinned by digest"]


def test_the_base_replay_is_the_base():
    from rules.scope import base_replay

    cs = ChangeSet(files=CS.files + (FileChange("gone.yaml", "removed", base=b"a: 1\n"),
                                     FileChange("new.sh", "renamed", base=b"x\n", head=b"x\n", previous_path="old.sh")),
                   tree={"new.yaml": "100644", "new.sh": "100755", "m.yaml": "100644"})
    b = base_replay(cs)
    assert {f.path: (f.head, f.status) for f in b.files} == {
        "m.yaml": (BASE_YAML.encode(), "modified"), "s.sh": (SCRIPT_BASE.encode(), "modified"),
        "big.yaml": (b"a: 1\n", "modified"), "gone.yaml": (b"a: 1\n", "modified"), "old.sh": (b"x\n", "modified")}
    assert "new.yaml" not in b.tree and "new.sh" not in b.tree and b.tree["old.sh"] == "100755"
    assert all(not touched(b, f.path, 1) or f.patch is None for f in b.files)  # nothing is touched on the base


def test_untouched_problems_are_reported_as_already_in_the_base_whatever_their_severity():
    for severity in (Severity.BLOCKING, Severity.NIT):
        r = run(CS, rules=[_rule([Problem("m.yaml", 4, "mine"), Problem("m.yaml", 6, "old"),
                                  Problem("other.yaml", 1, "elsewhere")], severity)])
        assert [f.message for f in r.findings] == ["mine"]
        assert sorted(f.message for f in r.in_base) == ["elsewhere", "old"]
        assert [f.message for f in r.blocking] == (["mine"] if severity is Severity.BLOCKING else [])
        assert [f["message"] for f in r.to_dict()["in_base"]] == ["old", "elsewhere"]


def test_a_cause_the_pr_touched_makes_the_problem_the_prs():
    r = run(CS, rules=[_rule([Problem("m.yaml", 6, "flag ignores the value set at m.yaml:4",
                                      cause=(("m.yaml", 4),))])])
    assert [f.message for f in r.findings] == ["flag ignores the value set at m.yaml:4"] and not r.in_base


def test_no_in_base_key_when_nothing_is_in_the_base():
    r = run(CS, rules=[_rule([Problem("m.yaml", 4, "mine")])])
    assert "in_base" not in r.to_dict()


def test_a_problem_a_rename_only_carried_is_in_the_base():
    """`.github/configs/m.yaml` → `configs/m.yaml`: the replay runs at the old path, and a complaint
    it finds there is recognised under the head's name."""
    def check(ctx, options):
        for f in ctx.changeset.files:
            text = f.head.decode()
            if "image: x:1" in text:
                yield Problem(f.path, 1, f"`{f.path}`: the image `x:1` is not pinned by digest")
            if "tp: 2" in text:
                yield Problem(f.path, 2, f"`{f.path}` runs `tp: 2`")
    rule = types.SimpleNamespace(CODE="RR990", NAME="thing-broken", SEVERITY=Severity.BLOCKING, check=check,
                                 __doc__=DOC, __name__="rules.x.checks.thing_broken", Options=RuleOptions)
    old, new = "image: x:1\ntp: 4\n", "image: x:1\ntp: 2\n"
    cs = ChangeSet(files=(FileChange("configs/m.yaml", "renamed", base=old.encode(), head=new.encode(),
                                     previous_path=".github/configs/m.yaml"),))
    r = run(cs, rules=[rule])
    assert [f.message for f in r.findings] == ["`configs/m.yaml` runs `tp: 2`"]
    assert [f.message for f in r.in_base] == ["`configs/m.yaml`: the image `x:1` is not pinned by digest"]
