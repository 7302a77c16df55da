"""The SQLite :class:`~gm_engine.serve.store.TableStore`: ``gm serve``'s default, one file in
the data directory.

Choices, and why:

* **WAL journal, ``synchronous=FULL``.** With WAL, readers never block the writer and the
  writer never blocks readers, which is what many tables in one process need. ``FULL``
  makes SQLite fsync the WAL at every commit, so a line is on the disk when
  :meth:`SQLiteTableStore.append_lines` returns: it survives a power cut or a kernel
  crash, not only ``kill -9``. ``NORMAL`` would survive ``kill -9`` too (the WAL is in the
  page cache) but may lose the last commits on power loss, and the contract promises
  "durable when it returns"; a line is shown to a player only after it is stored, so
  losing a stored line would unsay what a player saw. The price is one fsync per append
  (``benchmarks/bench_serve.py`` measures it).
* **One connection per thread.** An :mod:`sqlite3` connection must not be used by two
  threads at once; a connection per thread lets WAL readers run side by side, and SQLite
  itself serialises the writers (``BEGIN IMMEDIATE`` takes the write lock up front, so a
  transaction that reads the lease and the line count cannot be overtaken between its
  read and its write). The same holds between processes sharing the file.
* **Lease times are wall-clock seconds** (``time.time()``, injectable for tests). They are
  stored in the file and compared by other processes and by the same server after a
  restart: :func:`time.monotonic` is not comparable between processes (Python promises
  nothing) and restarts at boot, so a lease written before a reboot could look valid for
  days. Every process on one SQLite file is on one machine, so they share one wall clock;
  a step of that clock can only shorten or lengthen one lease, and the line-count check
  in every append keeps a wrong takeover from ever interleaving two writers' lines.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from gm_engine.serve.store import (
    LeaseLost,
    LineConflict,
    SeatGrant,
    StoreError,
    TableRow,
    TableStatus,
)
from gm_engine.serve.store_checks import (
    check_created_at,
    check_holder,
    check_lines,
    check_name,
    check_seat,
    check_status,
    check_table_id,
    check_text,
    check_token_digest,
    check_ttl,
)

__all__ = ["SCHEMA_VERSION", "SQLiteTableStore"]

SCHEMA_VERSION = 1
"""Kept in ``PRAGMA user_version``; a file of another version is refused, not rewritten."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS game_tables (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
    created_at REAL NOT NULL,
    config_json TEXT NOT NULL,
    line_count INTEGER NOT NULL DEFAULT 0,
    lease_holder TEXT,
    lease_expires REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS table_lines (
    table_id TEXT NOT NULL REFERENCES game_tables (table_id),
    line_index INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (table_id, line_index)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS table_secrets (
    table_id TEXT NOT NULL REFERENCES game_tables (table_id),
    name TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (table_id, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seats (
    token_digest TEXT PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES game_tables (table_id),
    seat INTEGER NOT NULL
) WITHOUT ROWID;
"""

_ROW = "table_id, kind, title, status, created_at, config_json, line_count"


def _table_row(row: tuple[object, ...]) -> TableRow:
    table_id, kind, title, status, created_at, config_json, line_count = row
    assert isinstance(table_id, str) and isinstance(kind, str) and isinstance(title, str)
    assert isinstance(status, str) and isinstance(config_json, str)
    assert isinstance(created_at, int | float) and isinstance(line_count, int)
    return TableRow(
        table_id=table_id,
        kind=kind,
        title=title,
        status=check_status(status),
        created_at=float(created_at),
        config_json=config_json,
        line_count=line_count,
    )


class SQLiteTableStore:
    """A :class:`~gm_engine.serve.store.TableStore` in one SQLite file (see the module doc).

    Args:
        path: the database file; created with its schema when missing.
        clock: wall-clock seconds for leases (``time.time``; tests pass a fake clock).
        busy_timeout: seconds a writer waits for another process's write lock before
            SQLite gives up with ``database is locked``.

    Raises:
        StoreError: the file holds another schema version, or cannot use WAL.
    """

    def __init__(
        self, path: Path | str, *, clock: Callable[[], float] = time.time, busy_timeout: float = 30.0
    ) -> None:
        self._path = str(path)
        self._clock = clock
        self._busy_timeout = busy_timeout
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._closed = False
        connection = self._connection()
        mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{self._path}: SQLite refused the WAL journal (journal_mode is {mode})")
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise StoreError(
                    f"{self._path}: table store schema version {version}, this program reads {SCHEMA_VERSION}"
                )
            if version == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # connections and transactions

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError(f"{self._path}: the table store is closed")
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            # isolation_level=None: this class writes BEGIN and COMMIT itself, so that a write
            # transaction starts with BEGIN IMMEDIATE. check_same_thread=False only so that
            # close() may close every thread's connection; each is still used by one thread.
            connection = sqlite3.connect(
                self._path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False
            )
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            self._local.connection = connection
            with self._all_lock:
                self._all.append(connection)
        return connection

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: the write lock taken at BEGIN, so what it reads stays true
        until it commits."""
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one snapshot for every statement in it."""
        db = self._connection()
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    def _require_table(self, db: sqlite3.Connection, table_id: str) -> tuple[str, int, str | None, float]:
        """The table's status, line count, lease holder and lease expiry, or a refusal."""
        row = db.execute(
            "SELECT status, line_count, lease_holder, lease_expires FROM game_tables WHERE table_id = ?",
            (table_id,),
        ).fetchone()
        if row is None:
            raise StoreError(f"no table {table_id!r}")
        status, line_count, holder, expires = row
        return str(status), int(line_count), holder, float(expires)

    def _require_lease(self, db: sqlite3.Connection, table_id: str, holder: str) -> tuple[str, int]:
        """The table's status and line count when ``holder``'s lease on it is unexpired."""
        status, line_count, current, expires = self._require_table(db, table_id)
        if current != holder or expires <= self._clock():
            raise LeaseLost(f"{holder!r} does not hold the lease of table {table_id!r}")
        return status, line_count

    # tables

    def create_table(
        self, table_id: str, kind: str, title: str, config_json: str, created_at: float
    ) -> TableRow:
        """File a new running table with no lines (see :class:`~gm_engine.serve.store.TableStore`).

        Raises:
            StoreError: ``table_id`` is taken, or an argument is empty.
        """
        check_table_id(table_id)
        check_name("a table kind", kind)
        check_text("a table title", title)
        check_text("a table's options", config_json)
        created = check_created_at(created_at)
        try:
            with self._write() as db:
                db.execute(
                    "INSERT INTO game_tables (table_id, kind, title, status, created_at, config_json)"
                    " VALUES (?, ?, ?, 'running', ?, ?)",
                    (table_id, kind, title, created, config_json),
                )
        except sqlite3.IntegrityError:
            raise StoreError(f"table {table_id!r} exists already") from None
        return TableRow(table_id, kind, title, "running", float(created_at), config_json, 0)

    def get_table(self, table_id: str) -> TableRow | None:
        """The table, or None when there is none with that id."""
        row = (
            self._connection()
            .execute(f"SELECT {_ROW} FROM game_tables WHERE table_id = ?", (table_id,))
            .fetchone()
        )
        return None if row is None else _table_row(row)

    def list_tables(self, status: TableStatus | None = None) -> list[TableRow]:
        """Every table (of ``status`` when given), oldest first."""
        db = self._connection()
        if status is None:
            rows = db.execute(f"SELECT {_ROW} FROM game_tables ORDER BY created_at, seq").fetchall()
        else:
            rows = db.execute(
                f"SELECT {_ROW} FROM game_tables WHERE status = ? ORDER BY created_at, seq",
                (check_status(status),),
            ).fetchall()
        return [_table_row(row) for row in rows]

    def set_status(self, table_id: str, status: TableStatus, *, holder: str) -> None:
        """Mark the table ``status``.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
            StoreError: no such table, or an unknown status.
        """
        checked = check_status(status)
        with self._write() as db:
            self._require_lease(db, table_id, holder)
            db.execute("UPDATE game_tables SET status = ? WHERE table_id = ?", (checked, table_id))

    # lines

    def append_lines(self, table_id: str, first_index: int, lines: Sequence[str], *, holder: str) -> None:
        """Append ``lines`` at ``first_index`` in one transaction, on the disk when it returns.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
            LineConflict: the table does not have exactly ``first_index`` lines.
            StoreError: no such table, the table is no longer running, or a line is not one
                line of text.
        """
        checked = check_lines(first_index, lines)
        with self._write() as db:
            status, line_count = self._require_lease(db, table_id, holder)
            if status != "running":
                raise StoreError(f"table {table_id!r} is {status}: no more lines")
            if line_count != first_index:
                raise LineConflict(
                    f"table {table_id!r} has {line_count} lines; lines cannot go at index {first_index}"
                )
            db.executemany(
                "INSERT INTO table_lines (table_id, line_index, line) VALUES (?, ?, ?)",
                [(table_id, first_index + offset, line) for offset, line in enumerate(checked)],
            )
            db.execute(
                "UPDATE game_tables SET line_count = ? WHERE table_id = ?",
                (first_index + len(checked), table_id),
            )

    def read_lines(self, table_id: str) -> list[str]:
        """All of the table's lines, in order.

        Raises:
            StoreError: there is no such table.
        """
        with self._read() as db:
            self._require_table(db, table_id)
            rows = db.execute(
                "SELECT line FROM table_lines WHERE table_id = ? ORDER BY line_index", (table_id,)
            ).fetchall()
        return [str(row[0]) for row in rows]

    # secrets and seats

    def put_secret(self, table_id: str, name: str, value: bytes) -> None:
        """Keep (or replace) a secret of the table.

        Raises:
            StoreError: no such table, an empty name, or a value that is not bytes.
        """
        check_name("a secret's name", name)
        if not isinstance(value, bytes):
            raise StoreError(f"a secret is bytes, not {type(value).__name__}")
        with self._write() as db:
            self._require_table(db, table_id)
            db.execute(
                "INSERT INTO table_secrets (table_id, name, value) VALUES (?, ?, ?)"
                " ON CONFLICT (table_id, name) DO UPDATE SET value = excluded.value",
                (table_id, name, value),
            )

    def get_secret(self, table_id: str, name: str) -> bytes | None:
        """The secret kept under ``name``, or None."""
        row = (
            self._connection()
            .execute("SELECT value FROM table_secrets WHERE table_id = ? AND name = ?", (table_id, name))
            .fetchone()
        )
        return None if row is None else bytes(row[0])

    def add_seat(self, table_id: str, seat: int, token_digest: str) -> None:
        """Grant ``seat`` to the token whose SHA-256 hex digest is ``token_digest``.

        Raises:
            StoreError: the digest is already granted, no such table, or a malformed digest
                or seat.
        """
        check_seat(seat)
        check_token_digest(token_digest)
        try:
            with self._write() as db:
                self._require_table(db, table_id)
                db.execute(
                    "INSERT INTO seats (token_digest, table_id, seat) VALUES (?, ?, ?)",
                    (token_digest, table_id, seat),
                )
        except sqlite3.IntegrityError:
            raise StoreError("that seat token is already granted") from None

    def find_seat(self, token_digest: str) -> SeatGrant | None:
        """The seat a token's digest opens, or None."""
        row = (
            self._connection()
            .execute("SELECT table_id, seat FROM seats WHERE token_digest = ?", (token_digest,))
            .fetchone()
        )
        return None if row is None else SeatGrant(table_id=str(row[0]), seat=int(row[1]))

    # leases

    def acquire_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Take the lease for ``ttl_seconds`` if it is free, expired or ``holder``'s.

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        with self._write() as db:
            self._require_table(db, table_id)
            now = self._clock()
            taken = db.execute(
                "UPDATE game_tables SET lease_holder = ?, lease_expires = ?"
                " WHERE table_id = ? AND (lease_holder IS NULL OR lease_expires <= ? OR lease_holder = ?)",
                (holder, now + ttl_seconds, table_id, now, holder),
            ).rowcount
        return taken == 1

    def renew_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Extend ``holder``'s unexpired lease to ``ttl_seconds`` from now; False when it has
        expired (even if nobody took it: then :meth:`acquire_lease` may take it again).

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        with self._write() as db:
            self._require_table(db, table_id)
            now = self._clock()
            renewed = db.execute(
                "UPDATE game_tables SET lease_expires = ?"
                " WHERE table_id = ? AND lease_holder = ? AND lease_expires > ?",
                (now + ttl_seconds, table_id, holder, now),
            ).rowcount
        return renewed == 1

    def release_lease(self, table_id: str, holder: str) -> None:
        """Give the lease up (nothing happens if ``holder`` does not hold it)."""
        with self._write() as db:
            db.execute(
                "UPDATE game_tables SET lease_holder = NULL, lease_expires = 0"
                " WHERE table_id = ? AND lease_holder = ?",
                (table_id, holder),
            )

    def claimable_tables(self, holder: str) -> list[str]:
        """Ids of running tables whose lease is free, expired or ``holder``'s, oldest first."""
        rows = (
            self._connection()
            .execute(
                "SELECT table_id FROM game_tables WHERE status = 'running'"
                " AND (lease_holder IS NULL OR lease_expires <= ? OR lease_holder = ?)"
                " ORDER BY created_at, seq",
                (self._clock(), holder),
            )
            .fetchall()
        )
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        """Close every thread's connection; the store refuses calls afterwards."""
        self._closed = True
        with self._all_lock:
            connections, self._all = self._all, []
        for connection in connections:
            connection.close()
