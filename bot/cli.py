"""`recipe-review` command line: check a git range locally, run the bot, its worker, the demo and
the fake GitHub server.

Exit codes of `check`: 0 no blocking finding, 1 at least one blocking finding, 2 usage or
operational error (message on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_OK, EXIT_BLOCKING, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or unusable input: exit 2 with the message."""


def _load_repo_config(raw: bytes | None):
    from rules import load_config
    from rules.document import parse_yaml

    if raw is None:
        return load_config(None)
    doc = parse_yaml(".github/recipe-review.yml", raw)
    if not doc.ok:
        config, _ = load_config(None)
        return config, [f"config: .github/recipe-review.yml does not parse: {doc.error.message}"]
    return load_config(doc.data)


def cmd_check(args) -> int:
    from bot import output
    from rules.changeset import ChangeSet
    from rules.engine import run

    if args.changes:
        if args.base or args.head:
            raise UsageError("--changes cannot be combined with --base/--head")
        try:
            record = json.loads(Path(args.changes).read_text(encoding="utf-8"))
        except OSError as err:
            raise UsageError(f"cannot read {args.changes}: {err.strerror}") from err
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise UsageError(f"{args.changes} is not valid JSON: {err}") from err
        try:
            changeset = ChangeSet.from_record(record, pr_number=args.pr_number)
        except ValueError as err:
            raise UsageError(str(err)) from err
        config, config_errors = _load_repo_config(
            (record.get("config") or "").encode() if isinstance(record.get("config"), str) else None)
    else:
        from bot.localgit import GitError, changeset_from_git, config_at

        if not args.base:
            raise UsageError("give --base REV (and optionally --head REV), or --changes FILE")
        repo = Path(args.repo)
        try:
            config, config_errors = _load_repo_config(config_at(repo, args.base))
            changeset = changeset_from_git(repo, args.base, args.head or "HEAD", args.pr_number,
                                           config=config)
        except GitError as err:
            raise UsageError(str(err)) from err
    report = run(changeset, config)
    if args.format == "json":
        out = report.to_dict()
        if config_errors:
            out["config_errors"] = config_errors
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    elif args.format == "github":
        sys.stdout.write(output.as_github(report, config_errors))
    else:
        sys.stdout.write(output.as_text(report, config_errors))
    return EXIT_BLOCKING if report.blocking else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="recipe-review", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("check", help="review a local git range (or a replay JSON file) and print findings",
                       description="Run the review rules on merge-base(BASE, HEAD)..HEAD, as GitHub diffs a PR. "
                                   "Exit 0: no blocking finding; 1: blocking findings; 2: usage or operational error.")
    c.add_argument("--repo", default=".", help="git repository (default: current directory)")
    c.add_argument("--base", help="base revision, e.g. origin/main")
    c.add_argument("--head", help="head revision (default HEAD)")
    c.add_argument("--pr-number", type=int, help="the PR number, to check the changelog pr-link")
    c.add_argument("--changes", metavar="FILE", help="read the changeset from a replay JSON file instead of git")
    c.add_argument("--format", choices=("text", "json", "github"), default="text")
    c.set_defaults(func=cmd_check)
    for register in _EXTRA_COMMANDS:
        register(sub)
    return p


# Sub-commands defined in other modules register themselves here (serve, worker, demo, fake-github).
_EXTRA_COMMANDS: list = []


def _register_extras() -> None:
    import importlib

    if _EXTRA_COMMANDS:  # main() may run more than once in a process (tests)
        return
    for mod in ("bot.serve_cli", "fakegithub.cli", "bot.demo", "bot.docs"):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as err:
            if err.name != mod:
                raise
            continue
        _EXTRA_COMMANDS.append(m.register)


def main(argv: list[str] | None = None) -> int:
    _register_extras()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UsageError as err:
        print(f"recipe-review: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
