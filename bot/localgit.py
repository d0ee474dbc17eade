"""Build a ChangeSet from a local git range, the way GitHub computes a PR diff (three-dot)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bot.gather import Gathered, gather
from rules.changeset import ChangeSet
from rules.config import CONFIG_PATH, EngineConfig
from rules.inputs import LISTING_DEPTH, Changed, Got, Reads, Target

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
                       config: EngineConfig | None = None) -> ChangeSet:
    """Files changed between merge-base(base, head) and head, with contents and patches, plus the
    context the rules read, as the App reads them (`bot.gather`). `config`: use this config instead of
    the repository's own at `base`."""
    return gather_from_git(repo, base, head, pr_number, config=config).changeset


def gather_from_git(repo: Path, base: str, head: str = "HEAD", pr_number: int | None = None,
                    config: EngineConfig | None = None, title: str | None = None,
                    repo_name: str | None = None) -> Gathered:
    """The review input of a local range: its changeset, the repository config at `base`, and the
    config's errors (`bot.gather.gather` over `GitReader`)."""
    head_sha = resolve(repo, head)
    tip = resolve(repo, base)
    merge_base = _git(repo, "merge-base", tip, head_sha).decode().strip()
    target = Target(head=head_sha, merge_base=merge_base, base=tip, files=compare(repo, merge_base, (head_sha,)),
                    config_path=CONFIG_PATH, repo=repo_name, number=pr_number, title=title,
                    base_time=_commit_time(repo, merge_base), base_tip_time=_commit_time(repo, tip))
    return gather(GitReader(repo), target, config=config)


