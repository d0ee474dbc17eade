"""POST /graphql: graphql-core executes queries against `schema.graphql` (a subset of GitHub's
schema) over the fake's state, with GitHub's conventions:

- connections need `first` or `last` (at most 100), else MISSING_PAGINATION_BOUNDARIES /
  EXCESSIVE_PAGINATION errors; cursors are opaque;
- a missing repository or pull request is a NOT_FOUND error with `path`; a missing object
  expression is just `null`;
- `Blob.text` is null for binary blobs and cut at 512,000 bytes with `isTruncated: true`;
- a Bot's `login` has no `[bot]` suffix (REST's `user.login` has it);
- errors look like GitHub's: `{"errors": [{"type", "path", "locations", "message"}], "data"}`.
"""
from __future__ import annotations

import base64
import codecs
import json
import re
from pathlib import Path

from flask import Flask, request
from graphql import GraphQLError, build_schema, graphql_sync

from fakegithub.server import json_response
from fakegithub.shapes import error, node_id, now_iso

BLOB_TEXT_LIMIT = 512_000  # bytes of Blob.text before GitHub truncates (isTruncated: true)
MAX_PAGE = 100
SCHEMA = build_schema((Path(__file__).with_name("schema.graphql")).read_text(encoding="utf-8"))


class TypedError(Exception):
    """A GraphQL error with GitHub's top-level `type` (NOT_FOUND, EXCESSIVE_PAGINATION, …)."""

    def __init__(self, type_: str, message: str):
        super().__init__(message)
        self.type, self.message = type_, message


def _cursor(i: int) -> str:
    return base64.b64encode(f"cursor:v2:{i}".encode()).decode()


def _uncursor(c: str) -> int:
    try:
        raw = base64.b64decode(c, validate=True).decode()
        if raw.startswith("cursor:v2:"):
            return int(raw[len("cursor:v2:"):])
    except (ValueError, UnicodeDecodeError):
        pass
    raise TypedError("INVALID_CURSOR_ARGUMENTS", f"`{c}` does not appear to be a valid cursor.")


def connection(info, items: list, first=None, after=None, last=None, before=None, **_):
    name = info.field_name
    if first is None and last is None:
        raise TypedError("MISSING_PAGINATION_BOUNDARIES",
                         f"You must provide a `first` or `last` value to properly paginate the `{name}` connection.")
    for arg, value in (("first", first), ("last", last)):
        if value is not None and value < 0:
            raise TypedError("INVALID_ARGUMENTS", f"`{arg}` on the `{name}` connection cannot be less than zero.")
        if value is not None and value > MAX_PAGE:
            raise TypedError("EXCESSIVE_PAGINATION", f"Requesting {value} records on the `{name}` connection "
                                                     f"exceeds the `{arg}` limit of {MAX_PAGE} records.")
    start = _uncursor(after) + 1 if after else 0
    end = _uncursor(before) if before else len(items)
    idx = list(range(start, min(end, len(items))))
    if first is not None:
        idx = idx[:first]
    if last is not None:
        idx = idx[-last:] if last else []
    nodes = [items[i] for i in idx]
    last_index = idx[-1] if idx else start - 1
    return {"nodes": nodes, "edges": [{"node": items[i], "cursor": _cursor(i)} for i in idx],
            "totalCount": len(items),
            "pageInfo": {"hasNextPage": last_index < min(end, len(items)) - 1,
                         "hasPreviousPage": (idx[0] if idx else start) > 0,
                         "startCursor": _cursor(idx[0]) if idx else None,
                         "endCursor": _cursor(idx[-1]) if idx else None}}


