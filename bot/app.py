"""Flask app factory: the webhook blueprint, /healthz and /metrics."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from flask import Flask, Response, jsonify
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from werkzeug.exceptions import HTTPException

from bot import __version__, logs
from bot.handlers import router as default_router
from bot.jobs import Deps, execute
from bot.queue import JobQueue, ThreadQueue
from bot.routing import Router
from bot.settings import Settings
from bot.store import DeliveryStore, SqliteStore
from bot.webhook import bp

log = logging.getLogger(__name__)


@dataclass
class Bot:
    settings: Settings
    router: Router
    store: DeliveryStore
    queue: JobQueue
    deps: Deps | None = None


def build_bot(settings: Settings, deps: Deps | None = None) -> Bot:
    """Wire store, queue and job runner for the configured mode."""
    if settings.queue == "rq":
        from bot.rq_mode import RQQueue, redis_store

        return Bot(settings, default_router, redis_store(settings), RQQueue(settings), None)
    store: DeliveryStore = SqliteStore(settings.store_path)
    holder: dict[str, Deps] = {}
    deps = deps or Deps.from_settings(settings)
    queue = ThreadQueue(lambda job: execute(job, holder["deps"]), workers=settings.worker_threads)
    deps.submit = queue.submit
    deps.store = deps.store or store
    holder["deps"] = deps
    return Bot(settings, default_router, store, queue, deps)


def create_app(settings: Settings | None = None, bot: Bot | None = None) -> Flask:
    settings = settings or (bot.settings if bot else Settings())
    logs.configure(settings.log_level)
    bot = bot or build_bot(settings)
    app = Flask("recipe-review")
    app.config["MAX_CONTENT_LENGTH"] = None  # the webhook enforces its own limit (413) on the raw stream
    app.extensions["recipe_review"] = bot
    app.register_blueprint(bp)

    @app.get("/healthz")
    def healthz() -> Response:
        return jsonify({"ok": True, "version": __version__, "queue": settings.queue, "depth": bot.queue.depth()})

    @app.get("/metrics")
    def metrics_view() -> Response:
        return Response(generate_latest(), mimetype=CONTENT_TYPE_LATEST)

    # A bug answers 500 and is logged; the process lives on.
    @app.errorhandler(Exception)
    def crash(err: Exception) -> HTTPException | tuple[Response, int]:
        if isinstance(err, HTTPException):
            return err
        log.exception("unhandled error in request")
        return jsonify({"outcome": "error"}), 500

    return app
