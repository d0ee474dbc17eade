"""The only module that imports PyGithub: a narrow port with exactly the calls the bot makes.

`GitHubPort` is what handlers depend on; `PyGithubPort` implements it over REST and GraphQL
(through PyGithub's requester), with PyGithub's `GithubRetry` for 5xx, secondary rate limits
(403/429 + Retry-After) and primary rate-limit resets, and its write spacing.

Reading a PR costs two calls: a REST compare (merge base, files, patches) and one GraphQL query
(PR state, the bot's earlier comments and threads, check runs on the head, and every file version
the rules need, fetched by alias in the same query).
"""
from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Protocol, TypeVar, cast

import github
from github import Auth, Github, GithubException, GithubIntegration, GithubRetry
from github.PaginatedList import PaginatedList

from bot import metrics
from bot.settings import Settings
from rules.inputs import LISTING_DEPTH

log = logging.getLogger(__name__)

# GitHub's compare endpoint lists at most 300 files; beyond that the PR files API (3,000) is used.
COMPARE_FILE_LIMIT = 300
GRAPHQL_PAGE = 100


class GitHubError(RuntimeError):
    """A GitHub call failed for good (after retries); carries the HTTP status when there is one."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status

    @property
    def permanent(self) -> bool:
        """404 (a deleted comment, a vanished commit) or 422 (GitHub refuses the request as sent):
        the same call fails the same way next time, so it is never retried."""
        return self.status in (404, 422)

    @property
    def forbidden(self) -> bool:
        """403 for a missing permission ("Resource not accessible by integration"), as opposed to a
        secondary rate limit (which PyGithub's retry has already waited out)."""
        text = str(self).lower()
        return self.status == 403 and ("not accessible" in text or "permission" in text)


@dataclass(frozen=True)
class FileInfo:
    path: str
    status: str
    patch: str | None
    previous_path: str | None
    sha: str | None = None
    additions: int = 0
    deletions: int = 0


@dataclass(frozen=True)
class PullInfo:
    number: int
    state: str  # "open" | "closed" | "merged"
    draft: bool
    head_sha: str
    base_sha: str
    base_ref: str
    author: str
    title: str
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommentInfo:
    id: int
    body: str
    author: str


@dataclass(frozen=True)
class ThreadInfo:
    id: str
    resolved: bool
    path: str | None
    comments: tuple[CommentInfo, ...]


@dataclass(frozen=True)
class CheckRunInfo:
    id: int
    name: str
    status: str
    conclusion: str | None
    title: str | None
    summary: str | None


@dataclass(frozen=True)
class HeadInfo:
    """Where a PR's head branch lives: the repository (a fork or the base), the branch, the commit."""

    repo: str  # owner/name of the head repository
    ref: str  # branch name
    sha: str
    fork: bool  # the head repository is not the base repository
    owner_type: str  # "User" | "Organization" (owner of the head repository)
    maintainer_can_modify: bool  # the author's "allow edits by maintainers"


@dataclass(frozen=True)
class GitCommitInfo:
    sha: str
    tree: str
    message: str
    parents: tuple[str, ...]


@dataclass
class Snapshot:
    """What one GraphQL read returns: the PR, the bot-relevant state and the requested blobs."""

    pull: PullInfo
    issue_comments: list[CommentInfo] = field(default_factory=list)
    threads: list[ThreadInfo] = field(default_factory=list)
    check_runs: list[CheckRunInfo] = field(default_factory=list)
    blobs: dict[str, bytes | None] = field(default_factory=dict)  # "rev:path" -> content (None: absent/binary)
    truncated: dict[str, str] = field(default_factory=dict)  # "rev:path" -> blob oid, text truncated
    trees: dict[str, list[str]] = field(default_factory=dict)  # "rev:dir" -> blob paths listed
    modes: dict[str, str] = field(default_factory=dict)  # "rev:path" -> git file mode ("100644", "120000", "040000")
    listed: set[str] = field(default_factory=set)  # "rev:dir" whose entries are all in `modes`
    present: dict[str, bool] = field(default_factory=dict)  # "rev:path" probed -> a file exists there


class GitHubPort(Protocol):
    """Every GitHub call the bot makes."""

    def compare(self, repo: str, base: str, head: str,
                number: int) -> tuple[str, list[FileInfo], int | None, int | None]:
        """(merge-base sha, changed files, the merge base's and the base tip's commit times in Unix
        seconds or None)."""
        ...
    def snapshot(self, repo: str, number: int, blobs: list[str], trees: list[str],
                 head_sha: str | None = None, probes: Sequence[str] = (), listings: Sequence[str] = ()) -> Snapshot: ...
    def blob(self, repo: str, oid: str) -> bytes: ...
    def create_review(self, repo: str, number: int, commit_sha: str, body: str,
                      comments: list[dict[str, Any]]) -> int: ...
    def reply_to_review_comment(self, repo: str, number: int, comment_id: int, body: str) -> int: ...
    def edit_review_comment(self, repo: str, comment_id: int, body: str) -> None: ...
    def resolve_thread(self, thread_id: str) -> None: ...
    def create_issue_comment(self, repo: str, number: int, body: str) -> int: ...
    def edit_issue_comment(self, repo: str, comment_id: int, body: str) -> None: ...
    def create_check_run(self, repo: str, name: str, head_sha: str, conclusion: str | None,
                         output: dict[str, Any]) -> int: ...
    def update_check_run(self, repo: str, check_run_id: int, conclusion: str | None,
                         output: dict[str, Any]) -> None: ...
    def check_runs(self, repo: str, head_sha: str, name: str) -> list[CheckRunInfo]: ...
    def pulls_for_commit(self, repo: str, sha: str) -> list[PullInfo]: ...
    def add_labels(self, repo: str, number: int, labels: list[str]) -> None: ...
    def remove_label(self, repo: str, number: int, label: str) -> None: ...
    def add_reaction(self, repo: str, kind: str, comment_id: int, content: str) -> None: ...
    def permission(self, repo: str, user: str) -> str: ...
    def workflow_runs(self, repo: str, head_sha: str) -> list[dict[str, Any]]: ...
    def get_pull(self, repo: str, number: int) -> PullInfo: ...
    def viewer_login(self) -> str: ...
    # Git data API (`/fix`): read a commit and its tree, write blobs, a tree, a commit, move a branch.
    def pull_head(self, repo: str, number: int) -> HeadInfo: ...
    def git_commit(self, repo: str, sha: str) -> GitCommitInfo: ...
    def tree_modes(self, repo: str, tree_sha: str, paths: list[str]) -> dict[str, str]: ...
    def create_blob(self, repo: str, content: bytes) -> str: ...
    def create_tree(self, repo: str, base_tree: str, entries: list[tuple[str, str, str]]) -> str: ...
    def create_commit(self, repo: str, message: str, tree: str, parents: list[str]) -> str: ...
    def update_ref(self, repo: str, branch: str, sha: str) -> None: ...


def _committed(commit: object) -> int | None:
    """A compare commit's committer time in Unix seconds, or None."""
    c = getattr(commit, "commit", None)
    when = c.committer.date if c is not None and c.committer is not None else None
    return int(when.timestamp()) if when is not None else None


def make_retry(settings: Settings) -> GithubRetry:
    """PyGithub's retry: 5xx, 403/429 with Retry-After, primary rate-limit resets, with backoff."""
    # PATCH, PUT and DELETE are idempotent here (edit a comment, update a check run, remove a
    # label), so they are retried too; urllib3's default list leaves PATCH out.
    methods = frozenset(GithubRetry.DEFAULT_ALLOWED_METHODS) | {"GET", "POST", "PATCH", "PUT", "DELETE"}
    return GithubRetry(total=settings.max_retries, backoff_factor=0.2, allowed_methods=methods,
                       secondary_rate_wait=5, max_rate_limit_wait=120)


_INTEGRATIONS: dict[tuple[object, ...], GithubIntegration] = {}
_CLIENTS: dict[tuple[object, ...], Github] = {}
_LOCK = threading.Lock()


def client_for(settings: Settings, installation_id: int | None = None) -> Github:
    """A cached PyGithub client: App installation auth when configured, else token auth."""
    common: dict[str, Any] = dict(
        base_url=settings.github_api_url.rstrip("/"), retry=make_retry(settings), lazy=True,
        timeout=int(max(1, settings.http_timeout_s)), per_page=100,
        seconds_between_requests=None, seconds_between_writes=settings.write_interval_s or None)
    if settings.app_auth and installation_id is not None:
        key: tuple[object, ...] = ("app", settings.github_api_url, settings.github_app_id, installation_id)
        with _LOCK:
            if key not in _CLIENTS:
                app_id = cast(int, settings.github_app_id)  # `app_auth`: the App ID is set
                auth = Auth.AppAuth(app_id, settings.private_key())
                _CLIENTS[key] = Github(auth=auth.get_installation_auth(installation_id), **common)
            return _CLIENTS[key]
    token = settings.github_token.get_secret_value() if settings.github_token else None
    key = ("token", settings.github_api_url, token, settings.write_interval_s)
    with _LOCK:
        if key not in _CLIENTS:
            _CLIENTS[key] = Github(auth=Auth.Token(token) if token else None, **common)
        return _CLIENTS[key]


def _observe(port: PyGithubPort, what: str) -> None:
    """Count the call and remember the rate-limit budget GitHub last reported (no extra request)."""
    metrics.API_CALLS.labels(what).inc()
    try:
        remaining = port.req.rate_limiting[0]
    except (AttributeError, IndexError, TypeError):
        return
    if isinstance(remaining, int) and remaining >= 0:
        metrics.RATE_REMAINING.set(remaining)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _wrap(what: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    def deco(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        def inner(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return fn(*args, **kwargs)
            except GithubException as err:
                msg = err.data.get("message") if isinstance(err.data, dict) else str(err.data)
                raise GitHubError(f"{what}: {err.status} {msg}", err.status) from err
            except github.BadAttributeException as err:  # malformed response
                raise GitHubError(f"{what}: malformed response ({err})") from err
            finally:
                if args and isinstance(args[0], PyGithubPort):
                    _observe(args[0], fn.__name__)
        inner.__name__ = fn.__name__
        return inner
    return deco


_SNAPSHOT_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $after: String, $tafter: String%(vars)s) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      number state isDraft title headRefOid baseRefOid baseRefName
      author { login }
      labels(first: 100) { nodes { name } }
      comments(first: %(page)d, after: $after) {
        nodes { databaseId body author { login } }
        pageInfo { hasNextPage endCursor }
      }
      reviewThreads(first: %(page)d, after: $tafter) {
        nodes { id isResolved path comments(first: 50) { nodes { fullDatabaseId body author { login } } } }
        pageInfo { hasNextPage endCursor }
      }
    }
%(objects)s
  }
}
"""
_BLOB_FIELDS = "... on Blob { oid text isBinary isTruncated byteSize }"
_CHECKS = ("... on Commit { checkSuites(first: 20) { nodes { checkRuns(first: 50) "
           "{ nodes { databaseId name status conclusion title summary } } } } }")


# Levels of nested Tree entries a listing reads: rules.inputs.LISTING_DEPTH.


def _listing(depth: int) -> str:
    """`... on Tree { entries { name path type mode object { …one level deeper… } } }`."""
    inner = f" object {{ {_listing(depth - 1)} }}" if depth > 1 else ""
    return f"... on Tree {{ entries {{ name path type mode{inner} }} }}"


def _mode(mode: object) -> str:
    """GitHub's decimal `mode` (33188) as git's octal string (`100644`)."""
    return f"{mode:06o}" if isinstance(mode, int) else str(mode or "")


def _walk_listing(node: dict[str, Any] | None, rev: str, path: str, snap: Snapshot, depth: int = LISTING_DEPTH) -> None:
    if not node or node.get("entries") is None:
        return
    snap.listed.add(f"{rev}:{path}")
    snap.modes[f"{rev}:{path}" if path else f"{rev}:"] = "040000"
    for e in node["entries"]:
        key = f"{rev}:{e['path']}"
        snap.modes[key] = _mode(e.get("mode"))
        if e.get("type") == "tree" and depth > 1:
            _walk_listing(e.get("object"), rev, e["path"], snap, depth - 1)


RESOLVE_THREAD = "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } } }"
VIEWER = "query { viewer { login } }"


def snapshot_document(owner: str, name: str, number: int, blobs: list[str], trees: list[str],
                      head_sha: str | None, probes: Sequence[str] = (),
                      listings: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
    """The one GraphQL query of a PR read: state, comments, threads, `blobs` and `trees` by alias
    (`rev:path` expressions; a tree's entries with their modes and blobs), the existence of `probes`
    files, `listings` (names and modes, LISTING_DEPTH levels of nested Tree entries, no text), and the
    check runs on `head_sha`.
    Every GraphQL document the bot sends comes from this function, `page_document`, RESOLVE_THREAD
    or VIEWER (validated against GitHub's schema in tests/bot/test_github_graphql_contract.py)."""
    variables: dict[str, Any] = {"owner": owner, "name": name, "number": number, "after": None, "tafter": None}
    decl, objects = [], []
    for i, expr in enumerate(blobs):
        decl.append(f", $b{i}: String!")
        variables[f"b{i}"] = expr
        objects.append(f"    b{i}: object(expression: $b{i}) {{ {_BLOB_FIELDS} }}")
    for i, expr in enumerate(trees):
        decl.append(f", $t{i}: String!")
        variables[f"t{i}"] = expr
        objects.append(f"    t{i}: object(expression: $t{i}) {{ ... on Tree {{ entries {{ name path type mode "
                       f"object {{ {_BLOB_FIELDS} }} }} }} }}")
    for i, expr in enumerate(listings):
        decl.append(f", $l{i}: String!")
        variables[f"l{i}"] = expr
        objects.append(f"    l{i}: object(expression: $l{i}) {{ {_listing(LISTING_DEPTH)} }}")
    for i, expr in enumerate(probes):  # whether a file exists: its oid, never its text
        decl.append(f", $p{i}: String!")
        variables[f"p{i}"] = expr
        objects.append(f"    p{i}: object(expression: $p{i}) {{ ... on Blob {{ oid }} }}")
    if head_sha:
        decl.append(", $head: GitObjectID!")
        variables.update(head=head_sha)
        objects.append(f"    checks: object(oid: $head) {{ {_CHECKS} }}")
    return _SNAPSHOT_QUERY % {"vars": "".join(decl), "objects": "\n".join(objects), "page": GRAPHQL_PAGE}, variables


def page_document() -> str:
    """The follow-up query that pages on through comments and threads (no blobs)."""
    return _SNAPSHOT_QUERY % {"vars": "", "objects": "", "page": GRAPHQL_PAGE}


def _login(actor: dict[str, Any] | None) -> str:
    return ((actor or {}).get("login") or "ghost").removesuffix("[bot]")


class PyGithubPort:
    """GitHubPort over PyGithub (REST + GraphQL through its requester)."""

    def __init__(self, gh: Github):
        self.gh = gh
        self.req = gh.requester

    # -- reads ---------------------------------------------------------------------------------
    @_wrap("comparing commits")
    def compare(self, repo: str, base: str, head: str,
                number: int) -> tuple[str, list[FileInfo], int | None, int | None]:
        cmp = self.gh.get_repo(repo).compare(base, head)
        listed = cmp.files
        files: Iterable[github.File.File] = listed
        if len(listed) >= COMPARE_FILE_LIMIT:
            files = PaginatedList(github.File.File, self.req, f"/repos/{repo}/pulls/{number}/files",
                                  {"per_page": 100})
        out = [FileInfo(f.filename, f.status, f.patch, f.previous_filename, f.sha, f.additions, f.deletions)
               for f in files]
        # The conventions a PR is judged by are those in force at its merge base, and what the tooling
        # at the base tip admits: the PR-run check runs the head merged into the tip (rules/conventions.py).
        return cmp.merge_base_commit.sha, out, _committed(cmp.merge_base_commit), _committed(cmp.base_commit)

    @_wrap("reading who the token acts as")
    def viewer_login(self) -> str:
        """The login of the token's user: `<app-slug>[bot]` for an App installation token (REST `GET /user`
        refuses those; GraphQL's `viewer` answers)."""
        _, data = self.req.graphql_query(VIEWER, {})
        login = ((data.get("data") or {}).get("viewer") or {}).get("login") or ""
        if not login:
            raise GitHubError("GitHub named no viewer for this token")
        return login

    @_wrap("reading the pull request")
    def get_pull(self, repo: str, number: int) -> PullInfo:
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/pulls/{number}")
        return self._pull(d)

    @staticmethod
    def _pull(d: dict[str, Any]) -> PullInfo:
        state = "merged" if d.get("merged") or d.get("merged_at") else d["state"]
        return PullInfo(d["number"], state, bool(d.get("draft")), d["head"]["sha"], d["base"]["sha"],
                        d["base"]["ref"], _login(d.get("user")), d.get("title") or "",
                        tuple(lb["name"] for lb in d.get("labels") or ()))

    @_wrap("reading the pull request state")
    def snapshot(self, repo: str, number: int, blobs: list[str], trees: list[str],
                 head_sha: str | None = None, probes: Sequence[str] = (), listings: Sequence[str] = ()) -> Snapshot:
        """One GraphQL read: PR state, comments, threads, check runs on `head_sha`, blobs, trees
        (their blobs' text and modes), whether each `probes` file exists (its oid only, never its
        text), and listings ("rev:dir": names and modes, LISTING_DEPTH levels of nested Tree
        entries, no text)."""
        owner, name = repo.split("/", 1)
        query, variables = snapshot_document(owner, name, number, blobs, trees, head_sha, probes, listings)
        _, data = self.req.graphql_query(query, variables)
        r = (data.get("data") or {}).get("repository") or {}
        pr = r.get("pullRequest")
        if pr is None:
            raise GitHubError(f"pull request {repo}#{number} not found", 404)
        pull = PullInfo(pr["number"], pr["state"].lower(), bool(pr["isDraft"]), pr["headRefOid"],
                        pr["baseRefOid"], pr["baseRefName"], _login(pr.get("author")), pr.get("title") or "",
                        tuple(n["name"] for n in pr["labels"]["nodes"]))
        snap = Snapshot(pull=pull)
        comments, threads = pr["comments"], pr["reviewThreads"]
        while True:
            snap.issue_comments += [CommentInfo(c["databaseId"], c["body"] or "", _login(c.get("author")))
                                    for c in comments["nodes"]]
            # `fullDatabaseId` is a BigInt, sent as a string (`databaseId` is deprecated: 32 bits).
            snap.threads += [ThreadInfo(t["id"], bool(t["isResolved"]), t.get("path"), tuple(
                CommentInfo(int(c["fullDatabaseId"]), c["body"] or "", _login(c.get("author")))
                for c in t["comments"]["nodes"])) for t in threads["nodes"]]
            more_c, more_t = comments["pageInfo"]["hasNextPage"], threads["pageInfo"]["hasNextPage"]
            if not (more_c or more_t):
                break
            # Page on with the small query (no blobs) until both lists are exhausted.
            page_vars = {"owner": owner, "name": name, "number": number,
                         "after": comments["pageInfo"]["endCursor"] if more_c else None,
                         "tafter": threads["pageInfo"]["endCursor"] if more_t else None}
            _, data = self.req.graphql_query(page_document(), page_vars)
            pr = data["data"]["repository"]["pullRequest"]
            comments = pr["comments"] if more_c else {"nodes": [], "pageInfo": {"hasNextPage": False}}
            threads = pr["reviewThreads"] if more_t else {"nodes": [], "pageInfo": {"hasNextPage": False}}
        for i, expr in enumerate(blobs):
            node = r.get(f"b{i}")
            snap.blobs[expr] = self._blob(node, expr, snap)
        for i, expr in enumerate(trees):
            node = r.get(f"t{i}")
            rev, _, _ = expr.partition(":")
            listed = []
            for e in (node or {}).get("entries") or ():
                if e.get("type") == "blob":
                    key = f"{rev}:{e['path']}"
                    snap.blobs[key] = self._blob(e.get("object"), key, snap)
                    snap.modes[key] = _mode(e.get("mode"))
                    listed.append(e["path"])
            if node is not None:
                snap.listed.add(expr)
            snap.trees[expr] = listed
        for i, expr in enumerate(listings):
            rev, _, path = expr.partition(":")
            _walk_listing(r.get(f"l{i}"), rev, path.strip("/"), snap)
        for i, expr in enumerate(probes):
            snap.present[expr] = bool((r.get(f"p{i}") or {}).get("oid"))
        for suite in (((r.get("checks") or {}).get("checkSuites") or {}).get("nodes") or ()):
            for cr in (suite.get("checkRuns") or {}).get("nodes") or ():
                snap.check_runs.append(CheckRunInfo(cr["databaseId"], cr["name"], cr["status"].lower(),
                                                    (cr.get("conclusion") or "").lower() or None,
                                                    cr.get("title"), cr.get("summary")))
        return snap

    @staticmethod
    def _blob(node: dict[str, Any] | None, key: str, snap: Snapshot) -> bytes | None:
        if not node or node.get("isBinary") or node.get("text") is None:
            return None
        if node.get("isTruncated"):
            snap.truncated[key] = node["oid"]
            return None
        text: str = node["text"]
        return text.encode("utf-8")

    @_wrap("reading a blob")
    def blob(self, repo: str, oid: str) -> bytes:
        """Exact bytes of a git blob of any size (GraphQL truncates large texts; this does not)."""
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/git/blobs/{oid}")
        raw = decode_content(d)
        if raw is None:
            raise GitHubError(f"blob {oid} came back without content")
        return raw

    @_wrap("reading the pull request's head")
    def pull_head(self, repo: str, number: int) -> HeadInfo:
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/pulls/{number}")
        head, base = d["head"], d["base"]
        head_repo = head.get("repo") or {}  # null when the fork was deleted
        full = head_repo.get("full_name") or ""
        return HeadInfo(full, head["ref"], head["sha"], full.lower() != (base["repo"]["full_name"] or "").lower(),
                        (head_repo.get("owner") or {}).get("type") or "User", bool(d.get("maintainer_can_modify")))

    @_wrap("reading a commit")
    def git_commit(self, repo: str, sha: str) -> GitCommitInfo:
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/git/commits/{sha}")
        return GitCommitInfo(d["sha"], d["tree"]["sha"], d.get("message") or "",
                             tuple(p["sha"] for p in d.get("parents") or ()))

    @_wrap("reading a tree")
    def tree_modes(self, repo: str, tree_sha: str, paths: list[str]) -> dict[str, str]:
        """The file mode of each of `paths` in the tree (absent paths are left out)."""
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/git/trees/{tree_sha}",
                                            parameters={"recursive": "1"})
        wanted = set(paths)
        return {e["path"]: e["mode"] for e in d.get("tree") or () if e.get("path") in wanted}

    @_wrap("writing a blob")
    def create_blob(self, repo: str, content: bytes) -> str:
        _, d = self.req.requestJsonAndCheck("POST", f"/repos/{repo}/git/blobs", input={
            "content": base64.b64encode(content).decode("ascii"), "encoding": "base64"})
        return cast(str, d["sha"])

    @_wrap("writing a tree")
    def create_tree(self, repo: str, base_tree: str, entries: list[tuple[str, str, str]]) -> str:
        tree = [{"path": path, "mode": mode, "type": "blob", "sha": sha} for path, mode, sha in entries]
        _, d = self.req.requestJsonAndCheck("POST", f"/repos/{repo}/git/trees",
                                            input={"base_tree": base_tree, "tree": tree})
        return cast(str, d["sha"])

    @_wrap("writing a commit")
    def create_commit(self, repo: str, message: str, tree: str, parents: list[str]) -> str:
        # No author or committer: GitHub records the App (its bot user) for both.
        _, d = self.req.requestJsonAndCheck("POST", f"/repos/{repo}/git/commits",
                                            input={"message": message, "tree": tree, "parents": parents})
        return cast(str, d["sha"])

    @_wrap("updating the branch")
    def update_ref(self, repo: str, branch: str, sha: str) -> None:
        """Move `branch` to `sha`, fast-forward only (GitHub answers 422 when the branch moved meanwhile)."""
        from urllib.parse import quote

        self.req.requestJsonAndCheck("PATCH", f"/repos/{repo}/git/refs/heads/{quote(branch, safe='/')}",
                                     input={"sha": sha, "force": False})

    @_wrap("reading a collaborator's permission")
    def permission(self, repo: str, user: str) -> str:
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/collaborators/{user}/permission")
        return d.get("role_name") or d.get("permission") or "none"

    @_wrap("listing workflow runs")
    def workflow_runs(self, repo: str, head_sha: str) -> list[dict[str, Any]]:
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/actions/runs",
                                            parameters={"head_sha": head_sha, "per_page": 100})
        return list(d.get("workflow_runs") or ())

    # -- writes --------------------------------------------------------------------------------
    @_wrap("posting the review")
    def create_review(self, repo: str, number: int, commit_sha: str, body: str, comments: list[dict[str, Any]]) -> int:
        payload = {"commit_id": commit_sha, "body": body, "event": "COMMENT", "comments": comments}
        _, d = self.req.requestJsonAndCheck("POST", f"/repos/{repo}/pulls/{number}/reviews", input=payload)
        return cast(int, d["id"])

    @_wrap("replying to a review comment")
    def reply_to_review_comment(self, repo: str, number: int, comment_id: int, body: str) -> int:
        _, d = self.req.requestJsonAndCheck("POST", f"/repos/{repo}/pulls/{number}/comments/{comment_id}/replies",
                                            input={"body": body})
        return cast(int, d["id"])

    @_wrap("editing a review comment")
    def edit_review_comment(self, repo: str, comment_id: int, body: str) -> None:
        self.req.requestJsonAndCheck("PATCH", f"/repos/{repo}/pulls/comments/{comment_id}", input={"body": body})

    @_wrap("resolving a review thread")
    def resolve_thread(self, thread_id: str) -> None:
        self.req.graphql_query(RESOLVE_THREAD, {"id": thread_id})

    @_wrap("posting a comment")
    def create_issue_comment(self, repo: str, number: int, body: str) -> int:
        _, d = self.req.requestJsonAndCheck("POST", f"/repos/{repo}/issues/{number}/comments", input={"body": body})
        return cast(int, d["id"])

    @_wrap("editing a comment")
    def edit_issue_comment(self, repo: str, comment_id: int, body: str) -> None:
        self.req.requestJsonAndCheck("PATCH", f"/repos/{repo}/issues/comments/{comment_id}", input={"body": body})

    @staticmethod
    def _check_state(conclusion: str | None) -> dict[str, str]:
        """`conclusion` None: the run is (again) in progress; otherwise it completes with it."""
        if conclusion is None:
            return {"status": "in_progress"}
        return {"status": "completed", "conclusion": conclusion}

    @_wrap("creating the check run")
    def create_check_run(self, repo: str, name: str, head_sha: str, conclusion: str | None,
                         output: dict[str, Any]) -> int:
        _, d = self.req.requestJsonAndCheck("POST", f"/repos/{repo}/check-runs", input={
            "name": name, "head_sha": head_sha, **self._check_state(conclusion), "output": output})
        return cast(int, d["id"])

    @_wrap("updating the check run")
    def update_check_run(self, repo: str, check_run_id: int, conclusion: str | None, output: dict[str, Any]) -> None:
        self.req.requestJsonAndCheck("PATCH", f"/repos/{repo}/check-runs/{check_run_id}", input={
            **self._check_state(conclusion), "output": output})

    @_wrap("listing check runs")
    def check_runs(self, repo: str, head_sha: str, name: str) -> list[CheckRunInfo]:
        """The latest check runs called `name` on `head_sha` (REST; the failure path has no snapshot)."""
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/commits/{head_sha}/check-runs",
                                            parameters={"check_name": name, "filter": "latest", "per_page": 100})
        return [CheckRunInfo(r["id"], r["name"], r["status"], r.get("conclusion"),
                             (r.get("output") or {}).get("title"), (r.get("output") or {}).get("summary"))
                for r in d.get("check_runs") or ()]

    @_wrap("listing the pull requests of a commit")
    def pulls_for_commit(self, repo: str, sha: str) -> list[PullInfo]:
        """Open PRs whose head is `sha` (a check-suite re-run of a fork PR names none in its payload)."""
        _, d = self.req.requestJsonAndCheck("GET", f"/repos/{repo}/commits/{sha}/pulls", parameters={"per_page": 100})
        return [self._pull(p) for p in d or () if p.get("state") == "open" and (p.get("head") or {}).get("sha") == sha]

    @_wrap("adding labels")
    def add_labels(self, repo: str, number: int, labels: list[str]) -> None:
        self.req.requestJsonAndCheck("POST", f"/repos/{repo}/issues/{number}/labels", input={"labels": labels})

    @_wrap("removing a label")
    def remove_label(self, repo: str, number: int, label: str) -> None:
        from urllib.parse import quote

        try:
            self.req.requestJsonAndCheck("DELETE", f"/repos/{repo}/issues/{number}/labels/{quote(label, safe='')}")
        except GithubException as err:
            if err.status != 404:  # already gone: the wanted state holds
                raise

    @_wrap("reacting to a comment")
    def add_reaction(self, repo: str, kind: str, comment_id: int, content: str) -> None:
        where = "issues/comments" if kind == "issue" else "pulls/comments"
        self.req.requestJsonAndCheck("POST", f"/repos/{repo}/{where}/{comment_id}/reactions",
                                     input={"content": content})


