"""Run a WSGI app on a loopback port in a background thread (demo, tests, benchmarks)."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, cast

from werkzeug.serving import ThreadedWSGIServer, make_server

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication


class BackgroundServer:
    def __init__(self, app: WSGIApplication, host: str = "127.0.0.1", port: int = 0):
        self._server = cast(ThreadedWSGIServer, make_server(host, port, app, threaded=True))
        self._server.daemon_threads = True
        self.port = self._server.server_port
        self.url = f"http://{host}:{self.port}"
        # A short poll: `stop()` returns within one interval (the default 0.5 s adds up over a test suite).
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"http-{self.port}", daemon=True)

    def start(self) -> BackgroundServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
