"""ChangeSet's head listing: exists / is_dir / mode say what the listing covers and None elsewhere."""
from rules.changeset import ChangeSet, FileChange

CS = ChangeSet(files=(FileChange("benchmarks/new.sh", "added", head=b"x"), FileChange("runners/old.sh", "removed")),
               tree={"benchmarks": "040000", "benchmarks/a.sh": "100755", "benchmarks/deep": "040000",
                     "runners/l.sh": "120000"},
               listed=frozenset({"", "benchmarks", "runners"}))


def test_exists():
    assert CS.exists("benchmarks/a.sh") is True and CS.exists("benchmarks/new.sh") is True
    assert CS.exists("benchmarks/missing.sh") is False and CS.exists("runners/old.sh") is False
    assert CS.exists("benchmarks/nodir/x.sh") is False  # its directory is absent from a listed parent
    assert CS.exists("benchmarks/deep/x.sh") is None  # a directory that exists but is not listed
    assert CS.exists("elsewhere/x") is False and ChangeSet(files=()).exists("x") is None


def test_modes_and_dirs():
    assert CS.mode("runners/l.sh") == "120000" and CS.mode("benchmarks/new.sh") == "100644"
    assert CS.mode("runners/old.sh") is None
    assert CS.is_dir("benchmarks") is True and CS.is_dir("benchmarks/a.sh") is False
    assert CS.is_dir("benchmarks/deep") is True and CS.is_dir("benchmarks/deep/x") is None
