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
  losing a stored line would unsay what a player saw. The price is a fsync per commit,
  shared by every append of the commit (below; ``benchmarks/bench_serve.py`` measures it).
* **Group commit: one writer thread.** Every write (an append, a lease, a table) is a job
  for the store's writer thread, which takes every job waiting, runs each in its own
  savepoint of one ``BEGIN IMMEDIATE`` transaction (a refused job rolls back to its
  savepoint and leaves the others alone), commits once, and only then answers each
  caller. With ``FULL`` one fsync then serves every table that wrote meanwhile, instead
  of a fsync a line with the tables queueing for SQLite's write lock (whose busy handler
  sleeps for milliseconds at a time when two connections of one process collide). A job
  reads the lease and the line count and writes in the same transaction, so it cannot be
  overtaken between its check and its write. Between processes sharing the file,
  ``BEGIN IMMEDIATE`` serialises the writers.
* **Reads on a connection per thread**: an :mod:`sqlite3` connection must not be used by
  two threads at once, and WAL readers run side by side; a caller's write is committed
  before its call returns, so its next read sees it.
* **Holding a lease is being its recorded holder.** The expiry says when another
  process may take the lease, not when its holder must stop: an append, a status change
  and a renewal are refused once another holder is written in the row (or the lease was
  given up), and allowed to the recorded holder even after the expiry passed. Nobody
  else can have written meanwhile (taking the lease writes the new holder first), so this
  is as safe, and a holder slowed past its expiry on a loaded machine (a hundred leases
  renewed one after another, a long pause) keeps its tables unless another process did
  take them over.
* **Lease times are wall-clock seconds** (``time.time()``, injectable for tests). They are
  stored in the file and compared by other processes and by the same server after a
  restart: :func:`time.monotonic` is not comparable between processes (Python promises
  nothing) and restarts at boot, so a lease written before a reboot could look valid for
  days. Every process on one SQLite file is on one machine, so they share one wall clock;
  a step of that clock can only shorten or lengthen one lease, and the line-count check
  in every append keeps a wrong takeover from ever interleaving two writers' lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Generic, TypeVar

from gm_engine.messages.texts import StoreNoWal, StoreOtherSchema
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

MAX_BATCH = 256
"""The most jobs one commit takes: a bound on how long the first caller of a batch waits."""

_Result = TypeVar("_Result")


class _Job(Generic[_Result]):
    """One write waiting for the writer thread, and what became of it."""

    __slots__ = ("done", "error", "result", "work")

    def __init__(self, work: Callable[[sqlite3.Connection], _Result]) -> None:
        self.work = work
        self.done = threading.Event()
        self.result: _Result | None = None
        self.error: BaseException | None = None


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


