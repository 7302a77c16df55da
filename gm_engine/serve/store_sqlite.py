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
  Measured there at 100 tables on 2 cores, ``NORMAL`` shortened the median store of an
  answer (8.8 → 3.1 ms) and not its 95th percentile (49 ms both: the waits are the
  interpreter's and the machine's, not the disk's), so ``FULL`` stays.
* **Group commit: one writer thread.** Every write (an append, a lease, a table) is a job
  for the store's writer thread, which takes every job waiting, runs each in its own
  savepoint of one ``BEGIN IMMEDIATE`` transaction (a refused job rolls back to its
  savepoint and leaves the others alone), commits once, and only then answers each
  caller. With ``FULL`` one fsync then serves every table that wrote meanwhile, instead
  of a fsync a line with the tables queueing for SQLite's write lock (whose busy handler
  sleeps for milliseconds at a time when two connections of one process collide). A job
  reads the lease and the line count and writes in the same transaction, so it cannot be
  overtaken between its check and its write. Between processes sharing the file,
  ``BEGIN IMMEDIATE`` serialises the writers. A caller that must not wait in a thread (the
  web's event loop storing a player's answer) hands its job in with a callback instead
  (:meth:`SQLiteTableStore.put_secret_then`): the writer calls it after the same commit.
* **Reads on a connection per thread**: an :mod:`sqlite3` connection must not be used by
  two threads at once, and WAL readers run side by side; a caller's write is committed
  before its call returns, so its next read sees it.
* **The rules are written once**, in :mod:`gm_engine.serve.store_base` (the checks, who
  may take, hold and renew a lease, why a write is refused); this module holds only the
  statements that apply them.
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
import sqlite3
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Generic, TypeVar

from gm_engine.messages.texts import StoreNoWal, StoreOtherSchema
from gm_engine.serve.batch_writer import BatchWriter
from gm_engine.serve.store import SeatGrant, StoreError, TableStatus
from gm_engine.serve.store_base import (
    ROW_COLUMNS,
    LeaseRecord,
    SeatInsert,
    TableStoreBase,
    append_refusal,
    sql_may_take,
)
from gm_engine.serve.store_checks import check_holder, check_secret

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

_Result = TypeVar("_Result")


class _Job(Generic[_Result]):
    """One write waiting for the writer thread, and what became of it: its caller waits for
    ``done``, or is called back with ``then`` (:meth:`SQLiteTableStore.put_secret_then`)."""

    __slots__ = ("done", "error", "result", "then", "work")

    def __init__(
        self,
        work: Callable[[sqlite3.Connection], _Result],
        then: Callable[[BaseException | None], None] | None = None,
    ) -> None:
        self.work = work
        self.then = then
        self.done = threading.Event()
        self.result: _Result | None = None
        self.error: BaseException | None = None

    def finish(self) -> None:
        """Tell the caller (the batch's commit is on the disk, or failed)."""
        self.done.set()
        if self.then is not None:
            try:
                self.then(self.error)
            except Exception:  # the caller's bug: the writer thread must live on for the others
                traceback.print_exc(file=sys.stderr)


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


