"""The fake GitHub's state and its rules: pull requests backed by git, reviews with GitHub's
diff-position checks, comments, check runs, labels, reactions, workflow runs, permissions.

Every method that changes state takes the one (re-entrant) lock; callers hold it while
rendering. REST shapes are rendered from internal records on demand, so URLs follow the
server's base URL and derived fields (counts, outdated comments) are always current. Errors are
raised as `ApiError` carrying GitHub's status and error JSON.
"""
from __future__ import annotations

import itertools
import secrets
import threading
import time
from pathlib import Path

from fakegithub import hunks
from fakegithub.gitrepo import DiffFile, GitError, GitRepo
from fakegithub.shapes import REACTIONS, Site, b64_lines, error, node_id, now_iso

BODY_MAX_CHARS = 65_536  # issue / review / review-comment bodies
CHECK_TEXT_MAX_BYTES = 65_535  # check-run output.summary and output.text (GitHub counts bytes)
CHECK_ANNOTATIONS_PER_REQUEST = 50
CONTENT_INLINE_MAX = 1024 * 1024  # contents API: larger files come back with content "" / encoding "none"
ROLES = {  # role_name -> permission, as GitHub maps them
    "admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}
PERMISSION_ALIASES = {"push": "write", "pull": "read"}
CHECK_STATUSES = ("queued", "in_progress", "completed", "waiting", "requested", "pending")
CHECK_CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale",
                     "timed_out")


class ApiError(Exception):
    """An HTTP error in GitHub's shape."""

    def __init__(self, status: int, body: dict, headers: dict | None = None):
        super().__init__(body.get("message"))
        self.status, self.body, self.headers = status, body, headers or {}


def not_found(doc: str = "") -> ApiError:
    return ApiError(404, error("Not Found", doc, 404))


def validation_failed(resource: str, field: str, message: str, doc: str, code: str = "custom") -> ApiError:
    return ApiError(422, error("Validation Failed", doc, 422,
                               [{"resource": resource, "code": code, "field": field, "message": message}]))


