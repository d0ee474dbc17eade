"""The git data API of the fake GitHub: blobs, trees, commits and refs, read and written for real.

    POST  /repos/{o}/{r}/git/blobs          {"content", "encoding": "utf-8"|"base64"}     -> 201 ShortBlob
    POST  /repos/{o}/{r}/git/trees          {"base_tree", "tree": [{path, mode, type, sha|content}]} -> 201 GitTree
    POST  /repos/{o}/{r}/git/commits        {"message", "tree", "parents", "author"?, "committer"?} -> 201 GitCommit
    GET   /repos/{o}/{r}/git/commits/{sha}  -> GitCommit
    GET   /repos/{o}/{r}/git/trees/{sha}[?recursive=1] -> GitTree
    GET   /repos/{o}/{r}/git/ref/{ref}      -> GitRef (`heads/<branch>`)
    PATCH /repos/{o}/{r}/git/refs/{ref}     {"sha", "force"} -> GitRef

Objects are written into the git repository behind the fake (`git hash-object -w`, a temporary
index + `write-tree`, `commit-tree`). The rules GitHub applies and a bot must survive:

* every write needs the installation's `contents: write` (403 "Resource not accessible by
  integration" otherwise: an installation that has not accepted the new permission);
* a ref update that is not a fast-forward fails with 422 "Update is not a fast forward" unless
  `force` is true; a protected branch (`POST /_fake/protect`) fails with 422 "Protected branch
  update failed for refs/heads/<branch>.";
* updating a PR's head branch moves that PR's head (a push), as GitHub does;
* `{o}/{r}` may also be the head repository of a fork PR (`POST /_fake/prs` with `fork`): reads
  work (the fork is public); writes need the PR's `maintainer_can_modify` on a user-owned fork
  (GitHub: only user-owned forks can allow edits by maintainers, granted to those with push access
  to the upstream) and fail with 403 otherwise, or always when `fork_push` is "never".
"""
from __future__ import annotations

import base64
import binascii
import os
import re
import subprocess
import tempfile

from flask import Flask, request

from fakegithub.shapes import error, node_id, now_iso
from fakegithub.store import ApiError, not_found

