"""Turn pull_request events into review jobs (validation of the payload happens here)."""
from __future__ import annotations

from bot.handlers.review import REVIEW_ACTIONS
from bot.routing import Router

router = Router()


class PayloadError(ValueError):
    """The payload lacks a field the bot needs; the webhook answers 400 and no handler runs."""


def _get(d, *path):
    cur = d
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            raise PayloadError(f"payload lacks {'.'.join(path)}")
        cur = cur[p]
    return cur


def base_job(payload: dict, delivery_id: str, kind: str) -> dict:
    number = _get(payload, "pull_request", "number") if "pull_request" in payload else _get(payload, "issue", "number")
    repo = _get(payload, "repository", "full_name")
    if not isinstance(number, int) or isinstance(number, bool) or not isinstance(repo, str) or "/" not in repo:
        raise PayloadError("payload has a malformed PR number or repository name")
    inst = payload.get("installation") if isinstance(payload.get("installation"), dict) else {}
    return {"kind": kind, "repo": repo, "number": number, "delivery_id": delivery_id,
            "installation_id": inst.get("id") if isinstance(inst.get("id"), int) else None}


@router.register("pull_request", *REVIEW_ACTIONS)
def on_pull_request(payload: dict, delivery_id: str) -> list[dict]:
    job = base_job(payload, delivery_id, "review")
    head = _get(payload, "pull_request", "head", "sha")
    base = _get(payload, "pull_request", "base", "sha")
    if not (isinstance(head, str) and isinstance(base, str)):
        raise PayloadError("payload has malformed head/base SHAs")
    job.update(head_sha=head, base_sha=base, action=payload["action"])
    return [job]


@router.register("pull_request", "labeled", "unlabeled")
def on_label(payload: dict, delivery_id: str) -> list[dict]:
    """A label change re-evaluates labels and the sweep gate (a full review run writes only differences)."""
    jobs = on_pull_request(payload, delivery_id)
    label = (payload.get("label") or {}).get("name")
    if payload["action"] == "labeled" and isinstance(label, str):
        jobs[0]["added_label"] = label
    return jobs


def _command_job(payload: dict, delivery_id: str, kind: str, comment: dict) -> list[dict]:
    from bot.commands import parse

    body = comment.get("body")
    if not isinstance(body, str) or not parse(body):
        return []
    job = base_job(payload, delivery_id, "command")
    user = _get(comment, "user", "login")
    cid = comment.get("id")
    if not isinstance(cid, int) or not isinstance(user, str):
        raise PayloadError("payload has a malformed comment id or author")
    job.update(comment_id=cid, comment_kind=kind, body=body, author=user)
    head = (payload.get("pull_request") or {}).get("head") if isinstance(payload.get("pull_request"), dict) else None
    if isinstance(head, dict) and isinstance(head.get("sha"), str):
        job["head_sha"] = head["sha"]  # the head the commenter saw (review comments and reviews carry it)
    return [job]


@router.register("issue_comment", "created")
def on_issue_comment(payload: dict, delivery_id: str) -> list[dict]:
    issue = _get(payload, "issue")
    if not issue.get("pull_request"):
        return []  # a comment on a plain issue: not ours
    return _command_job(payload, delivery_id, "issue", _get(payload, "comment"))


@router.register("pull_request_review_comment", "created")
def on_review_comment(payload: dict, delivery_id: str) -> list[dict]:
    return _command_job(payload, delivery_id, "review", _get(payload, "comment"))


@router.register("pull_request_review", "submitted")
def on_review(payload: dict, delivery_id: str) -> list[dict]:
    return _command_job(payload, delivery_id, "review_body", _get(payload, "review"))
