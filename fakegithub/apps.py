"""GitHub's App-manifest flow on the fake: the web UI step and the REST conversion.

    POST /settings/apps/new?state=S                     (web UI) form field `manifest`: the user's App
    POST /organizations/<org>/settings/apps/new?state=S (web UI) the organisation's App
    POST /app-manifests/<code>/conversions              (REST) the code → the App's id, pem, secrets

The web UI answers as GitHub does once the signed-in user (`FakeGitHub.web_login`, default
`octocat`) presses "Create GitHub App": it redirects (302) to the manifest's `redirect_url` with
`?code=…&state=…`. The fake skips the confirmation page itself (there is nobody to press the
button) and checks what GitHub's form checks: a JSON manifest with a `url`, and a `redirect_url`
(without one GitHub shows the new App instead of handing a code back).

The conversion is GitHub's `apps/create-from-manifest`: no authentication, a code is good once and
for an hour (404 otherwise), and the 201 body is the `integration` shape plus `client_id`,
`client_secret`, `webhook_secret` and `pem` (a fresh RSA key, PKCS#1 PEM as GitHub issues it).
Created Apps are listed in `state()["created_apps"]`.
"""
from __future__ import annotations

import json
import re
import secrets
import time
from urllib.parse import urlencode, urlsplit, urlunsplit

from flask import Flask, Response, request

from fakegithub.server import json_response
from fakegithub.shapes import error, node_id, now_iso, user_id
from fakegithub.store import ApiError, not_found

CODE_TTL_S = 3600  # GitHub: "the code … expires after one hour"
DOC = "apps/apps#create-a-github-app-from-a-manifest"
WEB_PATH = re.compile(r"^/(settings|organizations/[^/]+/settings)/apps/new$")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "app"


def _pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption()).decode()


def _web_error(status: int, message: str) -> Response:
    return Response(f"<!doctype html><title>GitHub</title><p>{message}</p>", status=status,
                    content_type="text/html; charset=utf-8")


def register(app: Flask, fake) -> None:
    pending: dict[str, dict] = fake.manifest_codes

    def _new_app(org: str | None):
        raw = request.form.get("manifest")
        if not raw:
            return _web_error(422, "A manifest is required (the form field `manifest`).")
        try:
            manifest = json.loads(raw)
        except ValueError:
            return _web_error(422, "The manifest is not valid JSON.")
        if not isinstance(manifest, dict) or not manifest.get("url"):
            return _web_error(422, "Invalid GitHub App configuration: url can't be blank.")
        redirect = manifest.get("redirect_url")
        if not redirect or urlsplit(redirect).scheme not in ("http", "https"):
            return _web_error(422, "The manifest has no redirect_url to hand the code back to.")
        hook = manifest.get("hook_attributes")
        if hook is not None and (not isinstance(hook, dict) or not hook.get("url")):
            return _web_error(422, "Invalid GitHub App configuration: hook_attributes.url can't be blank.")
        code = secrets.token_hex(10)
        with fake.lock:
            pending[code] = {"manifest": manifest, "org": org, "owner": org or fake.web_login,
                             "expires": time.time() + CODE_TTL_S}
        parts = urlsplit(redirect)
        query = "&".join(q for q in (parts.query, urlencode({"code": code, "state": request.args.get("state", "")}))
                         if q)
        return Response(status=302, headers={"Location": urlunsplit(parts._replace(query=query))})

    @app.post("/settings/apps/new")
    def web_new_user_app():
        return _new_app(None)

    @app.post("/organizations/<org>/settings/apps/new")
    def web_new_org_app(org):
        return _new_app(org)

    @app.post("/app-manifests/<code>/conversions")
    def create_from_manifest(code):
        with fake.lock:
            spec = pending.pop(code, None)
            if spec is None or spec["expires"] < time.time():
                raise not_found(DOC)
            m = spec["manifest"]
            app_id = 2_000_000 + len(fake.created_apps) + 1
            name = str(m.get("name") or f"{spec['owner']}'s app")
            taken = {a["slug"] for a in fake.created_apps}
            slug = _slug(name)
            if slug in taken:
                raise ApiError(422, error("Validation Failed", DOC, 422, ["Name is already in use"]))
            owner = fake.site.user(spec["owner"])
            if spec["org"]:
                owner = {**owner, "type": "Organization", "node_id": node_id("O", user_id(spec["owner"])),
                         "html_url": f"{fake.url}/{spec['owner']}"}
            permissions = {"metadata": "read", **{k: str(v) for k, v in (m.get("default_permissions") or {}).items()}}
            hook = m.get("hook_attributes") or None
            body = {
                "id": app_id, "slug": slug, "node_id": node_id("A", app_id),
                "client_id": f"Iv23li{secrets.token_hex(7)}", "owner": owner, "name": name,
                "description": m.get("description"), "external_url": m["url"],
                "html_url": f"{fake.url}/apps/{slug}", "created_at": now_iso(), "updated_at": now_iso(),
                "permissions": permissions, "events": list(m.get("default_events") or []),
                "client_secret": secrets.token_hex(20),
                "webhook_secret": secrets.token_hex(20) if hook else None,
                "pem": _pem(),
            }
            fake.created_apps.append({"id": app_id, "slug": slug, "owner": spec["owner"],
                                      "owner_type": "Organization" if spec["org"] else "User",
                                      "manifest": m, "webhook_secret": body["webhook_secret"],
                                      "pem": body["pem"], "client_id": body["client_id"],
                                      "client_secret": body["client_secret"]})
        return json_response(body, 201)
