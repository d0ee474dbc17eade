"""`recipe-review action`: the bot as one GitHub Actions step, without a webhook server.

It reads the event the way Actions hands it over — `GITHUB_EVENT_NAME` and `GITHUB_EVENT_PATH`
(the webhook payload, as JSON) — authenticates with `GITHUB_TOKEN` (the workflow's token, or an App
installation token when the `app-token` input is set) against `GITHUB_API_URL`, and does exactly
what the App does for that event through the same router and handlers: one review with inline
comments, the summary edited in place, the `recipe-review` check run, labels, the sweep gate and
the commands. Jobs run in this process, one after another (a `/review` or `/sweep` queues the
review it asks for). It never checks out or runs the PR's code: everything is read through the
API, so `pull_request_target` (which has a write token on fork PRs) is safe.

Inputs (set by action.yml from the step's `with:`; the flags override them): `INPUT_CONFIG` (the
config file, read from the PR's base), `INPUT_FAIL_ON` (`blocking`: exit 1 while a blocking finding
remains; `never`), `INPUT_DRY_RUN` (compute and report, write nothing), `INPUT_APP_TOKEN` (an App
installation token: labels it sets start workflows, so `/sweep` works), `INPUT_BOT_LOGIN`.

What it writes besides the App's output: the review's summary in the job summary
(`GITHUB_STEP_SUMMARY`), `blocking` / `nits` / `result` in `GITHUB_OUTPUT`, and — when the token may
not write (a fork PR's read-only token under `pull_request`) — every finding as a workflow
annotation instead.

Exit status: 1 only for blocking findings under `fail-on: blocking` (the author's to fix, shown as
review comments or, when nothing could be written, as annotations); 2 for an invalid input (the
workflow author's to fix); 0 otherwise. No reason the PR author cannot fix turns the step red: no
event file, an event this action does not handle, a token without `checks: write` or without write
access at all — each is said in one clear log line and the step goes on with what it can do.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from bot import output
from bot.job_types import Job

if TYPE_CHECKING:
    from bot.github import GitHubPort

log = logging.getLogger(__name__)

ACTIONS_BOT = "github-actions[bot]"  # who a workflow's GITHUB_TOKEN acts as
EVENT_ALIASES = {"pull_request_target": "pull_request"}  # same payload; runs in the base's context
MAX_JOBS = 20  # one event → a handful of jobs; more means a loop, not work
FAIL_ON = ("blocking", "never")
EXIT_OK, EXIT_BLOCKING, EXIT_USAGE = 0, 1, 2
READ_ONLY_HINT = ("the token may read this repository but not write to it — a fork PR's `GITHUB_TOKEN` is "
                  "read-only under `pull_request`; run the action on `pull_request_target` (safe: it never "
                  "checks out the PR) or give it an App token. The findings are below and in the job summary.")


@dataclass
class Inputs:
    config: str = ".github/recipe-review.yml"
    fail_on: str = "blocking"
    dry_run: bool = False
    app_token: str = ""
    bot_login: str = ""


@dataclass
class Result:
    exit_code: int = EXIT_OK
    lines: list[str] = field(default_factory=list)  # the job summary, Markdown
    blocking: int = 0
    nits: int = 0
    result: str = "nothing-to-do"  # reviewed | commands | ignored | nothing-to-do | read-only | error


def say(message: str, level: str = "notice") -> None:
    """One clear line in the workflow log (a workflow command, so it is also shown on the run page)."""
    text = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    sys.stdout.write(f"::{level}::recipe-review: {text}\n")
    sys.stdout.flush()


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def inputs_from(args: argparse.Namespace, env: Mapping[str, str]) -> Inputs:
    def pick(flag: str | None, name: str, default: str) -> str:
        return flag if flag is not None else (env.get(f"INPUT_{name}") or default)

    return Inputs(config=pick(args.config, "CONFIG", Inputs.config).strip() or Inputs.config,
                  fail_on=pick(args.fail_on, "FAIL_ON", Inputs.fail_on).strip().lower(),
                  dry_run=args.dry_run or _truthy(env.get("INPUT_DRY_RUN")),
                  app_token=(env.get("INPUT_APP_TOKEN") or "").strip(),
                  bot_login=pick(args.bot_login, "BOT_LOGIN", "").strip())


def read_event(env: Mapping[str, str]) -> tuple[str, dict[str, Any]] | str:
    """(event name, payload), or why there is none."""
    name = (env.get("GITHUB_EVENT_NAME") or "").strip()
    path = (env.get("GITHUB_EVENT_PATH") or "").strip()
    if not name or not path:
        return "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: this command runs as a GitHub Actions step"
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        return f"cannot read the event file {path}: {err.strerror or err}"
    except (ValueError, UnicodeDecodeError, RecursionError) as err:
        return f"the event file {path} is not JSON ({type(err).__name__}: {str(err)[:200]})"
    if not isinstance(payload, dict):
        return f"the event file {path} does not hold a JSON object"
    return EVENT_ALIASES.get(name, name), payload


def run(inputs: Inputs, env: Mapping[str, str], port: GitHubPort | None = None) -> Result:  # noqa: C901 (one early return per reason an event is not handled)
    """Handle one Actions event; `port` replaces the GitHub client (tests pass one over the fake)."""
    from bot import logs
    from bot.github import GitHubError
    from bot.handlers import router
    from bot.handlers.events import PayloadError
    from bot.jobs import Deps, execute
    from bot.settings import Settings
    from bot.webhook import SELF_IGNORED

    res = Result()
    if inputs.fail_on not in FAIL_ON:
        say(f"`fail-on` must be one of {', '.join(FAIL_ON)}, got `{inputs.fail_on}`", "error")
        res.exit_code, res.result = EXIT_USAGE, "error"
        return res
    got = read_event(env)
    if isinstance(got, str):
        say(got, "warning")
        res.result = "ignored"
        return res
    event, payload = got
    action = payload.get("action")
    if not router.handlers(event, action):
        say(f"the `{env.get('GITHUB_EVENT_NAME')}` event (action `{action}`) is not one this action handles; "
            "nothing to do. It handles pull_request / pull_request_target, issue_comment, "
            "pull_request_review_comment and pull_request_review.")
        res.result = "ignored"
        return res
    token = inputs.app_token or env.get("GITHUB_TOKEN") or ""
    if not token:
        say("no token: pass `github-token` (the default is the workflow's token) or `app-token`", "warning")
        res.result = "ignored"
        return res
    overrides: dict[str, Any] = {"github_token": token, "dry_run": inputs.dry_run}
    if env.get("GITHUB_API_URL"):
        overrides["github_api_url"] = env["GITHUB_API_URL"]
    settings = Settings(**overrides)
    logs.configure(settings.log_level)
    if port is None:
        from bot.github import PyGithubPort, client_for

        port = PyGithubPort(client_for(settings))
    try:
        bot_login = inputs.bot_login or (port.viewer_login() if inputs.app_token else ACTIONS_BOT)
    except GitHubError as err:
        say(f"GitHub would not say who the `app-token` acts as ({err}); pass `bot-login` or check the token",
            "warning")
        res.result = "error"
        return res
    settings = settings.model_copy(update={"bot_login": bot_login})
    sender = (payload.get("sender") or {}).get("login") if isinstance(payload.get("sender"), dict) else None
    if sender == bot_login and event in SELF_IGNORED:
        say(f"the event was caused by {bot_login} itself; nothing to do")
        res.result = "ignored"
        return res
    delivery = f"actions-{env.get('GITHUB_RUN_ID', '0')}-{env.get('GITHUB_RUN_ATTEMPT', '1')}"
    try:
        jobs = router.dispatch(event, payload, delivery)
    except PayloadError as err:
        say(f"the `{event}` payload is not usable: {err}", "warning")
        res.result = "ignored"
        return res
    if not jobs:
        say(f"nothing to do for `{event}` (action `{action}`): no review is due and no command was given")
        return res
    pending: deque[Job] = deque(jobs)
    deps = Deps(settings, lambda _inst: port, pending.append, max_attempts=1,
                labels_start_workflows=bool(inputs.app_token), config_path=inputs.config)
    done = 0
    while pending and done < MAX_JOBS:
        job = pending.popleft()
        done += 1
        if job.kind == "command" and inputs.dry_run:
            say(f"dry run: the command comment {job.get('comment_id')} is not answered")
            continue
        try:
            out = execute(job, deps)
        except Exception as err:  # noqa: BLE001 - one failed job is logged; the step stays neutral
            say(f"the {job.kind} job failed: {err} (the check run says so on the PR when it could be written)",
                "warning")
            res.result = "error"
            continue
        _report(job, out, res)
    if pending:
        say(f"stopped after {MAX_JOBS} jobs; {len(pending)} left", "warning")
    # Only findings set the exit status: a missing permission or an unusable event never does by itself
    # (the log says it), but blocking findings under `fail-on: blocking` do, whatever could be written.
    if res.blocking and inputs.fail_on == "blocking":
        res.exit_code = EXIT_BLOCKING
    return res


def _report(job: Job, out: object, res: Result) -> None:
    from bot.handlers.review import ReviewResult

    if not isinstance(out, ReviewResult):
        if job.kind == "command" and out:
            done = cast("list[str]", out)  # what a command job did (bot.handlers.commands.handle)
            res.lines.append("**Commands:** " + ", ".join(f"`{x}`" for x in done))
            res.result = res.result if res.result in ("reviewed", "read-only") else "commands"
        return
    for note in out.notes:
        say(note, "warning")
    if out.report is None:
        say(f"review {out.status}: {out.reason}", "warning" if out.status == "failed" else "notice")
        if out.status == "failed":
            res.result = "error"
        return
    res.blocking, res.nits = out.blocking, out.nits  # as the verdict counts them (ignored findings aside)
    if out.status == "forbidden":
        say(READ_ONLY_HINT + f" ({out.reason})", "warning")
        sys.stdout.write(output.as_github(out.report, summary=bool(out.summary)))  # the summary lists them all
        res.result = "read-only"
    else:
        res.result = "reviewed"
    if out.summary:
        res.lines.append(out.summary)


def write_outputs(res: Result, env: Mapping[str, str]) -> None:
    summary, outputs = env.get("GITHUB_STEP_SUMMARY"), env.get("GITHUB_OUTPUT")
    if summary and res.lines:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write("\n\n".join(res.lines).rstrip("\n") + "\n")
    if outputs:
        with open(outputs, "a", encoding="utf-8") as fh:
            fh.write(f"blocking={res.blocking}\nnits={res.nits}\nresult={res.result}\n")


def cmd_action(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    res = run(inputs_from(args, env), env)
    write_outputs(res, env)
    return res.exit_code


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    a = sub.add_parser("action", help="run as a GitHub Actions step: handle the workflow's event like the App",
                       description=__doc__.split("\n\n")[0])
    a.add_argument("--config", default=None, help="config file, read from the PR's base (INPUT_CONFIG; "
                                                  "default .github/recipe-review.yml)")
    a.add_argument("--fail-on", default=None, help="blocking (default) or never (INPUT_FAIL_ON)")
    a.add_argument("--dry-run", action="store_true", help="compute and report, write nothing (INPUT_DRY_RUN)")
    a.add_argument("--bot-login", default=None, help="the login the token acts as (INPUT_BOT_LOGIN; default "
                                                     "github-actions[bot], or asked from GitHub for an App token)")
    a.set_defaults(func=cmd_action)