class Resolver:
    """Builds GraphQL nodes (dicts, with callables for fields that take arguments) from the store."""

    def __init__(self, store):
        self.store = store
        self.s = store.site
        self._revs: dict[str, str | None] = {}

    # -- people --------------------------------------------------------------------------------
    def actor(self, login: str | None):
        if not login:
            return None
        u = self.s.user(login)
        if login.endswith("[bot]"):
            slug = login[:-5]
            return {"__typename": "Bot", "id": u["node_id"], "databaseId": u["id"], "login": slug,
                    "avatarUrl": lambda info, size=None: u["avatar_url"], "resourcePath": f"/apps/{slug}",
                    "url": f"{self.s.base}/apps/{slug}"}
        return {"__typename": "User", "id": u["node_id"], "databaseId": u["id"], "login": login,
                "avatarUrl": lambda info, size=None: u["avatar_url"], "resourcePath": f"/{login}",
                "url": u["html_url"]}

    def viewer(self, login: str):
        """The token's user. For an App installation token GitHub answers `<slug>[bot]` (suffix kept)."""
        u = self.s.user(login)
        return {"__typename": "User", "id": u["node_id"], "databaseId": u["id"], "login": login,
                "avatarUrl": lambda info, size=None: u["avatar_url"], "resourcePath": f"/{login}",
                "url": u["html_url"]}

    # -- repository ----------------------------------------------------------------------------
    def repository(self, info, owner: str, name: str, followRenames: bool = True):
        if owner.lower() != self.s.owner.lower() or name.lower() != self.s.name.lower():
            raise TypedError("NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'.")
        s = self.s
        return {"__typename": "Repository", "id": node_id("R", s.repo_id), "databaseId": s.repo_id,
                "name": s.name, "nameWithOwner": s.full_name, "isPrivate": False, "url": s.html,
                "owner": self.actor(s.owner), "pullRequest": self.pull_request,
                "object": self.object, "defaultBranchRef": self._ref(s.default_branch),
                "ref": lambda info, qualifiedName: self._ref(qualifiedName.removeprefix("refs/heads/")),
                "label": self.label}

    def _ref(self, branch: str):
        sha = self.store.git.resolve(f"refs/heads/{branch}") if not branch.startswith("-") else None
        if not sha:
            return None
        return {"__typename": "Ref", "id": node_id("REF", branch), "name": branch, "prefix": "refs/heads/",
                "target": self.git_object("commit", sha)}

    def label(self, info, name: str):
        lab = self.store.repo_label(name, create=False)
        return self._label(lab) if lab else None

    def _label(self, lab: dict):
        rest = self.s.label(lab)
        return {"__typename": "Label", "id": rest["node_id"], "name": lab["name"], "color": lab["color"],
                "description": lab.get("description"), "url": rest["url"]}

    # -- git objects ---------------------------------------------------------------------------
    def object(self, info, expression: str | None = None, oid: str | None = None):
        target = expression if expression is not None else oid
        if not target:
            raise TypedError("INVALID_ARGUMENTS", "Either `expression` or `oid` must be provided.")
        if oid is not None and not re.fullmatch(r"[0-9a-fA-F]{4,40}", oid):
            return None
        git = self.store.git
        path = ""
        if expression is not None and ":" in expression and not expression.startswith(":"):
            rev, _, path = expression.partition(":")
            path = path.strip("/")
            if rev not in self._revs:  # one rev-parse per revision per query, however many aliases
                self._revs[rev] = git.resolve(rev) if not rev.startswith("-") else None
            commit = self._revs[rev]
            found = git.file_at(commit, path) if commit else None
        else:
            found = git.resolve_object(target)
        if found is None:
            return None
        kind, sha = found
        return self.git_object(kind, sha, path)

    def git_object(self, kind: str, sha: str, path: str = ""):
        base = {"id": node_id({"blob": "B", "tree": "T", "commit": "C"}.get(kind, "O"), sha[:16]), "oid": sha,
                "abbreviatedOid": sha[:7], "repository": lambda info: self.repository(info, self.s.owner, self.s.name)}
        git = self.store.git
        if kind == "blob":
            def blob_fields():
                data = git.blob(sha) or b""
                binary = b"\0" in data[:8000]
                truncated = len(data) > BLOB_TEXT_LIMIT
                text = None
                if not binary:
                    dec = codecs.getincrementaldecoder("utf-8")("replace")
                    text = dec.decode(data[:BLOB_TEXT_LIMIT], final=not truncated)
                return {"byteSize": len(data), "isBinary": binary, "isTruncated": truncated, "text": text}
            cache: dict = {}

            def field(name):
                def get(info):
                    if not cache:
                        cache.update(blob_fields())
                    return cache[name]
                return get
            return {"__typename": "Blob", **base, "byteSize": lambda info: git.object_size(sha),
                    "isBinary": field("isBinary"), "isTruncated": lambda info: git.object_size(sha) > BLOB_TEXT_LIMIT,
                    "text": field("text")}
        if kind == "tree":
            def entries(info):
                out = []
                for e in git.tree(sha):
                    p = f"{path}/{e.name}" if path else e.name
                    ext = ("." + e.name.rsplit(".", 1)[1]) if "." in e.name.lstrip(".") else None
                    out.append({"name": e.name, "path": p, "oid": e.sha, "type": e.type, "mode": int(e.mode, 8),
                                "size": e.size or 0, "extension": ext,
                                "object": (lambda info, e=e, p=p: self.git_object(e.type, e.sha, p))})
                return out
            return {"__typename": "Tree", **base, "entries": entries}
        if kind == "commit":
            c = git.commit(sha)
            return {"__typename": "Commit", **base, "message": c.message,
                    "messageHeadline": (c.message.splitlines() or [""])[0], "committedDate": c.committer_date,
                    "authoredDate": c.author_date, "tree": lambda info: self.git_object("tree", c.tree, ""),
                    "checkSuites": lambda info, filterBy=None, **kw: connection(
                        info, self._suites(sha, filterBy), **kw)}
        return None  # tags and others: outside the subset

    # -- checks --------------------------------------------------------------------------------
    def _suites(self, sha: str, filter_by: dict | None):
        st = self.store
        runs = [r for r in st.check_runs if r["head_sha"] == sha]
        if not runs:
            return []
        if filter_by:
            if filter_by.get("appId") is not None and filter_by["appId"] != self.s.app_id:
                return []
            if filter_by.get("checkName") and not any(r["name"] == filter_by["checkName"] for r in runs):
                return []
        app = {"__typename": "App", "id": node_id("A", self.s.app_id), "databaseId": self.s.app_id,
               "name": self.s.app_slug, "slug": self.s.app_slug}
        done = all(r["status"] == "completed" for r in runs)
        conclusions = [r["conclusion"] for r in runs if r["conclusion"]]
        worst = next((c for c in ("failure", "timed_out", "cancelled", "action_required", "neutral", "success",
                                  "skipped") if c in conclusions), None)
        suite_id = st.check_suites.get(sha) or st._suite(sha)
        return [{"__typename": "CheckSuite", "id": node_id("CS", suite_id), "databaseId": suite_id, "app": app,
                 "status": "COMPLETED" if done else "IN_PROGRESS",
                 "conclusion": (worst or "").upper() or None if done else None,
                 "checkRuns": lambda info, filterBy=None, **kw: connection(info, self._runs(runs, filterBy), **kw)}]

    def _runs(self, runs: list[dict], f: dict | None):
        f = f or {}
        out = list(runs)
        if f.get("appId") is not None and f["appId"] != self.s.app_id:
            out = []
        if f.get("checkName"):
            out = [r for r in out if r["name"] == f["checkName"]]
        if f.get("status"):
            out = [r for r in out if r["status"].upper() == f["status"]]
        if f.get("statuses"):
            out = [r for r in out if r["status"].upper() in f["statuses"]]
        if f.get("conclusions"):
            out = [r for r in out if (r["conclusion"] or "").upper() in f["conclusions"]]
        if f.get("checkType") == "LATEST":
            latest: dict[str, dict] = {}
            for r in out:
                latest[r["name"]] = r
            out = [r for r in out if latest[r["name"]] is r]
        return [self._run(r) for r in out]

    def _run(self, r: dict):
        rest = self.store.render_check_run(r)
        out = r["output"] or {}
        return {"__typename": "CheckRun", "id": rest["node_id"], "databaseId": r["id"], "name": r["name"],
                "status": r["status"].upper(), "conclusion": (r["conclusion"] or "").upper() or None,
                "title": out.get("title"), "summary": out.get("summary"), "text": out.get("text"),
                "detailsUrl": rest["details_url"], "externalId": r["external_id"], "startedAt": r["started_at"],
                "completedAt": r["completed_at"], "url": rest["html_url"], "permalink": rest["html_url"]}

    # -- pull requests -------------------------------------------------------------------------
    def pull_request(self, info, number: int):
        st = self.store
        pr = st.prs.get(number)
        if pr is None:
            raise TypedError("NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}.")
        s = self.s
        n = pr["number"]
        state = "MERGED" if pr["merged"] else pr["state"].upper()

        def stats(key):
            def get(info):
                _, files = st.pr_diff(pr)
                return {"additions": sum(f.additions for f in files), "deletions": sum(f.deletions for f in files),
                        "changedFiles": len(files)}[key]
            return get

        return {
            "__typename": "PullRequest", "id": node_id("PR", pr["id"]), "databaseId": pr["id"], "number": n,
            "state": state, "isDraft": pr["draft"], "title": pr["title"], "body": pr["body"] or "",
            "url": f"{s.html}/pull/{n}", "headRefOid": pr["head_sha"], "baseRefOid": pr["base_sha"],
            "baseRefName": pr["base_ref"], "headRefName": pr["head_ref"], "author": self.actor(pr["author"]),
            "createdAt": pr["created_at"], "updatedAt": pr["updated_at"], "merged": pr["merged"],
            "closed": pr["state"] == "closed", "additions": stats("additions"), "deletions": stats("deletions"),
            "changedFiles": stats("changedFiles"),
            "labels": lambda info, **kw: connection(info, [self._label(st.repo_labels[x.lower()])
                                                           for x in pr["labels"]], **kw),
            "comments": lambda info, **kw: connection(info, [self.issue_comment(c) for c in st.issue_comments
                                                             if c["number"] == n], **kw),
            "reviewThreads": lambda info, **kw: connection(info, [self.thread(t) for t in st.threads
                                                                  if t["number"] == n], **kw),
        }

    def issue_comment(self, c: dict):
        rest = self.store.render_issue_comment(c)
        return {"__typename": "IssueComment", "id": rest["node_id"], "databaseId": c["id"],
                "fullDatabaseId": str(c["id"]), "body": c["body"],
                "author": self.actor(c["user"]), "createdAt": c["created_at"], "updatedAt": c["updated_at"],
                "url": rest["html_url"], "isMinimized": False, "viewerDidAuthor": c["user"] == self.s.bot_login}

    def thread(self, t: dict):
        st = self.store
        root = st.review_comment(t["root_id"])
        outdated = st.is_outdated(root)
        comments = [c for c in st.review_comments if st._root(c)["id"] == root["id"]]
        return {"__typename": "PullRequestReviewThread", "id": node_id("PRRT", t["id"]),
                "isResolved": t["resolved"], "isOutdated": outdated, "path": root["path"],
                "line": None if outdated else root["line"], "originalLine": root["line"],
                "startLine": None if outdated else root["start_line"], "diffSide": root["side"],
                "startDiffSide": root["start_side"], "viewerCanResolve": True,
                "resolvedBy": self.actor(t["resolved_by"]) if t["resolved_by"] and
                not t["resolved_by"].endswith("[bot]") else None,
                "comments": lambda info, skip=None, **kw: connection(
                    info, [self.review_comment(c) for c in comments][skip or 0:], **kw)}

    def review_comment(self, c: dict):
        st = self.store
        root = st._root(c)
        outdated = st.is_outdated(c)
        return {"__typename": "PullRequestReviewComment", "id": node_id("PRRC", c["id"]), "databaseId": c["id"],
                "fullDatabaseId": str(c["id"]),
                "body": c["body"], "author": self.actor(c["user"]), "path": root["path"],
                "line": None if outdated else root["line"], "originalLine": root["line"], "outdated": outdated,
                "diffHunk": root["diff_hunk"], "createdAt": c["created_at"], "updatedAt": c["updated_at"],
                "url": f"{self.s.html}/pull/{c['number']}#discussion_r{c['id']}",
                "replyTo": self.review_comment(st.review_comment(c["in_reply_to_id"]))
                if c.get("in_reply_to_id") is not None else None}

    # -- mutations -----------------------------------------------------------------------------
    def set_resolved(self, resolved: bool, actor: str):
        def mutate(info, input):
            t = self.store.resolve_thread(input["threadId"], resolved, actor)
            if t is None:
                raise TypedError("NOT_FOUND", f"Could not resolve to a node with the global id of "
                                              f"'{input['threadId']}'")
            return {"clientMutationId": input.get("clientMutationId"), "thread": self.thread(t)}
        return mutate

    def rate_limit(self, info, dryRun: bool = False):
        rate = self.store.rate_status("graphql")
        return {"cost": 1, "limit": rate["limit"], "nodeCount": 0, "remaining": rate["remaining"],
                "used": rate["used"], "resetAt": now_iso(rate["reset"])}


