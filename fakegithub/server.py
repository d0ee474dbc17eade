"""The fake GitHub: a real HTTP server (Flask on werkzeug) that speaks GitHub's REST and GraphQL
for the endpoints the bot uses, backed by a real git repository, and enforces the GitHub rules
that bite bots (review comments only inside diff hunks, body and check-output limits, rate
limits, App JWTs). Fake-only endpoints under `/_fake/` set the scene and expose the state.

    fake = FakeGitHub(repo_dir, repo="octo/bench", collaborators={"alice": "admin"})
    fake.add_pr(7, base="main", head="feature")
    url = fake.start()                      # http://127.0.0.1:PORT
    ... Github(base_url=url, auth=Auth.Token("x")) ...
    fake.state()["reviews"]; fake.stop()

Faults (`fault_rate`, `fault_seed`): a seeded share of non-`/_fake` requests fails before it is
handled (500, 502, 403 secondary rate limit or 429, both with `Retry-After: 1`) or is delayed
0.5-2 s and then handled. `POST /_fake/rate-limit {"remaining": 0, "reset_in": 2}` exhausts the
primary rate limit until the reset time. `POST /_fake/faults {"fail": [{"method", "path", "status",
"times"}]}` fails matching requests deterministically (a path prefix; `times` omitted: always).

Tokens: any token acts as the App's bot user with every permission, unless it was registered
(`POST /_fake/tokens`, `add_token`) with its own login and permissions, as a workflow's
`GITHUB_TOKEN` (`github-actions[bot]`, `permissions:` of the workflow) or a fork PR's read-only
token: a call its permissions do not cover answers 403 "Resource not accessible by integration".

Contract: with GitHub's published API descriptions in force (`fakegithub.contract`), every REST
request body is validated against its operation's OpenAPI request schema (422 "Invalid request."
on failure) and every GraphQL document against GitHub's full schema, deprecated fields included.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
import random
import re
import threading
import time
from pathlib import Path

from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException
from werkzeug.serving import WSGIRequestHandler, make_server

from fakegithub import contract as contracts
from fakegithub.shapes import error, now_iso
from fakegithub.store import ApiError, GitHubState

_DEFAULT = object()
NOT_ACCESSIBLE = "Resource not accessible by integration"
LEVELS = {"none": 0, "read": 1, "write": 2}


def required_permission(method: str, path: str) -> tuple[str, str] | None:
    """The (permission, level) a fine-grained token needs for a REST call, or None (metadata: always)."""
    m = re.match(r"^/repos/[^/]+/[^/]+(/.*)?$", path)
    if m is None:
        return None
    rest = m.group(1) or ""
    write = method not in ("GET", "HEAD", "OPTIONS")
    level = "write" if write else "read"
    if rest.startswith("/check-runs") or rest.startswith("/check-suites") or "/check-runs" in rest:
        return "checks", level
    if rest.startswith("/pulls"):
        return "pull_requests", level
    if rest.startswith("/issues"):
        return "issues", level  # a PR's comments and labels: issues or pull_requests (see `allows`)
    if rest.startswith("/actions"):
        return "actions", level
    if rest.startswith(("/compare", "/commits", "/contents", "/git")):
        return "contents", level
    return None  # the repository itself, collaborators, installation: metadata

RATE_LIMIT = 5000
FAULT_KINDS = ("500", "502", "403", "429", "slow")
SECONDARY_MESSAGE = ("You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
                     "If you reach out to GitHub Support for help, please include the request ID {rid}.")
SECONDARY_DOC = ("https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"
                 "#about-secondary-rate-limits")


class _QuietHandler(WSGIRequestHandler):
    """No per-request access log on stderr (`state()["calls"]` records every call)."""

    def log_request(self, code="-", size="-") -> None:
        pass


def json_response(obj, status: int = 200, headers: dict | None = None) -> Response:
    resp = Response(json.dumps(obj, ensure_ascii=False), status=status,
                    content_type="application/json; charset=utf-8")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


class FakeGitHub(GitHubState):
    """A started-on-demand fake GitHub serving one repository (see module docstring)."""

    def __init__(self, repo_dir: Path, repo: str = "octo/bench", fault_rate: float = 0.0,
                 fault_seed: int | None = None, collaborators: dict | None = None, default_branch: str = "main",
                 app_slug: str = "recipe-review", app_id: int = 1, installation_id: int = 1,
                 contract: contracts.Contract | None = _DEFAULT):
        super().__init__(Path(repo_dir), repo=repo, collaborators=collaborators, default_branch=default_branch,
                         app_slug=app_slug, app_id=app_id, installation_id=installation_id)
        self.fault_rate = float(fault_rate)
        self.unresolvable_paths: set[str] = set()  # review comments on these paths get a 422
        self._rng = random.Random(fault_seed)
        self.calls: list[dict] = []
        self._request_no = 0
        self._rate = {"core": {"used": 0, "reset": 0}, "graphql": {"used": 0, "reset": 0}}
        self._exhausted_until = 0
        self._server = None
        self._thread: threading.Thread | None = None
        self.fail_rules: list[dict] = []  # deterministic faults: {"method", "path", "status", "times"}
        # The App-manifest flow (fakegithub/apps.py): who is signed in to the web UI, the codes it
        # handed out (code -> manifest, owner, expiry) and the Apps created from them.
        self.web_login = "octocat"
        self.manifest_codes: dict[str, dict] = {}
        self.created_apps: list[dict] = []
        # GitHub's published descriptions (None: the fake's own rules only); default: the process-wide one.
        self.contract = contracts.default() if contract is _DEFAULT else contract
        self.app = create_app(self)

    def add_token(self, token: str, login: str, permissions: dict[str, str] | None = None) -> None:
        """Register a token acting as `login` with fine-grained `permissions` (None: all of them)."""
        with self.lock:
            self.scoped_tokens[token] = {"login": login, "permissions": dict(permissions) if permissions is not None
                                         else None}

    def token_of(self, auth: str | None) -> dict | None:
        scheme, _, token = (auth or "").partition(" ")
        return self.scoped_tokens.get(token.strip()) if scheme.lower() in ("token", "bearer") else None

    def allows(self, tok: dict | None, method: str, path: str) -> bool:
        """Whether a registered token's permissions cover the call (unregistered tokens: always)."""
        if tok is None or tok["permissions"] is None:
            return True
        need = required_permission(method, path)
        if need is None:
            return True
        perm, level = need
        have = max(LEVELS.get(tok["permissions"].get(perm, "none"), 0),
                   LEVELS.get(tok["permissions"].get("pull_requests", "none"), 0) if perm == "issues" else 0)
        return have >= LEVELS[level]

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return self.site.base

    def start(self, port: int = 0, host: str = "127.0.0.1") -> str:
        if self._server is not None:
            return self.url
        self._server = make_server(host, port, self.app, threaded=True, request_handler=_QuietHandler)
        self.site.base = f"http://{host}:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-github", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeGitHub:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def state(self) -> dict:
        with self.lock:
            out = super().state()
            out["calls"] = [dict(c) for c in self.calls]
            out["created_apps"] = [dict(a) for a in self.created_apps]
            return out

    def reset_calls(self) -> None:
        with self.lock:
            self.calls.clear()

    def set_faults(self, rate: float, seed: int | None = None) -> None:
        with self.lock:
            self.fault_rate = float(rate)
            self._rng = random.Random(seed)

    def exhaust_rate_limit(self, reset_in: float = 2.0, remaining: int = 0) -> int:
        """Primary rate limit: `remaining` 0 answers 403 until `reset_in` seconds have passed."""
        with self.lock:
            reset = math.ceil(time.time() + max(0.0, float(reset_in)))
            for r in self._rate.values():
                r["reset"] = reset
                r["used"] = RATE_LIMIT - max(0, int(remaining))
            self._exhausted_until = reset if int(remaining) <= 0 else 0
            return reset

    # -- request gate --------------------------------------------------------------------------
    def _rate_bucket(self, resource: str) -> dict:
        r = self._rate[resource]
        now = time.time()
        if r["reset"] <= now:
            r["used"], r["reset"] = 0, int(now) + 3600
            if self._exhausted_until and self._exhausted_until <= now:
                self._exhausted_until = 0
        return r

    def gate(self) -> Response | None:
        """Before a non-/_fake request: auth shape, primary rate limit, injected faults."""
        path = request.path
        g.resource = "graphql" if path == "/graphql" else "core"
        g.fault = None
        with self.lock:
            self._request_no += 1
            g.request_id = f"F{self._request_no:03X}:{self.site.repo_id:X}:{self._request_no * 7919:X}:" \
                           f"{self._request_no * 104729:X}:{int(time.time()):X}"
        auth = request.headers.get("Authorization", "")
        if path == "/app" or path.startswith("/app/") or path.endswith("/installation"):
            problem = jwt_problem(auth)
            if problem:
                return json_response(error(problem, "apps/apps#get-the-authenticated-app"), 401)
        elif request.method not in ("GET", "HEAD", "OPTIONS") and not auth and not path.startswith("/app-manifests/"):
            # (GitHub's manifest conversion is the one write that takes no credentials: the code is one.)
            return json_response(error("Requires authentication", "", 401), 401)
        tok = self.token_of(auth)
        if path != "/graphql" and not self.allows(tok, request.method, path):
            g.fault = "forbidden"
            return json_response(error(NOT_ACCESSIBLE, "rest", 403), 403)
        with self.lock:
            if path != "/rate_limit":
                bucket = self._rate_bucket(g.resource)
                if self._exhausted_until and time.time() < self._exhausted_until:
                    g.fault = "rate-limit"
                    return json_response(error(
                        f"API rate limit exceeded for installation ID {self.site.installation_id}.",
                        "overview/rate-limits-for-the-rest-api#about-primary-rate-limits"), 403)
                bucket["used"] += 1
            kind, delay = None, 0.0
            if self.fault_rate > 0 and self._rng.random() < self.fault_rate:
                kind = self._rng.choice(FAULT_KINDS)
                delay = self._rng.uniform(0.5, 2.0) if kind == "slow" else 0.0
        if kind is None:
            return self._fail_rule() or self._check_contract()
        g.fault = kind
        if kind == "slow":
            time.sleep(delay)
            return self._fail_rule() or self._check_contract()
        if kind == "500":
            return json_response({"message": "Server Error"}, 500)
        if kind == "502":
            return json_response({"message": "Server Error"}, 502)
        body = {"message": SECONDARY_MESSAGE.format(rid=g.request_id), "documentation_url": SECONDARY_DOC}
        return json_response(body, int(kind), {"Retry-After": "1"})

    def _fail_rule(self) -> Response | None:
        with self.lock:
            for rule in self.fail_rules:
                if rule.get("method", request.method).upper() != request.method:
                    continue
                if not request.path.startswith(rule["path"]):
                    continue
                if rule.get("times") is not None:
                    if rule["times"] <= 0:
                        continue
                    rule["times"] -= 1
                status = int(rule.get("status", 500))
                g.fault = f"rule-{status}"
                message = rule.get("message") or {404: "Not Found", 422: "Unprocessable Entity",
                                                  403: NOT_ACCESSIBLE}.get(status, "Server Error")
                return json_response(error(message, "", status), status)
        return None

    def _check_contract(self) -> Response | None:
        """GitHub's OpenAPI request schema, for REST writes with a body (GraphQL: see graphql_api)."""
        if self.contract is None or request.path == "/graphql" or request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        errors, doc = self.contract.rest_errors(request.method, request.path, request.get_data(cache=True))
        if not errors:
            return None
        g.fault = "invalid-request"
        body = {"message": "Invalid request.\n\n" + "\n".join(errors), "documentation_url": doc, "status": "422"}
        return json_response(body, 422)

    def rate_status(self, resource: str) -> dict:
        """The rate-limit window of `resource` ("core", "graphql"; others are never used)."""
        with self.lock:
            if resource not in self._rate:
                return {"limit": RATE_LIMIT, "used": 0, "remaining": RATE_LIMIT, "reset": int(time.time()) + 3600,
                        "resource": resource}
            bucket = self._rate_bucket(resource)
            exhausted = bool(self._exhausted_until) and time.time() < self._exhausted_until
            remaining = 0 if exhausted else max(0, RATE_LIMIT - bucket["used"])
            return {"limit": RATE_LIMIT, "used": RATE_LIMIT - remaining, "remaining": remaining,
                    "reset": bucket["reset"], "resource": resource}

    def finish(self, resp: Response) -> Response:
        """After a non-/_fake request: GitHub's rate-limit and request-id headers; record the call."""
        rate = self.rate_status(getattr(g, "resource", "core"))
        for key in ("limit", "remaining", "used", "reset", "resource"):
            resp.headers[f"x-ratelimit-{key}"] = str(rate[key])
        resp.headers["x-github-request-id"] = getattr(g, "request_id", "0000:0000")
        resp.headers["x-github-api-version-selected"] = "2022-11-28"
        resp.headers.setdefault("x-github-media-type", "github.v3; format=json")
        call = {"method": request.method, "path": request.path, "status": resp.status_code}
        if request.query_string:
            call["query"] = request.query_string.decode("utf-8", "replace")
        if getattr(g, "fault", None):
            call["fault"] = g.fault
        call["at"] = now_iso()
        with self.lock:
            self.calls.append(call)
        return resp