def decode_content(d: dict[str, Any]) -> bytes | None:
    """Bytes of a contents-API JSON object (None when GitHub sent no inline content)."""
    if d.get("encoding") == "base64" and d.get("content") is not None:
        return base64.b64decode(d["content"])
    return None


def create_app_from_manifest(api_url: str, code: str, timeout_s: float = 15.0) -> dict[str, Any]:
    """GitHub's `POST /app-manifests/{code}/conversions` (`recipe-review register`): the App created
    from a manifest, with its `id`, `slug`, `pem`, `webhook_secret`, `client_id` and `client_secret`.
    It takes no credentials (the one-hour, one-use code is the credential). Raises GitHubError."""
    from urllib.parse import quote

    gh = Github(base_url=api_url.rstrip("/"), timeout=int(max(1, timeout_s)), retry=None,
                seconds_between_requests=None, seconds_between_writes=None)
    try:
        _, data = gh.requester.requestJsonAndCheck("POST", f"/app-manifests/{quote(code, safe='')}/conversions")
    except GithubException as err:
        message = err.data.get("message") if isinstance(err.data, dict) else None
        raise GitHubError(f"{err.status} {message or err}", err.status) from err
    except OSError as err:  # connection refused, DNS, timeout
        raise GitHubError(f"cannot reach {api_url}: {err}") from err
    finally:
        gh.close()
    if not isinstance(data, dict) or "id" not in data or "pem" not in data:
        raise GitHubError("the answer has no App id and key")
    return data
