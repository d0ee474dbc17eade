"""Coverage fixtures of the written rules, as data: build a review from two file trees.

`tests/written/fixtures/<ID>/<case>/` holds `base/` and `head/` (the repository before and after the
PR: a file only in head is added, only in base is removed) and optionally `pr.yaml` (`number`,
`title`, `body`, `created_at`, `author`). A case named `violation…` must make a rule that declares
the ID (`ENFORCES`) fire; a case named `control…` must make none of them fire.

The review is built the way the CLI builds one (`bot.localgit.changeset_from_git`): both trees are
committed to a scratch git repository, so the context, the base-revision policy files and the tree
listing are fetched exactly as a real review fetches them. The repository's own config file
(`.github/recipe-review.yml` at the base) applies, as it does for the CLI.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from bot.localgit import gather_from_git
from rules.changeset import ChangeSet
from rules.registry import ALL_RULES
from rules.runner import Report, run

FIXTURES = Path(__file__).parent / "fixtures"
CASE_KINDS = ("violation", "control")
PR_KEYS = ("number", "title", "body", "created_at", "author")
DEFAULT_PR = 4242


def enforcing(rid: str) -> list:
    """The registered rules that declare `rid` in their ENFORCES."""
    return [r for r in ALL_RULES if rid in getattr(r, "ENFORCES", ())]


def declarations() -> list[tuple[str, str]]:
    """Every (rule code, ID) declaration."""
    return [(r.CODE, rid) for r in ALL_RULES for rid in getattr(r, "ENFORCES", ())]


@dataclass(frozen=True)
class Case:
    rid: str
    name: str
    path: Path

    @property
    def kind(self) -> str:
        return next((k for k in CASE_KINDS if self.name.startswith(k)), "")

    @property
    def label(self) -> str:
        return f"{self.rid}/{self.name}"


def cases(rid: str | None = None) -> list[Case]:
    out = []
    for d in sorted(FIXTURES.iterdir()) if FIXTURES.is_dir() else ():
        if not d.is_dir() or (rid is not None and d.name != rid):
            continue
        for c in sorted(d.iterdir()):
            if c.is_dir():
                out.append(Case(d.name, c.name, c))
    return out


def fixture_ids() -> set[str]:
    return {c.rid for c in cases()}


def pr_meta(case: Case) -> dict:
    f = case.path / "pr.yaml"
    data = yaml.safe_load(f.read_text(encoding="utf-8")) if f.is_file() else {}
    if not isinstance(data, dict) or set(data) - set(PR_KEYS):
        raise ValueError(f"{case.label}: pr.yaml must be a mapping with keys among {PR_KEYS}")
    return data


def _git(repo: Path, *args: str, env: dict | None = None) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _commit(repo: Path, tree: Path, message: str, when: str) -> None:
    for p in repo.iterdir():
        if p.name != ".git":
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
    if tree.is_dir():
        shutil.copytree(tree, repo, dirs_exist_ok=True, symlinks=True)
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_NAME": "fixture",
           "GIT_AUTHOR_EMAIL": "fixture@example.invalid", "GIT_COMMITTER_NAME": "fixture",
           "GIT_COMMITTER_EMAIL": "fixture@example.invalid"}
    # Rebuild the index from the files: a copied file of the same size, mtime (copytree keeps it) and a
    # reused inode would otherwise look unchanged to git, and the head commit would miss the change.
    (repo / ".git" / "index").unlink(missing_ok=True)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "--no-verify", "-m", message, env=env)


@cache
def changeset(case: Case) -> tuple[ChangeSet, object]:
    """(the ChangeSet of the case, the EngineConfig of its base), built from a scratch repository."""
    meta = pr_meta(case)
    number = meta.get("number", DEFAULT_PR)
    when = str(meta.get("created_at") or "2026-11-20T12:00:00Z")
    with tempfile.TemporaryDirectory(prefix="written-") as tmp:
        repo = Path(tmp)
        _git(repo, "init", "-q", "-b", "main")
        _commit(repo, case.path / "base", "base", when)
        _git(repo, "checkout", "-q", "-b", "pr")
        _commit(repo, case.path / "head", "head", when)
        got = gather_from_git(repo, "main", "pr", number)
        if got.config_errors:
            raise ValueError(f"{case.label}: {got.config_errors}")
        cs, config = got.changeset, got.config
    names = {f.name for f in dataclasses.fields(ChangeSet)}
    extra = {k: v for k, v in (("title", meta.get("title")), ("body", meta.get("body")),
                               ("created_at", meta.get("created_at")), ("author", meta.get("author")))
             if v is not None and k in names}
    return dataclasses.replace(cs, repo="SemiAnalysisAI/InferenceX", **extra), config


def review(case: Case, rules=None) -> Report:
    cs, config = changeset(case)
    rules = enforcing(case.rid) if rules is None else rules
    # Forced: a rule the fixture's config leaves off still runs (its severity still comes from the config).
    return run(cs, config, rules=rules, force=frozenset(r.CODE for r in rules))


def fired(report: Report) -> dict[str, list[str]]:
    """code → "path:line message" of every finding charged to this PR (not those already in the base)."""
    out: dict[str, list[str]] = {}
    for f in report.findings:
        out.setdefault(f.code, []).append(f"{f.path}:{f.line} {f.message}")
    return out
