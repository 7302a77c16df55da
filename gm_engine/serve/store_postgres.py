"""The PostgreSQL :class:`~gm_engine.serve.store.TableStore` (``gm serve --database
postgresql://…``), with psycopg 3: several server processes on one database share the tables.

Needs the ``postgres`` extra (``pip install 'gm_engine[postgres]'``: psycopg with its
binary build and its connection pool).

Choices, and why:

* **The lease is a row** (holder and expiry in the table's row), taken and renewed by one
  conditional ``UPDATE`` and checked by every append under ``SELECT … FOR UPDATE``, in the
  transaction that writes the lines (``gm_append_lines``, below). An advisory lock would
  free the table the instant its holder's connection died, but it belongs to one
  connection: through a pool, the lock and the append run on different connections, and a
  holder whose connection dropped (and with it the lock) learns that only when some later
  call fails, so nothing stops it from appending between the loss and the discovery. With
  the row, the check and the write are one transaction: a holder that lost its lease
  cannot append, whatever its connections did. The price is that a dead holder's tables
  wait for its lease to expire (the time-to-live the runtime picks).
* **Holding a lease is being its recorded holder.** The expiry says when another
  process may take the lease, not when its holder must stop: an append, a status change
  and a renewal are refused once another holder is written in the row (or the lease was
  given up), and allowed to the recorded holder even after the expiry passed. Nobody
  else can have written meanwhile (taking the lease writes the new holder first), so this
  is as safe, and a holder slowed past its expiry on a loaded machine (a hundred leases
  renewed one after another, a long pause) keeps its tables unless another process did
  take them over.
* **Lease times are the database server's clock** (``clock_timestamp()``, seconds since
  the epoch), not each process's: the processes may run on different machines whose
  clocks disagree, and the server is the one clock they all read. ``clock_timestamp()``
  rather than ``now()``: ``now()`` is the time the transaction began, and a takeover that
  waited for the row lock would judge the lease by a time already past. Tests pass a
  ``clock`` to step time without sleeping.
* **One statement, one round trip, per call.** The pool's connections are in autocommit
  and every method is a single statement, which PostgreSQL runs as its own transaction:
  an append is one call of the ``gm_append_lines`` function (created with the schema),
  which locks the row, checks holder, expiry, status and count, and writes. Without it an
  append took five round trips (BEGIN, SELECT … FOR UPDATE, INSERT, UPDATE, COMMIT), and
  on a loaded machine each one waits for the server process to be scheduled.
* **A connection pool** (``psycopg_pool``), sized for the web layer's worker threads; it
  replaces a connection that broke. PostgreSQL's default ``synchronous_commit=on`` makes
  each commit wait for its WAL to be flushed, so an append is durable when it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool

from gm_engine.messages.texts import StoreCannotOpenPostgres, StoreOtherSchema
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
    # The append, in one statement: the row locked first, then the same checks in the same
    # order as the SQLite store (the recorded holder, the status, the count). It answers 'ok', 'no table',
    # 'lease lost', 'status <status>' or 'count <line count>'.
    """CREATE OR REPLACE FUNCTION gm_append_lines(
        p_table text, p_first integer, p_lines text[], p_holder text
    ) RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
        found_row record;
    BEGIN
        SELECT status, line_count, lease_holder, lease_expires INTO found_row
            FROM game_tables WHERE table_id = p_table FOR UPDATE;
        IF NOT FOUND THEN
            RETURN 'no table';
        END IF;
        IF found_row.lease_holder IS DISTINCT FROM p_holder THEN
            RETURN 'lease lost';
        END IF;
        IF found_row.status <> 'running' THEN
            RETURN 'status ' || found_row.status;
        END IF;
        IF found_row.line_count <> p_first THEN
            RETURN 'count ' || found_row.line_count;
        END IF;
        INSERT INTO table_lines (table_id, line_index, line)
            SELECT p_table, p_first + given.ordinal::integer - 1, given.line
            FROM unnest(p_lines) WITH ORDINALITY AS given (line, ordinal);
        UPDATE game_tables SET line_count = p_first + cardinality(p_lines) WHERE table_id = p_table;
        RETURN 'ok';
    END
    $$""",
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
            raise StoreError(StoreCannotOpenPostgres(first)) from None
        self._pool: ConnectionPool[psycopg.Connection[tuple[Any, ...]]] = ConnectionPool(
            url,
            min_size=1,
            max_size=max(1, max_connections),
            kwargs={"autocommit": True},
            open=False,
            name="gm-table-store",
        )
        self._pool.open(wait=True, timeout=30.0)
        try:
            self._create_schema()
        except BaseException:
            self._pool.close()
            raise

    def _create_schema(self) -> None:
        with self._pool.connection() as db, db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in _SCHEMA:
                db.execute(statement)
            row = db.execute("SELECT version FROM gm_store_meta").fetchone()
            if row is None:
                db.execute("INSERT INTO gm_store_meta (version) VALUES (%s)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise StoreError(StoreOtherSchema("PostgreSQL", int(row[0]), SCHEMA_VERSION))

    def _now(self) -> float | None:
        return None if self._clock is None else self._clock()

    def _one(self, query: str, parameters: Sequence[Any] | dict[str, Any]) -> tuple[Any, ...] | None:
        """The first row of one statement (its own transaction), or None."""
        with self._pool.connection() as db:
            # typed by psycopg when its stubs are at hand; Any (the override) when it is absent
            row: tuple[Any, ...] | None = db.execute(query, parameters).fetchone()
            return row

    def _refuse(self, table_id: str, holder: str) -> NoReturn:
        """Why a write under ``holder``'s lease changed no row: no such table, or not its lease."""
        if self._one("SELECT 1 FROM game_tables WHERE table_id = %s", (table_id,)) is None:
            raise StoreError(f"no table {table_id!r}")
        raise LeaseLost(f"{holder!r} does not hold the lease of table {table_id!r}")

    def _exists_or_refuse(self, table_id: str) -> None:
        if (
            "\x00" in table_id
            or self._one("SELECT 1 FROM game_tables WHERE table_id = %s", (table_id,)) is None
        ):
            raise StoreError(f"no table {table_id!r}")

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
        try:
            self._one(
                "INSERT INTO game_tables"
                " (table_id, kind, title, status, created_at, config_json, lease_holder, lease_expires)"
                " VALUES (%(table_id)s, %(kind)s, %(title)s, 'running', %(created)s, %(config)s, %(holder)s,"
                f" CASE WHEN %(holder)s::text IS NULL THEN 0 ELSE {_NOW} + %(ttl)s END) RETURNING 1",
                {
                    "table_id": table_id,
                    "kind": kind,
                    "title": title,
                    "created": created,
                    "config": config_json,
                    "holder": holder,
                    "ttl": float(ttl_seconds or 0),
                    "now": self._now(),
                },
            )
        except errors.UniqueViolation:
            raise StoreError(f"table {table_id!r} exists already") from None
        return TableRow(table_id, kind, title, "running", created, config_json, 0)

    def get_table(self, table_id: str) -> TableRow | None:
        """The table, or None when there is none with that id."""
        if "\x00" in table_id:  # no table has one (check_table_id), and libpq cannot send it
            return None
        row = self._one(f"SELECT {_ROW} FROM game_tables WHERE table_id = %s", (table_id,))
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
        check_text("a table id", table_id)
        check_text("a lease holder", holder)
        changed = self._one(
            "UPDATE game_tables SET status = %(status)s WHERE table_id = %(table_id)s"
            " AND lease_holder = %(holder)s RETURNING 1",
            {"status": checked, "table_id": table_id, "holder": holder, "now": self._now()},
        )
        if changed is None:
            self._refuse(table_id, holder)

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
        check_text("a lease holder", holder)
        row = self._one(
            "SELECT gm_append_lines(%s, %s, %s::text[], %s)",
            (table_id, first_index, checked, holder),
        )
        answer = "" if row is None else str(row[0])
        if answer == "ok":
            return
        if answer == "no table":
            raise StoreError(f"no table {table_id!r}")
        if answer == "lease lost":
            raise LeaseLost(f"{holder!r} does not hold the lease of table {table_id!r}")
        if answer.startswith("status "):
            raise StoreError(f"table {table_id!r} is {answer.removeprefix('status ')}: no more lines")
        if answer.startswith("count "):
            raise LineConflict(
                f"table {table_id!r} has {answer.removeprefix('count ')} lines;"
                f" lines cannot go at index {first_index}"
            )
        raise StoreError(f"gm_append_lines answered {answer!r}")  # a function from another version

    def read_lines(self, table_id: str) -> list[str]:
        """All of the table's lines, in order.

        Raises:
            StoreError: there is no such table.
        """
        if "\x00" in table_id:
            raise StoreError(f"no table {table_id!r}")
        with self._pool.connection() as db:
            rows = db.execute(
                "SELECT line FROM table_lines WHERE table_id = %s ORDER BY line_index", (table_id,)
            ).fetchall()
        if not rows:  # a table has its lines from its start: no line, maybe no table
            self._exists_or_refuse(table_id)
        return [str(row[0]) for row in rows]

    # secrets and seats

    def put_secret(self, table_id: str, name: str, value: bytes) -> None:
        """Keep (or replace) a secret of the table.

        Raises:
            StoreError: no such table, an empty name, or a value that is not bytes.
        """
        check_name("a secret's name", name)
        check_text("a table id", table_id)
        if not isinstance(value, bytes):
            raise StoreError(f"a secret is bytes, not {type(value).__name__}")
        try:
            self._one(
                "INSERT INTO table_secrets (table_id, name, value) VALUES (%s, %s, %s)"
                " ON CONFLICT (table_id, name) DO UPDATE SET value = excluded.value RETURNING 1",
                (table_id, name, value),
            )
        except errors.ForeignKeyViolation:
            raise StoreError(f"no table {table_id!r}") from None

    def get_secret(self, table_id: str, name: str) -> bytes | None:
        """The secret kept under ``name``, or None."""
        if "\x00" in table_id or "\x00" in name:
            return None
        row = self._one("SELECT value FROM table_secrets WHERE table_id = %s AND name = %s", (table_id, name))
        return None if row is None else bytes(row[0])

    def add_seat(self, table_id: str, seat: int, token_digest: str) -> None:
        """Grant ``seat`` to the token whose SHA-256 hex digest is ``token_digest``.

        Raises:
            StoreError: the digest is already granted, no such table, or a malformed digest
                or seat.
        """
        check_seat(seat)
        check_token_digest(token_digest)
        check_text("a table id", table_id)
        try:
            self._one(
                "INSERT INTO seats (token_digest, table_id, seat) VALUES (%s, %s, %s) RETURNING 1",
                (token_digest, table_id, seat),
            )
        except errors.ForeignKeyViolation:
            raise StoreError(f"no table {table_id!r}") from None
        except errors.UniqueViolation:
            raise StoreError("that seat token is already granted") from None

    def find_seat(self, token_digest: str) -> SeatGrant | None:
        """The seat a token's digest opens, or None."""
        if "\x00" in token_digest:
            return None
        row = self._one("SELECT table_id, seat FROM seats WHERE token_digest = %s", (token_digest,))
        return None if row is None else SeatGrant(table_id=str(row[0]), seat=int(row[1]))

    # leases

    def acquire_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Take the lease for ``ttl_seconds`` if it is free, expired or ``holder``'s.

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        check_text("a table id", table_id)
        taken = self._one(
            f"UPDATE game_tables SET lease_holder = %(holder)s, lease_expires = {_NOW} + %(ttl)s"
            f" WHERE table_id = %(table_id)s AND (lease_holder IS NULL OR lease_expires <= {_NOW}"
            " OR lease_holder = %(holder)s) RETURNING 1",
            {"holder": holder, "ttl": float(ttl_seconds), "table_id": table_id, "now": self._now()},
        )
        if taken is None:
            self._exists_or_refuse(table_id)
        return taken is not None

    def renew_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Extend ``holder``'s lease to ``ttl_seconds`` from now, even if it expired while
        nobody took it over; False when another process took it (or it was given up).

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        check_text("a table id", table_id)
        renewed = self._one(
            f"UPDATE game_tables SET lease_expires = {_NOW} + %(ttl)s"
            " WHERE table_id = %(table_id)s AND lease_holder = %(holder)s"
            " RETURNING 1",
            {"holder": holder, "ttl": float(ttl_seconds), "table_id": table_id, "now": self._now()},
        )
        if renewed is None:
            self._exists_or_refuse(table_id)
        return renewed is not None

    def renew_leases(self, holder: str, table_ids: Sequence[str], ttl_seconds: float) -> set[str]:
        """Extend ``holder``'s leases of ``table_ids`` in one statement; the ids renewed (see
        :meth:`~gm_engine.serve.store.TableStore.renew_leases`).

        Raises:
            StoreError: an empty holder or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        check_text("a lease holder", holder)
        wanted = [str(table_id) for table_id in dict.fromkeys(table_ids) if "\x00" not in str(table_id)]
        if not wanted:
            return set()
        with self._pool.connection() as db:
            rows = db.execute(
                f"UPDATE game_tables SET lease_expires = {_NOW} + %(ttl)s"
                " WHERE lease_holder = %(holder)s AND table_id = ANY(%(ids)s) RETURNING table_id",
                {"holder": holder, "ttl": float(ttl_seconds), "ids": wanted, "now": self._now()},
            ).fetchall()
        return {str(row[0]) for row in rows}

    def release_lease(self, table_id: str, holder: str) -> None:
        """Give the lease up (nothing happens if ``holder`` does not hold it)."""
        if "\x00" in table_id or "\x00" in holder:
            return
        with self._pool.connection() as db:
            db.execute(
                "UPDATE game_tables SET lease_holder = NULL, lease_expires = 0"
                " WHERE table_id = %s AND lease_holder = %s",
                (table_id, holder),
            )

    def lease_holder(self, table_id: str) -> str | None:
        """Who holds the table's lease now; None when it is free, expired or there is no table."""
        check_text("a table id", table_id)
        with self._pool.connection() as db:
            row = db.execute(
                "SELECT lease_holder FROM game_tables"
                f" WHERE table_id = %(table_id)s AND lease_expires > {_NOW}",
                {"table_id": table_id, "now": self._now()},
            ).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def claimable_tables(self, holder: str) -> list[str]:
        """Ids of running tables whose lease is free, expired or ``holder``'s, oldest first."""
        check_text("a lease holder", holder)
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
