"""`recipe-review serve` (gunicorn) and `recipe-review worker` (RQ worker for the bot's queue).

Both check their settings before anything listens or connects, and refuse to start half-configured
(exit 2, every problem named in one message): `serve` needs WEBHOOK_SECRET and credentials, `worker`
the credentials (bot/settings.py, `startup_problems`). app.env.example lists every setting.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from flask import Flask

    from bot.settings import Settings


class _Help(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Flag defaults after each flag, and the settings epilog as written."""


def settings_epilog() -> str:
    """Every environment setting with its default (what `--help` shows)."""
    from bot.settings import PROBOT_ALIASES, Settings

    aliases = {v: k for k, v in PROBOT_ALIASES.items()}
    rows = []
    for field, info in Settings.model_fields.items():
        name = field.upper()
        default = info.default
        shown = "(unset)" if default is None or (hasattr(default, "get_secret_value") and
                                                 not default.get_secret_value()) else str(default)
        also = f" (or {aliases[name]})" if name in aliases else ""
        rows.append(f"  {name + also:<46} default: {shown}")
    return ("environment (see app.env.example; a setting missing or broken stops the start, exit 2):\n"
            + "\n".join(rows))


def environment(env_file: str | None) -> dict[str, str]:
    """The process environment over the settings of `--env-file` (dotenv syntax, as app.env is written)."""
    import os

    from bot.cli import UsageError

    if not env_file:
        return dict(os.environ)
    from dotenv import dotenv_values

    path = Path(env_file)
    if not path.is_file():
        raise UsageError(f"--env-file {env_file}: no such file")
    try:
        values = dotenv_values(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"--env-file {env_file} cannot be read: {err}") from err
    return {**{k: v for k, v in values.items() if v is not None}, **os.environ}


def _load(role: Literal["serve", "worker"], env_file: str | None = None) -> Settings:
    import os

    from bot.cli import UsageError
    from bot.settings import ConfigurationError, load_for

    env = environment(env_file)
    try:
        settings = load_for(role, env)
    except ConfigurationError as err:
        raise UsageError(f"{err}\n(app.env.example lists every setting; `recipe-review {role} --help` the defaults)") \
            from None
    # What other parts read from the environment later (RQ tuning, a worker's jobs) sees the file too.
    for k, v in env.items():
        os.environ.setdefault(k, v)
    return settings


def cmd_serve(args: argparse.Namespace) -> int:
    from gunicorn.app.base import BaseApplication

    from bot.app import create_app

    settings = _load("serve", args.env_file)

    class App(BaseApplication):  # type: ignore[misc]  # gunicorn ships no types: its base class is Any
        def load_config(self) -> None:
            self.cfg.set("bind", f"{args.host}:{args.port}")
            # One process holds the in-process queue in threads mode; request threads stay cheap.
            self.cfg.set("workers", 1 if settings.queue == "threads" else args.workers)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("threads", args.threads)
            self.cfg.set("accesslog", None)
            self.cfg.set("timeout", 30)

        def load(self) -> Flask:
            return create_app(settings)

    App().run()
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    settings = _load("worker", args.env_file)
    from bot.rq_mode import run_worker

    return run_worker(settings, burst=args.burst, name=args.name)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("serve", help="run the webhook receiver (gunicorn)",
                       description="Serve POST /webhook, GET /healthz and GET /metrics. Settings come from the "
                                   "environment: GITHUB_API_URL, GITHUB_TOKEN or GITHUB_APP_ID + GITHUB_PRIVATE_KEY"
                                   "[_PATH], WEBHOOK_SECRET, BOT_LOGIN, DRY_RUN, QUEUE=threads|rq, REDIS_URL. It "
                                   "refuses to start without WEBHOOK_SECRET or credentials.",
                       epilog=settings_epilog(), formatter_class=_Help)
    s.add_argument("--host", default="0.0.0.0", help="address to listen on")
    s.add_argument("--port", type=int, default=8000, help="TCP port")
    s.add_argument("--workers", type=int, default=2, help="gunicorn processes (QUEUE=rq only)")
    s.add_argument("--threads", type=int, default=16, help="request threads per process")
    s.add_argument("--env-file", metavar="PATH", help="read settings from this file too (app.env, as `register` "
                   "writes it); the environment wins")
    s.set_defaults(func=cmd_serve)
    w = sub.add_parser("worker", help="run an RQ worker for the bot's queue (QUEUE=rq)",
                       description="Process review, label and command jobs from Redis (REDIS_URL). It refuses to "
                                   "start without credentials (no webhook secret is needed).",
                       epilog=settings_epilog(), formatter_class=_Help)
    w.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    w.add_argument("--name", help="worker name (generated when not given)")
    w.add_argument("--env-file", metavar="PATH", help="read settings from this file too; the environment wins")
    w.set_defaults(func=cmd_worker)