def gather_from_worktree(repo: Path, base: str, pr_number: int | None = None,
                         config: EngineConfig | None = None) -> Gathered:
    """Like `gather_from_git(repo, base, "HEAD")`, with each tracked file as it is in the working
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
    files = compare(top, merge_base, ())
    overlay = {}
    for f in files:
        if f.status != "removed":
            p = top / f.path
            overlay[f"{head_sha}:{f.path}"] = p.read_bytes() if p.is_file() else None
    target = Target(head=head_sha, merge_base=merge_base, base=tip, files=files, config_path=CONFIG_PATH,
                    number=pr_number, base_time=_commit_time(repo, merge_base), base_tip_time=_commit_time(repo, tip))
    return gather(GitReader(top, overlay), target, config=config)


_GITHUB_REMOTE = re.compile(r"^(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
                            r"([A-Za-z0-9-]+/[A-Za-z0-9._-]+?)(?:\.git)?/?$")


def github_repo_of(repo: Path, remote: str = "origin") -> str | None:
    """OWNER/NAME of the `origin` remote when it is a github.com URL (https or ssh), else None."""
    url = _git(repo, "remote", "get-url", remote, check=False).decode().strip()
    m = _GITHUB_REMOTE.match(url)
    return m.group(1) if m else None


def _commit_time(repo: Path, rev: str) -> int | None:
    """Committer time (Unix seconds) of `rev`; None when git cannot say."""
    stamp = _git(repo, "show", "-s", "--format=%ct", rev, check=False).decode().strip()
    return int(stamp) if stamp.isdigit() else None


def worktree_root(repo: Path) -> Path:
    """The top directory of the working tree `repo` is in."""
    return Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())


def compare(repo: Path, merge_base: str, target: tuple[str, ...]) -> tuple[Changed, ...]:
    """The changed files of `git diff merge_base [target]` (no target: the working tree), with
    GitHub's `patch` of each: what the App gets from GitHub's compare."""
    names = _git(repo, "diff", "--name-status", "-z", "-M", merge_base, *target).split(b"\0")
    entries = []
    i = 0
    while i < len(names) - 1:
        code = names[i].decode()
        if code[:1] in ("R", "C"):
            old, new = names[i + 1].decode(), names[i + 2].decode()
            i += 3
        else:
            old = new = names[i + 1].decode()
            i += 2
        entries.append((code, old, new))
    # One `git diff` for every file (a PR of 200 files is one process, not 200): its per-file parts
    # come in the order of --name-status. Should the counts ever differ, each file is diffed alone.
    whole = _git(repo, "diff", "-M", "--no-color", "--no-ext-diff", merge_base, *target)
    parts = [b"diff --git " + p for p in whole.split(b"\ndiff --git ")] if whole else []
    if parts:
        parts[0] = parts[0][len(b"diff --git "):]
    if len(parts) != len(entries):
        parts = [_git(repo, "diff", "-M", merge_base, *target, "--", *{old, new}) for _, old, new in entries]
    files = []
    for (code, old, new), raw in zip(entries, parts, strict=True):
        status = _STATUS.get(code[:1], "modified")
        patch, binary = _patch_of(raw)
        files.append(Changed(new, status, patch, old if status == "renamed" else None, binary))
    return tuple(files)


class GitReader:
    """`bot.gather.Reader` over git's object store, answering as GitHub's GraphQL does: a blob's
    bytes (None when absent), a tree's files with their text and modes, a listing's names and modes
    `LISTING_DEPTH` levels deep, whether a probed file exists. `overlay` replaces blobs by their
    `rev:path` (the working tree's changed files)."""

    def __init__(self, repo: Path, overlay: dict[str, bytes | None] | None = None):
        self.repo = repo
        self.overlay = overlay or {}

    def read(self, reads: Reads) -> Got:
        got = Got()
        want = [b for b in reads.blobs if b not in self.overlay]
        got.blobs.update(blobs(self.repo, want))
        got.blobs.update({b: self.overlay[b] for b in reads.blobs if b in self.overlay})
        tree_blobs = []
        for expr in reads.trees:
            rev, _, d = expr.partition(":")
            entries = self._entries(rev, d, recursive=False)
            if entries is None:
                continue
            got.listed.add(expr)
            for path, mode, kind in entries:
                if kind == "blob":
                    got.modes[f"{rev}:{path}"] = mode
                    tree_blobs.append(f"{rev}:{path}")
        got.blobs.update(blobs(self.repo, [b for b in tree_blobs if b not in got.blobs]))
        for expr in reads.listings:
            rev, _, d = expr.partition(":")
            d = d.strip("/")
            entries = self._entries(rev, d, recursive=True)
            if entries is None:
                continue
            got.listed.add(f"{rev}:{d}")
            got.modes[f"{rev}:{d}" if d else f"{rev}:"] = "040000"
            for path, mode, kind in entries:
                depth = path.count("/") - (d.count("/") + 1 if d else 0) + 1
                if depth > LISTING_DEPTH:
                    continue
                got.modes[f"{rev}:{path}"] = mode
                if kind == "tree" and depth < LISTING_DEPTH:
                    got.listed.add(f"{rev}:{path}")
        if reads.probes:
            out = subprocess.run(["git", "-C", str(self.repo), "cat-file", "--batch-check"],
                                 input="".join(f"{p}\n" for p in reads.probes).encode(), capture_output=True).stdout
            for p, line in zip(reads.probes, out.decode().splitlines(), strict=False):
                got.present[p] = line.split()[1:2] == ["blob"]
        return got

    def _entries(self, rev: str, d: str, recursive: bool) -> list[tuple[str, str, str]] | None:
        """(path, mode, type) under directory `d` at `rev` (one level, or every level); None when
        `d` is not a directory there."""
        if d and _git(self.repo, "cat-file", "-t", f"{rev}:{d}", check=False).strip() != b"tree":
            return None
        args = ["ls-tree", "-z", *(("-r", "-t") if recursive else ()), rev, "--", *((d + "/",) if d else ())]
        out = []
        for row in _git(self.repo, *args).split(b"\0"):
            if not row:
                continue
            meta, _, name = row.partition(b"\t")
            mode, kind, _ = meta.decode().split(" ", 2)
            path = name.decode("utf-8", "surrogateescape")
            if not d or path.startswith(d + "/"):  # `-t` also shows the trees leading down to `d`
                out.append((path, mode, kind))
        return out


def config_at(repo: Path, rev: str) -> bytes | None:
    """The per-repository config file at `rev` (the base: a PR cannot reconfigure its own review)."""
    return show(repo, resolve(repo, rev), CONFIG_PATH)
