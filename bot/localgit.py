"""Build a ChangeSet from a local git range, the way GitHub computes a PR diff (three-dot)."""
from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

from rules.changelog.changes import changelog_candidates
from rules.changeset import ChangeSet, FileChange
from rules.config import EngineConfig, Paths, path_matches
from rules.context import ReviewContext
from rules.policy import policy_paths
from rules.scripts.resolve import needed_paths, script_dirs

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


def blobs(repo: Path, exprs: list[str]) -> dict[str, bytes | None]:
    """Contents of many `rev:path` blobs in one `git cat-file --batch` (None: absent or not a blob)."""
    if not exprs:
        return {}
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input="\n".join(exprs).encode() + b"\n",
                          capture_output=True)
    out: dict[str, bytes | None] = {}
    data, pos = proc.stdout, 0
    for expr in exprs:
        nl = data.find(b"\n", pos)
        if nl < 0:
            out[expr] = None
            continue
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[expr] = data[pos:pos + size]
            pos += size + 1
        else:
            out[expr] = None
            if len(header) == 3:  # a tree or commit: its body follows too
                pos += int(header[2]) + 1
    return out


def listing(repo: Path, rev: str) -> tuple[dict[str, str], frozenset[str]]:
    """(path → git mode, every directory) of the whole tree at `rev`."""
    out: dict[str, str] = {}
    dirs = {""}
    for row in _git(repo, "ls-tree", "-r", "-t", "-z", rev).split(b"\0"):
        if not row:
            continue
        meta, _, name = row.partition(b"\t")
        mode = meta.split()[0].decode()
        path = name.decode("utf-8", "surrogateescape")
        out[path] = mode
        if mode == "040000":
            dirs.add(path)
    return out, frozenset(dirs)


def changeset_from_git(repo: Path, base: str, head: str = "HEAD", pr_number: int | None = None,
                       paths: Paths | None = None, config: EngineConfig | None = None) -> ChangeSet:
    """Files changed between merge-base(base, head) and head, with contents and patches, plus the
    context the rules read: master configs, runners.yaml, and for script reviews the tree listing,
    the launchers and what `rules.scripts.resolve.needed_paths` asks for (the App reads the same)."""
    head_sha = resolve(repo, head)
    tip = resolve(repo, base)
    merge_base = _git(repo, "merge-base", tip, head_sha).decode().strip()
    cs = _changeset(repo, merge_base, head_sha, (head_sha,), lambda path: show(repo, head_sha, path),
                    pr_number, paths, config)
    return dataclasses.replace(cs, base_tip_time=_commit_time(repo, tip))


def changeset_from_worktree(repo: Path, base: str, pr_number: int | None = None,
                            paths: Paths | None = None, config: EngineConfig | None = None) -> ChangeSet:
    """Like `changeset_from_git(repo, base, "HEAD")`, with each tracked file as it is in the working
    tree (uncommitted edits included; untracked files are not part of the range). The context the
    rules read (master configs, runners.yaml, the tree listing, launchers, resolved scripts) is HEAD's."""
    if _git(repo, "rev-parse", "--is-bare-repository", check=False).strip() == b"true":
        raise GitError(f"{repo} is a bare repository; give a checkout (a working tree)")
    if _git(repo, "rev-parse", "--is-inside-work-tree", check=False).strip() != b"true":
        raise GitError(f"{repo} is not a git working tree")
    head_sha = resolve(repo, "HEAD")
    tip = resolve(repo, base)
    merge_base = _git(repo, "merge-base", tip, head_sha).decode().strip()
    top = Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())

    def read(path: str) -> bytes | None:
        p = top / path
        return p.read_bytes() if p.is_file() else None

    cs = _changeset(top, merge_base, head_sha, (), read, pr_number, paths, config)
    return dataclasses.replace(cs, base_tip_time=_commit_time(repo, tip))


def _commit_time(repo: Path, rev: str) -> int | None:
    """Committer time (Unix seconds) of `rev`; None when git cannot say."""
    stamp = _git(repo, "show", "-s", "--format=%ct", rev, check=False).decode().strip()
    return int(stamp) if stamp.isdigit() else None


def worktree_root(repo: Path) -> Path:
    """The top directory of the working tree `repo` is in."""
    return Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())


def _changeset(repo: Path, merge_base: str, head_sha: str, target: tuple[str, ...], read_head,
               pr_number: int | None, paths: Paths | None, config: EngineConfig | None) -> ChangeSet:
    """The changeset of `git diff merge_base [target]` (no target: the working tree)."""
    config = config or EngineConfig()
    paths = paths or config.paths
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
    base_time = _commit_time(repo, merge_base)
    modes, dirs = listing(repo, head_sha)
    scripting = script_dirs(changed | {f.base_path for f in files}, config)
    wanted = (*paths.master_configs, *paths.runners, *(paths.launchers if scripting else ()))
    want = [p for p, m in modes.items() if m != "040000" and p not in changed and path_matches(p, wanted)]
    probed = policy_paths(sorted(changed | {f.base_path for f in files}), config)
    got = blobs(repo, [f"{head_sha}:{p}" for p in want] + [f"{merge_base}:{p}" for p in probed])
    context = {p: got[f"{head_sha}:{p}"] for p in want if got.get(f"{head_sha}:{p}") is not None}
    base_context = {p: got[f"{merge_base}:{p}"] for p in probed if got.get(f"{merge_base}:{p}") is not None}
    cs = ChangeSet(files=tuple(files), pr_number=pr_number, context=context, base_changelogs=base_changelogs,
                   base_time=base_time, base_context=base_context, base_probed=frozenset(probed))
    if not scripting:
        return cs
    cs = dataclasses.replace(cs, tree=modes, listed=dirs)
    more = sorted(needed_paths(ReviewContext(cs, config)))
    got = blobs(repo, [f"{head_sha}:{p}" for p in more])
    context.update({p: got[f"{head_sha}:{p}"] for p in more if got.get(f"{head_sha}:{p}") is not None})
    return dataclasses.replace(cs, context=context)


def config_at(repo: Path, rev: str) -> bytes | None:
    """The per-repository config file at `rev` (the base: a PR cannot reconfigure its own review)."""
    return show(repo, resolve(repo, rev), CONFIG_PATH)
