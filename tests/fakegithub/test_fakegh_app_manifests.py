"""The fake's App-manifest flow: the web UI form redirects with a code, and `POST
/app-manifests/{code}/conversions` answers in the shape of GitHub's REST description (githubkit's
models of it, and the OpenAPI response schema itself when `../shared` holds it), once per code,
without credentials, as GitHub does."""
from __future__ import annotations

import json
import lzma
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from githubkit_schemas.latest import models as gh

from tests.conftest import GITHUB_API_DESCRIPTIONS

MANIFEST = {"name": "Bench Bot", "url": "https://example.com/bench-bot", "description": "reviews",
            "hook_attributes": {"url": "https://hooks.example.com/webhook", "active": True},
            "redirect_url": "http://127.0.0.1:9/callback?from=test", "public": False,
            "default_permissions": {"contents": "write", "checks": "write"},
            "default_events": ["pull_request", "check_run"]}


def new_app(fake, manifest=MANIFEST, org: str | None = None, state: str = "s1") -> requests.Response:
    path = f"/organizations/{org}/settings/apps/new" if org else "/settings/apps/new"
    return requests.post(f"{fake.url}{path}", params={"state": state}, allow_redirects=False, timeout=10,
                         data={"manifest": json.dumps(manifest) if isinstance(manifest, dict) else manifest})


def code_of(resp: requests.Response) -> str:
    assert resp.status_code == 302, resp.text
    loc = urlsplit(resp.headers["Location"])
    assert f"{loc.scheme}://{loc.netloc}{loc.path}" == "http://127.0.0.1:9/callback"
    q = parse_qs(loc.query)
    assert q["state"] == ["s1"] and q["from"] == ["test"]  # the redirect's own query is kept
    return q["code"][0]


def convert(fake, code: str, **kw) -> requests.Response:
    return requests.post(f"{fake.url}/app-manifests/{code}/conversions", timeout=30, **kw)


def test_conversion_without_credentials_answers_githubs_shape(fake_github):
    r = convert(fake_github, code_of(new_app(fake_github)))  # no Authorization header at all
    assert r.status_code == 201, r.text
    body = r.json()
    gh.AppManifestsCodeConversionsPostResponse201.model_validate(body)
    assert (body["name"], body["slug"], body["owner"]["login"], body["owner"]["type"]) == \
        ("Bench Bot", "bench-bot", "octocat", "User")
    assert body["permissions"] == {"metadata": "read", "contents": "write", "checks": "write"}
    assert body["events"] == ["pull_request", "check_run"] and body["external_url"] == MANIFEST["url"]
    assert body["pem"].startswith("-----BEGIN RSA PRIVATE KEY-----\n") and len(body["webhook_secret"]) == 40
    from cryptography.hazmat.primitives import serialization

    assert serialization.load_pem_private_key(body["pem"].encode(), password=None).key_size == 2048
    assert fake_github.state()["created_apps"][0]["id"] == body["id"]


def test_the_response_matches_the_openapi_description_when_present(fake_github):
    path = GITHUB_API_DESCRIPTIONS / "rest-openapi.json.xz"
    if not path.exists():
        pytest.skip("GitHub's REST description is not present (../shared)")
    from openapi_schema_validator import OAS30Validator

    spec = json.loads(lzma.decompress(path.read_bytes()))
    op = spec["paths"]["/app-manifests/{code}/conversions"]["post"]
    schema = {**op["responses"]["201"]["content"]["application/json"]["schema"], "components": spec["components"]}
    body = convert(fake_github, code_of(new_app(fake_github))).json()
    assert [e.message for e in OAS30Validator(schema).iter_errors(body)] == []


def test_an_organisations_app(fake_github):
    body = convert(fake_github, code_of(new_app(fake_github, org="bench-org"))).json()
    assert (body["owner"]["login"], body["owner"]["type"]) == ("bench-org", "Organization")


def test_a_code_is_good_once(fake_github):
    code = code_of(new_app(fake_github))
    assert convert(fake_github, code).status_code == 201
    again = convert(fake_github, code)
    assert again.status_code == 404 and again.json()["message"] == "Not Found"
    assert convert(fake_github, "nope").status_code == 404


def test_a_code_expires_after_an_hour(fake_github):
    code = code_of(new_app(fake_github))
    fake_github.manifest_codes[code]["expires"] = time.time() - 1
    assert convert(fake_github, code).status_code == 404


def test_a_second_app_of_the_same_name_is_refused(fake_github):
    assert convert(fake_github, code_of(new_app(fake_github))).status_code == 201
    r = convert(fake_github, code_of(new_app(fake_github)))
    assert r.status_code == 422 and r.json()["message"] == "Validation Failed"


@pytest.mark.parametrize("manifest", [
    None, "{not json", {**MANIFEST, "url": ""}, {k: v for k, v in MANIFEST.items() if k != "redirect_url"},
    {**MANIFEST, "hook_attributes": {"active": True}},
], ids=["no manifest", "not JSON", "no url", "no redirect_url", "hook without url"])
def test_the_web_form_refuses_a_broken_manifest(fake_github, manifest):
    if manifest is None:
        r = requests.post(f"{fake_github.url}/settings/apps/new", allow_redirects=False, timeout=10)
    else:
        r = new_app(fake_github, manifest)
    assert r.status_code == 422 and fake_github.manifest_codes == {}


def test_the_web_form_is_not_an_api_call(fake_github):
    code_of(new_app(fake_github))
    assert not [c for c in fake_github.state()["calls"] if "settings/apps" in c["path"]]
