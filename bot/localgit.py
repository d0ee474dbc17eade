"""Build a ChangeSet from a local git range, the way GitHub computes a PR diff (three-dot)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from rules.changelog.changes import changelog_candidates
from rules.changeset import ChangeSet, FileChange
from rules.config import Paths, path_matches

CONFIG_PATH = ".github/recipe-review.yml"
_STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "T": "modified", "C": "added"}


class GitError(RuntimeError):
    """A git command failed; the message says which and why."""


def _git(repo: Path, *args: str, check: bool = True) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    if check and proc.returncode != 0:
        msg = proc.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(f"git {' '.join(args)}: {msg[-1] if msg else 'failed'}")
    return proc.stdout


def resolve(repo: Path, rev: str) -> str:
    if not (Path(repo) / ".git").exists() and _git(repo, "rev-parse", "--git-dir", check=False) == b"":
        raise GitError(f"{repo} is not a git repository")
    out = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False).decode().strip()
    if not out:
        raise GitError(f"unknown revision `{rev}` in {repo}")
    return out


def show(repo: Path, rev: str, path: str) -> bytes | None:
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", f"{rev}:{path}"], capture_output=True)
    return proc.stdout if proc.returncode == 0 else None


def _patch_of(raw: bytes) -> tuple[str | None, bool]:
    """GitHub's `patch` field: the hunks of one file's diff, from the first `@@`; (None, binary?)."""
    text = raw.decode("utf-8", errors="replace")
    if "\nBinary files " in text or text.startswith("Binary files "):
        return None, True
    at = text.find("\n@@")
    if at < 0:
        return (text if text.startswith("@@") else None), False
    return text[at + 1:].rstrip("\n"), False


def changeset_from_git(repo: Path, base: str, head: str = "HEAD", pr_number: int | None = None,
                       paths: Paths | None = None) -> ChangeSet:
    """Files changed between merge-base(base, head) and head, with contents and patches."""
    head_sha = resolve(repo, head)
    merge_base = _git(repo, "merge-base", resolve(repo, base), head_sha).decode().strip()
    return _changeset(repo, merge_base, head_sha, (head_sha,), lambda path: show(repo, head_sha, path),
                      pr_number, paths)


def changeset_from_worktree(repo: Path, base: str, pr_number: int | None = None,
                            paths: Paths | None = None) -> ChangeSet:
    """Like `changeset_from_git(repo, base, "HEAD")`, with each tracked file as it is in the working
    tree (uncommitted edits included; untracked files are not part of the range)."""
    if _git(repo, "rev-parse", "--is-bare-repository", check=False).strip() == b"true":
        raise GitError(f"{repo} is a bare repository; give a checkout (a working tree)")
    if _git(repo, "rev-parse", "--is-inside-work-tree", check=False).strip() != b"true":
        raise GitError(f"{repo} is not a git working tree")
    head_sha = resolve(repo, "HEAD")
    merge_base = _git(repo, "merge-base", resolve(repo, base), head_sha).decode().strip()
    top = Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())

    def read(path: str) -> bytes | None:
        p = top / path
        return p.read_bytes() if p.is_file() else None

    return _changeset(top, merge_base, head_sha, (), read, pr_number, paths)


def worktree_root(repo: Path) -> Path:
    """The top directory of the working tree `repo` is in."""
    return Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())


def _changeset(repo: Path, merge_base: str, head_sha: str, target: tuple[str, ...], read_head,
               pr_number: int | None, paths: Paths | None) -> ChangeSet:
    """The changeset of `git diff merge_base [target]` (no target: the working tree)."""
    paths = paths or Paths()
    names = _git(repo, "diff", "--name-status", "-z", "-M", merge_base, *target).split(b"\0")
    files = []
    i = 0
    while i < len(names) - 1:
        code = names[i].decode()
        if code[:1] in ("R", "C"):
            old, new = names[i + 1].decode(), names[i + 2].decode()
            i += 3
        else:
            old = new = names[i + 1].decode()
            i += 2
        status = _STATUS.get(code[:1], "modified")
        patch, binary = _patch_of(_git(repo, "diff", "-M", merge_base, *target, "--", *{old, new}))
        files.append(FileChange(
            path=new, status=status,
            base=None if status == "added" else show(repo, merge_base, old),
            head=None if status == "removed" else read_head(new),
            patch=patch, previous_path=old if status == "renamed" else None, binary=binary))
    changed = {f.path for f in files}
    base_changelogs = None
    candidates = changelog_candidates(paths.changelog, sorted({p for f in files for p in (f.path, f.base_path)}))
    if candidates is not None:
        found = []
        for entry in _git(repo, "ls-tree", "-z", merge_base, "--", *candidates).split(b"\0") if candidates else ():
            meta, _, path = entry.partition(b"\t")  # "<mode> <type> <sha>\t<path>"
            if meta.split(b" ")[1:2] == [b"blob"]:
                found.append(path.decode())
        base_changelogs = tuple(sorted(found))
    tree = _git(repo, "ls-tree", "-r", "-z", "--name-only", head_sha).split(b"\0")
    wanted = (*paths.master_configs, *paths.runners)
    context = {}
    for p in (t.decode() for t in tree if t):
        if p not in changed and path_matches(p, wanted):
            blob = show(repo, head_sha, p)
            if blob is not None:
                context[p] = blob
    stamp = _git(repo, "show", "-s", "--format=%ct", merge_base, check=False).decode().strip()
    return ChangeSet(files=tuple(files), pr_number=pr_number, context=context, base_changelogs=base_changelogs,
                     base_time=int(stamp) if stamp.isdigit() else None)


def config_at(repo: Path, rev: str) -> bytes | None:
    """The per-repository config file at `rev` (the base: a PR cannot reconfigure its own review)."""
    return show(repo, resolve(repo, rev), CONFIG_PATH)
