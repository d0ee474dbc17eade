"""Scale-out mode (QUEUE=rq): jobs wait in Redis and N `recipe-review worker` processes run them.

The webhook side and the job code are the same as in threads mode; only the queue and the store
change. Redis holds, per PR (`owner/repo#N`):

    recipe-review:pending:<pr>   hash kind -> {"seq", "job"}   newest job per kind, merged (bot.queue.merge_jobs)
                                                              ("job" is the job's payload, bot.job_types)
    recipe-review:inflight:<pr>  hash kind -> {"seq", "job"}   taken by the lock holder, not finished yet
    recipe-review:lock:<pr>      redis-py Lock with a TTL, renewed by a heartbeat while its holder runs
    recipe-review:drain:<pr>     "a drain job is queued" marker, so a burst enqueues one RQ job, not fifty
    recipe-review:active         set of PRs that have pending or in-flight jobs

`submit()` merges the job into the PR's pending slot and enqueues one lightweight RQ job,
`rq_drain(pr)`, on the RQ queue "recipe-review". The worker that wins the PR lock moves pending jobs
to in-flight, runs them one by one, and deletes each when it is done; after releasing the lock it
looks again, so a job submitted while the lock was held is never stranded. A drain job that finds
the lock taken simply returns: the holder picks its job up.

Crash safety without trusting any one process: a SIGKILLed worker leaves its job in `inflight` and
its lock expires `lock_ttl_s` later (no heartbeat). Every worker runs a reaper thread that enqueues a
drain for each active PR that has neither a lock nor a queued drain, so another worker re-runs the
job; the review job plans its writes against GitHub's current state, so the re-run only writes
what the dead worker had not written yet.

Retries: a failing job stays in `inflight` with `attempt + 1`, and the PR lock is kept with its TTL
set to the backoff delay (`retry_delays_s`); when it expires the reaper enqueues the retry. A newer
job for the PR merges over the retry (newest head wins). After `bot.queue.MAX_ATTEMPTS` the job is
logged and dropped. The drain job itself carries an RQ `Retry` for infrastructure errors (e.g. a
Redis connection reset).
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import redis
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from redis.exceptions import LockError, RedisError, WatchError
from redis.lock import Lock
from rq import Queue, Retry, SimpleWorker
from rq.serializers import JSONSerializer

from bot import logs, metrics
from bot.job_types import AnyJob, Job, as_job, merged, slot_kind
from bot.queue import MAX_ATTEMPTS, RETRY_DELAYS_S
from bot.settings import Settings
from bot.store import RedisStore

if TYPE_CHECKING:
    from bot.jobs import Deps

log = logging.getLogger(__name__)

QUEUE_NAME = "recipe-review"
PREFIX = "recipe-review"
DEFAULT_EXECUTOR = "bot.rq_mode.rq_execute"
MARKER_TTL_S = 300  # a queued drain that never ran (lost worker) is re-enqueued by the reaper after this
DRAIN_RETRY = Retry(max=3)  # infrastructure errors only; job failures are retried by the PR lock backoff


class RQTuning(BaseSettings):
    """Timing knobs of the scale-out mode, read from the environment once per process."""

    model_config = SettingsConfigDict(env_prefix="RQ_", case_sensitive=False, extra="ignore")

    lock_ttl_s: float = Field(default=30.0, gt=0)  # how long a dead worker's PR stays locked
    reap_interval_s: float = Field(default=2.0, gt=0)  # how often each worker looks for orphaned PRs
    job_timeout_s: int = Field(default=900, gt=0)  # one drain (a PR's jobs); PyGithub may wait out rate limits
    retry_delays_s: tuple[float, ...] = RETRY_DELAYS_S  # backoff after attempt 1, 2, ... (last one repeats)
    executor: str = DEFAULT_EXECUTOR  # dotted path of the function that runs one job (tests, benchmarks swap it)
    metrics_port: int = Field(default=0, ge=0, le=65535)  # serve this worker's /metrics here (job latency,
    # findings, API calls live in the worker process in this mode); 0 = off


@dataclass(frozen=True)
class Keys:
    prefix: str = PREFIX

    @property
    def active(self) -> str:
        return f"{self.prefix}:active"

    def pending(self, pr: str) -> str:
        return f"{self.prefix}:pending:{pr}"

    def inflight(self, pr: str) -> str:
        return f"{self.prefix}:inflight:{pr}"

    def lock(self, pr: str) -> str:
        return f"{self.prefix}:lock:{pr}"

    def marker(self, pr: str) -> str:
        return f"{self.prefix}:drain:{pr}"

    @property
    def seq(self) -> str:
        return f"{self.prefix}:seq"


def connect(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, health_check_interval=30, socket_connect_timeout=5)


def redis_store(settings: Settings) -> RedisStore:
    return RedisStore(connect(settings.redis_url))


def rq_queue(conn: redis.Redis, name: str = QUEUE_NAME) -> Queue:
    # JSON, not pickle: nothing read back from Redis can run code in a worker.
    return Queue(name, connection=conn, serializer=JSONSerializer)


# Move pending jobs to in-flight; a pending entry replaced meanwhile (newer submit) stays pending.
_TAKE = """
for i = 1, #ARGV, 3 do
  local cur = redis.call('HGET', KEYS[1], ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
  if cur == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 1
"""
# Forget the PR when nothing is left; answer whether work remains.
_SETTLE = """
if redis.call('HLEN', KEYS[1]) == 0 and redis.call('HLEN', KEYS[2]) == 0 then
  redis.call('SREM', KEYS[3], ARGV[1])
  return 0
end
return 1
"""


class RQQueue:
    """JobQueue on Redis + RQ (see the module docstring)."""

    def __init__(self, settings: Settings, *, connection: redis.Redis | None = None, queue_name: str = QUEUE_NAME,
                 prefix: str = PREFIX, tuning: RQTuning | None = None):
        self.r = connection or connect(settings.redis_url)
        self.keys = Keys(prefix)
        self.rq = rq_queue(self.r, queue_name)
        self.tuning = tuning or RQTuning()

    def submit(self, job: Job | dict[str, Any]) -> None:
        job = as_job(job)
        pr, kind = job.pr_key, slot_kind(job)
        key = self.keys.pending(pr)
        with self.r.pipeline() as p:
            while True:
                try:
                    p.watch(key)  # type: ignore[no-untyped-call]  # redis-py leaves Pipeline.watch unannotated
                    old = p.hget(key, kind)
                    if old is None:
                        env = {"seq": int(self.r.incr(self.keys.seq)), "job": job.to_payload()}
                    else:
                        prev = json.loads(old)
                        env = {"seq": prev["seq"], "job": merged(as_job(prev["job"]), job).to_payload()}
                    p.multi()
                    p.hset(key, kind, json.dumps(env, sort_keys=True))
                    p.sadd(self.keys.active, pr)
                    p.execute()
                    break
                except WatchError:
                    continue
        self.enqueue_drain(pr)
        metrics.QUEUE_DEPTH.set(self.depth())

    def enqueue_drain(self, pr: str) -> bool:
        """Queue one drain job for the PR unless one is already queued."""
        if not self.r.set(self.keys.marker(pr), 1, nx=True, ex=MARKER_TTL_S):
            return False
        try:
            self.rq.enqueue(rq_drain, pr, self.keys.prefix, job_timeout=self.tuning.job_timeout_s,
                            result_ttl=0, failure_ttl=7 * 24 * 3600, retry=DRAIN_RETRY, description=f"drain {pr}")
        except BaseException:
            self.r.delete(self.keys.marker(pr))
            raise
        return True

    def _count(self, *slots: Callable[[str], str]) -> int:
        prs = cast("set[bytes]", self.r.smembers(self.keys.active))  # no decode_responses: bytes
        if not prs:
            return 0
        with self.r.pipeline(transaction=False) as p:
            for raw in prs:
                for slot in slots:
                    p.hlen(slot(raw.decode()))
            return sum(p.execute())

    def depth(self) -> int:
        """Jobs waiting to run, over all PRs (as ThreadQueue: running jobs are not counted)."""
        return self._count(self.keys.pending)

    def outstanding(self) -> int:
        """Jobs waiting, running, or waiting out a retry backoff."""
        return self._count(self.keys.pending, self.keys.inflight)

    def join(self, timeout: float = 30.0, poll_s: float = 0.05) -> bool:
        """Wait until no job is pending or in flight (tests, benchmarks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.r.exists(self.keys.active) and self.rq.count == 0:
                return True
            time.sleep(poll_s)
        return False

    def close(self) -> None:
        self.r.close()


class _Heartbeat(threading.Thread):
    """Renews a PR lock while its holder is alive; a SIGKILL stops the renewals with the process."""

    def __init__(self, lock: Lock, interval: float):
        super().__init__(name="recipe-review-lock-heartbeat", daemon=True)
        self.lock, self.interval = lock, interval
        self._halt = threading.Event()
        self.lost = False

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            try:
                self.lock.reacquire()
            except LockError:
                self.lost = True
                log.error("lost the PR lock %s while running; another worker may run this PR", self.lock.name)
                return
            except RedisError:
                log.warning("could not renew the PR lock %s", self.lock.name, exc_info=True)

    def stop(self) -> None:
        self._halt.set()
        self.join(2)


class Drainer:
    """Runs the jobs of one PR while holding its lock (runs inside an RQ worker)."""

    def __init__(self, conn: redis.Redis, execute: Callable[[AnyJob], object], tuning: RQTuning,
                 prefix: str = PREFIX):
        self.r, self.execute, self.tuning, self.keys = conn, execute, tuning, Keys(prefix)
        self._take_script = conn.register_script(_TAKE)
        self._settle_script = conn.register_script(_SETTLE)

    def drain(self, pr: str) -> str:
        self.r.delete(self.keys.marker(pr))
        while True:
            lock = self.r.lock(self.keys.lock(pr), timeout=self.tuning.lock_ttl_s, blocking=False,
                               thread_local=False)
            if not lock.acquire(blocking=False):
                return "busy"  # the holder looks again after releasing
            beat = _Heartbeat(lock, self.tuning.lock_ttl_s / 3)
            beat.start()
            backoff = None
            try:
                backoff = self._run_all(pr)
            finally:
                beat.stop()
                try:
                    if backoff is None:
                        lock.release()
                    else:  # keep the PR locked for the backoff; the reaper queues the retry after it
                        lock.extend(backoff, replace_ttl=True)
                except LockError:
                    pass
            if backoff is not None:
                return "retry"
            if not self._settle_script(keys=[self.keys.pending(pr), self.keys.inflight(pr), self.keys.active],
                                       args=[pr]):
                return "done"

    def _take(self, pr: str) -> list[tuple[str, dict[str, Any]]]:
        with self.r.pipeline() as p:
            p.hgetall(self.keys.pending(pr))
            p.hgetall(self.keys.inflight(pr))
            pending, inflight = p.execute()
        slots = {k.decode(): json.loads(v) for k, v in inflight.items()}
        args = []
        for k, raw in pending.items():
            kind, env = k.decode(), json.loads(raw)
            if kind in slots:  # left by a dead or failed run: the newer job absorbs it
                env = {"seq": slots[kind]["seq"],
                       "job": merged(as_job(slots[kind]["job"]), as_job(env["job"])).to_payload()}
            slots[kind] = env
            args += [kind, raw, json.dumps(env, sort_keys=True)]
        if args:
            self._take_script(keys=[self.keys.pending(pr), self.keys.inflight(pr)], args=args)
        return sorted(slots.items(), key=lambda kv: kv[1]["seq"])

    def _run_all(self, pr: str) -> float | None:
        """Run until nothing is pending; return a backoff delay when a job must be retried."""
        while True:
            taken = self._take(pr)
            if not taken:
                return None
            for kind, env in taken:
                job = as_job(env["job"])
                try:
                    self.execute(job)
                except Exception:
                    attempt = job.attempt + 1
                    extra = {"repo": job.repo, "pr": job.number, "job": job.kind,
                             "delivery_id": job.delivery_id, "head_sha": job.get("head_sha")}
                    if attempt >= MAX_ATTEMPTS:
                        log.exception("job failed for good after %d attempts", attempt, extra=extra)
                        self.r.hdel(self.keys.inflight(pr), kind)
                        continue
                    delays = self.tuning.retry_delays_s or (1.0,)
                    delay = delays[min(attempt - 1, len(delays) - 1)]
                    log.warning("job failed (attempt %d), retrying in %ss", attempt, delay, exc_info=True,
                                extra=extra)
                    env = dict(env, job=dataclasses.replace(job, attempt=attempt).to_payload())
                    self.r.hset(self.keys.inflight(pr), kind, json.dumps(env, sort_keys=True))
                    return delay
                self.r.hdel(self.keys.inflight(pr), kind)


def reap(conn: redis.Redis, queue: RQQueue) -> int:
    """Queue a drain for every active PR with no lock and no queued drain (dead worker, expired backoff)."""
    keys = queue.keys
    prs = [p.decode() for p in cast("set[bytes]", conn.smembers(keys.active))]  # no decode_responses: bytes
    if not prs:
        return 0
    with conn.pipeline(transaction=False) as p:
        for pr in prs:
            p.exists(keys.lock(pr), keys.marker(pr))
        held = p.execute()
    n = 0
    for pr, count in zip(prs, held, strict=True):  # one EXISTS per PR
        if count == 0 and queue.enqueue_drain(pr):
            log.info("re-queued orphaned jobs of %s", pr, extra={"pr": pr})
            n += 1
    return n


class _Reaper(threading.Thread):
    def __init__(self, queue: RQQueue, interval: float):
        super().__init__(name="recipe-review-reaper", daemon=True)
        self.queue, self.interval = queue, interval
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            try:
                reap(self.queue.r, self.queue)
            except RedisError:
                log.warning("reaper could not reach Redis", exc_info=True)

    def stop(self) -> None:
        self._halt.set()


# -- what runs inside a worker process -----------------------------------------------------------

@dataclass
class _Context:
    settings: Settings
    tuning: RQTuning
    queue: RQQueue


_CTX: _Context | None = None
_CTX_LOCK = threading.Lock()
_DEPS: Deps | None = None


def worker_context() -> _Context:
    """This process's settings and queue (built from the environment once, like the webhook's)."""
    global _CTX
    with _CTX_LOCK:
        if _CTX is None:
            settings = Settings()
            _CTX = _Context(settings, RQTuning(), RQQueue(settings))
        return _CTX


def worker_queue() -> RQQueue:
    """The queue follow-up jobs go to from inside a worker (back to Redis)."""
    return worker_context().queue


def rq_execute(job: AnyJob) -> object:
    """Run one bot job (the default executor of a drain): bot.jobs.execute with Deps from settings."""
    global _DEPS
    from bot.jobs import Deps, execute

    ctx = worker_context()
    if _DEPS is None:
        _DEPS = Deps.from_settings(ctx.settings, submit=ctx.queue.submit, store=redis_store(ctx.settings))
    return execute(job, _DEPS)


def _resolve(path: str) -> Callable[[AnyJob], object]:
    mod, _, name = path.rpartition(".")
    executor: Callable[[AnyJob], object] = getattr(importlib.import_module(mod), name)
    return executor


def rq_drain(pr: str, prefix: str = PREFIX) -> str:
    """The function RQ runs: take the PR lock and run its newest pending jobs (with the process's executor)."""
    ctx = worker_context()
    return Drainer(ctx.queue.r, _resolve(ctx.tuning.executor), ctx.tuning, prefix).drain(pr)


def run_worker(settings: Settings, burst: bool = False, name: str | None = None,
               tuning: RQTuning | None = None) -> int:
    """`recipe-review worker`: one process running drain jobs from the "recipe-review" queue."""
    global _CTX
    logs.configure(settings.log_level)
    tuning = tuning or RQTuning()
    queue = RQQueue(settings, tuning=tuning)
    with _CTX_LOCK:
        _CTX = _Context(settings, tuning, queue)
    # SimpleWorker runs jobs in this process: the PR-lock heartbeat, PyGithub's connection pool and the
    # parsed rule registry live across jobs; crash safety comes from the PR lock TTL + reaper.
    worker = SimpleWorker([queue.rq], connection=queue.r, name=name, serializer=JSONSerializer)
    reaper = _Reaper(RQQueue(settings, tuning=tuning), tuning.reap_interval_s)
    reaper.start()
    if tuning.metrics_port:
        from prometheus_client import start_http_server

        start_http_server(tuning.metrics_port)
    log.info("worker %s started (pid %d, lock ttl %ss)", worker.name, os.getpid(), tuning.lock_ttl_s)
    try:
        if not burst:
            worker.work(logging_level="WARNING")
            return 0
        # Burst: exit only when no job is queued, pending, in flight or waiting out a retry backoff.
        while True:
            worker.work(burst=True, logging_level="WARNING")
            reap(queue.r, queue)
            if queue.rq.count == 0 and queue.outstanding() == 0:
                return 0
            time.sleep(min(tuning.reap_interval_s, 0.5))
    finally:
        reaper.stop()
