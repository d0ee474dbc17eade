"""Fake-only endpoints under `/_fake/` (never faulted, never rate limited, never recorded):
set the scene (PRs, pushes, user comments and labels, workflow runs, faults, rate limits),
read the state, and build webhook payloads.

    GET  /_fake/state                      everything, in GitHub's REST shapes, plus `calls`
    POST /_fake/prs                        {number, base, head, author, labels, draft, title, body,
                                            fork, maintainer_can_modify, fork_owner_type}
    POST /_fake/protect                    {"branch", "protected": true}   ref updates to it fail (422)
    POST /_fake/installation               {"permissions": {"contents": "read"}}   what the App has accepted
    POST /_fake/fork-push                  {"mode": "maintainer"|"never"}  may the App write fork branches
    POST /_fake/prs/<n>/head               {"rev"}                 a push; returns {"sha", "before"}
    POST /_fake/prs/<n>/state              {"state": open|closed|merged, "draft"?}
    POST /_fake/prs/<n>/labels             {"labels": [...], "user"} set labels as a user (label events)
    POST /_fake/workflow-runs              {id?, head_sha, status, conclusion, event, name, path, pull_requests}
    POST /_fake/comments                   {"kind": "issue"|"review", number, user, body,
                                            path, line, side, start_line, in_reply_to}
    POST /_fake/collaborators              {"login": "admin|maintain|write|triage|read|none", ...}
    POST /_fake/prs/<n>/base               {"base": branch}        retarget the PR (a base change)
    DELETE /_fake/comments/<id>            a user deletes an issue comment
    POST /_fake/tokens                     {"token", "login", "permissions": {"checks": "write", ...} | null}
    POST /_fake/reset-calls
    POST /_fake/faults                     {"rate", "seed", "unresolvable_paths",
                                            "fail": [{"method", "path" (prefix), "status", "times"}]}
    POST /_fake/rate-limit                 {"remaining": 0, "reset_in": 2}
    GET  /_fake/webhook/<event>?action=&number=&comment_id=&label=&sender=&before=&check_run_id=&from_base=
"""
from __future__ import annotations

from flask import Flask, request

from fakegithub import webhooks
from fakegithub.server import json_response
from fakegithub.shapes import error
from fakegithub.store import ROLES, ApiError


def _json(obj, status: int = 200):
    return json_response(obj, status)


def _payload() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, error("Problems parsing JSON: send a JSON object", "", 400))
    return data


def _bad(err: Exception) -> ApiError:
    return ApiError(422, error(str(err), "", 422))