_SHA = re.compile(r"^[0-9a-f]{40}$")
MODES = {"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}
DOCS = {"blob": "git/blobs#create-a-blob", "tree": "git/trees#create-a-tree", "commit": "git/commits#create-a-commit",
        "ref": "git/refs#update-a-reference", "get-ref": "git/refs#get-a-reference",
        "get-commit": "git/commits#get-a-commit-object", "get-tree": "git/trees#get-a-tree"}


def fork_repository(site, owner: str, owner_type: str = "User") -> dict:
    """The head repository of a fork PR: `owner/<name>`, `fork: true`, in GitHub's Repository shape."""
    repo = site.repository()
    old_api, old_html, full = site.api, site.html, f"{owner}/{site.name}"
    new_api, new_html = f"{site.base}/repos/{full}", f"{site.base}/{full}"
    out = {}
    for k, v in repo.items():
        if isinstance(v, str):
            v = v.replace(old_api, new_api).replace(old_html, new_html).replace(site.full_name, full)
        out[k] = v
    user = site.user(owner)
    if owner_type == "Organization":
        user["type"] = "Organization"
    out.update(id=site.repo_id + 1 + sum(map(ord, owner)), node_id=node_id("R", f"fork:{owner}"), full_name=full,
               owner=user, fork=True,
               permissions={"admin": False, "maintain": False, "push": False, "triage": False, "pull": True})
    return out


def _validation(message: str, doc: str) -> ApiError:
    return ApiError(422, error(message, doc, 422))


class GitData:
    """The operations behind the endpoints (state lives in the fake's GitHubState)."""

    def __init__(self, fake):
        self.fake = fake
        self.git = fake.git

    # -- plumbing ------------------------------------------------------------------------------
    def _run(self, *args: str, input: bytes | None = None, env: dict | None = None, check: bool = True) -> bytes:
        proc = subprocess.run(["git", "-C", str(self.git.path), *args], capture_output=True, input=input,
                              env={**os.environ, **(env or {})})
        if check and proc.returncode != 0:
            raise _validation(proc.stderr.decode(errors="replace").strip().splitlines()[-1:][0]
                              if proc.stderr.strip() else f"git {args[0]} failed", "")
        return proc.stdout

    def object_type(self, sha) -> str | None:
        if not isinstance(sha, str) or not _SHA.match(sha):
            return None
        out = self._run("cat-file", "-t", sha, check=False).decode().strip()
        return out or None

    # -- who may write where -------------------------------------------------------------------
    def repo_kind(self, owner: str, repo: str) -> tuple[str, list[dict]]:
        """("base", []) or ("fork", [PRs whose head lives in that fork]); 404 for anything else."""
        site = self.fake.site
        if owner.lower() == site.owner.lower() and repo.lower() == site.name.lower():
            return "base", []
        if repo.lower() == site.name.lower():
            prs = [p for p in self.fake.prs.values() if (p.get("fork") or "").lower() == owner.lower()]
            if prs:
                return "fork", prs
        raise not_found()

    def check_write(self, kind: str, prs: list[dict], doc: str, branch: str | None = None) -> None:
        perms = self.fake.site.permissions
        if perms.get("contents") != "write":
            raise ApiError(403, error("Resource not accessible by integration", doc, 403))
        if kind != "fork":
            return
        mine = [p for p in prs if branch is None or p["head_ref"] == branch]
        allowed = self.fake.fork_push != "never" and any(
            p.get("maintainer_can_modify") and p.get("fork_owner_type") == "User" and p["state"] == "open"
            for p in mine)
        if not allowed:
            raise ApiError(403, error("Resource not accessible by integration", doc, 403))

    # -- blobs, trees, commits ---------------------------------------------------------------
    def create_blob(self, payload) -> str:
        doc = DOCS["blob"]
        if not isinstance(payload, dict) or not isinstance(payload.get("content"), str):
            raise ApiError(422, error("Invalid request.\n\n\"content\" wasn't supplied.", doc, 422))
        encoding = payload.get("encoding") or "utf-8"
        if encoding == "base64":
            try:
                data = base64.b64decode(payload["content"], validate=False)
            except (binascii.Error, ValueError):
                raise _validation("content is not valid Base64", doc) from None
        elif encoding in ("utf-8", "utf8"):
            data = payload["content"].encode("utf-8")
        else:
            raise _validation(f"encoding must be utf-8 or base64, not {encoding!r}", doc)
        return self._run("hash-object", "-w", "--stdin", input=data).decode().strip()

    def create_tree(self, payload) -> str:
        doc = DOCS["tree"]
        if not isinstance(payload, dict) or not isinstance(payload.get("tree"), list):
            raise ApiError(422, error("Invalid request.\n\n\"tree\" wasn't supplied.", doc, 422))
        base = payload.get("base_tree")
        if base is not None and self.object_type(base) != "tree":
            raise _validation("base_tree is not a valid tree oid", doc)
        fd, index = tempfile.mkstemp(prefix="fake-index-")
        os.close(fd)
        os.unlink(index)
        env = {"GIT_INDEX_FILE": index}
        try:
            if base:
                self._run("read-tree", base, env=env)
            for k, entry in enumerate(payload["tree"]):
                if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"]:
                    raise _validation(f"tree.{k}.path is required", doc)
                path = entry["path"].strip("/")
                mode = entry.get("mode")
                if mode not in MODES:
                    raise _validation(f"tree.{k}.mode must be one of {', '.join(MODES)}", doc)
                if entry.get("type") not in (None, MODES[mode]):
                    raise _validation(f"tree.{k}.type must be {MODES[mode]} for mode {mode}", doc)
                if "content" in entry and entry.get("sha") is not None:
                    raise _validation(f"tree.{k}: give either sha or content, not both", doc)
                if "content" in entry:
                    if not isinstance(entry["content"], str):
                        raise _validation(f"tree.{k}.content must be a string", doc)
                    sha = self._run("hash-object", "-w", "--stdin", input=entry["content"].encode()).decode().strip()
                elif "sha" in entry and entry["sha"] is None:
                    listed = self._run("ls-files", "--", path, env=env).strip()
                    if not listed:
                        raise _validation(f"tree.{k}.path `{path}` does not exist, so it cannot be deleted", doc)
                    self._run("update-index", "--force-remove", "--", path, env=env)
                    continue
                else:
                    sha = entry.get("sha")
                    if self.object_type(sha) != MODES[mode]:
                        raise _validation(f"tree.sha {sha} is not a valid {MODES[mode]}", doc)
                self._run("update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}", env=env)
            return self._run("write-tree", env=env).decode().strip()
        finally:
            if os.path.exists(index):
                os.unlink(index)

    def create_commit(self, payload, actor: str) -> str:
        doc = DOCS["commit"]
        if not isinstance(payload, dict) or not isinstance(payload.get("message"), str) \
                or not isinstance(payload.get("tree"), str):
            raise ApiError(422, error("Invalid request.\n\n\"message\" and \"tree\" are required.", doc, 422))
        if self.object_type(payload["tree"]) != "tree":
            raise _validation("Tree SHA does not exist", doc)
        parents = payload.get("parents") or []
        if not isinstance(parents, list) or any(self.object_type(p) != "commit" for p in parents):
            raise _validation("Parent SHA does not exist or is not a commit object", doc)
        site = self.fake.site
        default = {"name": actor, "email": f"{site.app_id}+{actor}@users.noreply.github.com"}
        env = {}
        for role, key in (("author", "AUTHOR"), ("committer", "COMMITTER")):
            who = payload.get(role) if isinstance(payload.get(role), dict) else {}
            env[f"GIT_{key}_NAME"] = who.get("name") or default["name"]
            env[f"GIT_{key}_EMAIL"] = who.get("email") or default["email"]
            if who.get("date"):
                env[f"GIT_{key}_DATE"] = who["date"]
        args = ["commit-tree", payload["tree"]]
        for p in parents:
            args += ["-p", p]
        sha = self._run(*args, input=payload["message"].encode("utf-8"), env=env).decode().strip()
        self.fake.commits_created.append({"sha": sha, "actor": actor, "parents": list(parents),
                                          "message": payload["message"], "at": now_iso()})
        return sha

    # -- refs ----------------------------------------------------------------------------------
    def ref_value(self, kind: str, prs: list[dict], branch: str) -> str | None:
        if kind == "fork":
            for p in prs:
                if p["head_ref"] == branch:
                    return p["head_sha"]
            return None
        if self.git.is_branch(branch):
            return self.git.resolve(f"refs/heads/{branch}")
        for p in self.fake.prs.values():
            if not p.get("fork") and p["head_ref"] == branch:
                return p["head_sha"]  # a PR branch the fake names without a git ref
        return None

    def update_ref(self, kind: str, prs: list[dict], ref: str, payload) -> str:
        doc = DOCS["ref"]
        if not ref.startswith("heads/"):
            raise _validation("Reference update is supported for heads/<branch> only", doc)
        branch = ref[len("heads/"):]
        if not isinstance(payload, dict) or not isinstance(payload.get("sha"), str):
            raise ApiError(422, error("Invalid request.\n\n\"sha\" wasn't supplied.", doc, 422))
        new, force = payload["sha"], bool(payload.get("force"))
        old = self.ref_value(kind, prs, branch)
        if old is None:
            raise _validation("Reference does not exist", doc)
        if self.object_type(new) != "commit":
            raise _validation("Object does not exist", doc)
        if branch in self.fake.protected_branches:
            raise _validation(f"Protected branch update failed for refs/heads/{branch}.", doc)
        if not force and old != new and not self._is_ancestor(old, new):
            raise _validation("Update is not a fast forward", doc)
        if kind == "base" and self.git.is_branch(branch):
            self._run("update-ref", f"refs/heads/{branch}", new, old)
        for p in self.fake.prs.values():
            same_repo = (p.get("fork") or None) == (None if kind == "base" else prs[0].get("fork"))
            if same_repo and p["head_ref"] == branch and p["head_sha"] != new:
                self.fake.move_head(p["number"], new)
        return new

    def _is_ancestor(self, old: str, new: str) -> bool:
        proc = subprocess.run(["git", "-C", str(self.git.path), "merge-base", "--is-ancestor", old, new],
                              capture_output=True)
        return proc.returncode == 0

    # -- shapes --------------------------------------------------------------------------------
    def api(self, owner: str, repo: str) -> str:
        return f"{self.fake.site.base}/repos/{owner}/{repo}"

    def commit_json(self, owner: str, repo: str, sha: str) -> dict:
        if self.object_type(sha) != "commit":
            raise not_found(DOCS["get-commit"])
        c = self.git.commit(sha)
        api, html = self.api(owner, repo), f"{self.fake.site.base}/{owner}/{repo}"
        return {
            "sha": sha, "node_id": node_id("C", sha[:12]), "url": f"{api}/git/commits/{sha}",
            "html_url": f"{html}/commit/{sha}",
            "author": {"name": c.author_name, "email": c.author_email, "date": c.author_date},
            "committer": {"name": c.committer_name, "email": c.committer_email, "date": c.committer_date},
            "tree": {"sha": c.tree, "url": f"{api}/git/trees/{c.tree}"}, "message": c.message,
            "parents": [{"sha": p, "url": f"{api}/git/commits/{p}", "html_url": f"{html}/commit/{p}"}
                        for p in c.parents],
            "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None,
                             "verified_at": None},
        }

    def tree_json(self, owner: str, repo: str, sha: str, recursive: bool) -> dict:
        kind = self.object_type(sha)
        if kind == "commit":
            sha = self.git.commit(sha).tree
        elif kind != "tree":
            raise not_found(DOCS["get-tree"])
        api = self.api(owner, repo)
        args = ["ls-tree", "-z", "-l", *(["-r", "-t"] if recursive else []), sha]
        entries = []
        for rec in self._run(*args).split(b"\0"):
            if not rec:
                continue
            meta, _, name = rec.partition(b"\t")
            mode, typ, osha, size = meta.decode().split()
            e = {"path": name.decode("utf-8", "replace"), "mode": mode, "type": typ, "sha": osha,
                 "url": f"{api}/git/{typ}s/{osha}"}
            if typ == "blob":
                e["size"] = int(size)
            entries.append(e)
        return {"sha": sha, "url": f"{api}/git/trees/{sha}", "tree": entries, "truncated": False}

    def ref_json(self, owner: str, repo: str, branch: str, sha: str) -> dict:
        api = self.api(owner, repo)
        return {"ref": f"refs/heads/{branch}", "node_id": node_id("REF", f"{owner}/{repo}:{branch}"),
                "url": f"{api}/git/refs/heads/{branch}",
                "object": {"type": "commit", "sha": sha, "url": f"{api}/git/commits/{sha}"}}


