"""`recipe-review register`: create the GitHub App in one command, with GitHub's App-manifest flow.

    recipe-review register --webhook-url https://review.example.com/webhook [--org ORG]
                           [--github-url https://github.com] [--env-file app.env]

1. It serves a page on 127.0.0.1 (the first line on stdout is its address) whose button posts
   `app.yml`'s manifest — permissions and events as shipped, the webhook at `--webhook-url`, the
   redirect back to this page — to `--github-url`'s "new GitHub App" form: the user's own
   (`/settings/apps/new`), or with `--org` the organisation's (`/organizations/ORG/settings/apps/new`).
2. GitHub shows the App, the user presses "Create GitHub App", and GitHub redirects back with a
   one-hour `code` (and the `state` this run chose, which must match).
3. It exchanges the code with `POST /app-manifests/{code}/conversions` on the API at
   GITHUB_API_URL (default `https://api.github.com`; for another `--github-url`, GitHub
   Enterprise's `<github-url>/api/v3`), and writes the App's GITHUB_APP_ID, GITHUB_PRIVATE_KEY
   (one line, newlines as `\\n`), WEBHOOK_SECRET, GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, the
   BOT_LOGIN it will act as and, for GitHub Enterprise, GITHUB_API_URL to `--env-file` (default
   `app.env`), created with mode 0600. An existing file is never overwritten (exit 2 before
   anything is served).

Exit 0 when the App is created and the file written; 2 on bad arguments, an existing file, a code
GitHub refuses, or no App within `--timeout` seconds.
"""
from __future__ import annotations

import argparse
import html
import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment
    from flask import Flask, Response

PUBLIC_WEB_URL = "https://github.com"
PUBLIC_API_URL = "https://api.github.com"
ENV_KEYS = ("GITHUB_APP_ID", "GITHUB_PRIVATE_KEY", "WEBHOOK_SECRET", "GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET")


def manifest(webhook_url: str, redirect_url: str, name: str | None = None) -> dict[str, Any]:
    """`app.yml` as GitHub's manifest JSON, with this run's webhook and redirect URLs."""
    from ruamel.yaml import YAML

    data: dict[str, Any] = YAML(typ="safe").load(resources.files("bot").joinpath("app.yml").read_text(encoding="utf-8"))
    data["hook_attributes"] = {**(data.get("hook_attributes") or {}), "url": webhook_url, "active": True}
    data["redirect_url"] = redirect_url
    if name:
        data["name"] = name
    return data


def new_app_url(github_url: str, org: str | None, state: str) -> str:
    """GitHub's form that creates an App from a manifest, for the user or for `org`."""
    base = github_url.rstrip("/")
    path = f"/organizations/{org}/settings/apps/new" if org else "/settings/apps/new"
    return f"{base}{path}?{urlencode({'state': state})}"


def api_url_for(github_url: str, environ: Mapping[str, str]) -> str:
    if environ.get("GITHUB_API_URL"):
        return environ["GITHUB_API_URL"].rstrip("/")
    if github_url.rstrip("/") == PUBLIC_WEB_URL:
        return PUBLIC_API_URL
    return f"{github_url.rstrip('/')}/api/v3"  # GitHub Enterprise Server's REST API


def env_lines(app: dict[str, Any], api_url: str) -> list[str]:
    """The settings file for the App GitHub created (see the module docstring)."""
    pem = app["pem"].strip().replace("\r\n", "\n").replace("\n", "\\n")
    out = [f"# The GitHub App `{app.get('slug')}` (id {app['id']}), written by `recipe-review register` on "
           f"{time.strftime('%Y-%m-%d', time.gmtime())}. Secrets: keep this file private, never commit it.",
           f"GITHUB_APP_ID={app['id']}", f"GITHUB_PRIVATE_KEY={pem}"]
    if app.get("webhook_secret"):
        out.append(f"WEBHOOK_SECRET={app['webhook_secret']}")
    else:
        out.append("# GitHub returned no webhook secret: set one on the App's settings page and here.")
        out.append("WEBHOOK_SECRET=")
    out += [f"GITHUB_CLIENT_ID={app.get('client_id', '')}", f"GITHUB_CLIENT_SECRET={app.get('client_secret', '')}"]
    if app.get("slug"):
        out.append(f"BOT_LOGIN={app['slug']}[bot]")
    if api_url != PUBLIC_API_URL:
        out.append(f"GITHUB_API_URL={api_url}")
    for line in out:
        if "\n" in line or "\r" in line:
            raise ValueError("a value GitHub returned spans lines")
    return out


