"""Fixtures for the fake GitHub's own tests: a standard PR scene and a raw HTTP session.

`scene` builds PR #1 (`feature` into `main`) on `fake_github`:
- `config.yaml` (60 lines `keyN: N`) with lines 5 and 40 changed: two hunks, new-file lines
  2-8 and 37-43 (old-file lines the same);
- `new.yaml` added (3 lines), `old.txt` removed (2 lines), `README.md` unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest
import requests

BASE_CONFIG = "".join(f"key{i}: {i}\n" for i in range(1, 61))
HEAD_CONFIG = "".join(f"key{i}: {i * 100 if i in (5, 40) else i}\n" for i in range(1, 61))


@dataclass
class Scene:
    fake: object
    repo: object
    base_sha: str
    head_sha: str
    number: int = 1


@pytest.fixture
def scene(fake_github, git_repo) -> Scene:
    base = git_repo.commit({"config.yaml": BASE_CONFIG, "old.txt": "one\ntwo\n"}, "base configs")
    head = git_repo.commit({"config.yaml": HEAD_CONFIG, "new.yaml": "a: 1\nb: 2\nc: 3\n", "old.txt": None},
                           "tune two keys", branch="feature")
    fake_github.add_pr(1, base="main", head="feature", author="dana", title="Tune keys")
    return Scene(fake_github, git_repo, base, head)


@pytest.fixture
def http(fake_github):
    """A requests session with a token, for raw calls (headers, /_fake endpoints)."""
    s = requests.Session()
    s.headers["Authorization"] = "token x"
    try:
        yield s
    finally:
        s.close()
