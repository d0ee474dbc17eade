"""GitHub REST JSON shapes (the fields of GitHub's published schemas, with URLs on the fake).

Every builder returns a fresh dict; nothing here touches state or git.
"""
from __future__ import annotations

import base64
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import quote

REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
DOCS = "https://docs.github.com/rest"


def now_iso(t: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if t is None else t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def node_id(prefix: str, n: int | str) -> str:
    """A GitHub-style opaque global id (`PR_kw…`, `IC_kw…`), stable for one object."""
    raw = str(n).encode()
    return f"{prefix}_kw" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def user_id(login: str) -> int:
    return 10_000 + zlib.crc32(login.encode()) % 90_000_000


def b64_lines(data: bytes) -> str:
    """Base64 as GitHub sends file contents: wrapped at 60 characters, trailing newline."""
    s = base64.b64encode(data).decode()
    return "".join(s[i:i + 60] + "\n" for i in range(0, len(s), 60))


def error(message: str, doc: str = "", status: int | None = None, errors: list | None = None) -> dict:
    out: dict = {"message": message}
    if errors is not None:
        out["errors"] = errors
    out["documentation_url"] = f"{DOCS}/{doc}" if doc else DOCS
    if status is not None:
        out["status"] = str(status)
    return out


@dataclass
class Site:
    """Where the fake lives and which repository it serves."""

    base: str  # "http://127.0.0.1:PORT"
    owner: str
    name: str
    repo_id: int
    default_branch: str
    created_at: str
    app_slug: str
    app_id: int
    installation_id: int
    # What the installation has accepted; `contents: write` lets `/fix` push (POST /_fake/installation).
    permissions: dict = field(default_factory=lambda: {
        "checks": "write", "contents": "write", "issues": "write", "metadata": "read", "pull_requests": "write",
        "actions": "read"})

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def api(self) -> str:
        return f"{self.base}/repos/{self.full_name}"

    @property
    def html(self) -> str:
        return f"{self.base}/{self.full_name}"

    @property
    def bot_login(self) -> str:
        return f"{self.app_slug}[bot]"

    # -- people --------------------------------------------------------------------------------
    def user(self, login: str) -> dict:
        is_bot = login.endswith("[bot]")
        uid = user_id(login)
        u = f"{self.base}/users/{quote(login)}"
        return {
            "login": login, "id": uid, "node_id": node_id("BOT" if is_bot else "U", uid),
            "avatar_url": f"{self.base}/avatars/u/{uid}?v=4", "gravatar_id": "", "url": u,
            "html_url": f"{self.base}/{'apps/' + login[:-5] if is_bot else quote(login)}",
            "followers_url": f"{u}/followers", "following_url": f"{u}/following{{/other_user}}",
            "gists_url": f"{u}/gists{{/gist_id}}", "starred_url": f"{u}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{u}/subscriptions", "organizations_url": f"{u}/orgs",
            "repos_url": f"{u}/repos", "events_url": f"{u}/events{{/privacy}}",
            "received_events_url": f"{u}/received_events", "type": "Bot" if is_bot else "User",
            "user_view_type": "public", "site_admin": False,
        }

    # -- repository ----------------------------------------------------------------------------
    def repository(self, open_issues: int = 0, pushed_at: str | None = None) -> dict:
        a = self.api
        return {
            "id": self.repo_id, "node_id": node_id("R", self.repo_id), "name": self.name,
            "full_name": self.full_name, "private": False, "owner": self.user(self.owner),
            "html_url": self.html, "description": "InferenceX-style benchmark configurations (fake)",
            "fork": False, "url": a,
            "archive_url": f"{a}/{{archive_format}}{{/ref}}", "assignees_url": f"{a}/assignees{{/user}}",
            "blobs_url": f"{a}/git/blobs{{/sha}}", "branches_url": f"{a}/branches{{/branch}}",
            "collaborators_url": f"{a}/collaborators{{/collaborator}}", "comments_url": f"{a}/comments{{/number}}",
            "commits_url": f"{a}/commits{{/sha}}", "compare_url": f"{a}/compare/{{base}}...{{head}}",
            "contents_url": f"{a}/contents/{{+path}}", "contributors_url": f"{a}/contributors",
            "deployments_url": f"{a}/deployments", "downloads_url": f"{a}/downloads", "events_url": f"{a}/events",
            "forks_url": f"{a}/forks", "git_commits_url": f"{a}/git/commits{{/sha}}",
            "git_refs_url": f"{a}/git/refs{{/sha}}", "git_tags_url": f"{a}/git/tags{{/sha}}",
            "git_url": f"{self.html}.git".replace("http://", "git://"),
            "issue_comment_url": f"{a}/issues/comments{{/number}}", "issue_events_url": f"{a}/issues/events{{/number}}",
            "issues_url": f"{a}/issues{{/number}}", "keys_url": f"{a}/keys{{/key_id}}",
            "labels_url": f"{a}/labels{{/name}}", "languages_url": f"{a}/languages", "merges_url": f"{a}/merges",
            "milestones_url": f"{a}/milestones{{/number}}",
            "notifications_url": f"{a}/notifications{{?since,all,participating}}", "pulls_url": f"{a}/pulls{{/number}}",
            "releases_url": f"{a}/releases{{/id}}", "ssh_url": f"git@fake-github:{self.full_name}.git",
            "stargazers_url": f"{a}/stargazers", "statuses_url": f"{a}/statuses/{{sha}}",
            "subscribers_url": f"{a}/subscribers", "subscription_url": f"{a}/subscription", "tags_url": f"{a}/tags",
            "teams_url": f"{a}/teams", "trees_url": f"{a}/git/trees{{/sha}}", "clone_url": f"{self.html}.git",
            "mirror_url": None, "hooks_url": f"{a}/hooks", "svn_url": self.html, "homepage": None,
            "language": "Python", "forks_count": 0, "stargazers_count": 0, "watchers_count": 0, "size": 0,
            "default_branch": self.default_branch, "open_issues_count": open_issues, "is_template": False,
            "topics": [], "has_issues": True, "has_projects": True, "has_wiki": True, "has_pages": False,
            "has_downloads": True, "has_discussions": False, "archived": False, "disabled": False,
            "visibility": "public", "pushed_at": pushed_at or self.created_at, "created_at": self.created_at,
            "updated_at": self.created_at,
            "permissions": {"admin": False, "maintain": False, "push": True, "triage": True, "pull": True},
            "allow_rebase_merge": True, "allow_squash_merge": True, "allow_merge_commit": True,
            "allow_auto_merge": False, "delete_branch_on_merge": False, "allow_forking": True,
            "web_commit_signoff_required": False, "subscribers_count": 0, "network_count": 0,
            "license": None, "forks": 0, "open_issues": open_issues, "watchers": 0, "custom_properties": {},
        }

    # -- labels --------------------------------------------------------------------------------
    def label(self, lab: dict) -> dict:
        return {"id": lab["id"], "node_id": node_id("LA", lab["id"]),
                "url": f"{self.api}/labels/{quote(lab['name'], safe='')}", "name": lab["name"],
                "color": lab["color"], "default": False, "description": lab.get("description"),
                "archived_at": None, "archived_by": None}

    # -- commits -------------------------------------------------------------------------------
    def commit(self, c) -> dict:
        """A `Commit` (compare's commits / base_commit) from a gitrepo.CommitInfo."""
        a = self.api
        return {
            "url": f"{a}/commits/{c.sha}", "sha": c.sha, "node_id": node_id("C", c.sha[:12]),
            "html_url": f"{self.html}/commit/{c.sha}", "comments_url": f"{a}/commits/{c.sha}/comments",
            "commit": {
                "url": f"{a}/git/commits/{c.sha}",
                "author": {"name": c.author_name, "email": c.author_email, "date": c.author_date},
                "committer": {"name": c.committer_name, "email": c.committer_email, "date": c.committer_date},
                "message": c.message, "comment_count": 0,
                "tree": {"sha": c.tree, "url": f"{a}/git/trees/{c.tree}"},
                "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None,
                                 "verified_at": None},
            },
            "author": None, "committer": None,
            "parents": [{"sha": p, "url": f"{a}/commits/{p}", "html_url": f"{self.html}/commit/{p}"}
                        for p in c.parents],
        }

    def diff_entry(self, f, head_sha: str) -> dict:
        path_q = quote(f.path)
        d = {
            "sha": f.new_sha or f.old_sha or "0" * 40, "filename": f.path, "status": f.status,
            "additions": f.additions, "deletions": f.deletions, "changes": f.additions + f.deletions,
            "blob_url": f"{self.html}/blob/{head_sha}/{path_q}", "raw_url": f"{self.html}/raw/{head_sha}/{path_q}",
            "contents_url": f"{self.api}/contents/{path_q}?ref={head_sha}",
        }
        if f.patch is not None:
            d["patch"] = f.patch
        if f.previous_path is not None:
            d["previous_filename"] = f.previous_path
        return d

    # -- contents ------------------------------------------------------------------------------
    def content_links(self, path: str, sha: str, ref: str, kind: str) -> dict:
        self_url = f"{self.api}/contents/{quote(path)}?ref={quote(ref, safe='')}"
        git = f"{self.api}/git/{'trees' if kind == 'dir' else 'blobs'}/{sha}"
        html = f"{self.html}/{'tree' if kind == 'dir' else 'blob'}/{quote(ref, safe='')}/{quote(path)}"
        return {"url": self_url, "git_url": git, "html_url": html,
                "download_url": None if kind == "dir" else f"{self.html}/raw/{quote(ref, safe='')}/{quote(path)}",
                "_links": {"self": self_url, "git": git, "html": html}}

    def reactions_rollup(self, url: str, reactions: list[dict]) -> dict:
        out = {"url": url, "total_count": len(reactions)}
        for c in REACTIONS:
            out[c] = sum(1 for r in reactions if r["content"] == c)
        return out

    def app(self) -> dict:
        return {
            "id": self.app_id, "slug": self.app_slug, "node_id": node_id("A", self.app_id),
            "client_id": f"Iv1.{self.app_id:016x}", "owner": self.user(self.owner), "name": self.app_slug,
            "description": "Reviews benchmark recipe PRs", "external_url": f"{self.base}/apps/{self.app_slug}",
            "html_url": f"{self.base}/apps/{self.app_slug}", "created_at": self.created_at,
            "updated_at": self.created_at,
            "permissions": dict(self.permissions),
            "events": ["check_run", "issue_comment", "pull_request", "pull_request_review_comment"],
            "installations_count": 1,
        }

    def installation(self) -> dict:
        return {
            "id": self.installation_id, "account": self.user(self.owner), "repository_selection": "selected",
            "access_tokens_url": f"{self.base}/app/installations/{self.installation_id}/access_tokens",
            "repositories_url": f"{self.base}/installation/repositories",
            "html_url": f"{self.base}/settings/installations/{self.installation_id}", "app_id": self.app_id,
            "client_id": f"Iv1.{self.app_id:016x}", "target_id": user_id(self.owner), "target_type": "User",
            "permissions": self.app()["permissions"], "events": self.app()["events"],
            "created_at": self.created_at, "updated_at": self.created_at, "single_file_name": None,
            "has_multiple_single_files": False, "single_file_paths": [], "app_slug": self.app_slug,
            "suspended_by": None, "suspended_at": None,
        }
