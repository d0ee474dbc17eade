"""The command job: check who asked, react 👀, act, then 👍 or a reply that says why not.

Every reply carries `<!-- recipe-review:reply:<comment id>:<line> -->`, and the job reads the PR's
comments first, so a redelivered or retried command never answers twice. Reactions are idempotent
at GitHub (the same user and content is one reaction).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from bot import commands, render, sweep
from bot.github import GitHubError, GitHubPort, Snapshot
from bot.handlers.review import CONFIG_PATH, ReviewJob, ReviewResult, fetch, ignores_of
from bot.job_types import CommandJob, Job
from bot.job_types import ReviewJob as QueuedReview
from bot.reconcile import plan_labels
from rules import load_repo_config
from rules.registry import by_code
from rules.runner import doc_sections

if TYPE_CHECKING:
    from bot.github import HeadInfo
    from bot.jobs import Deps
    from rules.config import EngineConfig
    from rules.fix import FixResult

log = logging.getLogger(__name__)

PERMISSION_TTL_S = 60.0
SWEEP_WORKFLOW = "run-sweep.yml"
_perm_cache: dict[tuple[str, str], tuple[float, str]] = {}
_perm_lock = threading.Lock()


def role_of(port: GitHubPort, repo: str, user: str) -> str:
    """The user's repository role, cached briefly (author_association misses private org members)."""
    key = (repo, user.lower())
    now = time.monotonic()
    with _perm_lock:
        hit = _perm_cache.get(key)
        if hit and now - hit[0] < PERMISSION_TTL_S:
            return hit[1]
    role = port.permission(repo, user)
    with _perm_lock:
        _perm_cache[key] = (now, role)
    return role


def reply_marker(comment_id: int, line: int) -> str:
    return f"<!-- {render.MARKER_PREFIX}:reply:{comment_id}:{line} -->"


class CommandRun:
    def __init__(self, port: GitHubPort, job: CommandJob, deps: Deps, snap: Snapshot):
        self.port, self.job, self.deps, self.snap = port, job, deps, snap
        self.repo, self.number = job.repo, job.number
        self.me = deps.settings.bot_login.removesuffix("[bot]")

    def submit(self, job: Job) -> None:
        """Queue a follow-up job (the queue's submit: every queue a command job runs from sets it)."""
        cast("Callable[[Job], None]", self.deps.submit)(job)

    def react(self, content: str) -> None:
        if self.job.comment_kind in ("issue", "review"):
            try:
                self.port.add_reaction(self.repo, self.job.comment_kind, self.job.comment_id, content)
            except GitHubError as err:
                if err.status != 404:
                    raise
                # The comment was deleted before the job ran: the command still runs, unacknowledged.
                log.info("comment %s is gone; not reacting %s", self.job.comment_id, content,
                         extra={"repo": self.repo, "pr": self.number})

    def reply(self, cmd: commands.Command, text: str) -> None:
        marker = reply_marker(self.job.comment_id, cmd.line)
        if any(marker in c.body for c in self.snap.issue_comments if c.author == self.me):
            return  # answered already (a redelivery or a retried job)
        who = self.job.author
        self.port.create_issue_comment(self.repo, self.number, f"@{who} `/{cmd.name}`: {text}\n\n{marker}")


def handle(port: GitHubPort, job: CommandJob, deps: Deps) -> list[str]:
    """Run every command of one comment; returns what was done (for logs and tests)."""
    cmds = commands.parse(job.body)
    if not cmds:
        return []
    snap = port.snapshot(job.repo, job.number, [], [])
    run = CommandRun(port, job, deps, snap)
    done = []
    for cmd in cmds:
        done.append(_one(run, cmd))
    return done


def _one(run: CommandRun, cmd: commands.Command) -> str:
    spec = cmd.spec
    if spec is None:  # not `cmd.known`
        hint = commands.suggestion_for(cmd.name)
        run.reply(cmd, (f"unknown command; did you mean `{hint}`? " if hint else "unknown command. ")
                  + "Comment `/help` for the list.")
        return f"unknown {cmd.name}"
    if spec.min_role != "read":
        role = role_of(run.port, run.repo, run.job.author)
        author = spec.author_may and run.job.author.lower() == run.snap.pull.author.lower()
        if commands.level(role) < commands.level(spec.min_role) and not author:
            run.reply(cmd, f"not run: it needs `{spec.min_role}` permission on this repository, and you have "
                           f"`{role}`.")
            return f"refused {spec.name}"
    pull = run.snap.pull
    if pull.state != "open" and spec.name not in ("help", "explain"):
        run.reply(cmd, f"not run: this PR is {pull.state}.")
        return f"closed {spec.name}"
    run.react("eyes")
    result = ACTIONS[spec.name](run, cmd)
    if result is None:
        run.react("+1")
    else:
        run.reply(cmd, result)
    return f"ran {spec.name}"


