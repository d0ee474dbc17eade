"""What a review reads, decided once for the App, the Action and the CLI.

A review reads in rounds; this module says what each round asks for and builds the changeset from
the answers, and does no I/O (the readers do: `bot.gather`):

1. `first_reads(target)`: with the default paths (the repository config is not known yet) — the
   changed files' two versions (YAML and shell only: no rule reads other contents), the written
   policy at the merge base (`rules.policy`), the repository config at the base tip, the trees
   where master configs and runners.yaml can sit beside the changed paths (their files' text and
   modes), for a script review the `runners/` trees (launchers) and a listing of `benchmarks/`
   (names and modes, `LISTING_DEPTH` levels), and whether a changelog exists where one would
   govern the changed paths (`rules.changelog.changes.changelog_candidates`);
2. `config_reads(target, config, got)`: what the repository config moves elsewhere (its master
   configs, runners, changelog, scripts or policy paths), when it does;
3. `more_reads(changeset, config, target)`: what resolving the scripts needs on top
   (`rules.scripts.resolve.needed_paths`: the scripts the launchers pick, their library, siblings).

Expressions are `rev:path`, GitHub's GraphQL `object(expression:)` spelling, which the git reader
answers the same way. `changeset_of(target, got, config)` builds the `ChangeSet` from what was read.
"""
from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from rules.changelog.changes import changelog_candidates
from rules.changeset import ChangeSet, FileChange
from rules.config import EngineConfig, Paths, RepoConfig, path_matches
from rules.context import ReviewContext
from rules.policy import policy_paths
from rules.scripts.resolve import needed_paths, script_dirs

# Changed files whose contents a rule may read: YAML (changelog, master configs, runners, recipes),
# shell and Slurm scripts, and the PR's own waiver (`rules.scripts.patching.pr_waivers`). Every other
# changed file (docs, Python, images, …) is reviewed by path and patch only: a PR of 200 pages of
# docs costs no query. The written policy is read at the merge base, not from the changed files.
CONTENT_SUFFIXES = (".yaml", ".yml", ".sh", ".bash", ".slurm")
CONTENT_GLOBS = ("**/docs/waiver/*.md",)
# Levels of nested trees a listing reads (benchmarks/single_node/fixed_seq_len/deprecated/x.sh is four
# below `benchmarks`).
LISTING_DEPTH = 4
STATUSES = ("added", "modified", "removed", "renamed")


@dataclass(frozen=True)
class Changed:
    """One changed file as the comparison reports it (GitHub's compare, or `git diff`)."""

    path: str
    status: str  # added | modified | removed | renamed (anything else is read as modified)
    patch: str | None = None
    previous_path: str | None = None
    binary: bool = False

    @property
    def base_path(self) -> str:
        return self.previous_path or self.path


@dataclass(frozen=True)
class Target:
    """The PR (or local range) to read: the comparison's result and where things are read from."""

    head: str  # head commit
    merge_base: str  # merge base of the base tip and the head: the reviewed base
    base: str  # the base tip: where the repository config is read (a PR cannot reconfigure its review)
    files: tuple[Changed, ...]
    config_path: str
    repo: str | None = None
    number: int | None = None
    title: str | None = None
    base_time: int | None = None  # the merge base's commit time (Unix seconds)
    base_tip_time: int | None = None

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    @property
    def all_paths(self) -> list[str]:
        """Changed paths and the previous paths of renames, sorted."""
        return sorted({p for f in self.files for p in (f.path, f.previous_path) if p})

    @property
    def config_expr(self) -> str:
        return f"{self.base}:{self.config_path}"


@dataclass(frozen=True)
class Reads:
    """One round of reads, as `rev:path` expressions."""

    blobs: tuple[str, ...] = ()  # contents (None when absent or binary)
    trees: tuple[str, ...] = ()  # a directory's files: their text and modes
    listings: tuple[str, ...] = ()  # a directory's names and modes, LISTING_DEPTH levels, no text
    probes: tuple[str, ...] = ()  # whether a file exists, without its text

    def __bool__(self) -> bool:
        return bool(self.blobs or self.trees or self.listings or self.probes)


@dataclass
class Got:
    """What the reads answered, accumulated over the rounds."""

    blobs: dict[str, bytes | None] = field(default_factory=dict)
    modes: dict[str, str] = field(default_factory=dict)  # "rev:path" -> git mode
    listed: set[str] = field(default_factory=set)  # "rev:dir" whose entries are all in `modes`
    present: dict[str, bool] = field(default_factory=dict)  # probed "rev:path" -> exists

    def update(self, other: Got) -> None:
        self.blobs.update(other.blobs)
        self.modes.update(other.modes)
        self.listed |= other.listed
        self.present.update(other.present)


def context_dirs(paths: Iterable[str], globs: Iterable[str]) -> set[str]:
    """Directories where `**/<dir>/<file-glob>` files can live: `<dir>` and `.github/<dir>` beside
    every ancestor of the changed paths (older trees keep `configs/` under `.github/`)."""
    out = set()
    paths = list(paths)
    for g in globs:
        if not g.startswith("**/") or g.count("/") != 2:
            continue
        sub = g.split("/")[1]
        for p in paths:
            d = posixpath.dirname(p)
            while True:
                for where in (sub, posixpath.join(".github", sub)):
                    out.add(posixpath.join(d, where) if d else where)
                if not d:
                    break
                d = posixpath.dirname(d)
    return out


