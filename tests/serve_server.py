"""``gm serve``'s app on 127.0.0.1 (a free port) for the tests, in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

import uvicorn

from gm_engine.serve.app import create_app
from gm_engine.serve.tables import TableRuntime


@contextmanager
def serving(app: object, *, lifespan: Literal["on", "off"] = "on") -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn on a free port of 127.0.0.1 until the block ends;
    yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    # open event streams end only with their table: the shutdown does not wait for them long
    config = uvicorn.Config(
        app,  # type: ignore[arg-type]
        log_level="warning",
        lifespan=lifespan,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="gm-test-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


@contextmanager
def running_server(runtime: TableRuntime) -> Iterator[str]:
    """Serve ``runtime``'s app until the block ends; yields its base URL. The app starts and
    closes the runtime (its lifespan)."""
    with serving(create_app(runtime)) as base:
        yield base
