"""`serve` and `worker` refuse to start half-configured: every missing or broken setting named in one
message, exit 2, no traceback (the real commands, in subprocesses, with a clean environment)."""
from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from bot.settings import load_for, normalize_private_key, startup_problems

ROOT = Path(__file__).resolve().parents[2]
OURS = ("GITHUB_", "WEBHOOK_", "APP_ID", "PRIVATE_KEY", "QUEUE", "REDIS_URL", "STORE_PATH", "NO_COLOR", "FORCE_COLOR")
SECRET = "s3cret"
NO_CREDENTIALS = "no GitHub credentials: set GITHUB_APP_ID with GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH"
NO_SECRET = "WEBHOOK_SECRET is not set"


def clean_env(tmp_path: Path, **settings: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(OURS)}
    return {**env, "STORE_PATH": str(tmp_path / "store.sqlite3"), **settings}


def start(role: str, env: dict, *args: str) -> subprocess.CompletedProcess:
    extra = ("--host", "127.0.0.1", "--port", "0") if role == "serve" else ("--burst",)
    return subprocess.run([sys.executable, "-m", "bot.cli", role, *extra, *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)


def one_message(proc: subprocess.CompletedProcess, role: str) -> list[str]:
    """The problems of the one error message, after checking the exit status and the shape."""
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.startswith(f"recipe-review: error: `recipe-review {role}` cannot start:\n")
    return [ln[4:] for ln in proc.stderr.splitlines() if ln.startswith("  - ")]


@pytest.fixture
def key_file(tmp_path, rsa_private_key) -> Path:
    p = tmp_path / "app.pem"
    p.write_text(rsa_private_key)
    return p


CASES = {
    "nothing at all": ({}, [NO_SECRET, NO_CREDENTIALS]),
    "the secret alone": ({"WEBHOOK_SECRET": SECRET}, [NO_CREDENTIALS]),
    "a token, no secret": ({"GITHUB_TOKEN": "t"}, [NO_SECRET]),
    "an empty secret": ({"GITHUB_TOKEN": "t", "WEBHOOK_SECRET": ""}, [NO_SECRET]),
    "an App ID without its key": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_APP_ID": "7"},
        ["GITHUB_APP_ID is set without its private key"],
    ),
    "a key without the App ID": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_PRIVATE_KEY": "{key}"},
        ["GITHUB_APP_ID is not set, but a private key is"],
    ),
    "a key path that does not exist": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_APP_ID": "7", "GITHUB_PRIVATE_KEY_PATH": "{tmp}/missing.pem"},
        ["GITHUB_PRIVATE_KEY_PATH='{tmp}/missing.pem': no such file"],
    ),
    "a key path that is a directory": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_APP_ID": "7", "GITHUB_PRIVATE_KEY_PATH": "{tmp}"},
        ["GITHUB_PRIVATE_KEY_PATH='{tmp}' is a directory"],
    ),
    "a key file that is no key": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_APP_ID": "7", "GITHUB_PRIVATE_KEY_PATH": "{tmp}/notes.txt"},
        ["the file GITHUB_PRIVATE_KEY_PATH='{tmp}/notes.txt' does not parse as a private key"],
    ),
    "an inline key that is no key": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_APP_ID": "7", "GITHUB_PRIVATE_KEY": "hunter2"},
        ["GITHUB_PRIVATE_KEY does not parse as a private key"],
    ),
    "an App ID that is no number": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_APP_ID": "seven", "GITHUB_PRIVATE_KEY": "{key}"},
        ["GITHUB_APP_ID='seven': Input should be a valid integer"],
    ),
    "both key forms": (
        {
            "WEBHOOK_SECRET": SECRET,
            "GITHUB_APP_ID": "7",
            "GITHUB_PRIVATE_KEY": "{key}",
            "GITHUB_PRIVATE_KEY_PATH": "{keyfile}",
        },
        ["GITHUB_PRIVATE_KEY and GITHUB_PRIVATE_KEY_PATH are both set"],
    ),
    "APP_ID and GITHUB_APP_ID disagree": (
        {"WEBHOOK_SECRET": SECRET, "APP_ID": "8", "GITHUB_APP_ID": "7", "GITHUB_PRIVATE_KEY": "{key}"},
        ["APP_ID and GITHUB_APP_ID are two spellings of one setting and disagree (APP_ID='8', GITHUB_APP_ID='7')"],
    ),
    "PRIVATE_KEY and GITHUB_PRIVATE_KEY disagree": (
        {"WEBHOOK_SECRET": SECRET, "GITHUB_APP_ID": "7", "PRIVATE_KEY": "{otherkey}", "GITHUB_PRIVATE_KEY": "{key}"},
        ["PRIVATE_KEY and GITHUB_PRIVATE_KEY are two spellings of one setting and disagree: set one"],
    ),
    "a Probot key without the Probot App ID": (
        {"WEBHOOK_SECRET": SECRET, "PRIVATE_KEY_PATH": "{keyfile}"},
        ["GITHUB_APP_ID is not set, but a private key is"],
    ),
    "a bad queue and a bad number too": (
        {"GITHUB_TOKEN": "t", "QUEUE": "celery", "WORKER_THREADS": "many"},
        [
            "QUEUE='celery': Input should be 'threads' or 'rq'",
            "WORKER_THREADS='many': Input should be a valid integer",
            NO_SECRET,
        ],
    ),
}


