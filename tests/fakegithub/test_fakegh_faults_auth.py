"""Injected faults, primary rate limits and GitHub App authentication on the fake GitHub."""
from __future__ import annotations

import time

import pytest
import requests
from github import Auth, Github, GithubException, GithubIntegration, GithubRetry, RateLimitExceededException

from fakegithub import FakeGitHub

REPO = "octo/bench"
FAULT_STATUSES = {500, 502, 403, 429}


def client(url: str, retry) -> Github:
    return Github(base_url=url, auth=Auth.Token("x"), retry=retry, seconds_between_requests=None,
                  seconds_between_writes=None)


@pytest.fixture
def faulty(git_repo):
    git_repo.commit({"a.yaml": "a: 1\n"}, "feature", branch="feature")
    fake = FakeGitHub(git_repo.path, fault_rate=0.5, fault_seed=7)
    fake.add_pr(1, "main", "feature")
    fake.start()
    yield fake
    fake.stop()


def test_with_github_retry_calls_eventually_succeed(faulty):
    gh = client(faulty.url, GithubRetry(total=12, backoff_factor=0.01))
    try:
        repo = gh.get_repo(REPO)
        for _ in range(3):
            assert repo.get_pull(1).number == 1
        comment = repo.get_issue(1).create_comment("posted through faults")
        assert comment.body == "posted through faults"
    finally:
        gh.close()
    state = faulty.state()
    assert [c["body"] for c in state["issue_comments"]] == ["posted through faults"]  # faulted writes not applied
    faults = [c for c in state["calls"] if c.get("fault")]
    assert faults, "the seed should inject at least one fault"
    assert all(c["status"] in FAULT_STATUSES or c["fault"] == "slow" for c in faults)


def test_without_retry_a_fault_raises_and_the_write_is_not_applied(git_repo):
    git_repo.commit({"a.yaml": "a: 1\n"}, "feature", branch="feature")
    fake = FakeGitHub(git_repo.path)
    fake.add_pr(1, "main", "feature")
    fake.start()
    gh = client(fake.url, None)
    try:
        issue = gh.get_repo(REPO).get_issue(1)
        fake.set_faults(1.0, seed=1)
        raised = []
        for i in range(6):
            try:
                issue.create_comment(f"c{i}")
            except GithubException as err:
                raised.append(err.status)
        fake.set_faults(0.0)
        assert raised and set(raised) <= FAULT_STATUSES
        posted = len(fake.state()["issue_comments"])
        assert posted == 6 - len(raised)  # only the "slow" faults went through
        assert requests.get(f"{fake.url}/_fake/state", timeout=5).status_code == 200  # /_fake is never faulted
    finally:
        gh.close()
        fake.stop()


def test_faults_are_deterministic_given_the_seed(git_repo):
    def kinds(seed):
        fake = FakeGitHub(git_repo.path, fault_rate=0.6, fault_seed=seed)
        fake.start()
        try:
            s = requests.Session()
            for _ in range(8):
                s.get(f"{fake.url}/repos/{REPO}/labels", timeout=5)
            s.close()
            return [c.get("fault") for c in fake.state()["calls"]]
        finally:
            fake.stop()
    first = kinds(0)  # seed 0: three faults in eight calls, none of them slow (keeps the test fast)
    assert first == kinds(0) and any(first)


def test_secondary_limit_and_429_carry_retry_after(git_repo):
    fake = FakeGitHub(git_repo.path, fault_rate=1.0, fault_seed=6)  # 500, 403, 502, 429: no slow fault
    fake.start()
    try:
        seen = {}
        s = requests.Session()
        for _ in range(40):
            r = s.get(f"{fake.url}/repos/{REPO}", timeout=5)
            seen.setdefault(r.status_code, r)
            if {403, 429} <= set(seen):
                break
        s.close()
        for status in (403, 429):
            assert seen[status].headers["Retry-After"] == "1"
            assert seen[status].json()["message"].startswith("You have exceeded a secondary rate limit")
    finally:
        fake.stop()


def test_primary_rate_limit_exhaustion(scene, http):
    gh = client(scene.fake.url, None)
    try:
        reset = http.post(f"{scene.fake.url}/_fake/rate-limit", json={"remaining": 0, "reset_in": 2}).json()["reset"]
        r = http.get(f"{scene.fake.url}/repos/{REPO}/pulls/1")
        assert r.status_code == 403 and r.headers["x-ratelimit-remaining"] == "0"
        assert r.headers["x-ratelimit-reset"] == str(reset)
        assert r.json()["message"].startswith("API rate limit exceeded")
        with pytest.raises(RateLimitExceededException):
            gh.get_repo(REPO).get_pull(1)
        retrying = client(scene.fake.url, GithubRetry(total=3, backoff_factor=0.01))
        try:
            started = time.monotonic()
            assert retrying.get_repo(REPO).get_pull(1).number == 1  # waits for the reset, then succeeds
            assert time.monotonic() - started < 10
        finally:
            retrying.close()
        assert int(http.get(f"{scene.fake.url}/repos/{REPO}/pulls/1").headers["x-ratelimit-remaining"]) > 0
    finally:
        gh.close()


# -- GitHub App authentication ------------------------------------------------------------------
@pytest.fixture(scope="module")
def private_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def test_app_auth_to_installation_token_to_a_call(scene, private_key):
    app_auth = Auth.AppAuth(1, private_key)
    gi = GithubIntegration(base_url=scene.fake.url, auth=app_auth)
    try:
        assert gi.get_app().slug == "recipe-review"
        installation = gi.get_repo_installation("octo", "bench")
        assert installation.id == 1
    finally:
        gi.close()
    gh = Github(base_url=scene.fake.url, auth=app_auth.get_installation_auth(installation.id),
                seconds_between_requests=None, seconds_between_writes=None)
    try:
        assert gh.get_repo(REPO).get_pull(1).number == 1
    finally:
        gh.close()
    paths = [(c["method"], c["path"], c["status"]) for c in scene.fake.state()["calls"]]
    assert ("POST", "/app/installations/1/access_tokens", 201) in paths
    assert ("GET", f"/repos/{REPO}/pulls/1", 200) in paths
    assert len(scene.fake.tokens) == 1 and next(iter(scene.fake.tokens)).startswith("ghs_")


@pytest.mark.parametrize("header,message", [
    ("token ghs_abc", "A JSON web token could not be decoded"),
    ("Bearer not-a-jwt", "A JSON web token could not be decoded"),
    ("Bearer a.b.c", "A JSON web token could not be decoded"),
    (None, "A JSON web token could not be decoded"),
], ids=["installation-token", "one-part", "parts-not-json", "no-header"])
def test_app_endpoints_need_a_jwt(scene, header, message):
    r = requests.get(f"{scene.fake.url}/app", headers={"Authorization": header} if header else {}, timeout=5)
    assert r.status_code == 401 and r.json()["message"] == message


@pytest.mark.parametrize("exp_offset,ok", [(300, True), (-120, False), (3600, False)],
                         ids=["valid", "expired", "too-far-in-the-future"])
def test_app_jwt_expiry_is_checked(scene, private_key, exp_offset, ok):
    import jwt

    now = int(time.time())
    token = jwt.encode({"iat": now - 60, "exp": now + exp_offset, "iss": "1"}, private_key, algorithm="RS256")
    r = requests.post(f"{scene.fake.url}/app/installations/1/access_tokens",
                      headers={"Authorization": f"Bearer {token}"}, timeout=5)
    assert (r.status_code == 201) is ok
    if not ok:
        assert "'Expiration time' claim ('exp')" in r.json()["message"]
