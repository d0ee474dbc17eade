"""Read-only access to the git repository behind the fake GitHub: revisions, blobs, trees and
PR diffs shaped the way GitHub computes them (merge-base(base, head)..head, rename detection).

Results keyed by commit or blob SHA never change, so they are cached without invalidation.
Revisions given by callers are validated before they reach git (no option injection).
"""
from __future__ import annotations

import re
import subprocess
import threading
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path

# GitHub omits `patch` when one file's diff exceeds 20,000 lines or 500 KB of raw diff
# (docs: "Repository limits" → "Diff limits").
PATCH_MAX_LINES = 20_000
PATCH_MAX_BYTES = 500 * 1024

_STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "T": "changed", "C": "copied"}
_SHA = re.compile(r"^[0-9a-f]{40}$")


class GitError(RuntimeError):
    """A git command failed or a revision does not exist."""


@dataclass(frozen=True)
class DiffFile:
    """One file of a PR diff, with everything GitHub's DiffEntry carries."""

    path: str
    status: str  # added | modified | removed | renamed | changed | copied
    previous_path: str | None
    old_sha: str | None
    new_sha: str | None
    additions: int
    deletions: int
    patch: str | None  # hunks from the first `@@`; None for binary / huge / no-hunk diffs
    binary: bool


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    parents: tuple[str, ...]
    tree: str
    author_name: str
    author_email: str
    author_date: str
    committer_name: str
    committer_email: str
    committer_date: str
    message: str


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    type: str  # blob | tree | commit
    sha: str
    size: int | None
    name: str