def _format(err: GraphQLError) -> dict:
    out: dict = {}
    orig = err.original_error
    if isinstance(orig, TypedError):
        out["type"] = orig.type
    if err.path is not None:
        out["path"] = list(err.path)
    if err.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in err.locations]
    message = err.message
    m = re.match(r"Cannot query field '(\w+)' on type '(\w+)'\.", message)
    if message.startswith("The field ") and " is deprecated." in message:
        # GitHub still serves a deprecated field until its removal date; the fake, under GitHub's
        # published schema (fakegithub.contract), refuses it now, as GitHub will on that date.
        out["extensions"] = {"code": "deprecatedField"}
    if m:
        message = f"Field '{m.group(1)}' doesn't exist on type '{m.group(2)}'"
        out["extensions"] = {"code": "undefinedField", "typeName": m.group(2), "fieldName": m.group(1)}
    elif orig is not None and not isinstance(orig, TypedError):
        message = f"Something went wrong while executing your query. ({type(orig).__name__}: {orig})"
    out["message"] = message
    return out


def execute(store, query: str, variables: dict | None, operation_name: str | None, actor: str) -> dict:
    r = Resolver(store)
    root = {"repository": r.repository, "rateLimit": r.rate_limit, "viewer": lambda info: r.viewer(actor),
            "resolveReviewThread": r.set_resolved(True, actor), "unresolveReviewThread": r.set_resolved(False, actor)}
    with store.lock:
        result = graphql_sync(SCHEMA, query, root_value=root, variable_values=variables,
                              operation_name=operation_name)
    out: dict = {}
    if result.errors:
        out["errors"] = [_format(e) for e in result.errors]
    if result.data is not None or not result.errors:
        out["data"] = result.data
    return out