def write_env_file(path: Path, lines: list[str]) -> None:
    """Create `path` with mode 0600 (never replacing an existing file, even one created meanwhile)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, ("\n".join(lines) + "\n").encode("utf-8"))
    finally:
        os.close(fd)


@dataclass
class Registration:
    app: dict[str, Any] | None = None
    error: str | None = None


PAGE = """<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Register recipe-review</title>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>Register the recipe-review GitHub App</h1>
<p>The button sends this manifest to <code>{target}</code> ({owner}). GitHub shows the App; press
<em>Create GitHub App</em> there and you come back here.</p>
<form action="{action}" method="post">
<input type="hidden" name="manifest" value="{manifest}">
<button type="submit">Create the GitHub App on GitHub</button>
</form>
<details><summary>The manifest</summary><pre>{pretty}</pre></details>
</body></html>
"""


def _page(title: str, body: str, status: int = 200) -> Response:
    from flask import Response

    return Response(f"<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
                    f"<body style=\"font-family: sans-serif; max-width: 40em; margin: 3em auto\">"
                    f"<h1>{html.escape(title)}</h1>{body}</body></html>", status=status,
                    content_type="text/html; charset=utf-8")


def make_app(args: argparse.Namespace, state: str, action: str, spec: dict[str, Any], api_url: str,
             outcome: Registration, done: threading.Event) -> Flask:
    """The local pages: `/` (the form that posts the manifest) and `/callback` (GitHub's redirect)."""
    from flask import Flask, request

    from bot.github import GitHubError, create_app_from_manifest

    app = Flask("recipe-review-register")
    lock = threading.Lock()

    @app.get("/")
    def index() -> str:
        return PAGE.format(target=html.escape(action.split("?")[0]),
                           owner=html.escape(f"the organisation {args.org}" if args.org else "your account"),
                           action=html.escape(action), manifest=html.escape(json.dumps(spec)),
                           pretty=html.escape(json.dumps(spec, indent=2)))

    @app.get("/callback")
    def callback() -> Response:
        if not secrets.compare_digest(request.args.get("state", ""), state):
            return _page("Not this registration", "<p>The <code>state</code> does not match the page this "
                         "<code>recipe-review register</code> served; nothing was done.</p>", 400)
        code = request.args.get("code", "")
        if not code:
            return _page("No code", "<p>GitHub sent no <code>code</code>; nothing was done.</p>", 400)
        with lock:
            if done.is_set():
                return _page("Already done", "<p>This registration has finished; see the terminal.</p>", 409)
            try:
                created = create_app_from_manifest(api_url, code)
                write_env_file(Path(args.env_file), env_lines(created, api_url))
            except GitHubError as err:
                outcome.error = f"GitHub refused the manifest code ({err}); run `recipe-review register` again"
            except FileExistsError:
                outcome.error = f"{args.env_file} appeared meanwhile; nothing was written (the App exists on GitHub)"
            except (OSError, ValueError) as err:
                outcome.error = f"cannot write {args.env_file}: {getattr(err, 'strerror', None) or err}"
            else:
                outcome.app = created
            done.set()
        if outcome.error:
            return _page("The App was not registered", f"<p>{html.escape(outcome.error)}</p>", 502)
        install = f"{created.get('html_url', '')}/installations/new"
        return _page("Done", f"<p>The GitHub App <strong>{html.escape(str(created.get('name')))}</strong> exists; its "
                     f"settings are in <code>{html.escape(args.env_file)}</code>.</p><p><a href=\""
                     f"{html.escape(install)}\">Install it</a> on the benchmark repository. You can close this "
                     "page.</p>")

    return app


def _url(value: str, flag: str) -> str:
    from bot.cli import UsageError

    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{flag} expects an http(s) URL, got {value!r}")
    return value


def cmd_register(args: argparse.Namespace) -> int:
    from werkzeug.serving import make_server

    from bot.cli import UsageError

    env_file = Path(args.env_file)
    if env_file.exists() or env_file.is_symlink():
        raise UsageError(f"{env_file} exists: `register` creates a new App and never overwrites its settings; "
                         "move the file away or give --env-file PATH")
    if not env_file.parent.is_dir():
        raise UsageError(f"--env-file {env_file}: the directory {env_file.parent} does not exist")
    webhook = _url(args.webhook_url, "--webhook-url")
    github_url = _url(args.github_url, "--github-url")
    if args.org is not None and (not args.org or "/" in args.org):
        raise UsageError(f"--org expects an organisation login, got {args.org!r}")
    api_url = api_url_for(github_url, os.environ)
    _url(api_url, "GITHUB_API_URL")
    state = secrets.token_urlsafe(16)
    outcome, done = Registration(), threading.Event()
    holder: dict[str, Flask] = {}

    # The Flask app needs the port in its redirect URL.
    def application(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        return holder["app"](environ, start_response)

    try:
        server = make_server("127.0.0.1", args.port, application, threaded=True)
    except OSError as err:
        raise UsageError(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}") from err
    local = f"http://127.0.0.1:{server.server_port}"
    spec = manifest(webhook, f"{local}/callback", args.name)
    holder["app"] = make_app(args, state, new_app_url(github_url, args.org, state), spec, api_url, outcome, done)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        print(f"{local}/", flush=True)
        owner = f"the organisation {args.org}" if args.org else "your account"
        print(f"Open {local}/ in a browser to create the GitHub App on {github_url} for {owner}; "
              f"waiting up to {args.timeout:.0f} s (Ctrl-C stops).", file=sys.stderr, flush=True)
        if args.open:
            import webbrowser

            webbrowser.open(f"{local}/")
        finished = done.wait(args.timeout)
        time.sleep(0.2)  # let the callback page reach the browser before the server stops
    except KeyboardInterrupt:
        raise UsageError("interrupted: no App was registered") from None
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    if not finished:
        raise UsageError(f"no App was created within {args.timeout:.0f} s; nothing was written")
    if outcome.error:
        raise UsageError(outcome.error)
    app = outcome.app or {}
    sys.stdout.write(
        f"Created the GitHub App `{app.get('slug')}` (id {app.get('id')}) owned by "
        f"{(app.get('owner') or {}).get('login')}; wrote {', '.join(ENV_KEYS)} to {env_file} (mode 0600).\n"
        f"Install it: {app.get('html_url')}/installations/new\n"
        f"Start the bot: recipe-review serve --env-file {env_file}   "
        f"(or: docker run -p 8000:8000 --env-file {env_file} recipe-review)\n")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("register", help="create the GitHub App from app.yml (GitHub's App-manifest flow) and "
                                        "write its settings to app.env",
                       description=__doc__.split("\n\n")[0] + " See the README, \"Running the App\".",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    r.add_argument("--webhook-url", required=True, metavar="URL",
                   help="where GitHub delivers webhooks: https://<host>/webhook of the running `serve`")
    r.add_argument("--org", metavar="ORG", help="create the App for this organisation (default: your account)")
    r.add_argument("--github-url", default=PUBLIC_WEB_URL, metavar="URL",
                   help="GitHub's web address (GitHub Enterprise: https://<host>); the API is GITHUB_API_URL")
    r.add_argument("--env-file", default="app.env", metavar="PATH", help="the settings file to create (mode 0600)")
    r.add_argument("--name", help="the App's name (default: app.yml's; GitHub lets you change it on its form)")
    r.add_argument("--port", type=int, default=0, help="local port of the registration page (0: any free port)")
    r.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for GitHub's redirect")
    r.add_argument("--open", action="store_true", help="open the registration page in the default browser")
    r.set_defaults(func=cmd_register)