def _make_owner_only(path: Path) -> None:
    """Create the database file readable by its owner only (SQLite gives its ``-wal`` and
    ``-shm`` files the database's mode): it holds every running table's game key, so any
    other local user who could read it could read the sealed lines. A file that exists is
    narrowed too, where this user may."""
    if str(path) in ("", ":memory:"):
        return
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if part.stat().st_mode & 0o077:
                part.chmod(0o600)


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
        self._jobs: queue.SimpleQueue[_Job[object] | None] = queue.SimpleQueue()
        _make_owner_only(Path(self._path))
        self._writer_db = self._open()
        try:
            mode = self._writer_db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(StoreNoWal(str(self._path), str(mode)))
            schema: _Job[object] = _Job(self._create_schema)
            self._run_batch([schema])
            if schema.error is not None:  # another schema's database: refused, not opened
                raise schema.error
        except BaseException:
            self._writer_db.close()
            raise
        self._writer = threading.Thread(target=self._write_loop, name="gm-sqlite-writer", daemon=True)
        self._writer.start()

    def _create_schema(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise StoreError(StoreOtherSchema(str(self._path), int(version), SCHEMA_VERSION))
        if version == 0:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # connections and transactions

    def _open(self) -> sqlite3.Connection:
        # isolation_level=None: this class writes BEGIN and COMMIT itself, so that a write
        # transaction starts with BEGIN IMMEDIATE. check_same_thread=False only so that
        # close() may close every thread's connection; each is still used by one thread.
        connection = sqlite3.connect(
            self._path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False
        )
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("PRAGMA foreign_keys=ON")
        return connection

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection for reads."""
        if self._closed:
            raise StoreError(f"{self._path}: the table store is closed")
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._open()
            self._local.connection = connection
            with self._all_lock:
                self._all.append(connection)
        return connection

    def _write(self, work: Callable[[sqlite3.Connection], _Result]) -> _Result:
        """Run ``work`` in the writer thread's next commit; its result once that commit is
        on the disk, or its error (the database as if it never ran)."""
        if self._closed:
            raise StoreError(f"{self._path}: the table store is closed")
        job = _Job(work)
        self._jobs.put(job)  # type: ignore[arg-type]
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[return-value]

    def _write_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            batch = [job]
            stopping = False
            while len(batch) < MAX_BATCH:
                try:
                    waiting = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if waiting is None:
                    stopping = True
                    break
                batch.append(waiting)
            self._run_batch(batch)
            if stopping:
                return

    def _run_batch(self, batch: Sequence[_Job[object]]) -> None:
        """One transaction: each job in its savepoint, one commit, then every caller told."""
        db = self._writer_db
        try:
            db.execute("BEGIN IMMEDIATE")
        except BaseException as failure:  # locked by another process past the busy timeout
            for job in batch:
                job.error = failure
                job.done.set()
            return
        try:
            for job in batch:
                db.execute("SAVEPOINT job")
                try:
                    job.result = job.work(db)
                except BaseException as failure:  # the caller's to see; the batch goes on
                    job.error = failure
                    db.execute("ROLLBACK TO job")
                db.execute("RELEASE job")
            db.execute("COMMIT")
        except BaseException as failure:  # nothing of the batch is kept: tell every caller
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):  # the writer thread must live on
                    db.execute("ROLLBACK")
            for job in batch:
                if job.error is None:
                    job.error = failure
        finally:
            for job in batch:
                job.done.set()

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
        """The table's status and line count when ``holder`` is its lease's recorded holder
        (see the module doc)."""
        status, line_count, current, _expires = self._require_table(db, table_id)
        if current != holder:
            raise LeaseLost(f"{holder!r} does not hold the lease of table {table_id!r}")
        return status, line_count

    # tables

    def create_table(
        self,
        table_id: str,
        kind: str,
        title: str,
        config_json: str,
        created_at: float,
        *,
        holder: str | None = None,
        ttl_seconds: float | None = None,
    ) -> TableRow:
        """File a new running table with no lines (see :class:`~gm_engine.serve.store.TableStore`);
        with ``holder`` (and ``ttl_seconds``), its lease is ``holder``'s from the start, so no
        other process (nor another thread's claim) can take the table between its creation
        and its first lines.

        Raises:
            StoreError: ``table_id`` is taken, an argument is empty, or ``holder`` comes
                without a good ``ttl_seconds``.
        """
        check_table_id(table_id)
        check_name("a table kind", kind)
        check_text("a table title", title)
        check_text("a table's options", config_json)
        created = check_created_at(created_at)
        if holder is not None:
            check_holder(holder)
            check_ttl(ttl_seconds)  # type: ignore[arg-type]  # None is refused there, with its reason

        def work(db: sqlite3.Connection) -> None:
            expires = 0.0 if holder is None else self._clock() + float(ttl_seconds or 0)
            db.execute(
                "INSERT INTO game_tables"
                " (table_id, kind, title, status, created_at, config_json, lease_holder, lease_expires)"
                " VALUES (?, ?, ?, 'running', ?, ?, ?, ?)",
                (table_id, kind, title, created, config_json, holder, expires),
            )

        try:
            self._write(work)
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

        def work(db: sqlite3.Connection) -> None:
            self._require_lease(db, table_id, holder)
            db.execute("UPDATE game_tables SET status = ? WHERE table_id = ?", (checked, table_id))

        self._write(work)

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

        def work(db: sqlite3.Connection) -> None:
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

        self._write(work)

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

        def work(db: sqlite3.Connection) -> None:
            self._require_table(db, table_id)
            db.execute(
                "INSERT INTO table_secrets (table_id, name, value) VALUES (?, ?, ?)"
                " ON CONFLICT (table_id, name) DO UPDATE SET value = excluded.value",
                (table_id, name, value),
            )

        self._write(work)

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

        def work(db: sqlite3.Connection) -> None:
            self._require_table(db, table_id)
            db.execute(
                "INSERT INTO seats (token_digest, table_id, seat) VALUES (?, ?, ?)",
                (token_digest, table_id, seat),
            )

        try:
            self._write(work)
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

        def work(db: sqlite3.Connection) -> bool:
            self._require_table(db, table_id)
            now = self._clock()
            return (
                db.execute(
                    "UPDATE game_tables SET lease_holder = ?, lease_expires = ?"
                    " WHERE table_id = ?"
                    " AND (lease_holder IS NULL OR lease_expires <= ? OR lease_holder = ?)",
                    (holder, now + ttl_seconds, table_id, now, holder),
                ).rowcount
                == 1
            )

        return self._write(work)

    def renew_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Extend ``holder``'s lease to ``ttl_seconds`` from now, even if it expired while
        nobody took it over; False when another process took it (or it was given up).

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)

        def work(db: sqlite3.Connection) -> bool:
            self._require_table(db, table_id)
            now = self._clock()
            return (
                db.execute(
                    "UPDATE game_tables SET lease_expires = ? WHERE table_id = ? AND lease_holder = ?",
                    (now + ttl_seconds, table_id, holder),
                ).rowcount
                == 1
            )

        return self._write(work)

    def renew_leases(self, holder: str, table_ids: Sequence[str], ttl_seconds: float) -> set[str]:
        """Extend ``holder``'s leases of ``table_ids`` in one statement; the ids renewed (see
        :meth:`~gm_engine.serve.store.TableStore.renew_leases`).

        Raises:
            StoreError: an empty holder or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        wanted = json.dumps(list(dict.fromkeys(str(table_id) for table_id in table_ids)))
        if wanted == "[]":
            return set()

        def work(db: sqlite3.Connection) -> set[str]:
            rows = db.execute(
                "UPDATE game_tables SET lease_expires = ?"
                " WHERE lease_holder = ? AND table_id IN (SELECT value FROM json_each(?))"
                " RETURNING table_id",
                (self._clock() + ttl_seconds, holder, wanted),
            ).fetchall()
            return {str(row[0]) for row in rows}

        return self._write(work)

    def release_lease(self, table_id: str, holder: str) -> None:
        """Give the lease up (nothing happens if ``holder`` does not hold it)."""

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE game_tables SET lease_holder = NULL, lease_expires = 0"
                " WHERE table_id = ? AND lease_holder = ?",
                (table_id, holder),
            )

        self._write(work)

    def lease_holder(self, table_id: str) -> str | None:
        """Who holds the table's lease now; None when it is free, expired or there is no table."""
        row = (
            self._connection()
            .execute(
                "SELECT lease_holder FROM game_tables WHERE table_id = ? AND lease_expires > ?",
                (table_id, self._clock()),
            )
            .fetchone()
        )
        return None if row is None or row[0] is None else str(row[0])

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
        """Finish the writes already asked for, then close every connection; the store
        refuses calls afterwards."""
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        self._writer.join()
        self._writer_db.close()
        with self._all_lock:
            connections, self._all = self._all, []
        for connection in connections:
            connection.close()
