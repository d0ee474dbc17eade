"""A releasable project: one version (bot/__init__.py) that the package, the CLI and the newest
CHANGELOG section agree on, a LICENSE the package declares, and release steps in notes/."""
from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from bot import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_has_one_source():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "bot.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    assert metadata.version("recipe-review") == __version__  # what the installed package says


def test_the_newest_changelog_section_is_this_version():
    sections = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert sections[0] == "Unreleased" and sections[1] == __version__


def test_the_license_is_declared_and_explained():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "LICENSE" in (ROOT / "Dockerfile").read_text()  # the image's build needs the declared file
    readme = (ROOT / "README.md").read_text()
    assert "## License" in readme and "[MIT](LICENSE)" in readme


def test_the_release_steps_are_written_down():
    notes = (ROOT / "notes" / "release.md").read_text()
    for step in ("bot/__init__.py", "CHANGELOG.md", "git tag -a v", "requirements.txt", ".ci/run"):
        assert step in notes
