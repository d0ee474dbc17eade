"""What a changeset-scope rule receives: the changeset, the config and cached parses."""
from __future__ import annotations

from dataclasses import dataclass, field

from rules.changeset import ChangeSet, FileChange
from rules.config import EngineConfig, path_matches
from rules.document import Document, parse_yaml

KINDS = ("changelog", "master_configs", "runners", "recipes", "scripts", "launchers")


@dataclass
class ReviewContext:
    """A changeset plus config; YAML parses are cached per (path, side)."""

    changeset: ChangeSet
    config: EngineConfig = field(default_factory=EngineConfig)
    _cache: dict = field(default_factory=dict, repr=False)

    def kind(self, path: str) -> str | None:
        """Which kind of file `path` is (a `Paths` field name), or None (memoized: glob matching is
        costly and script reviews ask about every listed path)."""
        kinds = self._cache.setdefault(("kind",), {})
        if path not in kinds:
            kinds[path] = self._kind(path)
        return kinds[path]

    def _kind(self, path: str) -> str | None:
        paths = self.config.paths
        if path_matches(path, paths.deprecated):
            return "deprecated"
        for kind in KINDS:
            if path_matches(path, getattr(paths, kind)):
                return kind
        return None

    def files_of(self, kind: str) -> list[FileChange]:
        """Changed files of one kind (by head path; by previous path for removals)."""
        return [f for f in self.changeset.files if self.kind(f.path) == kind]

    def head_paths_of(self, kind: str) -> list[str]:
        """Every known head path of one kind, changed or context."""
        return sorted(p for p in self.changeset.head_paths() if self.kind(p) == kind)

    def head_doc(self, path: str) -> Document:
        key = ("head", path)
        if key not in self._cache:
            self._cache[key] = parse_yaml(path, self.changeset.head_bytes(path))
        return self._cache[key]

    def base_doc(self, path: str) -> Document:
        key = ("base", path)
        if key not in self._cache:
            self._cache[key] = parse_yaml(path, self.changeset.base_bytes(path))
        return self._cache[key]

    def memo(self, key, compute):
        """Cache any derived analysis shared by several rules (e.g. the changelog diff)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]
