"""`recipe-review register` end to end against the fake GitHub: the command's local page posts
app.yml's manifest to the fake's web UI, the fake redirects back with a code, the command exchanges
it with `POST /app-manifests/{code}/conversions` and writes app.env (0600). The browser is
`requests`: it loads the page, submits its form and follows GitHub's redirect, as a person would."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from dotenv import dotenv_values
from ruamel.yaml import YAML

from bot.settings import load_for, normalize_private_key

ROOT = Path(__file__).resolve().parents[2]
WEBHOOK = "https://review.example.com/webhook"


class Form(HTMLParser):
    """The page's one form: its action and its hidden fields."""

    def __init__(self, page: str):
        super().__init__()
        self.action, self.fields = None, {}
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.action = a["action"]
        elif tag == "input" and a.get("type") == "hidden":
            self.fields[a["name"]] = a["value"]


class Registration:
    def __init__(self, fake, tmp_path: Path, *args: str, env_file: Path | None = None):
        self.env_file = env_file or tmp_path / "app.env"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "APP_ID", "PRIVATE_KEY"))}
        env["GITHUB_API_URL"] = fake.url
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "register", "--webhook-url", WEBHOOK, "--github-url", fake.url,
             "--env-file", str(self.env_file), "--timeout", "60", *args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.proc.stderr.read() if self.proc.poll() else self.url

    def form(self) -> Form:
        page = requests.get(self.url, timeout=10)
        assert page.status_code == 200 and "text/html" in page.headers["Content-Type"]
        return Form(page.text)

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, out, err


@pytest.fixture
def app_yml() -> dict:
    return YAML(typ="safe").load((ROOT / "bot" / "app.yml").read_text())


def test_register_creates_the_app_and_writes_app_env(fake_github, tmp_path, app_yml):
    reg = Registration(fake_github, tmp_path)
    form = reg.form()
    action = urlsplit(form.action)
    assert f"{action.scheme}://{action.netloc}" == fake_github.url and action.path == "/settings/apps/new"
    state = parse_qs(action.query)["state"][0]
    # A redirect that is not ours (another state) changes nothing and the command keeps waiting.
    stray = requests.get(f"{reg.url}callback", params={"code": "x", "state": "not-" + state}, timeout=10)
    assert stray.status_code == 400 and reg.proc.poll() is None
    done = requests.post(form.action, data=form.fields, timeout=30)  # GitHub redirects back to the command
    assert done.status_code == 200 and "Done" in done.text and done.url.startswith(reg.url)
    code, out, err = reg.finish()
    assert code == 0, err
    created = fake_github.state()["created_apps"]
    assert len(created) == 1
    app = created[0]
    assert (app["owner"], app["owner_type"], app["slug"]) == ("octocat", "User", "recipe-review")
    assert f"Created the GitHub App `recipe-review` (id {app['id']}) owned by octocat" in out
    # The manifest GitHub received is app.yml's, with this run's webhook and redirect.
    m = app["manifest"]
    assert m["hook_attributes"] == {"url": WEBHOOK, "active": True}
    assert m["redirect_url"] == f"{reg.url}callback"
    assert m["default_permissions"] == app_yml["default_permissions"]
    assert m["default_events"] == app_yml["default_events"] and m["name"] == app_yml["name"]
    # app.env: created 0600, the five settings plus the App's login, one line each, usable by `serve`.
    assert stat.S_IMODE(reg.env_file.stat().st_mode) == 0o600
    values = dotenv_values(reg.env_file)
    assert {"GITHUB_APP_ID", "GITHUB_PRIVATE_KEY", "WEBHOOK_SECRET", "GITHUB_CLIENT_ID",
            "GITHUB_CLIENT_SECRET"} <= set(values)
    assert values["GITHUB_APP_ID"] == str(app["id"]) and values["WEBHOOK_SECRET"] == app["webhook_secret"]
    assert (values["GITHUB_CLIENT_ID"], values["GITHUB_CLIENT_SECRET"]) == (app["client_id"], app["client_secret"])
    assert values["BOT_LOGIN"] == "recipe-review[bot]"
    assert "GITHUB_API_URL" in values  # not the public API: the file says which one the App lives on
    settings = load_for("serve", {**values, "GITHUB_API_URL": fake_github.url})
    assert settings.github_app_id == app["id"] and settings.private_key() == normalize_private_key(app["pem"])
    conversions = [c for c in fake_github.state()["calls"] if c["path"].startswith("/app-manifests/")]
    assert [(c["method"], c["status"]) for c in conversions] == [("POST", 201)]


def test_register_for_an_organisation(fake_github, tmp_path):
    reg = Registration(fake_github, tmp_path, "--org", "bench-org", "--name", "recipe-review-bench")
    form = reg.form()
    assert urlsplit(form.action).path == "/organizations/bench-org/settings/apps/new"
    assert requests.post(form.action, data=form.fields, timeout=30).status_code == 200
    code, out, err = reg.finish()
    assert code == 0, err
    app = fake_github.state()["created_apps"][0]
    assert (app["owner"], app["owner_type"], app["slug"]) == ("bench-org", "Organization", "recipe-review-bench")
    assert "owned by bench-org" in out and dotenv_values(reg.env_file)["BOT_LOGIN"] == "recipe-review-bench[bot]"


def test_an_existing_env_file_is_never_overwritten(fake_github, tmp_path):
    existing = tmp_path / "app.env"
    existing.write_text("GITHUB_APP_ID=1\n")
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "register", "--webhook-url", WEBHOOK,
                           "--env-file", str(existing)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""  # refused before anything is served
    assert "exists" in proc.stderr and "never overwrites" in proc.stderr and "Traceback" not in proc.stderr
    assert existing.read_text() == "GITHUB_APP_ID=1\n"


def test_a_code_github_refuses_exits_2_and_writes_nothing(fake_github, tmp_path):
    reg = Registration(fake_github, tmp_path)
    state = parse_qs(urlsplit(reg.form().action).query)["state"][0]
    page = requests.get(f"{reg.url}callback", params={"code": "0" * 20, "state": state}, timeout=30)
    assert page.status_code == 502 and "not registered" in page.text
    code, out, err = reg.finish()
    assert code == 2 and "GitHub refused the manifest code (404 Not Found)" in err
    assert not reg.env_file.exists() and fake_github.state()["created_apps"] == []


@pytest.mark.parametrize("args, message", [
    (("--webhook-url", "review.example.com/webhook"), "--webhook-url expects an http(s) URL"),
    (("--webhook-url", WEBHOOK, "--github-url", "ftp://github.example"), "--github-url expects an http(s) URL"),
    (("--webhook-url", WEBHOOK, "--org", ""), "--org expects an organisation login"),
    (("--webhook-url", WEBHOOK, "--env-file", "/nonexistent-dir/app.env"), "does not exist"),
    (("--webhook-url", WEBHOOK, "--timeout", "0.5"), "no App was created within"),
], ids=["webhook not a URL", "github-url not http", "empty org", "no such directory", "timeout"])
def test_bad_input_exits_2(tmp_path, args, message):
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "register", "--env-file", str(tmp_path / "a.env"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "a.env").exists()