def _config(run: CommandRun) -> EngineConfig:
    """The repository config from the PR's base branch (its label names), read once per comment: the
    command snapshot does not know the base before it is taken, so commands that need the config pay
    one more read."""
    key = f"{run.snap.pull.base_sha}:{CONFIG_PATH}"
    if key not in run.snap.blobs:
        more = run.port.snapshot(run.repo, run.number, [key], [])
        run.snap.blobs[key] = more.blobs.get(key)
    return load_repo_config(run.snap.blobs.get(key))[0]


def do_review(run: CommandRun, cmd: commands.Command) -> str | None:
    pull = run.snap.pull
    run.submit(QueuedReview(repo=run.repo, number=run.number, head_sha=pull.head_sha, base_sha=pull.base_sha,
                            action="synchronize", force=True, installation_id=run.job.installation_id,
                            delivery_id=run.job.delivery_id))
    return None


# GitHub starts no workflow for events caused by a workflow's GITHUB_TOKEN, and the sweep workflow
# starts on `labeled`: labels set that way would request a sweep that never runs.
SWEEP_NEEDS_APP_TOKEN = ("not set: labels set with this workflow's `GITHUB_TOKEN` start no workflow (GitHub does "
                         "not run workflows for events that token causes), so the sweep would never start. Add the "
                         "labels by hand, or give the recipe-review action an App token (`app-token` input).")


def do_sweep(run: CommandRun, cmd: commands.Command) -> str | None:
    cfg = _config(run).repo.labels
    args = [a.lower() for a in cmd.args]
    current = list(run.snap.pull.labels)
    owned = sweep.owned(cfg)
    if args == ["off"]:
        wanted = [lb for lb in current if lb not in owned]
    else:
        if not args:
            return "say which sweep: `/sweep fail-fast|enabled|non-canary [all-evals] [evals-only] [agentx-fast]`."
        mode, mods = args[0], args[1:]
        primary = next((p for p in cfg.primary if p == mode or p == sweep.SWEEP_MODES.get(mode)), None)
        if primary is None:
            return f"unknown sweep mode `{mode}`; use one of " + ", ".join(f"`{m}`" for m in sweep.SWEEP_MODES) + "."
        bad = [m for m in mods if m not in cfg.modifiers]
        if bad:
            return "unknown modifier " + ", ".join(f"`{b}`" for b in bad) + "; use " + ", ".join(
                f"`{m}`" for m in cfg.modifiers) + "."
        wanted = [lb for lb in current if lb not in owned] + [primary] + list(dict.fromkeys(mods))
    add, remove = plan_labels(current, wanted, owned)
    if add and not getattr(run.deps, "labels_start_workflows", True):
        return SWEEP_NEEDS_APP_TOKEN  # removing labels (`/sweep off`) needs no workflow to start
    if add:
        run.port.add_labels(run.repo, run.number, add)
    for lb in remove:
        run.port.remove_label(run.repo, run.number, lb)
    if add or remove:  # our own label events are ignored: re-evaluate the gate ourselves
        do_review(run, cmd)
    return None


