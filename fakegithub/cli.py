"""`recipe-review fake-github`: serve the fake GitHub on a local git repository until interrupted.

    recipe-review fake-github --repo-dir ./bench --repo octo/bench --port 8765 \\
        --pr 7:main..feature --pr-author 7:dana --pr-label 7:sweep-enabled --collaborator alice:admin

The first line on stdout is the base URL (point the bot's GitHub API URL at it); a summary of
the scene goes to stderr. SIGINT or SIGTERM stops the server (exit 0).
"""
from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
from pathlib import Path

_PR = re.compile(r"^(\d+):(.+?)\.\.(?!\.)(.+)$")
_PAIR = re.compile(r"^(\d+):(.+)$")


class UsageError(Exception):
    """Bad arguments: the command prints `recipe-review: error: MESSAGE` and exits 2, as every
    `recipe-review` command does (the fake GitHub does not import the bot)."""


def _usage(message: str) -> Exception:
    return UsageError(message)


def _pairs(values: list[str], flag: str) -> list[tuple[int, str]]:
    out = []
    for v in values or ():
        m = _PAIR.match(v)
        if not m:
            raise _usage(f"{flag} expects N:VALUE, got {v!r}")
        out.append((int(m.group(1)), m.group(2)))
    return out


def cmd_fake_github(args) -> int:
    try:
        return _serve(args)
    except UsageError as err:
        print(f"recipe-review: error: {err}", file=sys.stderr)
        return 2


def _serve(args) -> int:  # noqa: C901 (validates each command-line option in turn, then serves)
    from fakegithub import FakeGitHub

    repo_dir = Path(args.repo_dir)
    if not (repo_dir / ".git").exists() and not (repo_dir / "HEAD").exists():
        raise _usage(f"{repo_dir} is not a git repository")
    if not re.fullmatch(r"[^/\s]+/[^/\s]+", args.repo):
        raise _usage(f"--repo expects OWNER/NAME, got {args.repo!r}")
    collaborators = {}
    for v in args.collaborator or ():
        login, sep, perm = v.rpartition(":")
        if not sep or not login:
            raise _usage(f"--collaborator expects LOGIN:PERMISSION, got {v!r}")
        collaborators[login] = perm
    prs = []
    for v in args.pr or ():
        m = _PR.match(v)
        if not m:
            raise _usage(f"--pr expects N:BASE..HEAD, got {v!r}")
        prs.append((int(m.group(1)), m.group(2), m.group(3)))
    authors = dict(_pairs(args.pr_author, "--pr-author"))
    labels: dict[int, list[str]] = {}
    for n, label in _pairs(args.pr_label, "--pr-label"):
        labels.setdefault(n, []).append(label)
    unknown = (set(authors) | set(labels)) - {n for n, _, _ in prs}
    if unknown:
        raise _usage(f"--pr-author/--pr-label name PRs not given with --pr: {sorted(unknown)}")
    try:
        contract = None
        if args.contract:
            from fakegithub import contract as contracts

            if not Path(args.contract).is_dir():
                raise _usage(f"--contract expects a directory holding GitHub's API descriptions, got {args.contract}")
            try:
                import openapi_schema_validator  # noqa: F401
            except ModuleNotFoundError:
                raise _usage("--contract needs the `contract` extra: pip install 'recipe-review[contract]'") from None
            contract = contracts.load(Path(args.contract))
        fake = FakeGitHub(repo_dir, repo=args.repo, fault_rate=args.fault_rate, fault_seed=args.fault_seed,
                          collaborators=collaborators, default_branch=args.default_branch, contract=contract)
        for n, base, head in prs:
            fake.add_pr(n, base, head, author=authors.get(n, "contributor"), labels=tuple(labels.get(n, ())))
    except ValueError as err:
        raise _usage(str(err)) from err
    try:
        url = fake.start(port=args.port, host=args.host)
    except OSError as err:
        raise _usage(f"cannot listen on {args.host}:{args.port}: {err.strerror}") from err
    stop = threading.Event()

    def _stop(signum, frame):
        stop.set()

    previous = {s: signal.signal(s, _stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        print(url, flush=True)
        print(f"fake GitHub serving {args.repo} from {repo_dir} at {url} "
              f"({len(prs)} PR(s); state at {url}/_fake/state)", file=sys.stderr, flush=True)
        while not stop.wait(0.2):
            pass
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        fake.stop()
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "fake-github", help="serve the built-in fake GitHub (REST + GraphQL) on a local git repository",
        description=__doc__.split("\n\n")[0] + " The first stdout line is the base URL.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=0, help="TCP port (default 0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--repo", default="octo/bench", metavar="OWNER/NAME", help="repository name to serve")
    p.add_argument("--repo-dir", required=True, metavar="DIR", help="the git repository backing it")
    p.add_argument("--default-branch", default="main", help="default branch (default main)")
    p.add_argument("--pr", action="append", metavar="N:BASE..HEAD", help="open PR N from HEAD into BASE")
    p.add_argument("--pr-author", action="append", metavar="N:LOGIN", help="author of PR N")
    p.add_argument("--pr-label", action="append", metavar="N:LABEL", help="a label on PR N (repeatable)")
    p.add_argument("--collaborator", action="append", metavar="LOGIN:PERMISSION",
                   help="admin|maintain|write|triage|read|none (anyone else: read)")
    p.add_argument("--fault-rate", type=float, default=0.0, help="share of API requests to fail or slow down")
    p.add_argument("--fault-seed", type=int, default=None, help="seed for reproducible faults")
    p.add_argument("--contract", metavar="DIR", default=None,
                   help="enforce GitHub's published API descriptions in DIR (graphql-schema.graphql[.xz], "
                        "rest-openapi.json[.xz]): REST request bodies and GraphQL documents are validated")
    p.set_defaults(func=cmd_fake_github)
