"""`recipe-review` command line: check a git range locally, run the bot, its worker, the GitHub Action
step, the pre-commit hooks, the demo and the fake GitHub server.

Exit codes of `check`: 0 no blocking finding, 1 at least one blocking finding, 2 usage or
operational error (message on stderr). `fix` exits 0 when no blocking finding is left after the
fix, 1 when blocking findings remain that need a person, 2 on errors; it never commits.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.fix import FixResult
    from rules.selection import Selection

from bot import __version__, output

EXIT_OK, EXIT_BLOCKING, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or unusable input: exit 2 with the message."""


def cmd_check(args: argparse.Namespace) -> int:
    from rules.changeset import ChangeSet
    from rules.runner import run

    selection = selection_of(args)
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
        from rules import load_repo_config

        config, config_errors = load_repo_config(
            (record.get("config") or "").encode() if isinstance(record.get("config"), str) else None)
    else:
        from bot.localgit import GitError, gather_from_git

        if not args.base:
            raise UsageError("give --base REV (and optionally --head REV), or --changes FILE")
        repo = Path(args.repo)
        if args.base == "auto":
            args.base = upstream_default_branch(repo)
        try:
            from bot.localgit import github_repo_of

            name = args.github_repo or github_repo_of(repo)
            got = gather_from_git(repo, args.base, args.head or "HEAD", args.pr_number, repo_name=name)
            changeset, config, config_errors = got.changeset, got.config, got.config_errors
        except GitError as err:
            raise UsageError(str(err)) from err
    if getattr(args, "title", None) is not None:
        changeset = dataclasses.replace(changeset, title=args.title)
    report = run(changeset, config, rules=selection.rules, force=selection.force)
    if args.format == "json":
        out: dict[str, Any] = dict(report.to_dict())
        if config_errors:
            out["config_errors"] = config_errors
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    elif args.format == "github":
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            write_step_summary(summary, output.step_summary(report, config_errors, quiet=args.quiet))
        sys.stdout.write(output.as_github(report, config_errors, summary=bool(summary)))
    elif args.format == "sarif":
        sys.stdout.write(json.dumps(output.as_sarif(report, config, config_errors, selection.rules, selection.force),
                                    ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(output.as_text(report, config_errors, quiet=args.quiet,
                                        color=output.use_color(sys.stdout, os.environ)))
    return EXIT_BLOCKING if report.blocking else EXIT_OK


# GitHub refuses a step summary above 1 MiB (and then shows none): keep well inside it.
STEP_SUMMARY_MAX = 1_000_000


def write_step_summary(path: str, markdown: str) -> None:
    """Append the Markdown to the job summary file (GITHUB_STEP_SUMMARY), clipped to GitHub's limit."""
    data = markdown.encode("utf-8")
    if len(data) > STEP_SUMMARY_MAX:
        note = "\n\n… clipped at GitHub's job-summary limit; `recipe-review check --format json` lists everything.\n"
        data = data[:STEP_SUMMARY_MAX - len(note.encode())].decode("utf-8", "ignore").encode() + note.encode()
    try:
        with open(path, "ab") as fh:
            fh.write(data)
    except OSError as err:
        raise UsageError(f"cannot write GITHUB_STEP_SUMMARY {path}: {err.strerror}") from err


def selection_of(args: argparse.Namespace) -> Selection:
    """The rules of this run from --select/--ignore (and fix's --only), or a UsageError."""
    from rules.registry import ALL_RULES
    from rules.selection import select_rules

    select = getattr(args, "select", None)
    only = getattr(args, "only", None)
    if only is not None:
        if select is not None:
            raise UsageError("--only is another name for --select: give one of them")
        select = only
    try:
        return select_rules(ALL_RULES, select, getattr(args, "ignore", None))
    except ValueError as err:
        raise UsageError(str(err).replace("--select", "--only", 1) if only is not None else str(err)) from err


def upstream_default_branch(repo: Path) -> str:
    """`--base auto`: the default branch of the remote being pushed to (pre-commit's pre-push sets
    PRE_COMMIT_REMOTE_NAME), else `origin`'s (its `HEAD`), else the first of origin/main, origin/master,
    main, master that exists."""
    import os
    import subprocess

    from bot.localgit import GitError, resolve

    remote = os.environ.get("PRE_COMMIT_REMOTE_NAME") or "origin"
    proc = subprocess.run(["git", "-C", str(repo), "symbolic-ref", "--quiet", "--short", f"refs/remotes/{remote}/HEAD"],
                          capture_output=True, text=True)
    candidates = [proc.stdout.strip()] if proc.returncode == 0 and proc.stdout.strip() else []
    candidates += [f"{remote}/main", f"{remote}/master", "origin/main", "origin/master", "main", "master"]
    for rev in dict.fromkeys(candidates):
        try:
            resolve(repo, rev)
            return rev
        except GitError:
            continue
    raise UsageError(f"--base auto: no default branch found for remote `{remote}` (no {remote}/HEAD, "
                     f"{remote}/main or {remote}/master); give --base REV")


def cmd_fix(args: argparse.Namespace) -> int:
    import dataclasses

    from bot.localgit import GitError, gather_from_worktree, worktree_root
    from rules.fix import plan_fix, with_repo

    selection = selection_of(args)
    repo = Path(args.repo)
    if args.base == "auto":  # the pre-commit hook's `recipe-review hook fix --base auto`
        args.base = upstream_default_branch(repo)
    try:
        got = gather_from_worktree(repo, args.base, args.pr_number)
        changeset, config, config_errors = got.changeset, got.config, got.config_errors
        top = worktree_root(repo)
    except GitError as err:
        raise UsageError(str(err)) from err
    # Every configured rule (and the selected ones) re-checks the repair, so a fix of one rule that
    # breaks another is still withdrawn; what is fixed and reported is the selection alone.
    codes = set(selection.codes) if selection.codes is not None else None
    result = plan_fix(with_repo(changeset, config), config, codes, force=selection.force)
    if selection.codes is not None:
        result = dataclasses.replace(result, remaining=[f for f in result.remaining if selection.wants(f.code)])
    report = sys.stderr if args.dry_run else sys.stdout
    for problem in config_errors:
        report.write(f"config: {problem} (defaults used)\n")
    if args.dry_run:
        sys.stdout.buffer.write(result.diff().encode("utf-8", "surrogateescape"))
        sys.stdout.flush()
    else:
        for f in result.files:
            try:
                (top / f.path).write_bytes(f.new)
            except OSError as err:
                raise UsageError(f"cannot write {f.path}: {err.strerror}") from err
    report.write(fix_summary(result, dry_run=args.dry_run))
    if args.dry_run:  # ruff's --diff: 1 when there is something to do, a rewrite or a person's fix
        return EXIT_BLOCKING if result.files or result.blocking_left else EXIT_OK
    return EXIT_BLOCKING if result.blocking_left else EXIT_OK


def fix_summary(result: FixResult, dry_run: bool = False) -> str:
    """What `fix` changed (or would change), what it refused, and what needs a person."""
    out = []
    verb = "would fix" if dry_run else "fixed"
    for f in result.files:
        out.append(f"{verb} {f.path}:")
        out.extend(f"  - {c}" for c in f.changes)
    if result.fixed:
        out.append("resolves: " + "; ".join(result.fixed_summary()))
    for path, why in result.refused:
        out.append(f"not fixed automatically: {path}: {why}")
    if result.remaining:
        out.append("not fixable automatically (needs a person):")
        for finding in result.remaining:
            where = f"{finding.path}:{finding.line}" if finding.line else (finding.path or "(changeset)")
            out.append(f"  {where}: {output.MARK[finding.severity.value]} {finding.code} {finding.name}: "
                       f"{finding.message}")
    if not result.files:
        out.append("nothing to fix automatically")
    n = len(result.files)
    blocking = len(result.blocking_left)
    out.append(f"{n} file{'s' if n != 1 else ''} {'to rewrite' if dry_run else 'rewritten'}; {blocking} blocking "
               f"finding{'s' if blocking != 1 else ''} left, {len(result.remaining) - blocking} nit(s); "
               "nothing was committed")
    return "\n".join(out) + "\n"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="recipe-review", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action="version", version=f"recipe-review {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("check", help="review a local git range (or a replay JSON file) and print findings",
                       description="Run the review rules on merge-base(BASE, HEAD)..HEAD, as GitHub diffs a PR. "
                                   "Exit 0: no blocking finding; 1: blocking findings; 2: usage or operational error.")
    c.add_argument("--repo", default=".", help="git repository (default: current directory)")
    c.add_argument("--base", help="base revision, e.g. origin/main; `auto`: the upstream's default branch")
    c.add_argument("--head", help="head revision (default HEAD)")
    c.add_argument("--pr-number", type=int, help="the PR number, to check the changelog pr-link")
    c.add_argument("--title", metavar="TEXT", help="the PR title, as the App reads it from the pull request "
                                                   "(a `Revert ...` title marks a maintainer revert)")
    c.add_argument("--github-repo", metavar="OWNER/NAME",
                   help="the GitHub repository the PR belongs to, as the App knows it (the canonical pr-link); "
                        "default: from the `origin` remote when it is a GitHub URL")
    c.add_argument("--changes", metavar="FILE", help="read the changeset from a replay JSON file instead of git")
    c.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                   help="text; json (one object, a contract); github (workflow annotations); "
                        "sarif (SARIF 2.1.0 for code scanning)")
    _selection_args(c)
    c.add_argument("-q", "--quiet", action="store_true",
                   help="findings and the count line only: no passed or skipped checks (text, job summary)")
    c.set_defaults(func=cmd_check)

    f = sub.add_parser("fix", help="rewrite the working tree so that every finding with a computable fix is fixed",
                       description="Review merge-base(BASE, HEAD)..the working tree of DIR and rewrite its files so "
                                   "that every finding with a computable fix is fixed: the changelog rebuilt as the "
                                   "base bytes plus this PR's entries appended, and every safe suggestion applied. "
                                   "Prints what changed (a unified diff with --dry-run, the summary then goes to "
                                   "stderr) and never commits. Exit 0: no blocking finding left; 1: blocking findings "
                                   "remain that need a person; 2: usage or operational error.")
    f.add_argument("--repo", default=".", metavar="DIR", help="a git checkout, not a bare repository (default: .)")
    f.add_argument("--base", required=True, metavar="REV",
                   help="base revision, e.g. origin/main; `auto`: the upstream's default branch")
    f.add_argument("--pr-number", type=int, metavar="N", help="the PR number: new entries get its canonical pr-link")
    f.add_argument("--dry-run", action="store_true",
                   help="print the unified diff and write nothing; exit 1 when a file would be rewritten "
                        "or a blocking finding is left, 0 only when there is nothing to do")
    _selection_args(f)
    f.add_argument("--only", metavar="RULES", help="another name for --select")
    f.set_defaults(func=cmd_fix)
    for register in _EXTRA_COMMANDS:
        register(sub)
    return p


