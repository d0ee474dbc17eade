"""REST endpoints of the fake GitHub (GitHub's paths, shapes, status codes and pagination)."""
from __future__ import annotations

import json
from urllib.parse import urlencode

from flask import Blueprint, Flask, Response, request

from fakegithub.server import json_response
from fakegithub.shapes import error
from fakegithub.store import ApiError, not_found

PR_FILES_MAX = 3000
COMPARE_FILES_MAX = 300
COMPARE_COMMITS_DEFAULT = 250


def _json(obj, status: int = 200, headers: dict | None = None) -> Response:
    return json_response(obj, status, headers)


def _body():
    """The JSON request body; GitHub answers 400 "Problems parsing JSON" to anything else."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, error("Problems parsing JSON", "", 400)) from None


def _int_arg(name: str, default: int) -> int:
    try:
        v = int(request.args.get(name, default))
    except (TypeError, ValueError):
        return default
    return v if v > 0 else default


def link_header(fake, page: int, last: int) -> dict:
    """GitHub's `Link` header for `page` of `last` (prev, next, last, first), keeping other arguments."""
    def url(p: int) -> str:
        args = [(k, v) for k, v in request.args.items(multi=True) if k != "page"] + [("page", str(p))]
        return f"<{fake.url}{request.path}?{urlencode(args)}>"

    links = []
    if page > 1:
        links.append(f'{url(min(page - 1, last))}; rel="prev"')
    if page < last:
        links += [f'{url(page + 1)}; rel="next"', f'{url(last)}; rel="last"']
    if page > 1:
        links.append(f'{url(1)}; rel="first"')
    return {"Link": ", ".join(links)} if links else {}


