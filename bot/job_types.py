"""Typed jobs: what the webhook, the Action and follow-ups put on the queue, one frozen dataclass per kind.

A job is made once (by `bot.handlers.events`, a command, a re-run lookup) and never changed:
a changed copy is `dataclasses.replace(job, ...)` (the webhook's head tracking, a retry's attempt
count, a merged burst). What the queue carries between processes is the job's payload, a
JSON-safe dict (`to_payload()`; Redis in QUEUE=rq mode), and `from_payload()` reads it back.

Backward compatible: `from_payload` accepts the dicts queued by earlier versions (optional keys
missing, numbers as strings), keeps keys it does not know in `extra` (written back by
`to_payload`, so a payload survives a round trip through a worker of another version), and turns a
payload it cannot read (an unknown kind, a required key missing) into an `OtherJob` that says why,
which the job runner reports instead of crashing the queue.

A job also reads like the payload (`job["repo"]`, `job.get("head_sha")`, `dict(job)`), read-only,
for callers that handle payloads of any kind (logging, test executors).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar


@dataclass(frozen=True, kw_only=True)
class Job(Mapping[str, Any]):
    """What every job has: the PR it is for, where it came from, and how often it ran."""

    KIND: ClassVar[str] = ""
    repo: str
    number: int
    delivery_id: str = ""
    installation_id: int | None = None
    attempt: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)  # payload keys this version does not know

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    @property
    def kind(self) -> str:
        return self.KIND

    @property
    def pr_key(self) -> str:
        return f"{self.repo}#{self.number}"

    def to_payload(self) -> dict[str, Any]:
        """The JSON-safe dict the queue carries (all keys, so older readers find what they expect)."""
        out: dict[str, Any] = dict(self.extra)
        out["kind"] = self.kind
        for f in dataclasses.fields(self):
            if f.name != "extra":
                out[f.name] = getattr(self, f.name)
        return out

    # read-only payload view
    def __getitem__(self, key: str) -> Any:
        return self.to_payload()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_payload())

    def __len__(self) -> int:
        return len(self.to_payload())

    __hash__ = None  # type: ignore[assignment]  # `extra` is a mapping; jobs are not set members


@dataclass(frozen=True, kw_only=True)
class ReviewJob(Job):
    """Review one head of a PR against its base (a push, an open, a retarget, a label, a re-run)."""

    KIND: ClassVar[str] = "review"
    head_sha: str
    base_sha: str
    action: str = "synchronize"
    force: bool = False
    added_label: str | None = None
    config_path: str = ""
    app_id: int | None = None
    app_slug: str | None = None


@dataclass(frozen=True, kw_only=True)
class CommandJob(Job):
    """Answer the commands of one comment (`/fix`, `/sweep`, ...)."""

    KIND: ClassVar[str] = "command"
    comment_id: int
    comment_kind: str  # "issue", "review" or "review_body"
    body: str
    author: str
    head_sha: str | None = None  # the head the commenter saw, when the event or the store says it


@dataclass(frozen=True, kw_only=True)
class RerequestJob(Job):
    """A Re-run of a head whose PR the event did not name (a fork PR): find its PRs and review each."""

    KIND: ClassVar[str] = "rerequest"
    head_sha: str
    action: str = "synchronize"
    force: bool = True
    app_id: int | None = None
    app_slug: str | None = None


@dataclass(frozen=True, kw_only=True)
class OtherJob(Job):
    """A payload this version cannot read as one of the kinds above, kept whole with the reason."""

    other_kind: str = ""
    problem: str = ""

    @property
    def kind(self) -> str:
        return self.other_kind

    def to_payload(self) -> dict[str, Any]:
        out = dict(self.extra)
        out.update(kind=self.other_kind, repo=self.repo, number=self.number, delivery_id=self.delivery_id,
                   installation_id=self.installation_id, attempt=self.attempt)
        return out


AnyJob = ReviewJob | CommandJob | RerequestJob | OtherJob
KINDS: dict[str, type[Job]] = {c.KIND: c for c in (ReviewJob, CommandJob, RerequestJob)}
_COMMON = ("repo", "number", "delivery_id", "installation_id", "attempt")


class JobPayloadError(ValueError):
    """A payload is not a job at all (not a mapping, or no repository and number to key it by)."""


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} is a boolean")
    return int(value)


def from_payload(payload: Mapping[str, Any]) -> AnyJob:
    """The typed job for a queued payload (see the module docstring for old and unreadable shapes)."""
    if isinstance(payload, Job):
        return payload  # type: ignore[return-value]
    if not isinstance(payload, Mapping):
        raise JobPayloadError(f"a job payload is a JSON object, not {type(payload).__name__}")
    try:
        repo, number = str(payload["repo"]), _int(payload["number"], "number")
    except (KeyError, TypeError, ValueError) as err:
        raise JobPayloadError(f"a job payload needs a repository and a PR number ({err})") from None
    kind = str(payload.get("kind", ""))
    common: dict[str, Any] = {"repo": repo, "number": number, "delivery_id": str(payload.get("delivery_id") or ""),
                              "installation_id": payload.get("installation_id"),
                              "attempt": _int(payload.get("attempt") or 0, "attempt")}
    cls = KINDS.get(kind)
    if cls is None:
        return OtherJob(other_kind=kind, problem=f"unknown job kind {kind!r}",
                        extra={k: v for k, v in payload.items() if k not in _COMMON and k != "kind"}, **common)
    names = {f.name: f for f in dataclasses.fields(cls) if f.name not in _COMMON and f.name != "extra"}
    known = {k: payload[k] for k in names if k in payload}
    if cls is ReviewJob or cls is RerequestJob:
        known["force"] = bool(known.get("force", cls is RerequestJob))
        if known.get("config_path") is None and "config_path" in known:
            known["config_path"] = ""
        if known.get("action") is None and "action" in known:
            del known["action"]
    if cls is CommandJob and "comment_id" in known:
        try:
            known["comment_id"] = _int(known["comment_id"], "comment_id")
        except (TypeError, ValueError):
            pass
    extra = {k: v for k, v in payload.items() if k not in names and k not in _COMMON and k != "kind"}
    missing = [n for n, f in names.items() if n not in known and f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING]
    if missing:
        return OtherJob(other_kind=kind, problem=f"a {kind} job without {', '.join(missing)}",
                        extra={k: v for k, v in payload.items() if k not in _COMMON and k != "kind"}, **common)
    return cls(**common, **known, extra=extra)  # type: ignore[return-value]


def as_job(job: Job | Mapping[str, Any]) -> AnyJob:
    """A typed job from either a typed job or a payload (the queue's entry points accept both)."""
    return from_payload(job)


def merged(old: AnyJob, new: AnyJob) -> AnyJob:
    """Collapse two pending jobs of one kind for one PR into the one worth running (a new copy)."""
    if not isinstance(new, ReviewJob):
        return new
    # The newest head wins, but an `opened` (welcome comment) or a forced review is never forgotten.
    was_opened = old.get("action") == "opened"
    return dataclasses.replace(new, action="opened" if was_opened or new.action == "opened" else new.action,
                               force=bool(old.get("force") or new.force))


def slot_kind(job: Job | Mapping[str, Any]) -> str:
    """Jobs of one kind for one PR share a queue slot; every command comment gets its own."""
    kind = job["kind"]
    return kind if kind != "command" else f"command:{job.get('comment_id')}"