def _selection_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--select", metavar="RULES",
                   help="run only these rules: comma-separated codes, names or code prefixes (RR4 = every RR4xx); "
                        "chosen from every rule, also those the repository config disables")
    p.add_argument("--ignore", metavar="RULES", help="leave these rules out (same forms as --select)")


# Sub-commands defined in other modules register themselves here (serve, worker, demo, fake-github).
_EXTRA_COMMANDS: list[Callable[[Any], None]] = []


def _register_extras() -> None:
    import importlib

    if _EXTRA_COMMANDS:  # main() may run more than once in a process (tests)
        return
    for mod in ("bot.serve_cli", "bot.register", "fakegithub.cli", "bot.demo", "bot.docs", "bot.action", "bot.hooks",
                "bot.new_rule"):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as err:
            # Optional only when the module itself (or its package: `fakegithub` for
            # `fakegithub.cli`) is not installed; a missing dependency inside it is a real error.
            if err.name != mod and not mod.startswith(f"{err.name}."):
                raise
            continue
        _EXTRA_COMMANDS.append(m.register)


def main(argv: list[str] | None = None) -> int:
    _register_extras()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as err:
        print(f"recipe-review: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `recipe-review rule --all | head`: the reader left, nothing is wrong
        sys.stderr.close()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    # Through the importable module, so that `bot.cli.UsageError` raised by other modules is the
    # class caught here (under `python -m bot.cli` this file is also `__main__`).
    from bot.cli import main as _main

    sys.exit(_main())