def jwt_problem(auth: str) -> str | None:
    """Why an `Authorization` header is not a usable App JWT (GitHub's messages), or None."""
    scheme, _, token = auth.partition(" ")
    if scheme.lower() != "bearer" or token.count(".") != 2:
        return "A JSON web token could not be decoded"
    parts = token.split(".")
    try:
        header = json.loads(_b64url(parts[0]))
        claims = json.loads(_b64url(parts[1]))
        _b64url(parts[2])
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return "A JSON web token could not be decoded"
    if not isinstance(header, dict) or "alg" not in header or not isinstance(claims, dict):
        return "A JSON web token could not be decoded"
    exp, now = claims.get("exp"), time.time()
    if exp is not None:
        if not isinstance(exp, (int, float)) or exp < now - 30:
            return ("'Expiration time' claim ('exp') must be a numeric value representing the future time at "
                    "which the assertion expires")
        if exp > now + 660:
            return "'Expiration time' claim ('exp') is too far in the future"
    return None


def _b64url(s: str) -> bytes:
    if not s or any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=" for c in s):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def create_app(fake: FakeGitHub) -> Flask:
    """The Flask app serving `fake` (REST, GraphQL and /_fake)."""
    from fakegithub import apps, fake_api, git_data, graphql_api, rest

    app = Flask("fakegithub")
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.strict_slashes = False

    def _not_api(path: str) -> bool:  # fake-only endpoints and the web UI's App-manifest form
        return path.startswith("/_fake/") or bool(apps.WEB_PATH.match(path))

    @app.before_request
    def _gate():
        if _not_api(request.path):
            return None
        return fake.gate()

    @app.after_request
    def _finish(resp):
        if _not_api(request.path):
            return resp
        return fake.finish(resp)

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError):
        return json_response(err.body, err.status, err.headers)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        if err.code == 404:
            return json_response(error("Not Found", "", 404), 404)
        if err.code == 405:
            return json_response(error("Not Found", "", 404), 404)
        return json_response(error(err.description or err.name, "", err.code), err.code or 500)

    @app.errorhandler(Exception)
    def _crash(err: Exception):  # a bug in the fake: answer like GitHub's 500 and keep serving
        app.logger.exception("fake GitHub crashed on %s %s", request.method, request.path)
        return json_response({"message": f"Server Error (fake: {type(err).__name__}: {err})"}, 500)

    rest.register(app, fake)
    git_data.register(app, fake)
    graphql_api.register(app, fake)
    fake_api.register(app, fake)
    apps.register(app, fake)
    return app
