"""The input of a review: the files a PR changes, with both versions and the patch.

A `ChangeSet` is built by the CLI (from git), by the review job (from the GitHub API) or from a
replay record (`from_record`, the JSON shape of one line of the InferenceX replay data). Contents
are kept as bytes because the changelog contract is byte-level; `text()` decodes strictly.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

Status = Literal["added", "modified", "removed", "renamed"]
STATUSES: tuple[str, ...] = ("added", "modified", "removed", "renamed")


def decode(raw: bytes | None) -> str | None:
    """UTF-8 text of `raw`, or None when absent, binary (NUL) or not valid UTF-8."""
    if raw is None or b"\0" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _to_bytes(value: str | bytes | None) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    # Replay records carry text; surrogateescape round-trips any undecodable byte we were given.
    return value.encode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class FileChange:
    """One changed file: its status, previous path (renames), both versions and the patch."""

    path: str
    status: Status
    base: bytes | None = None  # content at the merge base (None when added or unknown)
    head: bytes | None = None  # content at the head (None when removed or unknown)
    patch: str | None = None  # unified diff hunks as GitHub returns them; None for large diffs
    previous_path: str | None = None
    binary: bool = False

    @property
    def base_path(self) -> str:
        return self.previous_path or self.path

    # Decoded once: several rules read the text, and a hostile file can be 50 MB.
    @cached_property
    def base_text(self) -> str | None:
        return decode(self.base)

    @cached_property
    def head_text(self) -> str | None:
        return decode(self.head)


@dataclass(frozen=True)
class ChangeSet:
    """A PR (or a local git range) as the rules see it.

    `context` holds head versions of files the PR does not change but rules need to read (master
    configs, runners.yaml, launchers, benchmark scripts and their library), keyed by path;
    `base_context` the same at the merge base.
    `base_changelogs` lists the changelog files that exist at the merge base where one would govern
    the changed files (`rules.changelog.changes.changelog_candidates`), when the builder looked:
    `()` means the base has none, None that nobody looked (the rules then assume one).

    `base_probed` names the paths looked for at the merge base (`rules.policy`).

    `tree` is a head listing of what exists (path → git file mode: `100644`, `100755`, `120000` for
    a symlink, `040000` for a directory) under the directories in `listed`, each of which is listed
    completely (its files and subdirectories). Outside `listed` nothing is known: `exists` says
    None there, never False. `rules.scripts.resolve.needed_paths` says which contents a review needs.
    """

    files: tuple[FileChange, ...]
    pr_number: int | None = None
    repo: str | None = None  # "owner/name" when known
    title: str | None = None
    context: Mapping[str, bytes] = field(default_factory=dict)
    base_context: Mapping[str, bytes] = field(default_factory=dict)
    base_changelogs: tuple[str, ...] | None = None
    # Commit time (Unix seconds) of the merge base: the rules judge by the conventions in force
    # then (rules/conventions.py). None = unknown, judged by today's conventions.
    base_time: int | None = None
    # Commit time of the base branch's tip (the revision the PR-run check merges the head into).
    base_tip_time: int | None = None
    tree: Mapping[str, str] = field(default_factory=dict)
    listed: frozenset[str] = frozenset()
    # Paths the builder looked for at the merge base (the written policy, rules/policy.py): those
    # that exist are in `base_context`; empty = nobody looked, so a rule that needs them skips.
    base_probed: frozenset[str] = frozenset()
    # The base replay (rules/scope.py `base_replay`): the base revision with nothing touched, read
    # to find which of the head review's problems the base already had. Rules that pick what to
    # judge by what the PR touched judge everything there.
    replay: bool = False

    def mode(self, path: str) -> str | None:
        """Git file mode of `path` at head from the listing (changed files included), or None."""
        f = self.file(path)
        if f is not None and f.status == "removed":
            return None
        return self.tree.get(path) or ("100644" if f is not None else None)

    def exists(self, path: str) -> bool | None:
        """Whether `path` (file or directory) exists at head: True/False inside the listing, else None."""
        f = self.file(path)
        if f is not None:
            return f.status != "removed"
        if path in self.tree or path in self.listed or path in self.context:
            return True
        # Walk up to the nearest listed directory: a missing child on the way means absent.
        child = path
        while True:
            parent = child.rsplit("/", 1)[0] if "/" in child else ""
            if parent in self.listed:
                return False if child not in self.tree else None
            if parent == "" or parent in self.tree:
                return None
            child = parent

    def is_dir(self, path: str) -> bool | None:
        """Whether `path` is a directory at head (None when the listing does not cover it)."""
        if path == "" or path in self.listed or self.tree.get(path) == "040000":
            return True
        return None if self.exists(path) is None else False

    def file(self, path: str) -> FileChange | None:
        for f in self.files:
            if f.path == path:
                return f
        return None

    def head_bytes(self, path: str) -> bytes | None:
        """Head content of `path`, changed or context; None when it does not exist at head."""
        f = self.file(path)
        if f is not None:
            return f.head
        return self.context.get(path)

    def base_bytes(self, path: str) -> bytes | None:
        for f in self.files:
            if f.base_path == path and f.status != "added":
                return f.base
        return self.base_context.get(path) or self.context.get(path)

    def head_paths(self) -> Iterable[str]:
        """Every path known to exist at head: changed (not removed) files and context files."""
        seen = set()
        for f in self.files:
            if f.status != "removed":
                seen.add(f.path)
                yield f.path
        for p in self.context:
            if p not in seen:
                yield p

    @classmethod
    def from_record(cls, record: Mapping, pr_number: int | None = None) -> ChangeSet:
        """Build from a replay record: {"number", "title", "files": [{filename, status, ...}]}.

        Raises ValueError naming the field when the record is malformed.
        """
        if not isinstance(record, Mapping):
            raise ValueError("changes file must hold a JSON object")
        files_in = record.get("files")
        if not isinstance(files_in, list):
            raise ValueError("changes file: `files` must be a list")
        files = []
        for i, f in enumerate(files_in):
            if not isinstance(f, Mapping) or not isinstance(f.get("filename"), str):
                raise ValueError(f"changes file: files[{i}] needs a string `filename`")
            status = f.get("status", "modified")
            if status not in STATUSES:
                raise ValueError(f"changes file: files[{i}].status `{status}` is not one of {STATUSES}")
            for key in ("base_content", "head_content", "patch", "previous_filename"):
                if f.get(key) is not None and not isinstance(f[key], str):
                    raise ValueError(f"changes file: files[{i}].{key} must be a string")
            files.append(
                FileChange(
                    path=f["filename"],
                    status=status,
                    base=_to_bytes(f.get("base_content")),
                    head=_to_bytes(f.get("head_content")),
                    patch=f.get("patch"),
                    previous_path=f.get("previous_filename"),
                    binary=bool(f.get("binary", False)),
                )
            )
        context = {
            str(k): _to_bytes(v) for k, v in (record.get("context") or {}).items() if v is not None
        }
        base_context = {
            str(k): _to_bytes(v) for k, v in (record.get("base_context") or {}).items() if v is not None
        }
        base_changelogs = record.get("base_changelogs")
        if base_changelogs is not None and not (isinstance(base_changelogs, list)
                                                and all(isinstance(p, str) for p in base_changelogs)):
            raise ValueError("changes file: `base_changelogs` must be a list of paths")
        number = pr_number if pr_number is not None else record.get("number")
        if number is not None and not isinstance(number, int):
            raise ValueError("changes file: `number` must be an integer")
        base_time = record.get("base_time")
        if base_time is not None and (not isinstance(base_time, int) or isinstance(base_time, bool)):
            raise ValueError("changes file: `base_time` must be an integer (Unix seconds)")
        return cls(
            files=tuple(files),
            pr_number=number,
            repo=record.get("repo"),
            title=record.get("title"),
            context=context,
            base_context=base_context,
            base_changelogs=tuple(base_changelogs) if base_changelogs is not None else None,
            base_time=base_time,
        )
