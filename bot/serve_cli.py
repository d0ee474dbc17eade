"""`recipe-review serve` (gunicorn) and `recipe-review worker` (RQ worker for the bot's queue)."""
from __future__ import annotations

import argparse


def cmd_serve(args) -> int:
    from gunicorn.app.base import BaseApplication

    from bot.app import create_app
    from bot.settings import Settings

    settings = Settings()

    class App(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{args.host}:{args.port}")
            # One process holds the in-process queue in threads mode; request threads stay cheap.
            self.cfg.set("workers", 1 if settings.queue == "threads" else args.workers)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("threads", args.threads)
            self.cfg.set("accesslog", None)
            self.cfg.set("timeout", 30)

        def load(self):
            return create_app(settings)

    App().run()
    return 0


def cmd_worker(args) -> int:
    from bot.rq_mode import run_worker
    from bot.settings import Settings

    return run_worker(Settings(), burst=args.burst, name=args.name)


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("serve", help="run the webhook receiver (gunicorn)",
                       description="Serve POST /webhook, GET /healthz and GET /metrics. Settings come from the "
                                   "environment: GITHUB_API_URL, GITHUB_TOKEN or GITHUB_APP_ID + GITHUB_PRIVATE_KEY"
                                   "[_PATH], WEBHOOK_SECRET, BOT_LOGIN, DRY_RUN, QUEUE=threads|rq, REDIS_URL.")
    s.add_argument("--host", default="0.0.0.0")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--workers", type=int, default=2, help="gunicorn processes (QUEUE=rq only)")
    s.add_argument("--threads", type=int, default=16, help="request threads per process")
    s.set_defaults(func=cmd_serve)
    w = sub.add_parser("worker", help="run an RQ worker for the bot's queue (QUEUE=rq)",
                       description="Process review, label and command jobs from Redis (REDIS_URL).")
    w.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    w.add_argument("--name", help="worker name (default: generated)")
    w.set_defaults(func=cmd_worker)
