"""The command job: check who asked, react 👀, act, then 👍 or a reply that says why not.

Every reply carries `<!-- recipe-review:reply:<comment id>:<line> -->`, and the job reads the PR's
comments first, so a redelivered or retried command never answers twice. Reactions are idempotent
at GitHub (the same user and content is one reaction).
"""
from __future__ import annotations

import logging
import threading
import time

from bot import commands, render, sweep
from bot.github import GitHubPort, Snapshot
from bot.handlers.review import CONFIG_PATH, ignores_of, load_repo_config
from bot.reconcile import plan_labels
from rules.engine import doc_sections
from rules.registry import by_code

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
    def __init__(self, port: GitHubPort, job: dict, deps, snap: Snapshot):
        self.port, self.job, self.deps, self.snap = port, job, deps, snap
        self.repo, self.number = job["repo"], job["number"]
        self.me = deps.settings.bot_login.removesuffix("[bot]")

    def react(self, content: str) -> None:
        if self.job["comment_kind"] in ("issue", "review"):
            self.port.add_reaction(self.repo, self.job["comment_kind"], self.job["comment_id"], content)

    def reply(self, cmd: commands.Command, text: str) -> None:
        marker = reply_marker(self.job["comment_id"], cmd.line)
        if any(marker in c.body for c in self.snap.issue_comments if c.author == self.me):
            return  # answered already (a redelivery or a retried job)
        who = self.job["author"]
        self.port.create_issue_comment(self.repo, self.number, f"@{who} `/{cmd.name}`: {text}\n\n{marker}")


def handle(port: GitHubPort, job: dict, deps) -> list[str]:
    """Run every command of one comment; returns what was done (for logs and tests)."""
    cmds = commands.parse(job["body"])
    if not cmds:
        return []
    snap = port.snapshot(job["repo"], job["number"], [], [])
    run = CommandRun(port, job, deps, snap)
    done = []
    for cmd in cmds:
        done.append(_one(run, cmd))
    return done


def _one(run: CommandRun, cmd: commands.Command) -> str:
    if not cmd.known:
        hint = commands.suggestion_for(cmd.name)
        run.reply(cmd, (f"unknown command; did you mean `{hint}`? " if hint else "unknown command. ")
                  + "Comment `/help` for the list.")
        return f"unknown {cmd.name}"
    spec = cmd.spec
    if spec.min_role != "read":
        role = role_of(run.port, run.repo, run.job["author"])
        if commands.level(role) < commands.level(spec.min_role):
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


def _config(run: CommandRun):
    return load_repo_config(run.snap.blobs.get(f"{run.snap.pull.base_sha}:{CONFIG_PATH}"))[0]


def do_review(run: CommandRun, cmd) -> str | None:
    pull = run.snap.pull
    run.deps.submit({"kind": "review", "repo": run.repo, "number": run.number, "head_sha": pull.head_sha,
                     "base_sha": pull.base_sha, "action": "synchronize", "force": True,
                     "installation_id": run.job.get("installation_id"), "delivery_id": run.job.get("delivery_id")})
    return None


def do_sweep(run: CommandRun, cmd) -> str | None:
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
    if add:
        run.port.add_labels(run.repo, run.number, add)
    for lb in remove:
        run.port.remove_label(run.repo, run.number, lb)
    if add or remove:  # our own label events are ignored: re-evaluate the gate ourselves
        do_review(run, cmd)
    return None


def do_reuse(run: CommandRun, cmd) -> str | None:
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
            f"`{prim[0]}`) will be reused at merge, as @{run.job['author']} asked.\n\n{marker}"))
    return None


def do_ignore(run: CommandRun, cmd) -> str | None:
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
    who = run.job["author"]
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


def do_explain(run: CommandRun, cmd) -> str | None:
    if not cmd.args:
        return "say which rule: `/explain RR001`."
    rule = by_code(cmd.args[0])
    if rule is None:
        return f"no rule `{cmd.args[0]}`. The rules are listed in the README."
    s = doc_sections(rule)
    parts = [f"**`{rule.CODE}` {rule.NAME}** ({rule.SEVERITY.value}) — {s['summary']}"]
    for name in ("Why it matters", "Example", "Fix"):
        if s.get(name):
            parts.append(f"**{name}**\n\n{s[name]}")
    return "\n\n".join(parts)


def do_help(run: CommandRun, cmd) -> str | None:
    return "the commands:\n\n" + commands.help_text()


ACTIONS = {"review": do_review, "sweep": do_sweep, "reuse-sweep-run": do_reuse, "ignore": do_ignore,
           "explain": do_explain, "help": do_help}