def changelog_probes(merge_base: str, paths: list[str], globs: Iterable[str]) -> list[str] | None:
    """`rev:path` of every place a changelog governing `paths` could sit at the merge base, or None
    when the changelog globs cannot be probed (see `changelog_candidates`)."""
    candidates = changelog_candidates(tuple(globs), paths)
    return None if candidates is None else [f"{merge_base}:{c}" for c in candidates]


def _read(path: str) -> bool:
    """Whether a rule reads the contents of this changed file."""
    return path.endswith(CONTENT_SUFFIXES) or path_matches(path, CONTENT_GLOBS)


def _file_blobs(target: Target) -> list[str]:
    out = []
    for f in target.files:
        if not any(_read(p) for p in (f.path, f.previous_path) if p):
            continue  # no rule reads it (docs, Python, …): its path and patch are enough
        if f.status != "added":
            out.append(f"{target.merge_base}:{f.base_path}")
        if f.status != "removed":
            out.append(f"{target.head}:{f.path}")
    return out


def _plan(target: Target, paths: Paths) -> tuple[list[str], list[str], list[str], list[str], list[str]]:
    """(policy blobs, trees, listings, changelog probes, policy paths) a review reads under `paths`."""
    config = EngineConfig(RepoConfig(paths=paths))
    probed = policy_paths(target.all_paths, config)
    dirs = script_dirs(target.all_paths, config)
    trees = {f"{target.head}:{d}" for d in context_dirs(target.paths, (*paths.master_configs, *paths.runners))}
    trees |= {f"{target.head}:{d}" for d in dirs if d.endswith("runners")}
    listings = sorted(f"{target.head}:{d}" for d in dirs if d.endswith("benchmarks"))
    probes = changelog_probes(target.merge_base, target.all_paths, paths.changelog) or []
    return [f"{target.merge_base}:{p}" for p in probed], sorted(trees), listings, probes, probed


def first_reads(target: Target) -> Reads:
    """The first round, under the default paths: the config file and the policy come first (they
    decide what else is read), then the changed files."""
    policy, trees, listings, probes, _ = _plan(target, Paths())
    return Reads(blobs=(target.config_expr, *policy, *_file_blobs(target)), trees=tuple(trees),
                 listings=tuple(listings), probes=tuple(probes))


def config_reads(target: Target, config: EngineConfig, got: Got, first: Reads) -> Reads:
    """What the repository's own paths add to the first round (nothing when it keeps the defaults)."""
    if config.paths == Paths():
        return Reads()
    policy, trees, listings, probes, _ = _plan(target, config.paths)
    return Reads(blobs=tuple(b for b in policy if b not in first.blobs),
                 trees=tuple(t for t in trees if t not in first.trees),
                 listings=tuple(t for t in listings if t not in first.listings),
                 probes=tuple(p for p in probes if p not in got.present))


def more_reads(changeset: ChangeSet, config: EngineConfig, target: Target) -> Reads:
    """The scripts' round: the head files resolving the review's points needs (none unless the
    changeset holds a listing, i.e. a script review)."""
    if not changeset.listed:
        return Reads()
    return Reads(blobs=tuple(f"{target.head}:{p}" for p in sorted(needed_paths(ReviewContext(changeset, config)))))


def changeset_of(target: Target, got: Got, config: EngineConfig, extra: Iterable[str] = ()) -> ChangeSet:
    """The changeset from what was read: the changed files, the head context the rules read (master
    configs, runners.yaml, launchers, and `extra`: what `more_reads` asked for), the head listing,
    the written policy at the merge base and which changelogs the base has."""
    paths = config.paths
    mb, head = target.merge_base, target.head
    changes = []
    for f in target.files:
        changes.append(FileChange(
            path=f.path, status=f.status if f.status in STATUSES else "modified",  # type: ignore[arg-type]
            base=None if f.status == "added" else got.blobs.get(f"{mb}:{f.base_path}"),
            head=None if f.status == "removed" else got.blobs.get(f"{head}:{f.path}"),
            patch=f.patch, previous_path=f.previous_path if f.status == "renamed" else None, binary=f.binary))
    changed = {f.path for f in target.files}
    extra = set(extra)
    prefix = f"{head}:"
    wanted = (*paths.master_configs, *paths.runners, *paths.launchers)
    context = {}
    for key, raw in got.blobs.items():
        if key.startswith(prefix) and raw is not None:
            path = key[len(prefix):]
            if path not in changed and (path in extra or path_matches(path, wanted)):
                context[path] = raw
    tree = {k[len(prefix):]: m for k, m in got.modes.items() if k.startswith(prefix)}
    listed = frozenset(k[len(prefix):] for k in got.listed if k.startswith(prefix))
    probed = sorted({*policy_paths(target.all_paths, EngineConfig(RepoConfig(paths=Paths()))),
                     *policy_paths(target.all_paths, config)})
    base_context: dict[str, bytes] = {}
    for p in probed:
        raw = got.blobs.get(f"{mb}:{p}")
        if raw is not None:
            base_context[p] = raw
    probes = changelog_probes(mb, target.all_paths, paths.changelog)
    base_changelogs = None if probes is None else tuple(p.partition(":")[2] for p in probes if got.present.get(p))
    return ChangeSet(files=tuple(changes), pr_number=target.number, repo=target.repo, title=target.title,
                     context=context, tree=tree, listed=listed, base_time=target.base_time,
                     base_tip_time=target.base_tip_time, base_context=base_context, base_probed=frozenset(probed),
                     base_changelogs=base_changelogs)