@pytest.mark.parametrize("settings, expected", list(CASES.values()), ids=list(CASES))
def test_serve_names_every_problem_in_one_message(tmp_path, key_file, rsa_private_key, settings, expected):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    (tmp_path / "notes.txt").write_text("not a key\n")
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    fill = {"{key}": rsa_private_key, "{keyfile}": str(key_file), "{tmp}": str(tmp_path), "{otherkey}": other}

    def sub(v: str) -> str:
        for k, x in fill.items():
            v = v.replace(k, x)
        return v

    proc = start("serve", clean_env(tmp_path, **{k: sub(v) for k, v in settings.items()}))
    problems = one_message(proc, "serve")
    assert len(problems) == len(expected), problems
    for want in expected:
        assert any(p.startswith(sub(want)) for p in problems), (want, problems)
    assert rsa_private_key.splitlines()[1] not in proc.stderr  # a key never reaches the message


def test_worker_needs_the_credentials_not_the_secret(tmp_path, rsa_private_key):
    problems = one_message(start("worker", clean_env(tmp_path, QUEUE="rq")), "worker")
    assert len(problems) == 1 and problems[0].startswith(NO_CREDENTIALS)
    half = one_message(start("worker", clean_env(tmp_path, APP_ID="3")), "worker")
    assert len(half) == 1 and half[0].startswith("GITHUB_APP_ID is set without its private key")
    assert startup_problems({"GITHUB_APP_ID": "3", "GITHUB_PRIVATE_KEY": rsa_private_key}, "worker")[1] == []
    assert startup_problems({"GITHUB_TOKEN": "t"}, "worker")[1] == []


@pytest.mark.parametrize("form", ["pem", "escaped newlines", "base64"])
def test_probots_names_and_key_forms_are_accepted(rsa_private_key, form):
    value = {"pem": rsa_private_key, "escaped newlines": rsa_private_key.replace("\n", "\\n"),
             "base64": base64.b64encode(rsa_private_key.encode()).decode()}[form]
    settings = load_for("serve", {"APP_ID": "42", "PRIVATE_KEY": value, "WEBHOOK_SECRET": SECRET})
    assert settings.github_app_id == 42 and settings.private_key() == normalize_private_key(rsa_private_key)
    assert settings.webhook_secret.get_secret_value() == SECRET
    # The same value under both spellings agrees, whatever its form.
    assert load_for("serve", {"GITHUB_APP_ID": "42", "APP_ID": "42", "GITHUB_PRIVATE_KEY": rsa_private_key,
                              "PRIVATE_KEY": value, "WEBHOOK_SECRET": SECRET}).github_app_id == 42


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_starts_from_an_env_file_with_probots_names(tmp_path, key_file):
    env_file = tmp_path / "app.env"
    env_file.write_text(f"APP_ID=42\nPRIVATE_KEY_PATH={key_file}\nWEBHOOK_SECRET={SECRET}\n")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--env-file", str(env_file)], cwd=ROOT, env=clean_env(tmp_path),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, status = time.monotonic() + 30, None
        while time.monotonic() < deadline and proc.poll() is None and status != 200:
            try:
                status = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code
            except requests.ConnectionError:
                time.sleep(0.2)
        assert status == 200
    finally:
        proc.terminate()
        proc.wait(20)


def test_a_missing_env_file_exits_2(tmp_path):
    proc = start("serve", clean_env(tmp_path), "--env-file", str(tmp_path / "nope.env"))
    assert proc.returncode == 2 and "--env-file" in proc.stderr and "no such file" in proc.stderr


def test_serve_help_shows_the_defaults():
    out = subprocess.run([sys.executable, "-m", "bot.cli", "serve", "--help"], capture_output=True, text=True,
                         cwd=ROOT, timeout=60).stdout
    assert "(default: 0.0.0.0)" in out and "(default: 8000)" in out and "(default: 16)" in out
    assert "GITHUB_APP_ID (or APP_ID)" in out and "default: https://api.github.com" in out
    assert "QUEUE" in out and "default: threads" in out


def test_app_env_example_lists_every_setting():
    text = (ROOT / "app.env.example").read_text()
    from bot.settings import Settings

    for field in Settings.model_fields:
        if field not in ("max_body_bytes", "http_timeout_s", "max_retries"):
            assert field.upper() in text, field
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert lines == ["GITHUB_APP_ID=", "GITHUB_PRIVATE_KEY=", "WEBHOOK_SECRET="]  # what must be filled in