def do_reuse(run: CommandRun, cmd: commands.Command) -> str | None:
    cfg = _config(run).repo.labels
    labels = list(run.snap.pull.labels)
    prim = sweep.primaries(labels, cfg)
    if len(prim) != 1 or prim[0] not in cfg.reusable:
        return ("not recorded: reuse needs exactly one full-sweep primary label ("
                + ", ".join(f"`{p}`" for p in cfg.reusable) + f"); this PR has {prim or 'none'}.")
    blockers = [m for m in ("evals-only", "agentx-fast") if m in labels]
    if blockers:
        return "not recorded: runs with " + ", ".join(f"`{b}`" for b in blockers) + " cannot be reused."
    if cmd.name == "use" and not cmd.args:
        return "`/use` needs a run id: `/use <run_id>`."
    if cmd.args and not cmd.args[0].isdigit():
        return f"`{cmd.args[0]}` is not a run id."
    head = run.snap.pull.head_sha
    runs = [r for r in run.port.workflow_runs(run.repo, head)
            if (r.get("path") or "").endswith(SWEEP_WORKFLOW) and r.get("head_sha") == head]
    if cmd.args:
        rid = int(cmd.args[0])
        chosen = next((r for r in runs if r.get("id") == rid), None)
        if chosen is None:
            return f"not recorded: run {rid} is not a `{SWEEP_WORKFLOW}` run of the current head `{head[:7]}`."
    else:
        done = [r for r in runs if r.get("status") == "completed" and r.get("conclusion") == "success"]
        if not done:
            return f"not recorded: no successful `{SWEEP_WORKFLOW}` run on the current head `{head[:7]}`."
        chosen = max(done, key=lambda r: (r.get("run_number") or 0, r.get("id") or 0))
    if chosen.get("status") != "completed" or chosen.get("conclusion") != "success":
        return (f"not recorded: run {chosen['id']} is {chosen.get('status')}/{chosen.get('conclusion')}; "
                "only a successful full sweep can be reused.")
    marker = f"<!-- {render.MARKER_PREFIX}:reuse:{chosen['id']} -->"
    if not any(marker in c.body for c in run.snap.issue_comments if c.author == run.me):
        run.port.create_issue_comment(run.repo, run.number, (
            f"♻️ Sweep run [{chosen['id']}]({chosen.get('html_url', '')}) (success, head `{head[:7]}`, "
            f"`{prim[0]}`) will be reused at merge, as @{run.job.author} asked.\n\n{marker}"))
    return None


def do_ignore(run: CommandRun, cmd: commands.Command) -> str | None:
    """Record `/ignore CODE reason` (or its undoing) in the reply itself, then re-review the head.

    The reply's hidden marker is the state: every review reads the bot's replies back from the PR,
    so the decision survives pushes, restarts and workers without a database.
    """
    args = list(cmd.args)
    off = cmd.name == "unignore" or (len(args) == 2 and args[1].lower() == "off")
    if not args:
        return f"say which rule: `/{cmd.name} RR011" + ("`." if off else " <reason>`.")
    rule = by_code(args[0])
    if rule is None:
        return f"no rule `{render.safe_text(args[0], 40)}`. The rules are listed in the README."
    current = ignores_of(run.snap, run.deps.settings.bot_login).get(rule.CODE)
    who = run.job.author
    if off:
        if current is None:
            return f"`{rule.CODE}` is not ignored on this PR."
        text = (f"`{rule.CODE}` {rule.NAME} counts again on this PR (it was ignored by @{current.by}).\n\n"
                + render.ignore_marker(rule.CODE, False, who))
    else:
        reason = " ".join(args[1:])
        shown = f" Reason: {render.safe_text(reason)}." if reason else ""
        text = (f"`{rule.CODE}` {rule.NAME} is ignored on this PR: its findings are listed in the summary, "
                f"not counted by the `{render.CHECK_RUN_NAME}` check or the sweep gate, and stay ignored "
                f"after later pushes.{shown} `/ignore {rule.CODE} off` counts them again.\n\n"
                + render.ignore_marker(rule.CODE, True, who, " ".join(reason.split())[:300]))
    run.reply(cmd, text)  # first: the review below reads the state from this reply
    do_review(run, cmd)
    return None


FIX_SCOPES = ("changelog",)
ADMIN_ACCEPT = ("an admin must accept the App's new `contents: write` permission (organization or account "
                "settings → GitHub Apps → recipe-review → review the permission request)")


def _fix_trailer(run: CommandRun) -> str:
    return f"{render.FIX_TRAILER}: {run.job.comment_kind}:{run.job.comment_id}"


