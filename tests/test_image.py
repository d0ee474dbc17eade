"""The container image as shipped, without a container engine: the image's file tree is built from
the Dockerfile's own instructions (parsed with BuildKit's parser), the package is installed the way
its RUN line installs it (non-editable, from the copied tree, which is then removed), every
sub-command's `--help` runs from outside any source tree, and the image's CMD serves until
`GET /healthz` answers 200.

Absolute paths of the image (`/src`, `/data`) live under a temporary root. The emulation knows each
shell command the Dockerfile's RUN lines use and fails on any other, so it cannot silently fall
behind the Dockerfile. Where a Docker engine runs, `.ci/run` also builds the image for real.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import venv
from pathlib import Path

import dockerfile
import pytest
import requests

from bot.webhook import sign

ROOT = Path(__file__).resolve().parents[1]
# System set-up the image does that a test cannot and need not repeat (packages, users, ownership).
SYSTEM_ONLY = ("apt-get", "useradd", "chown")


class Image:
    """What the Dockerfile builds, replayed under `root` with `python` as the image's interpreter."""

    def __init__(self, root: Path, python: Path):
        self.root, self.python = root, python
        self.workdir = "/"
        self.env: dict[str, str] = {}
        self.cmd: list[str] | None = None
        self.base: str | None = None

    def path(self, image_path: str) -> Path:
        p = Path(image_path) if image_path.startswith("/") else Path(self.workdir) / image_path
        return self.root / p.relative_to("/") if p.is_absolute() else self.root / p

    def rewrite(self, word: str) -> str:
        """An absolute image path as a path under the test's root; anything else unchanged."""
        return str(self.path(word)) if word.startswith("/") and len(word) > 1 else word

    def copy(self, srcs: tuple[str, ...], dest: str) -> None:
        target = self.path(dest)
        many = len(srcs) > 1 or dest.endswith("/")
        for src in srcs:
            origin = ROOT / src
            assert origin.exists(), f"COPY {src}: not in the repository"
            to = target / origin.name if many else target
            to.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(origin, to, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
            else:
                shutil.copy2(origin, to)

    def run(self, script: str) -> None:
        cwd = self.path(self.workdir)
        for part in script.split("&&"):
            words = shlex.split(part)
            if not words:
                continue
            if words[0] in SYSTEM_ONLY:
                continue
            if words[0] == "cd":
                cwd = self.path(words[1]) if words[1].startswith("/") else cwd / words[1]
            elif words[0] == "mkdir":
                for w in words[1:]:
                    if not w.startswith("-"):
                        Path(self.rewrite(w)).mkdir(parents=True, exist_ok=True)
            elif words[0] == "rm":
                for w in words[1:]:
                    if w.startswith("-") or w.startswith("/var/lib/apt"):
                        continue
                    shutil.rmtree(self.rewrite(w) if w.startswith("/") else cwd / w)
            elif words[:2] == ["pip", "install"]:
                proc = subprocess.run([str(self.python), "-m", "pip", "install", "-q", *words[2:]], cwd=cwd,
                                      capture_output=True, text=True, timeout=900)
                assert proc.returncode == 0, f"RUN {part.strip()}:\n{proc.stdout}{proc.stderr}"
            else:
                raise AssertionError(f"tests/test_image.py does not know the Dockerfile's command `{part.strip()}`")

    @classmethod
    def build(cls, root: Path, python: Path) -> Image:
        image = cls(root, python)
        for c in dockerfile.parse_file(str(ROOT / "Dockerfile")):
            if c.cmd == "FROM":
                image.base = c.value[0]
            elif c.cmd == "WORKDIR":
                image.workdir = c.value[0] if c.value[0].startswith("/") else str(Path(image.workdir) / c.value[0])
                image.path(image.workdir).mkdir(parents=True, exist_ok=True)
            elif c.cmd == "COPY":
                assert not any(f.startswith("--from") for f in c.flags), "multi-stage COPY is not emulated"
                image.copy(c.value[:-1], c.value[-1])
            elif c.cmd == "ENV":
                image.env.update(zip(c.value[::2], c.value[1::2], strict=False))
            elif c.cmd == "RUN":
                image.run(c.value[0])
            elif c.cmd == "CMD":
                assert c.json, "CMD in exec form, so signals reach the server"
                image.cmd = list(c.value)
        return image

    def environ(self, **extra: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")}
        # The image's pip settings (no cache) are about its size; the installed program ignores them.
        image_env = {k: self.rewrite(v) for k, v in self.env.items() if not k.startswith("PIP_")}
        bin_dir = str(self.python.parent)
        return {**keep, **image_env, "PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "HOME": str(self.root),
                **extra}


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Image:
    root = tmp_path_factory.mktemp("image-root")
    prefix = tmp_path_factory.mktemp("image-python") / "venv"
    venv.EnvBuilder(with_pip=True).create(prefix)
    return Image.build(root, prefix / "bin" / "python")


def commands() -> list[str]:
    from bot import cli

    cli._register_extras()  # noqa: SLF001
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")  # noqa: SLF001
    return sorted(sub.choices)


def program(image: Image) -> str:
    return str(image.python.parent / "recipe-review")


def test_the_dockerfile_is_a_python_image_installing_non_editable(image):
    assert image.base and image.base.startswith("python:3.")
    assert not image.path("/src").exists(), "the source tree is removed: the program runs from site-packages"
    assert image.cmd and image.cmd[:2] == ["recipe-review", "serve"]
    installed = subprocess.run([str(image.python), "-m", "pip", "show", "-f", "recipe-review"], capture_output=True,
                               text=True, check=True).stdout
    assert "Editable project location" not in installed and "fakegithub/server.py" in installed


@pytest.mark.parametrize("command", ["", *commands()])
def test_every_command_starts_in_the_image(image, command):
    outside = image.path("/data")
    proc = subprocess.run([program(image), *([command] if command else []), "--help"], cwd=outside,
                          env=image.environ(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "usage: recipe-review" in proc.stdout and "Traceback" not in proc.stderr
    if not command:
        for name in commands():
            assert name in proc.stdout


def test_the_version_is_the_package_version(image):
    from bot import __version__

    proc = subprocess.run([program(image), "--version"], env=image.environ(), capture_output=True, text=True,
                          cwd=image.path("/data"), timeout=60)
    assert (proc.returncode, proc.stdout) == (0, f"recipe-review {__version__}\n")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cmd_on(cmd: list[str], port: int) -> list[str]:
    """The image's CMD with the port it publishes replaced by a free one, on the loopback address."""
    out = list(cmd)
    for flag, value in (("--port", str(port)), ("--host", "127.0.0.1")):
        if flag in out:
            out[out.index(flag) + 1] = value
    return out


def test_the_image_cmd_serves_healthz_with_a_complete_configuration(image, rsa_private_key, tmp_path):
    assert image.cmd is not None
    port = _free_port()
    secret = "image-test-secret"
    env = image.environ(GITHUB_APP_ID="12345", GITHUB_PRIVATE_KEY=rsa_private_key, WEBHOOK_SECRET=secret)
    assert env["STORE_PATH"].startswith(str(image.root))  # the image's /data
    argv = _cmd_on(image.cmd, port)
    argv[0] = str(image.python.parent / argv[0])
    log = tmp_path / "serve.log"
    t0 = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, cwd=image.path("/data"), env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        status = None
        while time.monotonic() - t0 < 60 and proc.poll() is None:
            try:
                r = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                status = r.status_code
                if status == 200:
                    break
            except requests.ConnectionError:
                pass
            time.sleep(0.2)
        assert status == 200, log.read_text(errors="replace")
        assert r.json()["ok"] is True
        body = json.dumps({"zen": "Keep it logically awesome.", "hook_id": 1}).encode()
        ping = requests.post(f"http://127.0.0.1:{port}/webhook", data=body, timeout=5, headers={
            "X-GitHub-Event": "ping", "X-GitHub-Delivery": "image-test-1", "Content-Type": "application/json",
            "X-Hub-Signature-256": sign(secret.encode(), body)})
        assert ping.status_code == 200, ping.text
    finally:
        proc.terminate()
        proc.wait(20)
    print(f"image CMD answered /healthz 200 after {time.monotonic() - t0:.1f} s", file=sys.stderr)