def register(app: Flask, fake) -> None:
    from fakegithub.rest import _body, _json

    gd = GitData(fake)
    prefix = "/repos/<owner>/<repo>/git"

    def actor() -> str:
        return fake.actor_for(request.headers.get("Authorization"))

    @app.post(f"{prefix}/blobs")
    def git_create_blob(owner, repo):
        payload = _body()
        with fake.lock:
            kind, prs = gd.repo_kind(owner, repo)
            gd.check_write(kind, prs, DOCS["blob"])
            sha = gd.create_blob(payload)
            return _json({"sha": sha, "url": f"{gd.api(owner, repo)}/git/blobs/{sha}"}, 201,
                         {"Location": f"{gd.api(owner, repo)}/git/blobs/{sha}"})

    @app.post(f"{prefix}/trees")
    def git_create_tree(owner, repo):
        payload = _body()
        with fake.lock:
            kind, prs = gd.repo_kind(owner, repo)
            gd.check_write(kind, prs, DOCS["tree"])
            sha = gd.create_tree(payload)
            return _json(gd.tree_json(owner, repo, sha, recursive=False), 201)

    @app.post(f"{prefix}/commits")
    def git_create_commit(owner, repo):
        payload = _body()
        with fake.lock:
            kind, prs = gd.repo_kind(owner, repo)
            gd.check_write(kind, prs, DOCS["commit"])
            sha = gd.create_commit(payload, actor())
            return _json(gd.commit_json(owner, repo, sha), 201,
                         {"Location": f"{gd.api(owner, repo)}/git/commits/{sha}"})

    @app.get(f"{prefix}/commits/<sha>")
    def git_get_commit(owner, repo, sha):
        with fake.lock:
            gd.repo_kind(owner, repo)
            return _json(gd.commit_json(owner, repo, sha))

    @app.get(f"{prefix}/trees/<sha>")
    def git_get_tree(owner, repo, sha):
        with fake.lock:
            gd.repo_kind(owner, repo)
            recursive = request.args.get("recursive") not in (None, "", "0", "false")
            return _json(gd.tree_json(owner, repo, sha, recursive))

    @app.get(f"{prefix}/ref/<path:ref>")
    def git_get_ref(owner, repo, ref):
        with fake.lock:
            kind, prs = gd.repo_kind(owner, repo)
            branch = ref[len("heads/"):] if ref.startswith("heads/") else None
            sha = gd.ref_value(kind, prs, branch) if branch else None
            if sha is None:
                raise not_found(DOCS["get-ref"])
            return _json(gd.ref_json(owner, repo, branch, sha))

    @app.patch(f"{prefix}/refs/<path:ref>")
    def git_update_ref(owner, repo, ref):
        payload = _body()
        with fake.lock:
            kind, prs = gd.repo_kind(owner, repo)
            branch = ref[len("heads/"):] if ref.startswith("heads/") else None
            gd.check_write(kind, prs, DOCS["ref"], branch)
            sha = gd.update_ref(kind, prs, ref, payload)
            return _json(gd.ref_json(owner, repo, branch, sha))
