"""The PostgreSQL :class:`~gm_engine.serve.store.TableStore` (``gm serve --database
postgresql://…``), with psycopg 3: several server processes on one database share the tables.

Needs the ``postgres`` extra (``pip install 'gm_engine[postgres]'``: psycopg with its
binary build and its connection pool).

Choices, and why:

* **The lease is a row** (holder and expiry in the table's row), taken and renewed by one
  conditional ``UPDATE`` and checked by every append under ``SELECT … FOR UPDATE``, in the
  transaction that writes the lines. An advisory lock would free the table the instant its
  holder's connection died, but it belongs to one connection: through a pool, the lock and
  the append run on different connections, and a holder whose connection dropped (and
  with it the lock) learns that only when some later call fails, so nothing stops it from
  appending between the loss and the discovery. With the row, the check and the write are
  one transaction: a holder that lost its lease cannot append, whatever its connections
  did. The price is that a dead holder's tables wait for its lease to expire (the
  time-to-live the runtime picks).
* **Lease times are the database server's clock** (``clock_timestamp()``, seconds since
  the epoch), not each process's: the processes may run on different machines whose
  clocks disagree, and the server is the one clock they all read. ``clock_timestamp()``
  rather than ``now()``: ``now()`` is the time the transaction began, and an append that
  waited for the row lock would judge the lease by a time already past. Tests pass a
  ``clock`` to step time without sleeping.
* **A connection pool** (``psycopg_pool``), sized for the web layer's worker threads; it
  replaces a connection that broke. Each method is one transaction on one pooled
  connection; PostgreSQL's default ``synchronous_commit=on`` makes a commit wait for its
  WAL to be flushed, so an append is durable when it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool

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

__all__ = ["SCHEMA_VERSION", "PostgresTableStore"]

SCHEMA_VERSION = 1
"""Kept in ``gm_store_meta``; a database of another version is refused, not rewritten."""

# Any constant: the advisory lock that makes two processes starting on one empty database
# create the schema one after the other (CREATE TABLE IF NOT EXISTS races otherwise).
_SCHEMA_LOCK = 0x676D5F7374
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS gm_store_meta (version integer NOT NULL)",
    """CREATE TABLE IF NOT EXISTS game_tables (
        seq bigserial UNIQUE,
        table_id text PRIMARY KEY,
        kind text NOT NULL,
        title text NOT NULL,
        status text NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
        created_at double precision NOT NULL,
        config_json text NOT NULL,
        line_count integer NOT NULL DEFAULT 0,
        lease_holder text,
        lease_expires double precision NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS table_lines (
        table_id text NOT NULL REFERENCES game_tables (table_id),
        line_index integer NOT NULL,
        line text NOT NULL,
        PRIMARY KEY (table_id, line_index)
    )""",
    """CREATE TABLE IF NOT EXISTS table_secrets (
        table_id text NOT NULL REFERENCES game_tables (table_id),
        name text NOT NULL,
        value bytea NOT NULL,
        PRIMARY KEY (table_id, name)
    )""",
    """CREATE TABLE IF NOT EXISTS seats (
        token_digest text PRIMARY KEY,
        table_id text NOT NULL REFERENCES game_tables (table_id),
        seat integer NOT NULL
    )""",
)

# The lease clock: the caller's when the store was given one, else the server's.
_NOW = "COALESCE(%(now)s::double precision, extract(epoch FROM clock_timestamp())::double precision)"
_ROW = "table_id, kind, title, status, created_at, config_json, line_count"


def _table_row(row: tuple[Any, ...]) -> TableRow:
    table_id, kind, title, status, created_at, config_json, line_count = row
    return TableRow(
        table_id=str(table_id),
        kind=str(kind),
        title=str(title),
        status=check_status(str(status)),
        created_at=float(created_at),
        config_json=str(config_json),
        line_count=int(line_count),
    )


class PostgresTableStore:
    """A :class:`~gm_engine.serve.store.TableStore` in a PostgreSQL database (see the module doc).

    Args:
        url: a libpq connection string or URL (``postgresql://user@host:port/database``).
        clock: seconds since the epoch for leases; None (the default) uses the database
            server's clock, which every process sharing the database agrees on.
        max_connections: the pool's size: as many as threads that call the store at once.

    Raises:
        StoreError: the URL is malformed, the server cannot be reached or refuses the
            connection, or the database holds another schema version.
    """

    def __init__(
        self, url: str, *, clock: Callable[[], float] | None = None, max_connections: int = 8
    ) -> None:
        self._clock = clock
        # One plain connection first: a wrong URL or an unreachable server is then a clear
        # error at once, not the pool's timeout half a minute later. The URL itself is not
        # repeated: it may hold a password.
        try:
            psycopg.connect(url, connect_timeout=10).close()
        except (psycopg.OperationalError, psycopg.ProgrammingError) as failure:
            first = str(failure).strip().splitlines()[0] if str(failure).strip() else type(failure).__name__
            raise StoreError(f"cannot open the PostgreSQL database: {first}") from None
        self._pool: ConnectionPool[psycopg.Connection[tuple[Any, ...]]] = ConnectionPool(
            url, min_size=1, max_size=max(1, max_connections), open=False, name="gm-table-store"
        )
        self._pool.open(wait=True, timeout=30.0)
        try:
            self._create_schema()
        except BaseException:
            self._pool.close()
            raise

    def _create_schema(self) -> None:
        with self._pool.connection() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in _SCHEMA:
                db.execute(statement)
            row = db.execute("SELECT version FROM gm_store_meta").fetchone()
            if row is None:
                db.execute("INSERT INTO gm_store_meta (version) VALUES (%s)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise StoreError(
                    f"this database holds table store schema {row[0]}; this program reads {SCHEMA_VERSION}"
                )

    def _now(self) -> float | None:
        return None if self._clock is None else self._clock()

    @staticmethod
    def _require_table(
        db: psycopg.Connection[tuple[Any, ...]], table_id: str, *, lock: bool, now: float | None
    ) -> tuple[str, int, str | None, bool]:
        """The table's status, line count, lease holder and whether the lease is unexpired,
        the row locked until the transaction ends when ``lock``; or a refusal."""
        row = db.execute(
            f"SELECT status, line_count, lease_holder, lease_expires > {_NOW} FROM game_tables"
            f" WHERE table_id = %(table_id)s{' FOR UPDATE' if lock else ''}",
            {"table_id": table_id, "now": now},
        ).fetchone()
        if row is None:
            raise StoreError(f"no table {table_id!r}")
        status, line_count, holder, unexpired = row
        return str(status), int(line_count), holder, bool(unexpired)

    def _require_lease(
        self, db: psycopg.Connection[tuple[Any, ...]], table_id: str, holder: str
    ) -> tuple[str, int]:
        """The table's status and line count, its row locked, when ``holder``'s lease on it
        is unexpired."""
        status, line_count, current, unexpired = self._require_table(db, table_id, lock=True, now=self._now())
        if current != holder or not unexpired:
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
            with self._pool.connection() as db:
                db.execute(
                    "INSERT INTO game_tables (table_id, kind, title, status, created_at, config_json)"
                    " VALUES (%s, %s, %s, 'running', %s, %s)",
                    (table_id, kind, title, created, config_json),
                )
        except errors.UniqueViolation:
            raise StoreError(f"table {table_id!r} exists already") from None
        return TableRow(table_id, kind, title, "running", float(created_at), config_json, 0)

    def get_table(self, table_id: str) -> TableRow | None:
        """The table, or None when there is none with that id."""
        if "\x00" in table_id:  # no table has one (check_table_id), and libpq cannot send it
            return None
        with self._pool.connection() as db:
            row = db.execute(f"SELECT {_ROW} FROM game_tables WHERE table_id = %s", (table_id,)).fetchone()
        return None if row is None else _table_row(row)

    def list_tables(self, status: TableStatus | None = None) -> list[TableRow]:
        """Every table (of ``status`` when given), oldest first."""
        with self._pool.connection() as db:
            if status is None:
                rows = db.execute(f"SELECT {_ROW} FROM game_tables ORDER BY created_at, seq").fetchall()
            else:
                rows = db.execute(
                    f"SELECT {_ROW} FROM game_tables WHERE status = %s ORDER BY created_at, seq",
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
        with self._pool.connection() as db:
            self._require_lease(db, table_id, holder)
            db.execute("UPDATE game_tables SET status = %s WHERE table_id = %s", (checked, table_id))

    # lines

    def append_lines(self, table_id: str, first_index: int, lines: Sequence[str], *, holder: str) -> None:
        """Append ``lines`` at ``first_index`` in one transaction, committed (its WAL
        flushed) when it returns.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
            LineConflict: the table does not have exactly ``first_index`` lines.
            StoreError: no such table, the table is no longer running, or a line is not one
                line of text.
        """
        checked = check_lines(first_index, lines)
        with self._pool.connection() as db:
            status, line_count = self._require_lease(db, table_id, holder)
            if status != "running":
                raise StoreError(f"table {table_id!r} is {status}: no more lines")
            if line_count != first_index:
                raise LineConflict(
                    f"table {table_id!r} has {line_count} lines; lines cannot go at index {first_index}"
                )
            if checked:
                with db.cursor() as cursor:
                    cursor.executemany(
                        "INSERT INTO table_lines (table_id, line_index, line) VALUES (%s, %s, %s)",
                        [(table_id, first_index + offset, line) for offset, line in enumerate(checked)],
                    )
                db.execute(
                    "UPDATE game_tables SET line_count = %s WHERE table_id = %s",
                    (first_index + len(checked), table_id),
                )

    def read_lines(self, table_id: str) -> list[str]:
        """All of the table's lines, in order.

        Raises:
            StoreError: there is no such table.
        """
        if "\x00" in table_id:
            raise StoreError(f"no table {table_id!r}")
        with self._pool.connection() as db:
            # REPEATABLE READ: the existence check and the lines come from one snapshot.
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            self._require_table(db, table_id, lock=False, now=None)
            rows = db.execute(
                "SELECT line FROM table_lines WHERE table_id = %s ORDER BY line_index", (table_id,)
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
        with self._pool.connection() as db:
            self._require_table(db, table_id, lock=True, now=None)
            db.execute(
                "INSERT INTO table_secrets (table_id, name, value) VALUES (%s, %s, %s)"
                " ON CONFLICT (table_id, name) DO UPDATE SET value = excluded.value",
                (table_id, name, value),
            )

    def get_secret(self, table_id: str, name: str) -> bytes | None:
        """The secret kept under ``name``, or None."""
        if "\x00" in table_id or "\x00" in name:
            return None
        with self._pool.connection() as db:
            row = db.execute(
                "SELECT value FROM table_secrets WHERE table_id = %s AND name = %s", (table_id, name)
            ).fetchone()
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
            with self._pool.connection() as db:
                self._require_table(db, table_id, lock=False, now=None)
                db.execute(
                    "INSERT INTO seats (token_digest, table_id, seat) VALUES (%s, %s, %s)",
                    (token_digest, table_id, seat),
                )
        except errors.UniqueViolation:
            raise StoreError("that seat token is already granted") from None

    def find_seat(self, token_digest: str) -> SeatGrant | None:
        """The seat a token's digest opens, or None."""
        if "\x00" in token_digest:
            return None
        with self._pool.connection() as db:
            row = db.execute(
                "SELECT table_id, seat FROM seats WHERE token_digest = %s", (token_digest,)
            ).fetchone()
        return None if row is None else SeatGrant(table_id=str(row[0]), seat=int(row[1]))

    # leases

    def acquire_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Take the lease for ``ttl_seconds`` if it is free, expired or ``holder``'s.

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        now = self._now()
        with self._pool.connection() as db:
            self._require_table(db, table_id, lock=True, now=now)
            cursor = db.execute(
                f"UPDATE game_tables SET lease_holder = %(holder)s, lease_expires = {_NOW} + %(ttl)s"
                f" WHERE table_id = %(table_id)s AND (lease_holder IS NULL OR lease_expires <= {_NOW}"
                " OR lease_holder = %(holder)s)",
                {"holder": holder, "ttl": float(ttl_seconds), "table_id": table_id, "now": now},
            )
            return cursor.rowcount == 1

    def renew_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Extend ``holder``'s unexpired lease to ``ttl_seconds`` from now; False when it has
        expired (even if nobody took it: then :meth:`acquire_lease` may take it again).

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        now = self._now()
        with self._pool.connection() as db:
            self._require_table(db, table_id, lock=True, now=now)
            cursor = db.execute(
                f"UPDATE game_tables SET lease_expires = {_NOW} + %(ttl)s"
                f" WHERE table_id = %(table_id)s AND lease_holder = %(holder)s AND lease_expires > {_NOW}",
                {"holder": holder, "ttl": float(ttl_seconds), "table_id": table_id, "now": now},
            )
            return cursor.rowcount == 1

    def release_lease(self, table_id: str, holder: str) -> None:
        """Give the lease up (nothing happens if ``holder`` does not hold it)."""
        with self._pool.connection() as db:
            db.execute(
                "UPDATE game_tables SET lease_holder = NULL, lease_expires = 0"
                " WHERE table_id = %s AND lease_holder = %s",
                (table_id, holder),
            )

    def claimable_tables(self, holder: str) -> list[str]:
        """Ids of running tables whose lease is free, expired or ``holder``'s, oldest first."""
        with self._pool.connection() as db:
            rows = db.execute(
                "SELECT table_id FROM game_tables WHERE status = 'running'"
                f" AND (lease_holder IS NULL OR lease_expires <= {_NOW} OR lease_holder = %(holder)s)"
                " ORDER BY created_at, seq",
                {"holder": holder, "now": self._now()},
            ).fetchall()
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        """Close the pool's connections; the store refuses calls afterwards."""
        self._pool.close()