def do_fix(run: CommandRun, cmd: commands.Command) -> str | None:
    """`/fix` (`/fix changelog`): push one commit with the computed fix, or reply with the patch.

    Nothing is written unless every check passes: the head is the one the command was given on,
    the fix touches only files the PR changes, and GitHub lets the App write the head branch
    (a fork with maintainer edits, `contents: write` accepted, the branch not protected). The
    commit names the comment in a trailer, so a retried or redelivered command finds its own
    commit on the head and pushes nothing twice. Our push is an event we cause (ignored by the
    webhook), so the review of the new head is queued here.
    """
    from rules.fix import CHANGELOG_CODES, plan_fix

    if len(cmd.args) > 1 or (cmd.args and cmd.args[0].lower() not in FIX_SCOPES):
        return "say what to fix: `/fix` (everything with an automatic fix) or `/fix changelog`."
    pull = run.snap.pull
    expected = run.job.head_sha
    if expected and expected != pull.head_sha:
        _remember_head(run, pull.head_sha)  # the reply names the current head: a new `/fix` means that one
        return (f"not applied: the head moved from `{expected[:7]}` to `{pull.head_sha[:7]}` after the command. "
                "Comment `/fix` again to fix the current head.")
    head_commit = run.port.git_commit(run.repo, pull.head_sha)
    if _fix_trailer(run) in head_commit.message:
        return f"already applied in `{pull.head_sha[:7]}` (the head is the fix commit for this command)."
    got = fetch(run.port, ReviewJob(run.repo, run.number, pull.head_sha, pull.base_sha,
                                    installation_id=run.job.installation_id), drafts=True)
    if isinstance(got, ReviewResult):
        return f"not applied: {got.reason}."
    if not got.config.repo.fix.enabled:
        return f"`/fix` is switched off for this repository (`fix: {{enabled: false}}` in `{CONFIG_PATH}`)."
    only = set(CHANGELOG_CODES) if cmd.args else None
    try:
        result = plan_fix(got.changeset, got.config, only)
    except Exception:  # a bug in a repair must not turn into retries and silence
        log.exception("computing the fix failed", extra={"repo": run.repo, "pr": run.number})
        return "not applied: computing the fix failed (an internal error, logged); nothing was changed."
    refused = "".join(f"\n\nNot fixed automatically, `{path}`: {why}." for path, why in result.refused)
    if not result.files:
        left = f"\n\nStill needs a person:\n{render.fix_findings_list(result.remaining)}" if result.remaining else ""
        return f"nothing to fix automatically on `{pull.head_sha[:7]}`.{refused}{left}"
    changed = {f.path for f in got.files}
    outside = [f.path for f in result.files if f.path not in changed]
    if outside:
        return ("not applied: the fix would also change " + ", ".join(f"`{p}`" for p in outside)
                + ", which this PR does not change.")
    base_hint = f"origin/{pull.base_ref} --pr-number {run.number}"
    patch = render.patch_block(result.diff(), base_hint)
    what = _fix_what(result)
    head = run.port.pull_head(run.repo, run.number)
    if not head.fork and head.ref == pull.base_ref:
        return f"not applied: the PR's head branch is its base branch `{head.ref}`; `/fix` never writes a base branch."
    if head.sha != pull.head_sha:
        return (f"not applied: the head moved to `{head.sha[:7]}` while the fix was computed. "
                "Comment `/fix` again.")
    if head.fork and not (head.maintainer_can_modify and head.owner_type == "User"):
        why = ("its author has not allowed edits by maintainers" if head.owner_type == "User" else
               "it is owned by an organization, and GitHub lets only user-owned forks allow edits by maintainers")
        return (f"this PR's branch is in the fork `{head.repo}`, and {why}, so I cannot push to it. "
                f"Here is the fix to apply yourself:{what}{refused}\n\n{patch}")
    try:
        sha = _push(run, head, result, head_commit.tree)
    except GitHubError as err:
        reply = _push_refused(err, head)
        if reply is None:
            raise
        return f"{reply}{what}{refused}\n\n{patch}"
    _remember_head(run, sha)
    run.submit(QueuedReview(repo=run.repo, number=run.number, head_sha=sha, base_sha=pull.base_sha,
                            action="synchronize", force=True, installation_id=run.job.installation_id,
                            delivery_id=run.job.delivery_id))
    left = (f"\n\nStill needs a person:\n{render.fix_findings_list(result.remaining)}"
            if result.remaining else "\n\nNothing else is left for a person; the review of the new head follows.")
    return (f"pushed `{sha[:7]}` to `{head.repo}:{head.ref}`.{what}{refused}{_reuse_warning(run, pull.head_sha)}"
            f"{left}")


def _remember_head(run: CommandRun, sha: str) -> None:
    store = getattr(run.deps, "store", None)
    if store is not None:
        store.set_head(run.repo, run.number, sha)


