"""One queue interface, two run modes.

- `ThreadQueue` (QUEUE=threads, the default): in-process worker threads. Jobs are keyed by PR: at
  most one job per PR runs at a time, and while one runs, newer jobs for that PR wait in a single
  pending slot where a burst of `synchronize` events collapses to the newest head.
- `RQQueue` (QUEUE=rq): jobs go to Redis and `recipe-review worker` processes run them (bot/rq_mode.py).

Jobs are typed and frozen (`bot.job_types`); `submit` also takes a job's payload dict (what an
older version queued) and reads it into a typed job. The executor is handed the typed job.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from bot import metrics
from bot.job_types import AnyJob, Job, as_job, merged, slot_kind

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
RETRY_DELAYS_S = (1, 2, 5, 10, 30)


# Review work is CPU-bound Python; the webhook must still answer in milliseconds. Workers run at a
# lower OS priority than request threads, and the interpreter hands the GIL over more often.
WORKER_NICENESS = 10
GIL_SWITCH_INTERVAL_S = 0.001


def _lower_priority() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICENESS)
    except (AttributeError, OSError):  # not Linux, or not allowed: run at normal priority
        pass


def job_key(job: Job | Mapping[str, Any]) -> str:
    return f"{job['repo']}#{job['number']}"


def merge_jobs(old: Job | Mapping[str, Any], new: Job | Mapping[str, Any]) -> AnyJob:
    """Collapse two pending jobs (typed or payloads) of one kind for one PR into the one worth running."""
    return merged(as_job(old), as_job(new))


class JobQueue(Protocol):
    def submit(self, job: Job | dict[str, Any]) -> None: ...
    def depth(self) -> int: ...
    def close(self) -> None: ...


class ThreadQueue:
    """In-process workers with per-PR exclusivity and coalescing (see module docstring)."""

    def __init__(self, execute: Callable[[AnyJob], object], workers: int = 4,
                 retry_delays: tuple[float, ...] = RETRY_DELAYS_S):
        self._execute = execute
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_INTERVAL_S))
        self._cv = threading.Condition()
        self._pending: dict[str, dict[str, AnyJob]] = {}  # pr key -> kind -> job (insertion ordered)
        self._running: set[str] = set()
        self._closed = False
        self._retry_delays = retry_delays
        self._timers: set[threading.Timer] = set()
        self._threads = [threading.Thread(target=self._loop, name=f"recipe-review-worker-{i}", daemon=True)
                         for i in range(workers)]
        for t in self._threads:
            t.start()

    def submit(self, job: Job | dict[str, Any]) -> None:
        job = as_job(job)
        key = job.pr_key
        with self._cv:
            slot = self._pending.setdefault(key, {})
            kind = slot_kind(job)
            slot[kind] = merged(slot[kind], job) if kind in slot else job
            metrics.QUEUE_DEPTH.set(self._depth())
            self._cv.notify()

    def _depth(self) -> int:
        return sum(len(s) for s in self._pending.values())

    def depth(self) -> int:
        with self._cv:
            return self._depth()

    def _take(self) -> tuple[str, list[AnyJob]] | None:
        for key in self._pending:
            if key not in self._running:
                jobs = list(self._pending.pop(key).values())
                self._running.add(key)
                return key, jobs
        return None

    def _loop(self) -> None:
        _lower_priority()
        while True:
            with self._cv:
                taken = self._take()
                while taken is None and not self._closed:
                    self._cv.wait()
                    taken = self._take()
                if taken is None:
                    return
                metrics.QUEUE_DEPTH.set(self._depth())
            key, jobs = taken
            try:
                for job in jobs:
                    self._run_one(job)
            finally:
                with self._cv:
                    self._running.discard(key)
                    self._cv.notify_all()

    def _run_one(self, job: AnyJob) -> None:
        try:
            self._execute(job)
        except Exception:
            attempt = job.attempt + 1
            if attempt >= MAX_ATTEMPTS:
                log.exception("job failed for good after %d attempts", attempt,
                              extra={"repo": job.repo, "pr": job.number, "job": job.kind})
                return
            delay = self._retry_delays[min(attempt - 1, len(self._retry_delays) - 1)]
            log.warning("job failed (attempt %d), retrying in %ss", attempt, delay, exc_info=True,
                        extra={"repo": job.repo, "pr": job.number, "job": job.kind})
            retry = dataclasses.replace(job, attempt=attempt)
            timer = threading.Timer(delay, self._resubmit, args=(retry,))
            timer.daemon = True
            with self._cv:
                self._timers.add(timer)
            timer.start()

    def _resubmit(self, job: AnyJob) -> None:
        with self._cv:
            self._timers = {t for t in self._timers if t.is_alive() and t is not threading.current_thread()}
            pending = self._pending.get(job.pr_key, {})
            if slot_kind(job) in pending:  # a newer job for this PR supersedes the retry
                return
        self.submit(job)

    def join(self, timeout: float = 30.0) -> bool:
        """Wait until no job is pending, running or scheduled for retry (tests, demo, shutdown)."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while self._pending or self._running or any(t.is_alive() for t in self._timers):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(min(left, 0.05))
            return True

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
            for t in self._timers:
                t.cancel()