@dataclass
class GitRepo:
    path: Path
    _cache: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- plumbing ------------------------------------------------------------------------------
    def _run(self, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
        proc = subprocess.run(["git", "-c", "core.quotepath=off", "-C", str(self.path), *args],
                              capture_output=True, input=input)
        if check and proc.returncode != 0:
            msg = proc.stderr.decode(errors="replace").strip().splitlines()
            raise GitError(f"git {' '.join(args[:3])}: {msg[-1] if msg else 'failed'}")
        return proc.stdout

    def _cached(self, key, fn):
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = fn()
        with self._lock:
            self._cache[key] = value
        return value

    @staticmethod
    def _safe(rev: str) -> str:
        if not rev or rev.startswith("-") or "\0" in rev or "\n" in rev:
            raise GitError(f"bad revision {rev!r}")
        return rev

    # -- revisions -----------------------------------------------------------------------------
    def resolve(self, rev: str) -> str | None:
        """The commit SHA `rev` names, or None."""
        out = self._run("rev-parse", "--verify", "--quiet", f"{self._safe(rev)}^{{commit}}", check=False)
        sha = out.decode().strip()
        return sha or None

    def resolve_object(self, expression: str) -> tuple[str, str] | None:
        """(type, sha) of any object expression (`rev`, `rev:path`, a SHA), or None."""
        out = self._run("rev-parse", "--verify", "--quiet", "--end-of-options", self._safe(expression),
                        check=False).decode().strip()
        if not out:
            return None
        kind = self._run("cat-file", "-t", out, check=False).decode().strip()
        return (kind, out) if kind else None

    def is_branch(self, name: str) -> bool:
        return bool(self._run("rev-parse", "--verify", "--quiet", f"refs/heads/{self._safe(name)}", check=False))

    def merge_base(self, a: str, b: str) -> str | None:
        return self._cached(("mb", a, b), lambda: self._run("merge-base", a, b, check=False).decode().strip()
                            or None)

    def rev_list(self, exclude: str, include: str) -> list[str]:
        """Commits reachable from `include` but not `exclude`, oldest first."""
        return self._cached(("rl", exclude, include), lambda: self._run(
            "rev-list", "--reverse", "--topo-order", include, f"^{exclude}").decode().split())

    def commits(self, shas: list[str]) -> list[CommitInfo]:
        if not shas:
            return []
        missing = [s for s in shas if ("commit", s) not in self._cache]
        if missing:
            fmt = "%H%x00%P%x00%T%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x1e"
            out = self._run("log", "--no-walk=unsorted", f"--format={fmt}", *missing).decode("utf-8", "replace")
            for rec in out.split("\x1e"):
                rec = rec.lstrip("\n")
                if not rec:
                    continue
                p = rec.split("\x00")
                info = CommitInfo(p[0], tuple(p[1].split()), p[2], p[3], p[4], _utc(p[5]), p[6], p[7],
                                  _utc(p[8]), p[9].rstrip("\n"))
                with self._lock:
                    self._cache[("commit", info.sha)] = info
        return [self._cache[("commit", s)] for s in shas]

    def commit(self, sha: str) -> CommitInfo:
        return self.commits([sha])[0]

    # -- objects -------------------------------------------------------------------------------
    def blob(self, sha: str) -> bytes | None:
        def load():
            proc = subprocess.run(["git", "-C", str(self.path), "cat-file", "blob", sha], capture_output=True)
            return proc.stdout if proc.returncode == 0 else None
        if not _SHA.match(sha or ""):
            return None
        return self._cached(("blob", sha), load)

    def object_size(self, sha: str) -> int:
        return self._cached(("size", sha), lambda: int(self._run("cat-file", "-s", sha).decode().strip()))

    def file_at(self, commit: str, path: str) -> tuple[str, str] | None:
        """(type, sha) of `path` in `commit` (type blob or tree), or None."""
        def load():
            if path in ("", "/"):
                return ("tree", self.commit(commit).tree)
            out = self._run("ls-tree", "-z", commit, "--", path.strip("/"), check=False)
            for rec in out.split(b"\0"):
                if not rec:
                    continue
                meta, _, name = rec.partition(b"\t")
                if name.decode("utf-8", "replace") == path.strip("/"):
                    _mode, kind, sha = meta.decode().split()
                    return (kind, sha)
            return None
        return self._cached(("at", commit, path), load)

    def tree(self, tree_sha: str) -> list[TreeEntry]:
        def load():
            out = self._run("ls-tree", "-z", "-l", tree_sha)
            entries = []
            for rec in out.split(b"\0"):
                if not rec:
                    continue
                meta, _, name = rec.partition(b"\t")
                mode, kind, sha, size = meta.decode().split()
                entries.append(TreeEntry(mode, kind, sha, None if size == "-" else int(size),
                                         name.decode("utf-8", "replace")))
            return entries
        return self._cached(("tree", tree_sha), load)

    # -- diffs ---------------------------------------------------------------------------------
    def diff(self, base_commit: str, head_commit: str) -> list[DiffFile]:
        """Files changed from `base_commit` to `head_commit` (callers pass the merge base)."""
        return self._cached(("diff", base_commit, head_commit), lambda: self._diff(base_commit, head_commit))

    def _diff(self, a: str, b: str) -> list[DiffFile]:
        opts = ("-M", "--no-color", "--no-ext-diff", "--full-index")
        raw = self._run("diff", *opts, "--raw", "-z", a, b).split(b"\0")
        numstat = self._run("diff", *opts, "--numstat", "-z", a, b).split(b"\0")
        patches = _split_patches(self._run("diff", *opts, a, b))
        entries, i = [], 0
        while i < len(raw) - 1:
            meta = raw[i].decode()
            if not meta.startswith(":"):
                i += 1
                continue
            _om, _nm, old_sha, new_sha, code = meta[1:].split()
            letter = code[:1]
            if letter in ("R", "C"):
                old, new = raw[i + 1].decode("utf-8", "replace"), raw[i + 2].decode("utf-8", "replace")
                i += 3
            else:
                old = new = raw[i + 1].decode("utf-8", "replace")
                i += 2
            entries.append((letter, old, new, old_sha, new_sha))
        counts, j = [], 0
        while j < len(numstat) - 1:
            rec = numstat[j].decode("utf-8", "replace")
            if not rec:
                j += 1
                continue
            add, dele, rest = rec.split("\t", 2)
            j += 3 if rest == "" else 1  # renames: "a\td\t" then old\0new\0
            counts.append((add, dele))
        files = []
        for k, (letter, old, new, old_sha, new_sha) in enumerate(entries):
            add, dele = counts[k] if k < len(counts) else ("0", "0")
            chunk = patches[k] if k < len(patches) else ""
            binary = add == "-" or "\nBinary files " in chunk or "\nGIT binary patch" in chunk
            patch = None if binary else _hunks(chunk)
            status = _STATUS.get(letter, "modified")
            zero = set("0")
            files.append(DiffFile(
                path=new, status=status, previous_path=old if letter in ("R", "C") else None,
                old_sha=None if set(old_sha) == zero else old_sha,
                new_sha=None if set(new_sha) == zero else new_sha,
                additions=0 if add == "-" else int(add), deletions=0 if dele == "-" else int(dele),
                patch=patch, binary=binary))
        return files


def _split_patches(out: bytes) -> list[str]:
    text = out.decode("utf-8", "replace")
    if not text:
        return []
    parts = re.split(r"(?m)^(?=diff --git )", text)
    return [p for p in parts if p.startswith("diff --git ")]


def _hunks(chunk: str) -> str | None:
    at = chunk.find("\n@@")
    if at < 0:
        return None
    patch = chunk[at + 1:]
    if patch.endswith("\n"):
        patch = patch[:-1]
    if patch.count("\n") + 1 > PATCH_MAX_LINES or len(patch.encode("utf-8")) > PATCH_MAX_BYTES:
        return None
    return patch


def _utc(iso: str) -> str:
    """git's strict ISO date (with offset) → GitHub's `YYYY-MM-DDTHH:MM:SSZ`."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return iso