class SQLiteTableStore(TableStoreBase):
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
        # the writer thread (started once the schema is made): every write, in group commits
        self._writer: BatchWriter[_Job[object]] = BatchWriter(
            "gm-sqlite-writer", self._run_batch, self._refuse_after_close
        )
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
            raise self._closed_error()
        job = _Job(work)
        self._writer.put(job)  # type: ignore[arg-type]
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[return-value]

    def _closed_error(self) -> StoreError:
        return StoreError(f"{self._path}: the table store is closed")

    def _refuse_after_close(self, job: _Job[object]) -> None:
        """Finish a job that came after the writer stopped with the closed store's error
        (its caller waits for it, or waits for its callback)."""
        job.error = self._closed_error()
        job.finish()

    @property
    def _closed(self) -> bool:
        return self._writer.closed

    def _run_batch(self, batch: Sequence[_Job[object]]) -> None:
        """One transaction: each job in its savepoint, one commit, then every caller told."""
        db = self._writer_db
        try:
            db.execute("BEGIN IMMEDIATE")
        except BaseException as failure:  # locked by another process past the busy timeout
            for job in batch:
                job.error = failure
                job.finish()
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
                job.finish()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one snapshot for every statement in it."""
        db = self._connection()
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    # the statements (the contract and its checks are TableStoreBase's)

    def _insert_table(
        self,
        table_id: str,
        kind: str,
        title: str,
        config_json: str,
        created_at: float,
        holder: str | None,
        ttl_seconds: float,
    ) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            expires = 0.0 if holder is None else self._clock() + ttl_seconds
            return (
                db.execute(
                    "INSERT INTO game_tables"
                    " (table_id, kind, title, status, created_at, config_json, lease_holder, lease_expires)"
                    " VALUES (?, ?, ?, 'running', ?, ?, ?, ?) ON CONFLICT (table_id) DO NOTHING",
                    (table_id, kind, title, created_at, config_json, holder, expires),
                ).rowcount
                == 1
            )

        return self._write(work)

    def _select_table(self, table_id: str) -> Sequence[object] | None:
        row: tuple[object, ...] | None = (
            self._connection()
            .execute(f"SELECT {ROW_COLUMNS} FROM game_tables WHERE table_id = ?", (table_id,))
            .fetchone()
        )
        return row

    def _select_tables(self, status: TableStatus | None) -> list[Sequence[object]]:
        db = self._connection()
        if status is None:
            return list(db.execute(f"SELECT {ROW_COLUMNS} FROM game_tables ORDER BY created_at, seq"))
        return list(
            db.execute(
                f"SELECT {ROW_COLUMNS} FROM game_tables WHERE status = ? ORDER BY created_at, seq", (status,)
            )
        )

    def _update_status(self, table_id: str, status: TableStatus, holder: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            return (
                db.execute(
                    "UPDATE game_tables SET status = ? WHERE table_id = ? AND lease_holder = ?",
                    (status, table_id, holder),
                ).rowcount
                == 1
            )

        return self._write(work)

    def _append(self, table_id: str, first_index: int, lines: list[str], holder: str) -> LeaseRecord | None:
        def work(db: sqlite3.Connection) -> LeaseRecord | None:
            # the writer's transaction is BEGIN IMMEDIATE: nobody writes between this read and the insert
            row = db.execute(
                "SELECT status, line_count, lease_holder FROM game_tables WHERE table_id = ?", (table_id,)
            ).fetchone()
            found = None if row is None else LeaseRecord(str(row[0]), int(row[1]), row[2])
            if append_refusal(table_id, found, holder, first_index) is None:
                db.executemany(
                    "INSERT INTO table_lines (table_id, line_index, line) VALUES (?, ?, ?)",
                    [(table_id, first_index + offset, line) for offset, line in enumerate(lines)],
                )
                db.execute(
                    "UPDATE game_tables SET line_count = ? WHERE table_id = ?",
                    (first_index + len(lines), table_id),
                )
            return found

        return self._write(work)

    def _select_lines(self, table_id: str) -> list[str] | None:
        with self._read() as db:
            if db.execute("SELECT 1 FROM game_tables WHERE table_id = ?", (table_id,)).fetchone() is None:
                return None
            rows = db.execute(
                "SELECT line FROM table_lines WHERE table_id = ? ORDER BY line_index", (table_id,)
            ).fetchall()
        return [str(row[0]) for row in rows]

    def _upsert_secret(self, table_id: str, name: str, value: bytes, holder: str) -> bool:
        return self._write(lambda db: self._upsert_secret_in(db, table_id, name, value, holder))

    def put_secret_then(
        self,
        table_id: str,
        name: str,
        value: bytes,
        then: Callable[[BaseException | None], None],
        *,
        holder: str,
    ) -> None:
        """Keep a secret in the writer's next commit, under ``holder``'s lease, without
        waiting for it: ``then(None)`` from the writer thread once that commit is on the
        disk, ``then(error)`` when it was refused (LeaseLost: ``holder`` does not hold the
        table's lease; StoreError: the store was closed while it waited, and nothing of it
        is stored; see :class:`~gm_engine.serve.store.QueuedSecrets`).

        Raises:
            StoreError: a bad argument, or the store is closed (``then`` is not called).
        """
        check_secret(table_id, name, value)
        check_holder(holder)

        if self._closed:
            raise self._closed_error()

        def work(db: sqlite3.Connection) -> None:
            if not self._upsert_secret_in(db, table_id, name, value, holder):
                raise self._refuse(table_id, holder)

        self._writer.put(_Job(work, then))

    @staticmethod
    def _upsert_secret_in(
        db: sqlite3.Connection, table_id: str, name: str, value: bytes, holder: str
    ) -> bool:
        # the writer's transaction is BEGIN IMMEDIATE: the holder read is the holder at the write
        held = db.execute(
            "SELECT 1 FROM game_tables WHERE table_id = ? AND lease_holder = ?", (table_id, holder)
        ).fetchone()
        if held is None:
            return False
        db.execute(
            "INSERT INTO table_secrets (table_id, name, value) VALUES (?, ?, ?)"
            " ON CONFLICT (table_id, name) DO UPDATE SET value = excluded.value",
            (table_id, name, value),
        )
        return True

    def _select_secret(self, table_id: str, name: str) -> bytes | None:
        row = (
            self._connection()
            .execute("SELECT value FROM table_secrets WHERE table_id = ? AND name = ?", (table_id, name))
            .fetchone()
        )
        return None if row is None else bytes(row[0])

    def _insert_seat(self, table_id: str, seat: int, token_digest: str) -> SeatInsert:
        def work(db: sqlite3.Connection) -> SeatInsert:
            if db.execute("SELECT 1 FROM game_tables WHERE table_id = ?", (table_id,)).fetchone() is None:
                return "no table"
            inserted = db.execute(
                "INSERT INTO seats (token_digest, table_id, seat) VALUES (?, ?, ?)"
                " ON CONFLICT (token_digest) DO NOTHING",
                (token_digest, table_id, seat),
            ).rowcount
            return "granted" if inserted == 1 else "taken"

        return self._write(work)

    def _select_seat(self, token_digest: str) -> SeatGrant | None:
        row = (
            self._connection()
            .execute("SELECT table_id, seat FROM seats WHERE token_digest = ?", (token_digest,))
            .fetchone()
        )
        return None if row is None else SeatGrant(table_id=str(row[0]), seat=int(row[1]))

    def _take(self, table_id: str, holder: str, ttl_seconds: float) -> bool | None:
        def work(db: sqlite3.Connection) -> bool | None:
            now = self._clock()
            taken = db.execute(
                "UPDATE game_tables SET lease_holder = :holder, lease_expires = :until"
                f" WHERE table_id = :table_id AND {sql_may_take(':now', ':holder')}",
                {"holder": holder, "until": now + ttl_seconds, "table_id": table_id, "now": now},
            ).rowcount
            if taken == 1:
                return True
            exists = db.execute("SELECT 1 FROM game_tables WHERE table_id = ?", (table_id,)).fetchone()
            return None if exists is None else False

        return self._write(work)

    def _renew(self, holder: str, table_ids: list[str], ttl_seconds: float) -> set[str]:
        wanted = json.dumps(table_ids)

        def work(db: sqlite3.Connection) -> set[str]:
            rows = db.execute(
                "UPDATE game_tables SET lease_expires = ?"
                " WHERE lease_holder = ? AND table_id IN (SELECT value FROM json_each(?))"
                " RETURNING table_id",
                (self._clock() + ttl_seconds, holder, wanted),
            ).fetchall()
            return {str(row[0]) for row in rows}

        return self._write(work)

    def _take_over(self, holder: str, prefix: str, ttl_seconds: float) -> set[str]:
        def work(db: sqlite3.Connection) -> set[str]:
            rows = db.execute(
                "UPDATE game_tables SET lease_holder = :holder, lease_expires = :until"
                " WHERE status = 'running' AND lease_holder <> :holder"
                " AND substr(lease_holder, 1, :length) = :prefix RETURNING table_id",
                {
                    "holder": holder,
                    "until": self._clock() + ttl_seconds,
                    "length": len(prefix),
                    "prefix": prefix,
                },
            ).fetchall()
            return {str(row[0]) for row in rows}

        return self._write(work)

    def _release(self, table_id: str, holder: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE game_tables SET lease_holder = NULL, lease_expires = 0"
                " WHERE table_id = ? AND lease_holder = ?",
                (table_id, holder),
            )

        self._write(work)

    def _current_holder(self, table_id: str) -> str | None:
        row = (
            self._connection()
            .execute(
                "SELECT lease_holder FROM game_tables WHERE table_id = ? AND lease_expires > ?",
                (table_id, self._clock()),
            )
            .fetchone()
        )
        return None if row is None or row[0] is None else str(row[0])

    def _claimable(self, holder: str) -> list[str]:
        rows = (
            self._connection()
            .execute(
                "SELECT table_id FROM game_tables WHERE status = 'running'"
                f" AND {sql_may_take(':now', ':holder')} ORDER BY created_at, seq",
                {"now": self._clock(), "holder": holder},
            )
            .fetchall()
        )
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        """Finish the writes already asked for, then close every connection; the store
        refuses calls afterwards."""
        if self._closed:
            return
        self._writer.close()
        self._writer_db.close()
        with self._all_lock:
            connections, self._all = self._all, []
        for connection in connections:
            connection.close()