def _fix_what(result: FixResult) -> str:
    lines = [f"- {c}" for f in result.files for c in f.changes]
    resolves = "; ".join(result.fixed_summary())
    return "\n\n" + "\n".join(lines) + (f"\n\nResolves: {resolves}" if resolves else "")


def _push(run: CommandRun, head: HeadInfo, result: FixResult, base_tree: str) -> str:
    """Blobs, one tree on top of the head's, one commit whose parent is the head, a fast-forward."""
    paths = [f.path for f in result.files]
    modes = run.port.tree_modes(head.repo, base_tree, paths)
    entries = [(f.path, modes.get(f.path, "100644"), run.port.create_blob(head.repo, f.new)) for f in result.files]
    tree = run.port.create_tree(head.repo, base_tree, entries)
    message = render.fix_commit_message(result.fixed_summary(), {f.path: f.changes for f in result.files},
                                        run.job.author, run.number,
                                        f"{run.job.comment_kind}:{run.job.comment_id}")
    sha = run.port.create_commit(head.repo, message, tree, [head.sha])
    run.port.update_ref(head.repo, head.ref, sha)
    return sha


def _push_refused(err: GitHubError, head: HeadInfo) -> str | None:
    """The reply for a write GitHub refused for good, or None when the error is worth a retry."""
    text = str(err).lower()
    if err.status == 422 and "fast forward" in text:
        return ("not applied: the branch moved while the fix was being pushed (the update was not a fast-forward). "
                "Comment `/fix` again to fix the new head.")
    if err.status == 422 and "protected" in text:
        return (f"not applied: the branch `{head.ref}` is protected against the App ({err}). "
                "Here is the fix to apply yourself:")
    if err.status in (403, 404) and head.fork:
        return (f"GitHub did not let the App write to the fork's branch `{head.repo}:{head.ref}` ({err}), although "
                "edits by maintainers are allowed. Here is the fix to apply yourself:")
    if err.status == 403:
        return f"not applied: the App may not write to this repository yet ({err}): {ADMIN_ACCEPT}. Here is the fix:"
    return None


def _reuse_warning(run: CommandRun, old_head: str) -> str:
    """A finished sweep of the old head cannot be reused any more: `/reuse-sweep-run` needs the current head."""
    runs = [r for r in run.port.workflow_runs(run.repo, old_head)
            if (r.get("path") or "").endswith(SWEEP_WORKFLOW) and r.get("head_sha") == old_head
            and r.get("status") == "completed" and r.get("conclusion") == "success"]
    if not runs:
        return ""
    ids = ", ".join(f"[{r['id']}]({r.get('html_url', '')})" for r in runs)
    return (f"\n\n⚠️ The finished sweep run(s) {ids} of the old head `{old_head[:7]}` can no longer be reused: "
            "`/reuse-sweep-run` needs a run of the current head.")


def do_explain(run: CommandRun, cmd: commands.Command) -> str | None:
    """The rule's summary and when it fires, with a link to its page (docs/rules/<CODE>.md; the
    config's `rule_help_uri` when set). Without a known URL the reply names the page's path."""
    from bot.docs import RULE_PAGE, rule_help_uri

    if not cmd.args:
        return "say which rule: `/explain RR001`."
    rule = by_code(cmd.args[0])
    if rule is None:
        return f"no rule `{cmd.args[0]}`. The rules are listed in the README."
    s = doc_sections(rule)
    parts = [f"**`{rule.CODE}` {rule.NAME}** ({rule.SEVERITY.value}) — {s['summary']}"]
    for name in ("When it fires", "Fix"):
        if s.get(name):
            parts.append(f"**{name}**\n\n{s[name]}")
    page = RULE_PAGE.format(code=rule.CODE)
    uri = rule_help_uri(rule, _config(run).repo.rule_help_uri)
    parts.append(f"The whole page (why it matters, examples, options): [{page}]({uri})" if uri
                 else f"The whole page (why it matters, examples, options) is `{page}` in recipe-review's repository.")
    return "\n\n".join(parts)


def do_help(run: CommandRun, cmd: commands.Command) -> str | None:
    return "the commands:\n\n" + commands.help_text()


ACTIONS: dict[str, Callable[[CommandRun, commands.Command], str | None]] = {
    "review": do_review, "sweep": do_sweep, "reuse-sweep-run": do_reuse, "ignore": do_ignore,
    "explain": do_explain, "help": do_help, "fix": do_fix}
