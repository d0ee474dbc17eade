"""Webhook payloads in GitHub's shape, built from the fake's current state.

Modelled on GitHub's published examples (octokit webhooks-examples): `pull_request.*` carries
`action`, `number`, `pull_request`, `repository`, `sender`, `installation`; `issue_comment.*`
carries `issue` (with `issue.pull_request` for PR comments) and `comment`;
`pull_request_review_comment.*` carries `comment` and `pull_request`; `check_run.*` carries
`check_run`, `check_suite.*` carries `check_suite` (with its `pull_requests`); a base change
(`pull_request.edited` after `POST /_fake/prs/N/base`, or with `from_base=`) carries
`changes.base.ref.from` / `changes.base.sha.from`. The body is what GitHub would POST; signing it
is the caller's business.
"""
from __future__ import annotations

import base64

from fakegithub.shapes import error
from fakegithub.store import ApiError, GitHubState

PR_ACTIONS = ("opened", "synchronize", "reopened", "closed", "edited", "labeled", "unlabeled",
              "ready_for_review", "converted_to_draft", "assigned", "unassigned", "review_requested",
              "review_request_removed", "locked", "unlocked")
COMMENT_ACTIONS = ("created", "edited", "deleted")
CHECK_RUN_ACTIONS = ("created", "completed", "rerequested", "requested_action")
CHECK_SUITE_ACTIONS = ("completed", "requested", "rerequested")


def _bad(message: str) -> ApiError:
    return ApiError(422, error(message, "", 422))


def build(store: GitHubState, event: str, params: dict) -> dict:  # noqa: C901 (one branch per event kind and its optional fields)
    """The payload of `event` (e.g. "pull_request", "issue_comment") for the query `params`:
    action, number, comment_id, label, sender, before, check_run_id, changes_body, from_base."""
    with store.lock:
        s = store.site
        action = params.get("action") or ""
        common = {"repository": s.repository(open_issues=store._open_count()),
                  "installation": {"id": s.installation_id, "node_id": base64.b64encode(
                      f"023:IntegrationInstallation{s.installation_id}".encode()).decode()}}
        if event == "pull_request":
            action = action or "opened"
            if action not in PR_ACTIONS:
                raise _bad(f"unknown pull_request action {action!r}")
            pr = store.pr(params.get("number") or 0)
            sender = params.get("sender") or pr["author"]
            out = {"action": action, "number": pr["number"], "pull_request": store.render_pr(pr)}
            if action == "synchronize":
                out["before"] = params.get("before") or pr.get("before") or pr["heads"][0]
                out["after"] = pr["head_sha"]
            if action in ("labeled", "unlabeled"):
                name = params.get("label")
                if not name:
                    raise _bad("labeled/unlabeled needs label=")
                out["label"] = s.label(store.repo_label(name))
            if action == "edited":
                if params.get("from_base") or pr.get("before_base"):
                    ref, sha = pr.get("before_base") or (params.get("from_base"), None)
                    ref = params.get("from_base") or ref
                    out["changes"] = {"base": {"ref": {"from": ref}, "sha": {"from": sha or pr["base_sha"]}}}
                else:
                    out["changes"] = {"title": {"from": params.get("from_title") or pr["title"]}}
            return {**out, **common, "sender": s.user(sender)}
        if event == "issue_comment":
            action = action or "created"
            if action not in COMMENT_ACTIONS:
                raise _bad(f"unknown issue_comment action {action!r}")
            comment = store.issue_comment(params.get("comment_id") or 0)
            pr = store.pr(comment["number"])
            out = {"action": action, "issue": store.render_issue(pr), "comment": store.render_issue_comment(comment)}
            if action == "edited":
                out["changes"] = {"body": {"from": params.get("changes_body") or ""}}
            return {**out, **common, "sender": s.user(params.get("sender") or comment["user"])}
        if event == "pull_request_review_comment":
            action = action or "created"
            if action not in COMMENT_ACTIONS:
                raise _bad(f"unknown pull_request_review_comment action {action!r}")
            comment = store.review_comment(params.get("comment_id") or 0)
            pr = store.pr(comment["number"])
            out = {"action": action, "comment": store.render_review_comment(comment),
                   "pull_request": store.render_pr(pr)}
            return {**out, **common, "sender": s.user(params.get("sender") or comment["user"])}
        if event == "check_run":
            action = action or "rerequested"
            if action not in CHECK_RUN_ACTIONS:
                raise _bad(f"unknown check_run action {action!r}")
            run = store.check_run(params.get("check_run_id") or 0)
            rendered = store.render_check_run(run)
            rendered["check_suite"] = {"id": run["suite_id"], "head_sha": run["head_sha"],
                                       "head_branch": store._branch_of(run["head_sha"]), "status": run["status"],
                                       "conclusion": run["conclusion"], "app": s.app(),
                                       "pull_requests": rendered["pull_requests"]}
            out = {"action": action, "check_run": rendered}
            return {**out, **common, "sender": s.user(params.get("sender") or s.owner)}
        if event == "check_suite":
            action = action or "rerequested"
            if action not in CHECK_SUITE_ACTIONS:
                raise _bad(f"unknown check_suite action {action!r}")
            run = store.check_run(params.get("check_run_id") or 0)
            rendered = store.render_check_run(run)
            suite = {"id": run["suite_id"], "node_id": base64.b64encode(f"CS{run['suite_id']}".encode()).decode(),
                     "head_sha": run["head_sha"], "head_branch": store._branch_of(run["head_sha"]),
                     "status": "queued" if action == "rerequested" else run["status"],
                     "conclusion": None if action == "rerequested" else run["conclusion"], "app": s.app(),
                     "pull_requests": rendered["pull_requests"], "before": None, "after": run["head_sha"],
                     "created_at": run["started_at"], "updated_at": run["completed_at"] or run["started_at"]}
            out = {"action": action, "check_suite": suite}
            return {**out, **common, "sender": s.user(params.get("sender") or s.owner)}
        raise ApiError(404, error(f"no webhook builder for event {event!r}", "", 404))
