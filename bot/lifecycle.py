"""The `recipe-review` check run's lifecycle: started when a review job starts, concluded when it
ends, and concluded `neutral` with the reason and what to do when the job fails for good.

- `start` (after the PR is read): no run on the head yet → create one `in_progress`; a run left
  `in_progress` by an earlier attempt → take it over (no write); a completed run and a forced
  review (`/review`, the Re-run button) → set it back to `in_progress`; a completed run and an
  ordinary re-review (a label change) → leave it, the end of the job updates it only if its
  verdict changed. A token without `checks: write` is noted once and the job goes on without
  check runs.
- `conclude_failed` (bot/jobs.py, when no retry is left or the error is permanent): find the
  run on the head (one REST read) and conclude it `neutral`, or create it concluded; never raises.

The author always sees something: either the verdict or why there is none and how to get one.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.github import GitHubError, GitHubPort, Snapshot
from bot.render import CHECK_RUN_NAME

if TYPE_CHECKING:
    from bot.handlers.review import ReviewJob, ReviewResult

log = logging.getLogger(__name__)

RETRY_HINT = "Comment `/review` on the pull request to try again, or press **Re-run** on this check."


def in_progress_output(head_sha: str) -> dict[str, str]:
    return {"title": "Reviewing…",
            "summary": f"recipe-review is reading `{head_sha[:7]}` and running its rules; the verdict replaces "
                       "this text in a few seconds."}


def failed_output(head_sha: str, reason: str) -> dict[str, str]:
    """A job that cannot finish: the reason, in GitHub's own words when it has them, and what to do."""
    return {"title": "Review could not finish",
            "summary": (f"recipe-review could not review `{head_sha[:7]}`: {reason}\n\n"
                        f"**What to do:** {RETRY_HINT} If it fails again, the reason above says what GitHub refused; "
                        "the bot's logs carry the same line.")}


def start(port: GitHubPort, job: ReviewJob, snap: Snapshot, outcome: ReviewResult) -> None:
    """Mark the review as running on the head (see the module docstring); records the run's id."""
    mine = [c for c in snap.check_runs if c.name == CHECK_RUN_NAME]
    try:
        if not mine:
            outcome.check_run_id = port.create_check_run(job.repo, CHECK_RUN_NAME, job.head_sha, None,
                                                         in_progress_output(job.head_sha))
            outcome.writes.append("check-run in_progress")
            return
        cr = mine[-1]
        if cr.status != "completed":
            outcome.check_run_id = cr.id  # an earlier attempt started it: finish that one
            return
        if job.force:
            port.update_check_run(job.repo, cr.id, None, in_progress_output(job.head_sha))
            outcome.check_run_id = cr.id
            outcome.writes.append("check-run restart")
    except GitHubError as err:
        if not err.forbidden:
            raise
        outcome.checks_forbidden = True
        note = ("no check run: the token may not write checks (give the workflow `permissions: checks: write`, "
                "or the App the Checks permission); the review and the summary comment carry the verdict")
        outcome.notes.append(note)
        log.warning(note, extra={"repo": job.repo, "pr": job.number, "head_sha": job.head_sha})


def conclude_failed(port: GitHubPort, repo: str, head_sha: str, reason: str) -> str:
    """Conclude the head's `recipe-review` run `neutral` with `reason`; returns what was done. Never raises."""
    output = failed_output(head_sha, reason)
    try:
        runs = port.check_runs(repo, head_sha, CHECK_RUN_NAME)
        if runs:
            port.update_check_run(repo, runs[0].id, "neutral", output)
            return "check-run neutral (updated)"
        port.create_check_run(repo, CHECK_RUN_NAME, head_sha, "neutral", output)
        return "check-run neutral (created)"
    except GitHubError as err:
        log.error("could not report the failure on the check run of %s: %s", head_sha[:7], err,
                  extra={"repo": repo, "head_sha": head_sha})
        return f"check-run not written: {err}"
    except Exception:  # noqa: BLE001 - the failure path must not raise over the original error
        log.exception("could not report the failure on the check run of %s", head_sha[:7],
                      extra={"repo": repo, "head_sha": head_sha})
        return "check-run not written"