def register(app: Flask, fake) -> None:
    @app.post("/graphql")
    def graphql_endpoint():
        doc = "graphql"
        try:
            payload = json.loads(request.get_data() or b"null")
        except (ValueError, UnicodeDecodeError):
            return json_response(error("Problems parsing JSON", doc), 400)
        if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
            return json_response({"errors": [{"message": "A query attribute must be specified and must be a "
                                                          "string."}]}, 200)
        variables = payload.get("variables")
        if isinstance(variables, str):
            try:
                variables = json.loads(variables) if variables else None
            except ValueError:
                variables = None
        variables = variables if isinstance(variables, dict) else None
        auth = request.headers.get("Authorization")
        if fake.contract is not None and fake.contract.has_graphql:
            problems = fake.contract.check_graphql(payload["query"], variables)
            if problems:  # GitHub answers 200 with the errors and no data
                return json_response({"errors": [_format(e) for e in problems]}, 200)
        tok = fake.token_of(auth)
        if re.match(r"\s*mutation\b", payload["query"]) and not fake.allows(tok, "POST", "/repos/_/_/pulls"):
            from fakegithub.server import NOT_ACCESSIBLE

            return json_response({"data": None, "errors": [{"type": "FORBIDDEN", "message": NOT_ACCESSIBLE}]}, 200)
        actor = fake.actor_for(auth)
        out = execute(fake, payload["query"], variables, payload.get("operationName"), actor)
        return json_response(out, 200)
