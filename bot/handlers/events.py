"""Turn pull_request and check events into review jobs (validation of the payload happens here).

A review runs on a push or (re)opening, on a base change (`pull_request.edited` with
`changes.base`: the PR was retargeted, so its diff and its config changed), and on the check's
Re-run button (`check_run.rerequested` / `check_suite.rerequested`: a forced review of that head).
"""
from __future__ import annotations

import dataclasses
from typing import Any, cast

from bot.handlers.review import RETARGET_ACTION, REVIEW_ACTIONS
from bot.job_types import CommandJob, Job, RerequestJob, ReviewJob
from bot.render import CHECK_RUN_NAME
from bot.routing import Router
from bot.sweep import GATE_CHECK_NAME

router = Router()


class PayloadError(ValueError):
    """The payload lacks a field the bot needs; the webhook answers 400 and no handler runs."""


def _get(d: object, *path: str) -> Any:
    """The JSON value at `path` in the payload `d` (any JSON type), or PayloadError."""
    cur: Any = d
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            raise PayloadError(f"payload lacks {'.'.join(path)}")
        cur = cur[p]
    return cur


def base_job(payload: dict[str, Any], delivery_id: str) -> dict[str, Any]:
    """What every job of a PR event has (`bot.job_types.Job`'s fields), read from the payload."""
    number = _get(payload, "pull_request", "number") if "pull_request" in payload else _get(payload, "issue", "number")
    repo = _get(payload, "repository", "full_name")
    if not isinstance(number, int) or isinstance(number, bool) or not isinstance(repo, str) or "/" not in repo:
        raise PayloadError("payload has a malformed PR number or repository name")
    inst: Any = payload.get("installation") if isinstance(payload.get("installation"), dict) else {}
    return {"repo": repo, "number": number, "delivery_id": delivery_id,
            "installation_id": inst.get("id") if isinstance(inst.get("id"), int) else None}


@router.register("pull_request", *REVIEW_ACTIONS)
def on_pull_request(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    common = base_job(payload, delivery_id)
    head = _get(payload, "pull_request", "head", "sha")
    base = _get(payload, "pull_request", "base", "sha")
    if not (isinstance(head, str) and isinstance(base, str)):
        raise PayloadError("payload has malformed head/base SHAs")
    return [ReviewJob(head_sha=head, base_sha=base, action=payload["action"], **common)]


@router.register("pull_request", RETARGET_ACTION)
def on_edited(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    """A retargeted PR is a new review (base and diff changed); a title or body edit is not."""
    changes = payload.get("changes")
    if not isinstance(changes, dict) or not isinstance(changes.get("base"), dict):
        return []
    return on_pull_request(payload, delivery_id)


def _rerun_jobs(payload: dict[str, Any], delivery_id: str, head: object, prs: object, app: object) -> list[Job]:
    repo = _get(payload, "repository", "full_name")
    if not isinstance(head, str) or not isinstance(repo, str) or "/" not in repo:
        raise PayloadError("payload has a malformed head SHA or repository name")
    inst: Any = payload.get("installation") if isinstance(payload.get("installation"), dict) else {}
    app = app if isinstance(app, dict) else {}
    common: dict[str, Any] = {
        "repo": repo, "head_sha": head, "delivery_id": delivery_id, "force": True, "action": "synchronize",
        "installation_id": inst.get("id") if isinstance(inst.get("id"), int) else None,
        "app_id": app.get("id") if isinstance(app.get("id"), int) else None,
        "app_slug": app.get("slug") if isinstance(app.get("slug"), str) else None}
    jobs: list[Job] = []
    for pr in prs if isinstance(prs, list) else ():
        number = pr.get("number") if isinstance(pr, dict) else None
        base = ((pr.get("base") or {}).get("sha") if isinstance(pr, dict) else None)
        if isinstance(number, int) and not isinstance(number, bool) and isinstance(base, str):
            jobs.append(ReviewJob(number=number, base_sha=base, **common))
    if not jobs:  # a fork PR's suite lists no pull requests: look them up by head SHA
        jobs.append(RerequestJob(number=0, **common))
    return jobs


@router.register("check_run", "rerequested")
def on_check_run_rerun(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    """Re-run on one of our check runs (the verdict or the sweep gate): a full review of that head."""
    run = _get(payload, "check_run")
    if run.get("name") not in (CHECK_RUN_NAME, GATE_CHECK_NAME):
        return []
    return _rerun_jobs(payload, delivery_id, run.get("head_sha"), run.get("pull_requests"), run.get("app"))


@router.register("check_suite", "rerequested")
def on_check_suite_rerun(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    """"Re-run all checks" of our suite: a full review of that head."""
    suite = _get(payload, "check_suite")
    return _rerun_jobs(payload, delivery_id, suite.get("head_sha"), suite.get("pull_requests"), suite.get("app"))


@router.register("pull_request", "labeled", "unlabeled")
def on_label(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    """A label change re-evaluates labels and the sweep gate (a full review run writes only differences)."""
    jobs = on_pull_request(payload, delivery_id)
    label = (payload.get("label") or {}).get("name")
    if payload["action"] == "labeled" and isinstance(label, str):
        review = cast(ReviewJob, jobs[0])  # on_pull_request makes one review job
        jobs[0] = dataclasses.replace(review, added_label=label)
    return jobs


def _command_job(payload: dict[str, Any], delivery_id: str, kind: str, comment: dict[str, Any]) -> list[Job]:
    from bot.commands import parse

    body = comment.get("body")
    if not isinstance(body, str) or not parse(body):
        return []
    common = base_job(payload, delivery_id)
    user = _get(comment, "user", "login")
    cid = comment.get("id")
    if not isinstance(cid, int) or not isinstance(user, str):
        raise PayloadError("payload has a malformed comment id or author")
    head = (payload.get("pull_request") or {}).get("head") if isinstance(payload.get("pull_request"), dict) else None
    # the head the commenter saw (review comments and reviews carry it)
    seen = head["sha"] if isinstance(head, dict) and isinstance(head.get("sha"), str) else None
    return [CommandJob(comment_id=cid, comment_kind=kind, body=body, author=user, head_sha=seen, **common)]


@router.register("issue_comment", "created")
def on_issue_comment(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    issue = _get(payload, "issue")
    if not issue.get("pull_request"):
        return []  # a comment on a plain issue: not ours
    return _command_job(payload, delivery_id, "issue", _get(payload, "comment"))


@router.register("pull_request_review_comment", "created")
def on_review_comment(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    return _command_job(payload, delivery_id, "review", _get(payload, "comment"))


@router.register("pull_request_review", "submitted")
def on_review(payload: dict[str, Any], delivery_id: str) -> list[Job]:
    return _command_job(payload, delivery_id, "review_body", _get(payload, "review"))