def register(app: Flask, fake) -> None:  # noqa: C901 (one nested view per /_fake route)
    @app.get("/_fake/state")
    def fake_state():
        return _json(fake.state())

    @app.post("/_fake/prs")
    def fake_create_pr():
        p = _payload()
        try:
            pr = fake.add_pr(int(p["number"]), p.get("base") or fake.site.default_branch, p["head"],
                             author=p.get("author") or "contributor", labels=tuple(p.get("labels") or ()),
                             draft=bool(p.get("draft")), title=p.get("title"), state=p.get("state") or "open",
                             body=p.get("body") or "", fork=p.get("fork") or None,
                             maintainer_can_modify=bool(p.get("maintainer_can_modify")),
                             fork_owner_type=p.get("fork_owner_type") or "User")
        except (KeyError, ValueError, TypeError) as err:
            raise _bad(err) from None
        with fake.lock:
            return _json(fake.render_pr(pr), 201)

    @app.post("/_fake/prs/<int:number>/head")
    def fake_push(number):
        p = _payload()
        with fake.lock:
            before = fake.pr(number)["head_sha"]
            try:
                sha = fake.move_head(number, str(p.get("rev") or ""))
            except ValueError as err:
                raise _bad(err) from None
        return _json({"sha": sha, "before": before})

    @app.post("/_fake/prs/<int:number>/state")
    def fake_set_state(number):
        p = _payload()
        try:
            if "state" in p:
                fake.set_state(number, str(p["state"]), merged=bool(p.get("merged")))
            if "draft" in p:
                fake.set_draft(number, bool(p["draft"]))
        except ValueError as err:
            raise _bad(err) from None
        with fake.lock:
            return _json(fake.render_pr(fake.pr(number)))

    @app.post("/_fake/prs/<int:number>/base")
    def fake_retarget(number):
        p = _payload()
        try:
            pr = fake.retarget(number, str(p.get("base") or ""))
        except ValueError as err:
            raise _bad(err) from None
        with fake.lock:
            return _json(fake.render_pr(pr))

    @app.delete("/_fake/comments/<int:comment_id>")
    def fake_delete_comment(comment_id):
        fake.delete_issue_comment(comment_id)
        return _json({"deleted": comment_id})

    @app.post("/_fake/tokens")
    def fake_token():
        p = _payload()
        token, login, perms = p.get("token"), p.get("login"), p.get("permissions")
        if not isinstance(token, str) or not token or not isinstance(login, str) or not login:
            raise _bad(ValueError("token and login are required"))
        if perms is not None and (not isinstance(perms, dict) or any(v not in ("none", "read", "write")
                                                                      for v in perms.values())):
            raise _bad(ValueError("permissions: a mapping of name to none|read|write, or null"))
        fake.add_token(token, login, perms)
        return _json({"token": token, "login": login, "permissions": perms}, 201)

    @app.post("/_fake/prs/<int:number>/labels")
    def fake_user_labels(number):
        p = _payload()
        labels = p.get("labels")
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise _bad(ValueError("labels must be a list of names"))
        return _json(fake.set_labels(number, labels, str(p.get("user") or fake.pr(number)["author"])))

    @app.post("/_fake/workflow-runs")
    def fake_add_run():
        try:
            rec = fake.add_workflow_run(_payload())
        except (ValueError, TypeError) as err:
            raise _bad(err) from None
        with fake.lock:
            return _json(fake.render_workflow_run(rec), 201)

    @app.post("/_fake/comments")
    def fake_user_comment():
        p = _payload()
        user = str(p.get("user") or "contributor")
        kind = p.get("kind") or "issue"
        try:
            number = int(p["number"])
        except (KeyError, TypeError, ValueError):
            raise _bad(ValueError("number is required")) from None
        if kind == "issue":
            rec = fake.create_issue_comment(number, p.get("body"), user)
            with fake.lock:
                return _json(fake.render_issue_comment(rec), 201)
        if kind == "review":
            if p.get("in_reply_to") is not None:
                rec = fake.reply(number, p["in_reply_to"], p.get("body"), user)
            else:
                body = {k: p[k] for k in ("body", "path", "line", "side", "start_line", "start_side", "position")
                        if k in p}
                body["commit_id"] = p.get("commit_id") or fake.pr(number)["head_sha"]
                rec = fake.create_review_comment(number, body, user)
            with fake.lock:
                return _json(fake.render_review_comment(rec), 201)
        raise _bad(ValueError("kind must be issue or review"))

    @app.post("/_fake/collaborators")
    def fake_collaborators():
        p = _payload()
        for _login, role in p.items():
            if role not in ROLES:
                raise _bad(ValueError(f"unknown permission {role!r}"))
        with fake.lock:
            fake.collaborators.update({str(k): str(v) for k, v in p.items()})
            return _json(dict(fake.collaborators))

    @app.post("/_fake/protect")
    def fake_protect():
        p = _payload()
        branch = p.get("branch")
        if not isinstance(branch, str) or not branch:
            raise _bad(ValueError("branch is required"))
        with fake.lock:
            if p.get("protected", True):
                fake.protected_branches.add(branch)
            else:
                fake.protected_branches.discard(branch)
            return _json({"protected": sorted(fake.protected_branches)})

    @app.post("/_fake/installation")
    def fake_installation():
        p = _payload()
        perms = p.get("permissions")
        if not isinstance(perms, dict) or not all(v in ("read", "write", "none") for v in perms.values()):
            raise _bad(ValueError("permissions must map names to read, write or none"))
        with fake.lock:
            fake.site.permissions.update({str(k): str(v) for k, v in perms.items()})
            return _json({"permissions": dict(fake.site.permissions)})

    @app.post("/_fake/fork-push")
    def fake_fork_push():
        p = _payload()
        if p.get("mode") not in ("maintainer", "never"):
            raise _bad(ValueError("mode must be maintainer or never"))
        with fake.lock:
            fake.fork_push = p["mode"]
            return _json({"mode": fake.fork_push})

    @app.post("/_fake/reset-calls")
    def fake_reset_calls():
        fake.reset_calls()
        return _json({"calls": []})

    @app.post("/_fake/faults")
    def fake_faults():
        p = _payload()
        fake.set_faults(float(p.get("rate") or 0.0), p.get("seed"))
        if "fail" in p:
            rules = p.get("fail") or []
            if not isinstance(rules, list) or not all(isinstance(r, dict) and isinstance(r.get("path"), str)
                                                      for r in rules):
                raise _bad(ValueError("fail: a list of {method, path, status, times}"))
            with fake.lock:
                fake.fail_rules = [dict(r) for r in rules]
        if "unresolvable_paths" in p:
            with fake.lock:
                fake.unresolvable_paths = {str(x) for x in p.get("unresolvable_paths") or ()}
        return _json({"rate": fake.fault_rate, "unresolvable_paths": sorted(fake.unresolvable_paths),
                      "fail": fake.fail_rules})

    @app.post("/_fake/rate-limit")
    def fake_rate_limit():
        p = request.get_json(silent=True) or {}
        reset = fake.exhaust_rate_limit(float(p.get("reset_in", 2)), int(p.get("remaining", 0)))
        return _json({"remaining": int(p.get("remaining", 0)), "reset": reset})

    @app.get("/_fake/webhook/<event>")
    def fake_webhook(event):
        return _json(webhooks.build(fake, event, request.args.to_dict()))
