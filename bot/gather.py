"""One way in: the read loop every review runs, over a small `Reader` protocol.

`gather(reader, target)` asks `rules.inputs` what to read, round by round (first reads, what the
repository config adds, what resolving the scripts needs), hands each round to the reader and
builds the changeset from the answers. The App and the Action read through `SnapshotReader`
(GitHub's GraphQL snapshot, the PR's state in the first query); `check`, `fix` and the pre-commit
hooks through `bot.localgit.GitReader` (git's object store). Both answer the same `rev:path`
expressions the same way, so the App and `check` see the same review (tests/bot/test_parity.py).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rules.changeset import ChangeSet
from rules.config import EngineConfig, load_repo_config
from rules.inputs import Got, Reads, Target, changeset_of, config_reads, first_reads, more_reads
from rules.registry import ALL_RULES

if TYPE_CHECKING:  # the git reader's users (check, fix, hooks) never load PyGithub
    from bot.github import GitHubPort, Snapshot

# Blob aliases per GraphQL query: keeps each response far from GitHub's size and time limits.
BLOBS_PER_QUERY = 120


class Reader(Protocol):
    def read(self, reads: Reads) -> Got:
        """Answer one round: every blob, tree, listing and probe of `reads`."""
        ...


@dataclass
class Gathered:
    changeset: ChangeSet
    config: EngineConfig
    config_errors: list[str]


class Stop(Exception):
    """Raised by a `gather` checkpoint to end the read early (the PR closed, its head moved)."""

    def __init__(self, result: object):
        super().__init__(str(result))
        self.result = result


def gather(reader: Reader, target: Target, checkpoint: Callable[[EngineConfig], None] | None = None,
           config: EngineConfig | None = None) -> Gathered:
    """Read what the review of `target` needs, in rounds, and build its changeset.

    `checkpoint(config)` runs once the first round is in (the App checks the PR is still open at
    this head, and whether it reviews drafts); it raises `Stop` to end the read there. `config`: use
    this config instead of the repository's own (tests, `check --changes`).
    """
    first = first_reads(target)
    got = reader.read(first)
    if config is None:
        config, config_errors = load_repo_config(got.blobs.get(target.config_expr), ALL_RULES, target.config_path)
    else:
        config_errors = []
    if checkpoint is not None:
        checkpoint(config)
    extra = config_reads(target, config, got, first)
    if extra:
        got.update(reader.read(extra))
    changeset = changeset_of(target, got, config)
    more = more_reads(changeset, config, target)
    if more:
        got.update(reader.read(more))
        changeset = changeset_of(target, got, config, extra=[b.partition(":")[2] for b in more.blobs])
    return Gathered(changeset, config, config_errors)


class SnapshotReader:
    """Reads through `GitHubPort.snapshot` (GraphQL): the first read also carries the PR's state,
    comments, threads and check runs (`snap`); blobs go `BLOBS_PER_QUERY` to a query, and a text
    GraphQL truncates is read again whole (`GitHubPort.blob`)."""

    def __init__(self, port: GitHubPort, repo: str, number: int, head_sha: str):
        self.port, self.repo, self.number, self.head_sha = port, repo, number, head_sha
        self._snap: Snapshot | None = None  # the first snapshot: the PR's state as of the first read

    @property
    def snap(self) -> Snapshot:
        """The first read's snapshot (the PR's state, comments, threads, check runs, every blob read)."""
        if self._snap is None:
            raise RuntimeError("nothing has been read yet")
        return self._snap

    def read(self, reads: Reads) -> Got:
        got = Got()
        blobs = list(reads.blobs)
        first = self._snap is None
        chunk = blobs[:BLOBS_PER_QUERY]
        snap = self.port.snapshot(self.repo, self.number, chunk, list(reads.trees),
                                  self.head_sha if first else None, list(reads.probes),
                                  listings=list(reads.listings))
        if first:
            self._snap = snap
        truncated = dict(snap.truncated)
        self._take(got, snap)
        for i in range(BLOBS_PER_QUERY, len(blobs), BLOBS_PER_QUERY):  # a PR with hundreds of files
            more = self.port.snapshot(self.repo, self.number, blobs[i:i + BLOBS_PER_QUERY], [])
            truncated.update(more.truncated)
            got.blobs.update(more.blobs)
        for key, oid in truncated.items():
            got.blobs[key] = self.port.blob(self.repo, oid)
        if not first:  # the App's later readers (commands, `/fix`) find every blob in the snapshot
            self.snap.modes.update(got.modes)
            self.snap.listed |= got.listed
            self.snap.present.update(got.present)
        self.snap.blobs.update(got.blobs)
        return got

    @staticmethod
    def _take(got: Got, snap: Snapshot) -> None:
        got.blobs.update(snap.blobs)
        got.modes.update(snap.modes)
        got.listed |= set(snap.listed)
        got.present.update(snap.present)
