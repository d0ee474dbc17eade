"""Typed jobs: one frozen dataclass per kind, a JSON-safe payload on the queue, old payloads still read."""
import dataclasses
import json
import threading

import pytest

from bot.job_types import CommandJob, JobPayloadError, OtherJob, RerequestJob, ReviewJob, from_payload, merged
from bot.queue import ThreadQueue
from bot.webhook import _track_head

REVIEW = ReviewJob(repo="o/r", number=3, head_sha="h" * 40, base_sha="b" * 40, action="opened",
                   delivery_id="d-1", installation_id=7)
COMMAND = CommandJob(repo="o/r", number=3, comment_id=11, comment_kind="issue", body="/fix", author="ann")
RERUN = RerequestJob(repo="o/r", number=0, head_sha="h" * 40, app_id=5, app_slug="recipe-review")


@pytest.mark.parametrize("job", [REVIEW, COMMAND, RERUN], ids=lambda j: j.kind)
def test_every_kind_round_trips_through_json(job):
    payload = job.to_payload()
    assert payload["kind"] == job.kind
    back = from_payload(json.loads(json.dumps(payload)))
    assert back == job and type(back) is type(job)


def test_a_job_is_frozen_and_a_change_is_a_new_copy():
    with pytest.raises(dataclasses.FrozenInstanceError):
        REVIEW.head_sha = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        REVIEW["head_sha"] = "x"  # type: ignore[index]
    moved = dataclasses.replace(REVIEW, head_sha="n" * 40)
    assert moved.head_sha == "n" * 40 and REVIEW.head_sha == "h" * 40


def test_the_old_dict_shape_is_read():
    # As events.py queued it before jobs were typed: some keys missing, a string number.
    old = {"kind": "review", "repo": "o/r", "number": "3", "head_sha": "h" * 40, "base_sha": "b" * 40,
           "action": "synchronize", "delivery_id": "d-1", "installation_id": None}
    job = from_payload(old)
    assert isinstance(job, ReviewJob) and job.number == 3 and job.attempt == 0 and job.force is False
    assert job.config_path == "" and job.added_label is None
    cmd = from_payload({"kind": "command", "repo": "o/r", "number": 3, "delivery_id": "d", "installation_id": 1,
                        "comment_id": 11, "comment_kind": "issue", "body": "/fix", "author": "ann"})
    assert isinstance(cmd, CommandJob) and cmd.head_sha is None
    rerun = from_payload({"kind": "rerequest", "repo": "o/r", "number": 0, "head_sha": "h", "force": True,
                          "action": "synchronize", "app_id": None, "app_slug": None, "attempt": 2})
    assert isinstance(rerun, RerequestJob) and rerun.attempt == 2


def test_unknown_keys_survive_a_round_trip():
    job = from_payload({**REVIEW.to_payload(), "priority": "low"})
    assert job.extra == {"priority": "low"} and job.to_payload()["priority"] == "low"


def test_an_unreadable_payload_becomes_an_other_job_that_says_why():
    unknown = from_payload({"kind": "labels", "repo": "o/r", "number": 1, "sleep": 0.1})
    assert isinstance(unknown, OtherJob) and unknown.kind == "labels" and "unknown job kind" in unknown.problem
    assert unknown.to_payload() == {"kind": "labels", "repo": "o/r", "number": 1, "sleep": 0.1, "delivery_id": "",
                                    "installation_id": None, "attempt": 0}
    short = from_payload({"kind": "review", "repo": "o/r", "number": 1, "head_sha": "h"})
    assert isinstance(short, OtherJob) and "base_sha" in short.problem and short.kind == "review"
    with pytest.raises(JobPayloadError):
        from_payload({"kind": "review", "head_sha": "h"})
    with pytest.raises(JobPayloadError):
        from_payload(["review"])


def test_execute_reports_an_unreadable_job_instead_of_raising():
    from bot.jobs import Deps, execute
    from bot.settings import Settings

    assert execute({"kind": "labels", "repo": "o/r", "number": 1}, Deps(Settings(), port_for=lambda _i: None)) is None


def test_deps_from_settings_keeps_the_attempts_and_the_store_apart():
    # the store was once passed where max_attempts sits: the last attempt's check then raised TypeError
    from bot.jobs import MAX_ATTEMPTS, Deps
    from bot.settings import Settings

    store = object()
    deps = Deps.from_settings(Settings(), submit=print, store=store)
    assert deps.max_attempts == MAX_ATTEMPTS and deps.store is store and deps.submit is print


def test_merged_keeps_opened_and_force_without_touching_either_input():
    old, new = dataclasses.replace(REVIEW, force=True), dataclasses.replace(REVIEW, head_sha="n" * 40,
                                                                          action="synchronize")
    m = merged(old, new)
    assert (m.head_sha, m.action, m.force) == ("n" * 40, "opened", True)
    assert (new.action, new.force) == ("synchronize", False)


class _Store:
    def __init__(self, heads=None):
        self.heads = dict(heads or {})

    def set_head(self, repo, number, sha):
        self.heads[(repo, number)] = sha

    def head(self, repo, number):
        return self.heads.get((repo, number))


def test_track_head_gives_a_command_the_known_head_as_a_copy():
    store = _Store({("o/r", 3): "k" * 40})
    out = _track_head(store, COMMAND)
    assert out.head_sha == "k" * 40 and COMMAND.head_sha is None
    assert _track_head(store, REVIEW) is REVIEW and store.heads[("o/r", 3)] == "h" * 40


def test_thread_queue_hands_typed_jobs_and_retries_with_a_new_attempt():
    seen, done = [], threading.Event()

    def execute(job):
        seen.append(job)
        if len(seen) == 1:
            raise RuntimeError("502")
        done.set()

    q = ThreadQueue(execute, workers=1, retry_delays=(0.01,))
    q.submit(REVIEW.to_payload())  # a payload is read into a typed job at the boundary
    assert done.wait(5) and q.join(5)
    q.close()
    assert [type(j) for j in seen] == [ReviewJob, ReviewJob] and [j.attempt for j in seen] == [0, 1]
    assert seen[1] == dataclasses.replace(REVIEW, attempt=1)
