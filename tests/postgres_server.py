"""A throwaway PostgreSQL server for the tests: ``initdb`` into a temporary directory, a free
port on 127.0.0.1, stopped and removed at the end.

The binaries are looked up in ``$GM_POSTGRES_BIN``, then Debian's
``/usr/lib/postgresql/<version>/bin`` (newest first), then ``PATH``. ``initdb`` refuses to
run as root, so as root the server runs as the ``postgres`` user (Debian's package makes
it) through ``runuser``. When no binaries are found the tests that need the server skip,
unless ``GM_TEST_POSTGRES=1`` (set by ``.ci/run`` once it installed PostgreSQL): then they
fail, so CI never passes by leaving PostgreSQL out.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PostgresServer", "find_binaries", "missing_server_user", "postgres_required", "running_server"]


def postgres_required() -> bool:
    """Whether ``GM_TEST_POSTGRES`` asks for the PostgreSQL tests to run, not skip."""
    return os.environ.get("GM_TEST_POSTGRES", "").strip().lower() not in ("", "0", "false", "no")


def find_binaries() -> Path | None:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``, or None."""
    candidates: list[Path] = []
    if os.environ.get("GM_POSTGRES_BIN"):
        candidates.append(Path(os.environ["GM_POSTGRES_BIN"]))

    def version(path: Path) -> tuple[int, ...]:
        digits = path.parent.name.split(".")
        return tuple(int(part) for part in digits if part.isdigit())

    candidates.extend(sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True))
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for directory in candidates:
        if all((directory / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return directory
    return None


def missing_server_user() -> bool:
    """Whether this process is root and there is no ``postgres`` user to run the server as."""
    if os.geteuid() != 0:
        return False
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return True
    return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class PostgresServer:
    """A running server: its superuser ``gm`` connects without a password from 127.0.0.1."""

    port: int
    directory: Path

    @property
    def log(self) -> Path:
        """The server's log file."""
        return self.directory / "server.log"

    def url(self, database: str = "postgres") -> str:
        """A libpq URL for ``database`` on this server."""
        return f"postgresql://gm@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database's URL (each test gets its own)."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _as_server_user(command: list[str]) -> list[str]:
    """``command`` run as ``postgres`` when this process is root (initdb refuses root)."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


@contextmanager
def running_server(
    binaries: Path, *, fsync: bool = False, settings: Mapping[str, str] | None = None
) -> Iterator[PostgresServer]:
    """Start a server from ``binaries`` and stop it (``-m immediate``) on exit.

    ``fsync=False`` for the tests: they kill client processes, never the server, so its
    own crash safety is not under test, and a busy shared machine runs them faster.
    ``settings``: more server settings (``name: value``, as ``postgres -c`` takes them; the
    benchmark logs lock waits and slow statements). The server's log is
    :attr:`PostgresServer.log`.
    """
    directory = Path(tempfile.mkdtemp(prefix="gm-postgres-"))
    if os.geteuid() == 0:
        server_user = pwd.getpwnam("postgres")
        os.chown(directory, server_user.pw_uid, server_user.pw_gid)
    data = directory / "data"
    log = directory / "server.log"
    try:
        subprocess.run(
            _as_server_user(
                [
                    str(binaries / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    "gm",
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
        )
        port = 0
        for _attempt in range(5):
            port = _free_port()
            options = f"-p {port} -k {directory} -c listen_addresses=127.0.0.1"
            if not fsync:
                options += " -c fsync=off"
            for name, value in (settings or {}).items():
                options += f" -c {name}={value}"
            started = subprocess.run(
                _as_server_user(
                    [
                        str(binaries / "pg_ctl"),
                        "-D",
                        str(data),
                        "-l",
                        str(log),
                        "-w",
                        "-t",
                        "60",
                        "-o",
                        options,
                        "start",
                    ]
                ),
                capture_output=True,
            )
            if started.returncode == 0:
                break
        else:
            raise RuntimeError(f"PostgreSQL did not start: {log.read_text(errors='replace')[-2000:]}")
        try:
            yield PostgresServer(port=port, directory=directory)
        finally:
            subprocess.run(
                _as_server_user([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                capture_output=True,
            )
    finally:
        shutil.rmtree(directory, ignore_errors=True)