def paginate(items: list, fake, default: int = 30, maximum: int = 100, wrap=None) -> Response:
    """One page of `items` (`page`, `per_page` capped at `maximum`) with GitHub's `Link` header."""
    page = _int_arg("page", 1)
    per_page = min(_int_arg("per_page", default), maximum)
    last = max(1, -(-len(items) // per_page))
    chunk = items[(page - 1) * per_page: page * per_page]
    return _json(wrap(chunk) if wrap else chunk, 200, link_header(fake, page, last))


def _names(payload) -> list[str]:
    """Label names from any body GitHub accepts: ["a"], {"labels": ["a"]}, [{"name": "a"}]."""
    if isinstance(payload, dict):
        payload = payload.get("labels", [])
    if not isinstance(payload, list):
        raise ApiError(422, error("Invalid request.\n\nFor 'links/0/schema', is not an array.",
                                  "issues/labels#add-labels-to-an-issue", 422))
    out = []
    for item in payload:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not name.strip():
            raise ApiError(422, error("Validation Failed", "issues/labels#add-labels-to-an-issue", 422,
                                      [{"resource": "Label", "code": "invalid", "field": "name"}]))
        out.append(name)
    return out


def register(app: Flask, fake) -> None:  # noqa: C901 (one nested view per REST route)
    bp = Blueprint("repo", __name__, url_prefix="/repos/<owner>/<repo>")
    store = fake

    @bp.url_value_preprocessor
    def _repo(endpoint, values):
        owner, repo = values.pop("owner"), values.pop("repo")
        if owner.lower() != fake.site.owner.lower() or repo.lower() != fake.site.name.lower():
            raise not_found()

    def actor() -> str:
        return store.actor_for(request.headers.get("Authorization"))

    # -- repository ----------------------------------------------------------------------------
    @bp.get("")
    def get_repo():
        with store.lock:
            return _json(store.site.repository(open_issues=store._open_count()))

    # -- pulls ---------------------------------------------------------------------------------
    @bp.get("/pulls/<int:number>")
    def get_pull(number):
        with store.lock:
            return _json(store.render_pr(store.pr(number)))

    @bp.get("/pulls/<int:number>/files")
    def pull_files(number):
        with store.lock:
            pr = store.pr(number)
            _, files = store.pr_diff(pr)
            items = [store.site.diff_entry(f, pr["head_sha"]) for f in files[:PR_FILES_MAX]]
        return paginate(items, fake)

    @bp.get("/pulls/<int:number>/commits")
    def pull_commits(number):
        with store.lock:
            pr = store.pr(number)
            mb, _ = store.pr_diff(pr)
            items = [store.site.commit(c) for c in store.git.commits(store.git.rev_list(mb, pr["head_sha"]))]
        return paginate(items, fake, maximum=100)

    @bp.get("/compare/<path:basehead>")
    def compare(basehead):
        doc = "commits/commits#compare-two-commits"
        if "..." not in basehead:
            raise not_found(doc)
        base, _, head = basehead.partition("...")
        base, head = base.split(":", 1)[-1], head.split(":", 1)[-1]  # OWNER:ref forms
        with store.lock:
            try:
                b, h = store.git.resolve(base), store.git.resolve(head)
            except Exception:
                b = h = None
            if not b or not h:
                raise not_found(doc)
            mb = store.git.merge_base(b, h)
            if mb is None:
                raise ApiError(404, error(f"No common ancestor between {base} and {head}.", doc, 404))
            ahead = store.git.rev_list(mb, h)
            behind = store.git.rev_list(mb, b)
            status = ("identical" if not ahead and not behind else "ahead" if not behind
                      else "behind" if not ahead else "diverged")
            paged = "page" in request.args or "per_page" in request.args
            page = _int_arg("page", 1)
            per_page = min(_int_arg("per_page", COMPARE_COMMITS_DEFAULT), 1000) if paged else COMPARE_COMMITS_DEFAULT
            shown = ahead[(page - 1) * per_page: page * per_page] if paged else ahead[:COMPARE_COMMITS_DEFAULT]
            s = store.site
            out = {
                "url": f"{s.api}/compare/{basehead}", "html_url": f"{s.html}/compare/{basehead}",
                "permalink_url": f"{s.html}/compare/{s.owner}:{b[:7]}...{s.owner}:{h[:7]}",
                "diff_url": f"{s.html}/compare/{basehead}.diff", "patch_url": f"{s.html}/compare/{basehead}.patch",
                "base_commit": s.commit(store.git.commit(b)), "merge_base_commit": s.commit(store.git.commit(mb)),
                "status": status, "ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead),
                "commits": [s.commit(c) for c in store.git.commits(shown)],
            }
            if not paged or page == 1:
                out["files"] = [s.diff_entry(f, h) for f in store.git.diff(mb, h)[:COMPARE_FILES_MAX]]
        headers = link_header(fake, page, max(1, -(-len(ahead) // per_page))) if paged else {}
        return _json(out, 200, headers)

    # -- commits -------------------------------------------------------------------------------
    @bp.get("/commits/<path:ref>/check-runs")
    def commit_check_runs(ref):
        with store.lock:
            sha = store.git.resolve(ref) if not ref.startswith("-") else None
            if not sha:
                raise ApiError(422, error(f"No commit found for SHA: {ref}", "checks/runs#list-check-runs-for-a-git-"
                                          "reference", 422))
            runs = [r for r in store.check_runs if r["head_sha"] == sha]
            name = request.args.get("check_name")
            if name:
                runs = [r for r in runs if r["name"] == name]
            status = request.args.get("status")
            if status:
                runs = [r for r in runs if r["status"] == status]
            if request.args.get("filter", "latest") == "latest":
                latest: dict[str, dict] = {}
                for r in runs:
                    latest[r["name"]] = r  # later runs of a name supersede earlier ones
                runs = list(latest.values())
            items = [store.render_check_run(r) for r in reversed(runs)]
        return paginate(items, fake, wrap=lambda chunk: {"total_count": len(items), "check_runs": chunk})

    @bp.get("/commits/<path:ref>/pulls")
    def commit_pulls(ref):
        """PRs associated with a commit: the open PRs whose head it is (GitHub also lists merged PRs)."""
        with store.lock:
            sha = store.git.resolve(ref) if not ref.startswith("-") else None
            if not sha:
                raise ApiError(422, error(f"No commit found for SHA: {ref}",
                                          "commits/commits#list-pull-requests-associated-with-a-commit", 422))
            items = [store.render_pr(p) for p in store.prs.values() if p["head_sha"] == sha or
                     (p["merged"] and sha in p["heads"])]
        return paginate(items, fake)

    @bp.get("/commits/<path:ref>")
    def get_commit(ref):
        with store.lock:
            sha = store.git.resolve(ref) if not ref.startswith("-") else None
            if not sha:
                raise ApiError(422, error(f"No commit found for SHA: {ref}", "commits/commits#get-a-commit", 422))
            c = store.git.commit(sha)
            out = store.site.commit(c)
            files = store.git.diff(c.parents[0], sha) if c.parents else []
            out["files"] = [store.site.diff_entry(f, sha) for f in files]
            adds, dels = sum(f.additions for f in files), sum(f.deletions for f in files)
            out["stats"] = {"total": adds + dels, "additions": adds, "deletions": dels}
            return _json(out)

    # -- contents and blobs --------------------------------------------------------------------
    @bp.get("/contents", defaults={"path": ""})
    @bp.get("/contents/<path:path>")
    def contents(path):
        ref = request.args.get("ref") or fake.site.default_branch
        accept = request.headers.get("Accept", "")
        with store.lock:
            kind, sha = store.contents(path, ref)
            if kind == "tree":
                return _json(store.content_dir(path, sha, ref))
            if "vnd.github.raw" in accept or "vnd.github.v3.raw" in accept:
                data = store.git.blob(sha) or b""
                return Response(data, 200, content_type="application/vnd.github.raw; charset=utf-8"
                                if b"\0" not in data[:8000] else "application/octet-stream")
            return _json(store.content_file(path.strip("/"), sha, ref))

    @bp.get("/git/blobs/<sha>")
    def get_blob(sha):
        if "vnd.github.raw" in request.headers.get("Accept", ""):
            data = store.git.blob(sha)
            if data is None:
                raise not_found("git/blobs#get-a-blob")
            return Response(data, 200, content_type="application/vnd.github.raw")
        return _json(store.blob_json(sha))

    # -- issues and issue comments ---------------------------------------------------------------
    @bp.get("/issues/<int:number>")
    def get_issue(number):
        with store.lock:
            return _json(store.render_issue(store.pr(number)))

    @bp.get("/issues/<int:number>/comments")
    def list_issue_comments(number):
        with store.lock:
            store.pr(number)
            since = request.args.get("since")
            items = [store.render_issue_comment(c) for c in store.issue_comments
                     if c["number"] == number and (not since or c["updated_at"] >= since)]
        return paginate(items, fake)

    @bp.post("/issues/<int:number>/comments")
    def create_issue_comment(number):
        payload = _body()
        rec = store.create_issue_comment(number, payload.get("body") if isinstance(payload, dict) else None,
                                         actor())
        with store.lock:
            return _json(store.render_issue_comment(rec), 201,
                         {"Location": f"{fake.site.api}/issues/comments/{rec['id']}"})

    @bp.get("/issues/comments/<int:comment_id>")
    def get_issue_comment(comment_id):
        with store.lock:
            return _json(store.render_issue_comment(store.issue_comment(comment_id)))

    @bp.patch("/issues/comments/<int:comment_id>")
    def edit_issue_comment(comment_id):
        payload = _body()
        rec = store.edit_issue_comment(comment_id, payload.get("body") if isinstance(payload, dict) else None)
        with store.lock:
            return _json(store.render_issue_comment(rec))

    @bp.delete("/issues/comments/<int:comment_id>")
    def delete_issue_comment(comment_id):
        store.delete_issue_comment(comment_id)
        return Response(status=204)

    # -- reactions -----------------------------------------------------------------------------
    def _reactions(subject: str, comment_id: int):
        with store.lock:
            c = store.issue_comment(comment_id) if subject == "issue_comment" else store.review_comment(comment_id)
            if request.method == "GET":
                content = request.args.get("content")
                items = [store.render_reaction(r) for r in store._reactions_of(subject, c["id"])
                         if not content or r["content"] == content]
                return paginate(items, fake)
        payload = _body()
        rec, created = store.react(subject, comment_id, payload.get("content") if isinstance(payload, dict)
                                   else None, actor())
        with store.lock:
            return _json(store.render_reaction(rec), 201 if created else 200)

    @bp.route("/issues/comments/<int:comment_id>/reactions", methods=["GET", "POST"])
    def issue_comment_reactions(comment_id):
        return _reactions("issue_comment", comment_id)

    @bp.route("/pulls/comments/<int:comment_id>/reactions", methods=["GET", "POST"])
    def review_comment_reactions(comment_id):
        return _reactions("review_comment", comment_id)

    # -- labels --------------------------------------------------------------------------------
    @bp.get("/issues/<int:number>/labels")
    def list_labels(number):
        with store.lock:
            items = store.labels_of(number)
        return paginate(items, fake)

    @bp.post("/issues/<int:number>/labels")
    def add_labels(number):
        return _json(store.add_labels(number, _names(_body()), actor()))

    @bp.put("/issues/<int:number>/labels")
    def set_labels(number):
        return _json(store.set_labels(number, _names(_body()), actor()))

    @bp.delete("/issues/<int:number>/labels")
    def clear_labels(number):
        store.set_labels(number, [], actor())
        return Response(status=204)

    @bp.delete("/issues/<int:number>/labels/<path:name>")
    def remove_label(number, name):
        return _json(store.remove_label(number, name, actor()))

    @bp.get("/labels")
    def repo_labels():
        with store.lock:
            items = [store.site.label(x) for x in store.repo_labels.values()]
        return paginate(items, fake)

    @bp.post("/labels")
    def create_repo_label():
        payload = _body()
        doc = "issues/labels#create-a-label"
        name = payload.get("name") if isinstance(payload, dict) else None
        if not isinstance(name, str) or not name:
            raise ApiError(422, error("Validation Failed", doc, 422,
                                      [{"resource": "Label", "code": "missing_field", "field": "name"}]))
        with store.lock:
            if store.repo_label(name, create=False):
                raise ApiError(422, error("Validation Failed", doc, 422,
                                          [{"resource": "Label", "code": "already_exists", "field": "name"}]))
            lab = store.repo_label(name)
            lab["color"] = str(payload.get("color") or "ededed").lstrip("#")
            lab["description"] = payload.get("description")
            return _json(store.site.label(lab), 201)

    @bp.get("/labels/<path:name>")
    def get_repo_label(name):
        with store.lock:
            lab = store.repo_label(name, create=False)
            if lab is None:
                raise not_found("issues/labels#get-a-label")
            return _json(store.site.label(lab))

    # -- reviews and review comments -------------------------------------------------------------
    @bp.get("/pulls/<int:number>/reviews")
    def list_reviews(number):
        with store.lock:
            store.pr(number)
            items = [store.render_review(r) for r in store.reviews if r["number"] == number]
        return paginate(items, fake)

    @bp.post("/pulls/<int:number>/reviews")
    def create_review(number):
        rec = store.create_review(number, _body(), actor())
        with store.lock:
            return _json(store.render_review(rec), 200)

    @bp.get("/pulls/<int:number>/reviews/<int:review_id>")
    def get_review(number, review_id):
        with store.lock:
            return _json(store.render_review(store.review(number, review_id)))

    @bp.get("/pulls/<int:number>/reviews/<int:review_id>/comments")
    def review_comments_of_review(number, review_id):
        with store.lock:
            store.review(number, review_id)
            items = [store.render_review_comment(c) for c in store.review_comments if c["review_id"] == review_id]
        return paginate(items, fake)

    @bp.get("/pulls/<int:number>/comments")
    def list_review_comments(number):
        with store.lock:
            store.pr(number)
            items = [store.render_review_comment(c) for c in store.review_comments if c["number"] == number]
        return paginate(items, fake)

    @bp.post("/pulls/<int:number>/comments")
    def create_review_comment(number):
        rec = store.create_review_comment(number, _body(), actor())
        with store.lock:
            return _json(store.render_review_comment(rec), 201)

    @bp.post("/pulls/<int:number>/comments/<int:comment_id>/replies")
    def reply(number, comment_id):
        payload = _body()
        rec = store.reply(number, comment_id, payload.get("body") if isinstance(payload, dict) else None, actor())
        with store.lock:
            return _json(store.render_review_comment(rec), 201)

    @bp.get("/pulls/comments/<int:comment_id>")
    def get_review_comment(comment_id):
        with store.lock:
            return _json(store.render_review_comment(store.review_comment(comment_id)))

    @bp.patch("/pulls/comments/<int:comment_id>")
    def edit_review_comment(comment_id):
        payload = _body()
        with store.lock:
            c = store.review_comment(comment_id)
            c["body"] = store._check_body(payload.get("body") if isinstance(payload, dict) else None,
                                          "PullRequestReviewComment",
                                          "pulls/comments#update-a-review-comment-for-a-pull-request")
            return _json(store.render_review_comment(c))

    # -- check runs ----------------------------------------------------------------------------
    @bp.post("/check-runs")
    def create_check_run():
        rec = store.create_check_run(_body(), actor())
        with store.lock:
            return _json(store.render_check_run(rec), 201)

    @bp.get("/check-runs/<int:run_id>")
    def get_check_run(run_id):
        with store.lock:
            return _json(store.render_check_run(store.check_run(run_id)))

    @bp.patch("/check-runs/<int:run_id>")
    def update_check_run(run_id):
        rec = store.update_check_run(run_id, _body())
        with store.lock:
            return _json(store.render_check_run(rec))

    @bp.get("/check-runs/<int:run_id>/annotations")
    def check_run_annotations(run_id):
        with store.lock:
            store.check_run(run_id)
            items = [{k: v for k, v in a.items() if k != "check_run_id"} | {"blob_href": ""}
                     for a in store.annotations if a["check_run_id"] == run_id]
        return paginate(items, fake)

    # -- collaborators, actions, installation ----------------------------------------------------
    @bp.get("/collaborators/<user>/permission")
    def permission(user):
        with store.lock:
            return _json(store.permission(user))

    @bp.get("/actions/runs")
    def workflow_runs():
        with store.lock:
            runs = list(store.workflow_runs)
            for key in ("head_sha", "event", "status", "branch", "actor"):
                want = request.args.get(key)
                if not want:
                    continue
                if key == "status":
                    runs = [r for r in runs if want in (r["status"], r["conclusion"])]
                elif key == "branch":
                    runs = [r for r in runs if r["head_branch"] == want]
                else:
                    runs = [r for r in runs if r[key] == want]
            items = [store.render_workflow_run(r) for r in reversed(runs)]
        return paginate(items, fake, wrap=lambda chunk: {"total_count": len(items), "workflow_runs": chunk})

    @bp.get("/actions/runs/<int:run_id>")
    def workflow_run(run_id):
        with store.lock:
            return _json(store.render_workflow_run(store.workflow_run(run_id)))

    @bp.get("/installation")
    def repo_installation():
        return _json(store.site.installation())

    app.register_blueprint(bp)

    # -- GitHub App and account-level endpoints --------------------------------------------------
    @app.get("/app")
    def get_app():
        return _json(store.site.app())

    @app.get("/app/installations")
    def list_installations():
        return paginate([store.site.installation()], fake)

    @app.get("/app/installations/<int:installation_id>")
    def get_installation(installation_id):
        if installation_id != store.site.installation_id:
            raise not_found("apps/apps#get-an-installation-for-the-authenticated-app")
        return _json(store.site.installation())

    @app.post("/app/installations/<int:installation_id>/access_tokens")
    def access_token(installation_id):
        if installation_id != store.site.installation_id:
            raise not_found("apps/apps#create-an-installation-access-token-for-an-app")
        return _json(store.issue_token(), 201)

    @app.get("/rate_limit")
    def rate_limit():
        resources = {name: fake.rate_status(name) for name in ("core", "graphql", "search", "integration_manifest")}
        return _json({"resources": resources, "rate": resources["core"]})

    @app.get("/users/<login>")
    def get_user(login):
        return _json(store.site.user(login))