def _sentence(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    if len(parts) == 2:
        return f"{parts[0]} and {parts[1]}"
    return ", ".join(parts[:-1]) + f", and {parts[-1]}"


class GitHubState:
    def __init__(self, repo_dir: Path, repo: str = "octo/bench", collaborators: dict | None = None,
                 default_branch: str = "main", app_slug: str = "recipe-review", app_id: int = 1,
                 installation_id: int = 1):
        owner, _, name = repo.partition("/")
        if not owner or not name:
            raise ValueError(f"repo must be OWNER/NAME, got {repo!r}")
        self.git = GitRepo(Path(repo_dir))
        self.lock = threading.RLock()
        self._ids = itertools.count(1001)
        self.site = Site(base="http://127.0.0.1", owner=owner, name=name, repo_id=500_001,
                         default_branch=default_branch, created_at=now_iso(), app_slug=app_slug,
                         app_id=app_id, installation_id=installation_id)
        self.collaborators = {k: PERMISSION_ALIASES.get(v, v) for k, v in (collaborators or {}).items()}
        for login, role in self.collaborators.items():
            if role not in ROLES:
                raise ValueError(f"unknown permission {role!r} for {login}")
        self.prs: dict[int, dict] = {}
        self.repo_labels: dict[str, dict] = {}  # lower-case name -> record
        self.issue_comments: list[dict] = []
        self.reviews: list[dict] = []
        self.review_comments: list[dict] = []
        self.threads: list[dict] = []
        self.check_runs: list[dict] = []
        self.check_suites: dict[str, int] = {}
        self.annotations: list[dict] = []
        self.reactions: list[dict] = []
        self.workflow_runs: list[dict] = []
        self.label_events: list[dict] = []
        self.tokens: dict[str, dict] = {}
        self.scoped_tokens: dict[str, dict] = {}  # token -> {"login", "permissions"} (see FakeGitHub.add_token)
        # Git data writes (fakegithub/git_data.py): branches the App may not update, and whether
        # GitHub lets the App write a user-owned fork's branch when maintainer edits are allowed.
        self.protected_branches: set[str] = set()
        self.fork_push = "maintainer"  # "maintainer": as documented; "never": every fork write is refused
        self.commits_created: list[dict] = []

    def next_id(self) -> int:
        with self.lock:
            return next(self._ids)

    # == pull requests =========================================================================
    def add_pr(self, number: int, base: str, head: str, author: str = "contributor", labels=(),
               draft: bool = False, title: str | None = None, state: str = "open", body: str = "",
               fork: str | None = None, maintainer_can_modify: bool = False, fork_owner_type: str = "User") -> dict:
        with self.lock:
            if number in self.prs:
                raise ValueError(f"PR #{number} already exists")
            base_sha = self._resolve(base, "base")
            head_sha = self._resolve(head, "head")
            if self.git.merge_base(base_sha, head_sha) is None:
                raise ValueError(f"{base} and {head} have no common history")
            t = now_iso()
            pr = {"number": number, "id": self.next_id(), "issue_id": self.next_id(),
                  "title": title or f"Update benchmark configs (#{number})", "body": body, "author": author,
                  "base_ref": base, "base_sha": base_sha, "head_sha": head_sha, "heads": [head_sha],
                  "head_ref": head if self.git.is_branch(head) else f"{author}/pr-{number}",
                  "labels": [], "draft": bool(draft), "state": "open", "merged": False,
                  "created_at": t, "updated_at": t, "closed_at": None, "merged_at": None, "locked": False,
                  # A PR from a fork: its head branch lives in `fork/<name>` (owned by a User or an
                  # Organization); `maintainer_can_modify` is the author's "allow edits by maintainers".
                  "fork": fork, "fork_owner_type": fork_owner_type if fork else None,
                  "maintainer_can_modify": bool(maintainer_can_modify) if fork else False}
            if fork and fork_owner_type not in ("User", "Organization"):
                raise ValueError(f"fork_owner_type must be User or Organization, not {fork_owner_type!r}")
            if fork and fork_owner_type == "Organization" and maintainer_can_modify:
                raise ValueError("an organization-owned fork cannot allow edits by maintainers (GitHub)")
            if fork and not self.git.is_branch(head):
                pr["head_ref"] = f"pr-{number}"
            self.prs[number] = pr
            for name in labels:
                self._attach_label(pr, name, author, record=False)
            if state != "open":
                self.set_state(number, state)
            return pr

    def _resolve(self, rev: str, what: str) -> str:
        try:
            sha = self.git.resolve(rev)
        except GitError as err:
            raise ValueError(str(err)) from err
        if not sha:
            raise ValueError(f"unknown {what} revision {rev!r}")
        return sha

    def move_head(self, number: int, rev: str) -> str:
        """A push to the PR branch: the head moves to `rev`; the base is re-read from its branch."""
        with self.lock:
            pr = self.pr(number)
            sha = self._resolve(rev, "head")
            pr["before"] = pr["head_sha"]
            pr["head_sha"] = sha
            if sha not in pr["heads"]:
                pr["heads"].append(sha)
            pr["base_sha"] = self._resolve(pr["base_ref"], "base")
            pr["updated_at"] = now_iso()
            return sha

    def retarget(self, number: int, base: str) -> dict:
        """The PR's base branch changes (GitHub's "Edit" → base): `before_base` keeps the old one."""
        with self.lock:
            pr = self.pr(number)
            sha = self._resolve(base, "base")
            if self.git.merge_base(sha, pr["head_sha"]) is None:
                raise ValueError(f"{base} and the head have no common history")
            pr["before_base"] = (pr["base_ref"], pr["base_sha"])
            pr["base_ref"], pr["base_sha"] = base, sha
            pr["updated_at"] = now_iso()
            return pr

    def set_state(self, number: int, state: str, merged: bool = False) -> dict:
        with self.lock:
            pr = self.pr(number)
            state = state.lower()
            if state == "merged":
                state, merged = "closed", True
            if state not in ("open", "closed"):
                raise ValueError(f"state must be open, closed or merged, not {state!r}")
            t = now_iso()
            pr["state"] = state
            pr["closed_at"] = t if state == "closed" else None
            pr["merged"] = bool(merged and state == "closed")
            pr["merged_at"] = t if pr["merged"] else None
            pr["updated_at"] = t
            return pr

    def set_draft(self, number: int, draft: bool) -> None:
        with self.lock:
            self.pr(number)["draft"] = bool(draft)

    def pr(self, number: int | str) -> dict:
        try:
            return self.prs[int(number)]
        except (KeyError, ValueError):
            raise not_found("pulls/pulls#get-a-pull-request") from None

    def pr_diff(self, pr: dict, head_sha: str | None = None) -> tuple[str, list[DiffFile]]:
        head = head_sha or pr["head_sha"]
        mb = self.git.merge_base(pr["base_sha"], head) or pr["base_sha"]
        return mb, self.git.diff(mb, head)

    def pr_file(self, pr: dict, path: str, head_sha: str | None = None) -> DiffFile | None:
        for f in self.pr_diff(pr, head_sha)[1]:
            if f.path == path:
                return f
        return None

    def association(self, login: str, pr: dict | None = None) -> str:
        if login == self.site.owner:
            return "OWNER"
        if self.collaborators.get(login) in ("admin", "maintain", "write", "triage"):
            return "COLLABORATOR"
        if pr is not None and login == pr["author"]:
            return "CONTRIBUTOR"
        return "NONE"

    def render_pr(self, pr: dict) -> dict:
        s = self.site
        n = pr["number"]
        mb, files = self.pr_diff(pr)
        commits = len(self.git.rev_list(mb, pr["head_sha"]))
        api, html = s.api, s.html

        def side(ref, sha, fork=None):
            if fork:
                from fakegithub.git_data import fork_repository

                return {"label": f"{fork}:{ref}", "ref": ref, "sha": sha, "user": s.user(fork),
                        "repo": fork_repository(s, fork, pr.get("fork_owner_type") or "User")}
            return {"label": f"{s.owner}:{ref}", "ref": ref, "sha": sha, "user": s.user(s.owner),
                    "repo": s.repository(open_issues=self._open_count())}

        return {
            "url": f"{api}/pulls/{n}", "id": pr["id"], "node_id": node_id("PR", pr["id"]),
            "html_url": f"{html}/pull/{n}", "diff_url": f"{html}/pull/{n}.diff",
            "patch_url": f"{html}/pull/{n}.patch", "issue_url": f"{api}/issues/{n}",
            "commits_url": f"{api}/pulls/{n}/commits", "review_comments_url": f"{api}/pulls/{n}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}", "comments_url": f"{api}/issues/{n}/comments",
            "statuses_url": f"{api}/statuses/{pr['head_sha']}", "number": n, "state": pr["state"],
            "locked": pr["locked"], "title": pr["title"], "user": s.user(pr["author"]), "body": pr["body"] or None,
            "labels": [s.label(self.repo_labels[x.lower()]) for x in pr["labels"]], "milestone": None,
            "active_lock_reason": None, "created_at": pr["created_at"], "updated_at": pr["updated_at"],
            "closed_at": pr["closed_at"], "merged_at": pr["merged_at"], "merge_commit_sha": None,
            "assignee": None, "assignees": [], "requested_reviewers": [], "requested_teams": [],
            "head": side(pr["head_ref"], pr["head_sha"], pr.get("fork")), "base": side(pr["base_ref"], pr["base_sha"]),
            "_links": {k: {"href": v} for k, v in {
                "self": f"{api}/pulls/{n}", "html": f"{html}/pull/{n}", "issue": f"{api}/issues/{n}",
                "comments": f"{api}/issues/{n}/comments", "review_comments": f"{api}/pulls/{n}/comments",
                "review_comment": f"{api}/pulls/comments{{/number}}", "commits": f"{api}/pulls/{n}/commits",
                "statuses": f"{api}/statuses/{pr['head_sha']}"}.items()},
            "author_association": self.association(pr["author"], pr), "auto_merge": None, "draft": pr["draft"],
            "merged": pr["merged"], "mergeable": None if pr["state"] == "closed" else True,
            "rebaseable": None if pr["state"] == "closed" else True,
            "mergeable_state": "unknown" if pr["state"] == "closed" else ("draft" if pr["draft"] else "clean"),
            "merged_by": None, "comments": sum(1 for c in self.issue_comments if c["number"] == n),
            "review_comments": sum(1 for c in self.review_comments if c["number"] == n),
            "maintainer_can_modify": bool(pr.get("maintainer_can_modify")), "commits": commits,
            "additions": sum(f.additions for f in files), "deletions": sum(f.deletions for f in files),
            "changed_files": len(files),
        }

    def pr_minimal(self, pr: dict) -> dict:
        s = self.site
        repo = {"id": s.repo_id, "url": s.api, "name": s.name}
        return {"id": pr["id"], "number": pr["number"], "url": f"{s.api}/pulls/{pr['number']}",
                "head": {"ref": pr["head_ref"], "sha": pr["head_sha"], "repo": repo},
                "base": {"ref": pr["base_ref"], "sha": pr["base_sha"], "repo": repo}}

    def render_issue(self, pr: dict) -> dict:
        s = self.site
        n = pr["number"]
        api, html = s.api, s.html
        return {
            "id": pr["issue_id"], "node_id": node_id("PR", pr["id"]), "url": f"{api}/issues/{n}",
            "repository_url": api, "labels_url": f"{api}/issues/{n}/labels{{/name}}",
            "comments_url": f"{api}/issues/{n}/comments", "events_url": f"{api}/issues/{n}/events",
            "html_url": f"{html}/pull/{n}", "number": n, "state": pr["state"],
            "state_reason": None, "title": pr["title"], "body": pr["body"] or None, "user": s.user(pr["author"]),
            "labels": [s.label(self.repo_labels[x.lower()]) for x in pr["labels"]], "assignee": None,
            "assignees": [], "milestone": None, "locked": pr["locked"], "active_lock_reason": None,
            "comments": sum(1 for c in self.issue_comments if c["number"] == n),
            "pull_request": {"url": f"{api}/pulls/{n}", "html_url": f"{html}/pull/{n}",
                             "diff_url": f"{html}/pull/{n}.diff", "patch_url": f"{html}/pull/{n}.patch",
                             "merged_at": pr["merged_at"]},
            "closed_at": pr["closed_at"], "created_at": pr["created_at"], "updated_at": pr["updated_at"],
            "draft": pr["draft"], "author_association": self.association(pr["author"], pr),
            "reactions": s.reactions_rollup(f"{api}/issues/{n}/reactions", []),
            "timeline_url": f"{api}/issues/{n}/timeline", "performed_via_github_app": None,
        }

    def _open_count(self) -> int:
        return sum(1 for p in self.prs.values() if p["state"] == "open")

    # == labels ================================================================================
    def repo_label(self, name: str, create: bool = True) -> dict | None:
        key = name.lower()
        if key not in self.repo_labels:
            if not create:
                return None
            self.repo_labels[key] = {"id": self.next_id(), "name": name, "color": "ededed", "description": None}
        return self.repo_labels[key]

    def _attach_label(self, pr: dict, name: str, actor: str, record: bool = True) -> None:
        lab = self.repo_label(name)
        if lab["name"] not in pr["labels"]:
            pr["labels"].append(lab["name"])
            if record:
                self.label_events.append({"number": pr["number"], "action": "labeled", "label": lab["name"],
                                          "actor": actor, "created_at": now_iso()})

    def _detach_label(self, pr: dict, name: str, actor: str) -> bool:
        for existing in pr["labels"]:
            if existing.lower() == name.lower():
                pr["labels"].remove(existing)
                self.label_events.append({"number": pr["number"], "action": "unlabeled", "label": existing,
                                          "actor": actor, "created_at": now_iso()})
                return True
        return False

    def add_labels(self, number: int, names: list[str], actor: str) -> list[dict]:
        with self.lock:
            pr = self.pr(number)
            for name in names:
                self._attach_label(pr, name, actor)
            pr["updated_at"] = now_iso()
            return self.labels_of(number)

    def set_labels(self, number: int, names: list[str], actor: str) -> list[dict]:
        with self.lock:
            pr = self.pr(number)
            wanted = {n.lower() for n in names}
            for existing in list(pr["labels"]):
                if existing.lower() not in wanted:
                    self._detach_label(pr, existing, actor)
            for name in names:
                self._attach_label(pr, name, actor)
            pr["updated_at"] = now_iso()
            return self.labels_of(number)

    def remove_label(self, number: int, name: str, actor: str) -> list[dict]:
        with self.lock:
            pr = self.pr(number)
            if not self._detach_label(pr, name, actor):
                raise ApiError(404, error("Label does not exist",
                                          "issues/labels#remove-a-label-from-an-issue", 404))
            pr["updated_at"] = now_iso()
            return self.labels_of(number)

    def labels_of(self, number: int) -> list[dict]:
        pr = self.pr(number)
        return [self.site.label(self.repo_labels[x.lower()]) for x in pr["labels"]]

    # == issue comments ========================================================================
    def _check_body(self, body, resource: str, doc: str, field: str = "body") -> str:
        if not isinstance(body, str):
            raise validation_failed(resource, field, f"{field} is missing", doc, code="missing_field")
        if len(body) > BODY_MAX_CHARS:
            raise validation_failed(resource, "data" if resource == "IssueComment" else field,
                                    f"Body is too long (maximum is {BODY_MAX_CHARS} characters)", doc,
                                    code="unprocessable" if resource == "IssueComment" else "custom")
        return body

    def create_issue_comment(self, number: int, body, actor: str) -> dict:
        with self.lock:
            pr = self.pr(number)
            body = self._check_body(body, "IssueComment", "issues/comments#create-an-issue-comment")
            t = now_iso()
            rec = {"id": self.next_id(), "number": pr["number"], "user": actor, "body": body,
                   "created_at": t, "updated_at": t}
            self.issue_comments.append(rec)
            return rec

    def issue_comment(self, comment_id) -> dict:
        for c in self.issue_comments:
            if str(c["id"]) == str(comment_id):
                return c
        raise not_found("issues/comments#get-an-issue-comment")

    def edit_issue_comment(self, comment_id, body) -> dict:
        with self.lock:
            c = self.issue_comment(comment_id)
            c["body"] = self._check_body(body, "IssueComment", "issues/comments#update-an-issue-comment")
            c["updated_at"] = now_iso()
            return c

    def delete_issue_comment(self, comment_id) -> None:
        with self.lock:
            c = self.issue_comment(comment_id)
            self.issue_comments.remove(c)
            self.reactions = [r for r in self.reactions
                              if not (r["subject"] == "issue_comment" and r["comment_id"] == c["id"])]

    def render_issue_comment(self, c: dict) -> dict:
        s = self.site
        url = f"{s.api}/issues/comments/{c['id']}"
        pr = self.prs.get(c["number"])
        return {
            "id": c["id"], "node_id": node_id("IC", c["id"]), "url": url,
            "html_url": f"{s.html}/pull/{c['number']}#issuecomment-{c['id']}", "body": c["body"],
            "user": s.user(c["user"]), "created_at": c["created_at"], "updated_at": c["updated_at"],
            "issue_url": f"{s.api}/issues/{c['number']}", "author_association": self.association(c["user"], pr),
            "performed_via_github_app": s.app() if c["user"] == s.bot_login else None,
            "reactions": s.reactions_rollup(f"{url}/reactions", self._reactions_of("issue_comment", c["id"])),
        }

    # == reviews ===============================================================================
    def create_review(self, number: int, payload: dict, actor: str) -> dict:
        doc = "pulls/reviews#create-a-review-for-a-pull-request"
        with self.lock:
            pr = self.pr(number)
            if not isinstance(payload, dict):
                raise ApiError(400, error("Problems parsing JSON", doc, 400))
            event = payload.get("event")
            if event not in (None, "", "COMMENT", "REQUEST_CHANGES", "APPROVE"):
                raise ApiError(422, error("Unprocessable Entity", doc, 422,
                                          [f"Event must be one of APPROVE, REQUEST_CHANGES, COMMENT ({event!r})"]))
            body = payload.get("body") or ""
            self._check_body(body, "PullRequestReview", doc)
            comments = payload.get("comments") or []
            if not isinstance(comments, list):
                raise validation_failed("PullRequestReview", "comments", "comments must be an array", doc,
                                        code="invalid")
            if event == "REQUEST_CHANGES" and not body:
                raise ApiError(422, error("Unprocessable Entity", doc, 422,
                                          ["Review body is required when requesting changes"]))
            if event == "COMMENT" and not body and not comments:
                raise ApiError(422, error("Unprocessable Entity", doc, 422,
                                          ["Review body is required when commenting without inline comments"]))
            commit_id = payload.get("commit_id") or pr["head_sha"]
            if commit_id not in pr["heads"]:
                raise ApiError(422, error("Unprocessable Entity", doc, 422,
                                          ["commit_id is not part of the pull request"]))
            placed, problems = [], []
            for c in comments:
                if isinstance(c, dict) and c.get("path") in getattr(self, "unresolvable_paths", ()):
                    # Injected on request (POST /_fake/faults): GitHub's answer when it cannot map a
                    # comment's path in its own diff, e.g. after a rename it resolved differently.
                    problems.append("Path could not be resolved")
                    continue
                spot, errs = self._place(pr, c, commit_id)
                if errs:
                    problems += [e for e in errs if e not in problems]
                else:
                    placed.append(spot)
            for c in comments:
                if isinstance(c, dict) and isinstance(c.get("body"), str) and len(c["body"]) > BODY_MAX_CHARS:
                    raise validation_failed("PullRequestReviewComment", "body",
                                            f"Body is too long (maximum is {BODY_MAX_CHARS} characters)", doc)
            if problems:
                raise ApiError(422, error("Unprocessable Entity", doc, 422, [_sentence(problems)]))
            state = {"COMMENT": "COMMENTED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
                     "APPROVE": "APPROVED"}.get(event or "", "PENDING")
            review = self._new_review(pr, actor, body, state, commit_id)
            for spot in placed:
                self._new_review_comment(pr, review, actor, spot)
            return review

    def _new_review(self, pr: dict, actor: str, body: str, state: str, commit_id: str) -> dict:
        rec = {"id": self.next_id(), "number": pr["number"], "user": actor, "body": body, "state": state,
               "commit_id": commit_id, "submitted_at": None if state == "PENDING" else now_iso()}
        self.reviews.append(rec)
        return rec

    def _place(self, pr: dict, c, commit_id: str) -> tuple[dict | None, list[str]]:
        """Where a review comment lands (path, line, side, range, position, diff_hunk) or why it cannot."""
        if not isinstance(c, dict) or not isinstance(c.get("path"), str) or not isinstance(c.get("body"), str):
            return None, ["Each comment needs a `path` and a `body`"]
        f = self.pr_file(pr, c["path"], commit_id)
        if f is None:
            return None, ["Path could not be resolved"]
        hs = hunks.parse(f.patch)
        line, position = c.get("line"), c.get("position")
        side = (c.get("side") or "RIGHT").upper()
        if side not in ("LEFT", "RIGHT"):
            return None, ["Side must be LEFT or RIGHT"]
        if line is None and position is not None:
            if not isinstance(position, int):
                return None, ["Position is invalid"]
            found = hunks.at_position(hs, position)
            if found is None:
                return None, ["Pull request review thread position is invalid",
                              "Pull request review thread diff hunk can't be blank"]
            _, row = found
            side = "LEFT" if row.kind == "-" else "RIGHT"
            line = row.old if side == "LEFT" else row.new
        if not isinstance(line, int) or isinstance(line, bool):
            return None, ["Pull request review thread line must be part of the diff",
                          "Pull request review thread diff hunk can't be blank"]
        end = hunks.locate(hs, line, side)
        if end is None:
            return None, ["Pull request review thread line must be part of the diff",
                          "Pull request review thread diff hunk can't be blank"]
        start_line = c.get("start_line")
        start_side = (c.get("start_side") or side).upper()
        if start_line is not None:
            if not isinstance(start_line, int) or isinstance(start_line, bool) or start_side not in ("LEFT", "RIGHT"):
                return None, ["Pull request review thread start line must be part of the diff"]
            start = hunks.locate(hs, start_line, start_side)
            if start is None:
                return None, ["Pull request review thread start line must be part of the diff"]
            if start[0] != end[0]:
                return None, ["Pull request review thread start line must be part of the same hunk as the line."]
            if start[1].position > end[1].position:
                return None, ["Pull request review thread start line must precede the end line"]
            if start_line == line and start_side == side:
                start_line = None
        hunk = hs[end[0]]
        return {"path": f.path, "line": line, "side": side,
                "start_line": start_line, "start_side": start_side if start_line is not None else None,
                "position": end[1].position, "diff_hunk": hunks.diff_hunk(f.patch, hunk, end[1]),
                "commit_id": commit_id, "body": c["body"]}, []

    def _new_review_comment(self, pr: dict, review: dict, actor: str, spot: dict,
                            in_reply_to: dict | None = None) -> dict:
        t = now_iso()
        rec = {"id": self.next_id(), "number": pr["number"], "review_id": review["id"], "user": actor,
               "created_at": t, "updated_at": t, "in_reply_to_id": in_reply_to["id"] if in_reply_to else None,
               **spot}
        self.review_comments.append(rec)
        if in_reply_to is None:
            self.threads.append({"id": self.next_id(), "number": pr["number"], "root_id": rec["id"],
                                 "resolved": False, "resolved_by": None})
        return rec

    def review(self, number: int, review_id) -> dict:
        for r in self.reviews:
            if r["number"] == number and str(r["id"]) == str(review_id):
                return r
        raise not_found("pulls/reviews#get-a-review-for-a-pull-request")

    def review_comment(self, comment_id, number: int | None = None) -> dict:
        for c in self.review_comments:
            if str(c["id"]) == str(comment_id) and (number is None or c["number"] == number):
                return c
        raise not_found("pulls/comments#get-a-review-comment-for-a-pull-request")

    def reply(self, number: int, comment_id, body, actor: str) -> dict:
        doc = "pulls/comments#create-a-reply-for-a-review-comment"
        with self.lock:
            pr = self.pr(number)
            parent = self.review_comment(comment_id, pr["number"])
            root = self._root(parent)
            body = self._check_body(body, "PullRequestReviewComment", doc)
            review = self._new_review(pr, actor, "", "COMMENTED", root["commit_id"])
            spot = {k: root[k] for k in ("path", "line", "side", "start_line", "start_side", "position",
                                         "diff_hunk", "commit_id")}
            return self._new_review_comment(pr, review, actor, {**spot, "body": body}, in_reply_to=root)

    def create_review_comment(self, number: int, payload: dict, actor: str) -> dict:
        """POST /pulls/{n}/comments: one comment as its own review (or a reply with in_reply_to)."""
        doc = "pulls/comments#create-a-review-comment-for-a-pull-request"
        with self.lock:
            pr = self.pr(number)
            if not isinstance(payload, dict):
                raise ApiError(400, error("Problems parsing JSON", doc, 400))
            if payload.get("in_reply_to") is not None:
                return self.reply(number, payload["in_reply_to"], payload.get("body"), actor)
            body = self._check_body(payload.get("body"), "PullRequestReviewComment", doc)
            commit_id = payload.get("commit_id")
            if not commit_id:
                raise validation_failed("PullRequestReviewComment", "commit_id", "commit_id is missing", doc,
                                        code="missing_field")
            if commit_id not in pr["heads"]:
                raise ApiError(422, error("Unprocessable Entity", doc, 422,
                                          ["commit_id is not part of the pull request"]))
            spot, errs = self._place(pr, {**payload, "body": body}, commit_id)
            if errs:
                raise ApiError(422, error("Unprocessable Entity", doc, 422, [_sentence(errs)]))
            review = self._new_review(pr, actor, "", "COMMENTED", commit_id)
            return self._new_review_comment(pr, review, actor, spot)

    def _root(self, c: dict) -> dict:
        while c.get("in_reply_to_id") is not None:
            c = self.review_comment(c["in_reply_to_id"])
        return c

    def thread_of(self, comment: dict) -> dict | None:
        root = self._root(comment)
        for t in self.threads:
            if t["root_id"] == root["id"]:
                return t
        return None

    def is_outdated(self, c: dict) -> bool:
        """Outdated once the head moved and the commented file changed or the line left the diff."""
        root = self._root(c)
        pr = self.prs[root["number"]]
        if root["commit_id"] == pr["head_sha"]:
            return False
        before = self.git.file_at(root["commit_id"], root["path"])
        after = self.git.file_at(pr["head_sha"], root["path"])
        if before is None or before != after:
            return True
        f = self.pr_file(pr, root["path"])
        if f is None:
            return True
        return root["line"] not in hunks.commentable(f.patch)[root["side"]]

    def render_review(self, r: dict) -> dict:
        s = self.site
        html = f"{s.html}/pull/{r['number']}#pullrequestreview-{r['id']}"
        out = {"id": r["id"], "node_id": node_id("PRR", r["id"]), "user": s.user(r["user"]), "body": r["body"],
               "state": r["state"], "html_url": html, "pull_request_url": f"{s.api}/pulls/{r['number']}",
               "_links": {"html": {"href": html}, "pull_request": {"href": f"{s.api}/pulls/{r['number']}"}},
               "commit_id": r["commit_id"], "author_association": self.association(r["user"], self.prs[r["number"]])}
        if r["submitted_at"]:
            out["submitted_at"] = r["submitted_at"]
        return out

    def render_review_comment(self, c: dict) -> dict:
        s = self.site
        root = self._root(c)
        outdated = self.is_outdated(c)
        pr = self.prs[c["number"]]
        url = f"{s.api}/pulls/comments/{c['id']}"
        html = f"{s.html}/pull/{c['number']}#discussion_r{c['id']}"
        out = {
            "url": url, "pull_request_review_id": c["review_id"], "id": c["id"],
            "node_id": node_id("PRRC", c["id"]), "diff_hunk": root["diff_hunk"], "path": root["path"],
            "position": None if outdated else root["position"], "original_position": root["position"],
            "commit_id": root["commit_id"] if outdated else pr["head_sha"],
            "original_commit_id": root["commit_id"], "user": s.user(c["user"]), "body": c["body"],
            "created_at": c["created_at"], "updated_at": c["updated_at"], "html_url": html,
            "pull_request_url": f"{s.api}/pulls/{c['number']}",
            "author_association": self.association(c["user"], pr),
            "_links": {"self": {"href": url}, "html": {"href": html},
                       "pull_request": {"href": f"{s.api}/pulls/{c['number']}"}},
            "start_line": None if outdated else root["start_line"], "original_start_line": root["start_line"],
            "start_side": root["start_side"], "line": None if outdated else root["line"],
            "original_line": root["line"], "side": root["side"], "subject_type": "line",
            "performed_via_github_app": s.app() if c["user"] == s.bot_login else None,
            "reactions": s.reactions_rollup(f"{url}/reactions", self._reactions_of("review_comment", c["id"])),
        }
        if c.get("in_reply_to_id") is not None:
            out["in_reply_to_id"] = c["in_reply_to_id"]
        return out

    def resolve_thread(self, thread_node_id: str, resolved: bool, actor: str) -> dict | None:
        with self.lock:
            for t in self.threads:
                if node_id("PRRT", t["id"]) == thread_node_id:
                    t["resolved"] = resolved
                    t["resolved_by"] = actor if resolved else None
                    return t
            return None

    # == check runs ============================================================================
    def _check_output(self, output, doc: str) -> tuple[dict | None, list[dict]]:
        if output is None:
            return None, []
        if not isinstance(output, dict):
            raise ApiError(422, error("Invalid request.\n\nFor 'properties/output', is not an object.", doc))
        missing = [k for k in ("title", "summary") if not isinstance(output.get(k), str)]
        if missing:
            names = ", ".join(f'"{k}"' for k in missing)
            raise ApiError(422, error(f"Invalid request.\n\n{names} {'was' if len(missing) == 1 else 'were'}"
                                      " not supplied.", doc))
        for key in ("summary", "text"):
            value = output.get(key)
            if isinstance(value, str) and len(value.encode("utf-8")) > CHECK_TEXT_MAX_BYTES:
                raise validation_failed("CheckRun", key, f"{key} exceeds a maximum bytesize of {CHECK_TEXT_MAX_BYTES}",
                                        doc)
        annotations = output.get("annotations") or []
        if not isinstance(annotations, list):
            raise ApiError(422, error("Invalid request.\n\nFor 'properties/annotations', is not an array.", doc))
        if len(annotations) > CHECK_ANNOTATIONS_PER_REQUEST:
            raise validation_failed("CheckRun", "annotations",
                                    f"annotations exceeds a maximum of {CHECK_ANNOTATIONS_PER_REQUEST} per request",
                                    doc)
        for a in annotations:
            need = ("path", "start_line", "end_line", "annotation_level", "message")
            if not isinstance(a, dict) or any(k not in a for k in need):
                raise ApiError(422, error("Invalid request.\n\nEach annotation needs path, start_line, end_line, "
                                          "annotation_level and message.", doc))
            if a["annotation_level"] not in ("notice", "warning", "failure"):
                raise ApiError(422, error(f"Invalid request.\n\nannotation_level {a['annotation_level']!r} is not "
                                          "one of notice, warning, failure.", doc))
        kept = {k: output.get(k) for k in ("title", "summary", "text")}
        return kept, annotations

    def _check_status(self, payload: dict, current: dict | None, doc: str) -> tuple[str, str | None]:
        status = payload.get("status") or (current["status"] if current else "queued")
        conclusion = payload["conclusion"] if payload.get("conclusion") is not None else (
            current["conclusion"] if current else None)
        if status not in CHECK_STATUSES:
            raise ApiError(422, error(f"Invalid request.\n\n{status!r} is not a valid status.", doc))
        if conclusion is not None and conclusion not in CHECK_CONCLUSIONS:
            raise ApiError(422, error(f"Invalid request.\n\n{conclusion!r} is not a valid conclusion.", doc))
        if payload.get("conclusion") is not None:
            status = "completed"  # GitHub: providing a conclusion sets the status to completed
        if status == "completed" and conclusion is None:
            raise ApiError(422, error("Invalid request.\n\n\"conclusion\" wasn't supplied.", doc))
        return status, conclusion

    def create_check_run(self, payload: dict, actor: str) -> dict:
        doc = "checks/runs#create-a-check-run"
        with self.lock:
            if not isinstance(payload, dict) or not payload.get("name") or not payload.get("head_sha"):
                raise ApiError(422, error("Invalid request.\n\n\"name\", \"head_sha\" are required.", doc))
            sha = str(payload["head_sha"])
            resolved = self.git.resolve(sha) if len(sha) >= 4 and not sha.startswith("-") else None
            if resolved is None or not resolved.startswith(sha.lower()):
                raise ApiError(422, error(f"No commit found for SHA: {sha}", doc))
            output, annotations = self._check_output(payload.get("output"), doc)
            status, conclusion = self._check_status(payload, None, doc)
            t = now_iso()
            rec = {"id": self.next_id(), "name": str(payload["name"]), "head_sha": resolved, "status": status,
                   "conclusion": conclusion, "external_id": payload.get("external_id") or "",
                   "details_url": payload.get("details_url"), "started_at": payload.get("started_at") or t,
                   "completed_at": (payload.get("completed_at") or t) if status == "completed" else None,
                   "output": output or {"title": None, "summary": None, "text": None},
                   "suite_id": self._suite(resolved), "actor": actor}
            self.check_runs.append(rec)
            self._add_annotations(rec, annotations)
            return rec

    def update_check_run(self, run_id, payload: dict) -> dict:
        doc = "checks/runs#update-a-check-run"
        with self.lock:
            rec = self.check_run(run_id)
            if not isinstance(payload, dict):
                raise ApiError(400, error("Problems parsing JSON", doc, 400))
            output, annotations = self._check_output(payload.get("output"), doc)
            status, conclusion = self._check_status(payload, rec, doc)
            if payload.get("name"):
                rec["name"] = str(payload["name"])
            for k in ("details_url", "external_id"):
                if k in payload:
                    rec[k] = payload[k]
            rec["status"], rec["conclusion"] = status, conclusion
            if status == "completed" and not rec["completed_at"]:
                rec["completed_at"] = payload.get("completed_at") or now_iso()
            if output is not None:
                rec["output"] = output
            self._add_annotations(rec, annotations)
            return rec

    def _add_annotations(self, rec: dict, annotations: list[dict]) -> None:
        for a in annotations:
            self.annotations.append({"check_run_id": rec["id"], **a})

    def _suite(self, sha: str) -> int:
        if sha not in self.check_suites:
            self.check_suites[sha] = self.next_id()
        return self.check_suites[sha]

    def check_run(self, run_id) -> dict:
        for r in self.check_runs:
            if str(r["id"]) == str(run_id):
                return r
        raise not_found("checks/runs#get-a-check-run")

    def render_check_run(self, r: dict) -> dict:
        s = self.site
        url = f"{s.api}/check-runs/{r['id']}"
        count = sum(1 for a in self.annotations if a["check_run_id"] == r["id"])
        return {
            "id": r["id"], "head_sha": r["head_sha"], "node_id": node_id("CR", r["id"]),
            "external_id": r["external_id"], "url": url, "html_url": f"{s.html}/runs/{r['id']}",
            "details_url": r["details_url"] or f"{s.html}/runs/{r['id']}", "status": r["status"],
            "conclusion": r["conclusion"], "started_at": r["started_at"], "completed_at": r["completed_at"],
            "output": {**r["output"], "annotations_count": count, "annotations_url": f"{url}/annotations"},
            "name": r["name"], "check_suite": {"id": r["suite_id"]}, "app": s.app(),
            "pull_requests": [self.pr_minimal(p) for p in self.prs.values()
                              if p["head_sha"] == r["head_sha"] and p["state"] == "open"],
        }

    # == reactions =============================================================================
    def _reactions_of(self, subject: str, comment_id: int) -> list[dict]:
        return [r for r in self.reactions if r["subject"] == subject and r["comment_id"] == comment_id]

    def react(self, subject: str, comment_id, content, actor: str) -> tuple[dict, bool]:
        """(reaction, created?) — the same user and content twice returns the existing one."""
        doc = ("reactions/reactions#create-reaction-for-an-issue-comment" if subject == "issue_comment"
               else "reactions/reactions#create-reaction-for-a-pull-request-review-comment")
        with self.lock:
            c = self.issue_comment(comment_id) if subject == "issue_comment" else self.review_comment(comment_id)
            if content not in REACTIONS:
                raise validation_failed("Reaction", "content", f"content {content!r} is not a valid reaction", doc,
                                        code="invalid")
            for r in self._reactions_of(subject, c["id"]):
                if r["user"] == actor and r["content"] == content:
                    return r, False
            rec = {"id": self.next_id(), "subject": subject, "comment_id": c["id"], "user": actor,
                   "content": content, "created_at": now_iso()}
            self.reactions.append(rec)
            return rec, True

    def render_reaction(self, r: dict) -> dict:
        return {"id": r["id"], "node_id": node_id("REA", r["id"]), "user": self.site.user(r["user"]),
                "content": r["content"], "created_at": r["created_at"]}

    # == permissions ===========================================================================
    def permission(self, login: str) -> dict:
        role = self.collaborators.get(login)
        if role is None:
            role = "admin" if login == self.site.owner else "read"
        perm = ROLES[role]
        user = self.site.user(login)
        levels = ["none", "read", "triage", "write", "maintain", "admin"]
        rank = levels.index(role)
        user["permissions"] = {"pull": rank >= 1, "triage": rank >= 2, "push": rank >= 3, "maintain": rank >= 4,
                               "admin": rank >= 5}
        user["role_name"] = role
        return {"permission": perm, "role_name": role, "user": user}

    # == workflow runs =========================================================================
    def add_workflow_run(self, spec: dict) -> dict:
        with self.lock:
            head_sha = spec.get("head_sha")
            if not head_sha:
                raise ValueError("a workflow run needs head_sha")
            prs = spec.get("pull_requests")
            if prs is None:
                prs = [p["number"] for p in self.prs.values() if p["head_sha"] == head_sha]
            t = now_iso()
            rid = int(spec.get("id") or self.next_id())
            rec = {"id": rid, "name": spec.get("name") or "benchmark", "head_sha": head_sha,
                   "head_branch": spec.get("head_branch") or self._branch_of(head_sha),
                   "status": spec.get("status") or "completed",
                   "conclusion": spec.get("conclusion", "success" if (spec.get("status") or "completed")
                                          == "completed" else None),
                   "event": spec.get("event") or "pull_request",
                   "path": spec.get("path") or ".github/workflows/benchmark.yml",
                   "pull_requests": [int(n) for n in prs], "run_number": int(spec.get("run_number") or
                                                                            len(self.workflow_runs) + 1),
                   "workflow_id": int(spec.get("workflow_id") or 7001), "actor": spec.get("actor") or "contributor",
                   "created_at": spec.get("created_at") or t, "updated_at": t}
            self.workflow_runs = [r for r in self.workflow_runs if r["id"] != rid] + [rec]
            return rec

    def _branch_of(self, sha: str) -> str | None:
        for p in self.prs.values():
            if p["head_sha"] == sha:
                return p["head_ref"]
        return None

    def workflow_run(self, run_id) -> dict:
        for r in self.workflow_runs:
            if str(r["id"]) == str(run_id):
                return r
        raise not_found("actions/workflow-runs#get-a-workflow-run")

    def render_workflow_run(self, r: dict) -> dict:
        s = self.site
        url = f"{s.api}/actions/runs/{r['id']}"
        try:
            c = self.git.commit(r["head_sha"]) if self.git.resolve(r["head_sha"]) else None
        except GitError:
            c = None
        minimal = {k: v for k, v in s.repository().items()
                   if k not in ("clone_url", "svn_url", "mirror_url", "homepage", "ssh_url", "git_url")}
        head_commit = {"id": r["head_sha"], "tree_id": c.tree if c else "0" * 40,
                       "message": c.message if c else "", "timestamp": c.committer_date if c else r["created_at"],
                       "author": {"name": c.author_name if c else "", "email": c.author_email if c else ""},
                       "committer": {"name": c.committer_name if c else "", "email": c.committer_email if c else ""}}
        actor = s.user(r["actor"])
        suite = self._suite(r["head_sha"])
        title = c.message.splitlines()[0] if c and c.message else r["name"]
        return {
            "id": r["id"], "name": r["name"], "node_id": node_id("WFR", r["id"]), "head_branch": r["head_branch"],
            "head_sha": r["head_sha"], "path": r["path"], "display_title": title, "run_number": r["run_number"],
            "run_attempt": 1, "event": r["event"], "status": r["status"], "conclusion": r["conclusion"],
            "workflow_id": r["workflow_id"], "check_suite_id": suite, "check_suite_node_id": node_id("CS", suite),
            "url": url, "html_url": f"{s.html}/actions/runs/{r['id']}",
            "pull_requests": [self.pr_minimal(self.prs[n]) for n in r["pull_requests"] if n in self.prs],
            "created_at": r["created_at"], "updated_at": r["updated_at"], "run_started_at": r["created_at"],
            "actor": actor, "triggering_actor": actor, "referenced_workflows": [],
            "jobs_url": f"{url}/jobs", "logs_url": f"{url}/logs", "check_suite_url": f"{s.api}/check-suites/{suite}",
            "artifacts_url": f"{url}/artifacts", "cancel_url": f"{url}/cancel", "rerun_url": f"{url}/rerun",
            "previous_attempt_url": None, "workflow_url": f"{s.api}/actions/workflows/{r['workflow_id']}",
            "head_commit": head_commit, "repository": minimal, "head_repository": minimal,
        }

    # == contents ==============================================================================
    def contents(self, path: str, ref: str | None) -> tuple[str, str]:
        """(git object type, sha) of `path` at `ref` for the contents API; 404 in GitHub's shape."""
        ref = ref or self.site.default_branch
        commit = self.git.resolve(ref) if not ref.startswith("-") else None
        if commit is None:
            raise ApiError(404, error(f"No commit found for the ref {ref}",
                                      "repos/contents#get-repository-content", 404))
        found = self.git.file_at(commit, path.strip("/"))
        if found is None:
            raise not_found("repos/contents#get-repository-content")
        return found[0], found[1]

    def content_file(self, path: str, sha: str, ref: str) -> dict:
        data = self.git.blob(sha) or b""
        big = len(data) > CONTENT_INLINE_MAX
        out = {"type": "file", "encoding": "none" if big else "base64", "size": len(data),
               "name": path.rsplit("/", 1)[-1], "path": path, "content": "" if big else b64_lines(data),
               "sha": sha, **self.site.content_links(path, sha, ref, "file")}
        return out

    def content_dir(self, path: str, tree_sha: str, ref: str) -> list[dict]:
        out = []
        for e in self.git.tree(tree_sha):
            p = f"{path.strip('/')}/{e.name}" if path.strip("/") else e.name
            kind = {"blob": "file", "tree": "dir", "commit": "submodule"}[e.type]
            out.append({"type": kind, "size": e.size or 0, "name": e.name, "path": p, "sha": e.sha,
                        **self.site.content_links(p, e.sha, ref, "dir" if kind == "dir" else "file")})
        return out

    def blob_json(self, sha: str) -> dict:
        data = self.git.blob(sha)
        if data is None:
            raise not_found("git/blobs#get-a-blob")
        return {"sha": sha, "node_id": node_id("B", sha[:12]), "size": len(data),
                "url": f"{self.site.api}/git/blobs/{sha}", "content": b64_lines(data), "encoding": "base64"}

    # == app tokens ============================================================================
    def issue_token(self) -> dict:
        with self.lock:
            token = "ghs_" + secrets.token_urlsafe(27)[:36]
            expires = now_iso(time.time() + 3600)
            self.tokens[token] = {"login": self.site.bot_login, "expires_at": expires}
            return {"token": token, "expires_at": expires, "permissions": self.site.app()["permissions"],
                    "repository_selection": "selected"}

    def actor_for(self, token: str | None) -> str:
        """Who a REST/GraphQL write is attributed to: a registered token's login (a workflow's
        `GITHUB_TOKEN` is `github-actions[bot]`), else the App's bot user."""
        scheme, _, value = (token or "").partition(" ")
        tok = self.scoped_tokens.get(value.strip()) if scheme.lower() in ("token", "bearer") else None
        return tok["login"] if tok else self.site.bot_login

    # == snapshot ==============================================================================
    def state(self) -> dict:
        with self.lock:
            return {
                "prs": {str(n): self.render_pr(p) for n, p in sorted(self.prs.items())},
                "reviews": [self.render_review(r) for r in self.reviews],
                "review_comments": [{"in_reply_to_id": None, **self.render_review_comment(c)}
                                    for c in self.review_comments],
                "review_threads": [self.render_thread_state(t) for t in self.threads],
                "issue_comments": [{**self.render_issue_comment(c), "number": c["number"]}
                                   for c in self.issue_comments],
                "check_runs": [self._check_run_state(r) for r in self.check_runs],
                "labels": {str(n): list(p["labels"]) for n, p in sorted(self.prs.items())},
                "label_events": list(self.label_events),
                "reactions": [{**self.render_reaction(r), "comment_id": r["comment_id"], "subject": r["subject"]}
                              for r in self.reactions],
                "workflow_runs": [self.render_workflow_run(r) for r in self.workflow_runs],
                "git_commits": [dict(c) for c in self.commits_created],
            }

    def _check_run_state(self, r: dict) -> dict:
        out = self.render_check_run(r)
        out["output"]["annotations"] = [a for a in self.annotations if a["check_run_id"] == r["id"]]
        return out

    def render_thread_state(self, t: dict) -> dict:
        root = self.review_comment(t["root_id"])
        return {"id": node_id("PRRT", t["id"]), "number": t["number"], "path": root["path"],
                "line": root["line"], "is_resolved": t["resolved"], "resolved_by": t["resolved_by"],
                "comment_ids": [c["id"] for c in self.review_comments if self._root(c)["id"] == root["id"]]}
