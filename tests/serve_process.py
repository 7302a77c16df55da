"""``gm serve`` as a separate process on a free 127.0.0.1 port, for the kill-and-restart tests
and the benchmark: started, waited for, and killed with SIGKILL (nothing of it runs at exit)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.serve_client import ServeClient

__all__ = ["ServeProcess", "free_port", "start_serve"]


def free_port() -> int:
    """A port nobody listens on now (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ServeProcess:
    """A running ``gm serve``."""

    process: subprocess.Popen[bytes]
    client: ServeClient
    log: Path

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.client.base.rsplit(":", 1)[1])

    def kill(self) -> None:
        """``kill -9``: no shutdown, no lease given up, nothing flushed."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        """Ctrl-C, as a person stops it (and SIGKILL if it does not go within 30 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


def start_serve(
    database: str,
    log: Path,
    *,
    environment: dict[str, str] | None = None,
    options: Sequence[str] = (),
    port: int | None = None,
) -> ServeProcess:
    """``gm serve --database DATABASE [OPTIONS]`` on ``port`` (a free one when None: a
    server started again at a killed one's address is given that one's), once it answers
    HTTP.

    Raises:
        RuntimeError: it exited or did not answer within two minutes (its log in the message).
    """
    gm = Path(sys.executable).with_name("gm")
    command = (
        [str(gm)]
        if gm.exists()
        else [sys.executable, "-c", "import sys; from gm_engine.cli import main; sys.exit(main())"]
    )
    for _attempt in range(3 if port is None else 1):  # a free port may be taken before the bind
        chosen = free_port() if port is None else port
        with log.open("ab") as sink:
            process = subprocess.Popen(
                [*command, "serve", "--port", str(chosen), "--database", database, *options],
                stdout=sink,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(environment or {})},
            )
        started = ServeProcess(process, ServeClient(f"http://127.0.0.1:{chosen}"), log)
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            status, _ = started.client.request("GET", "/api/tables")
            if status == 200:
                return started
            time.sleep(0.05)
        started.kill()
    raise RuntimeError(f"gm serve did not start: {log.read_text(errors='replace')[-3000:]}")
