"""`recipe-review hook fix|check …`: the entry points of .pre-commit-hooks.yaml that must outlive
the commands behind them.

`hook fix` runs `recipe-review fix` with the same arguments once that command exists, and until then
`recipe-review check` (the `recipe-review-fix` hook's documented fallback), so the hook file never
has to change when the command lands. `hook check` is `check`.
"""
from __future__ import annotations

import argparse


def cmd_hook(args: argparse.Namespace) -> int:
    from bot import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    target = args.target if args.target in sub.choices and args.target != "hook" else "check"
    ns = parser.parse_args([target, *args.rest])
    rc: int = ns.func(ns)
    return rc


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    h = sub.add_parser("hook", help="pre-commit entry point: `hook fix` runs `fix` once it exists, else `check`",
                       description=__doc__.split("\n\n")[0])
    h.add_argument("target", choices=("fix", "check"))
    h.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for the command (e.g. --base auto)")
    h.set_defaults(func=cmd_hook)
