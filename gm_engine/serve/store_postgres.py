"""The PostgreSQL :class:`~gm_engine.serve.store.TableStore` (``gm serve --database
postgresql://…``), with psycopg 3: several server processes on one database share the tables.

Needs the ``postgres`` extra (``pip install 'gm_engine[postgres]'``: psycopg with its
binary build and its connection pool).

Choices, and why:

* **The lease is a row** (holder and expiry in the table's row), taken and renewed by one
  conditional ``UPDATE`` and checked by every append under ``SELECT … FOR UPDATE``, in the
  transaction that writes the lines (``gm_append_lines_v2``, below). An advisory lock would
  free the table the instant its holder's connection died, but it belongs to one
  connection: through a pool, the lock and the append run on different connections, and a
  holder whose connection dropped (and with it the lock) learns that only when some later
  call fails, so nothing stops it from appending between the loss and the discovery. With
  the row, the check and the write are one transaction: a holder that lost its lease
  cannot append, whatever its connections did. The price is that a dead holder's tables
  wait for its lease to expire (the time-to-live the runtime picks).
* **The rules are written once**, in :mod:`gm_engine.serve.store_base` (the checks, who
  may take, hold and renew a lease, why a write is refused); this module holds only the
  statements that apply them.
* **Lease times are the database server's clock** (``clock_timestamp()``, seconds since
  the epoch), not each process's: the processes may run on different machines whose
  clocks disagree, and the server is the one clock they all read. ``clock_timestamp()``
  rather than ``now()``: ``now()`` is the time the transaction began, and a takeover that
  waited for the row lock would judge the lease by a time already past. Tests pass a
  ``clock`` to step time without sleeping.
* **One statement, one round trip, per call.** The pool's connections are in autocommit
  and every method is a single statement, which PostgreSQL runs as its own transaction:
  an append is one call of the ``gm_append_lines_v2`` function (created with the schema),
  which locks the row, checks holder, status and count, and writes. Without it an
  append took five round trips (BEGIN, SELECT … FOR UPDATE, INSERT, UPDATE, COMMIT), and
  on a loaded machine each one waits for the server process to be scheduled.
* **P1's answers through a writer of their own** (:meth:`PostgresTableStore.put_secret_then`,
  the :class:`~gm_engine.serve.store.QueuedSecrets` capability the web's answer route
  uses): one thread with its own connection keeps every secret waiting in one statement,
  one commit, then calls each caller back. Through a worker thread and the pool an
  answer waited for one of the event loop's few threads and then for a connection
  behind the sessions' appends, and each answer paid its own commit: measured with
  ``benchmarks/bench_serve.py`` (100 tables, two processes), the wait for the thread
  alone was 23-47 ms at p95.
* **A connection pool** (``psycopg_pool``), sized for the web layer's worker threads; it
  replaces a connection that broke. PostgreSQL's default ``synchronous_commit=on`` makes
  each commit wait for its WAL to be flushed, so an append is durable when it returns.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool, PoolClosed

from gm_engine.messages.texts import StoreCannotOpenPostgres, StoreOtherSchema
from gm_engine.serve.batch_writer import BatchWriter
from gm_engine.serve.store import SeatGrant, StoreError, TableStatus
from gm_engine.serve.store_base import ROW_COLUMNS, LeaseRecord, SeatInsert, TableStoreBase, sql_may_take
from gm_engine.serve.store_checks import check_holder, check_secret

__all__ = ["CLAIM_QUERY", "SCHEMA_VERSION", "PostgresTableStore"]

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
    # The append, in one statement: the row locked, then the lines written if and only if
    # the rules let them in (store_base.append_refusal: the recorded holder, the status, the
    # count). It answers what the row said, [status, line_count, lease_holder] as JSON (NULL:
    # no such table), and the caller says why a refused append was refused. A new name for a
    # new answer: a database set up by an earlier version keeps its own function.
    """CREATE OR REPLACE FUNCTION gm_append_lines_v2(
        p_table text, p_first integer, p_lines text[], p_holder text
    ) RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
        found_row record;
    BEGIN
        SELECT status, line_count, lease_holder INTO found_row
            FROM game_tables WHERE table_id = p_table FOR UPDATE;
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        IF found_row.lease_holder = p_holder AND found_row.status = 'running'
                AND found_row.line_count = p_first THEN
            INSERT INTO table_lines (table_id, line_index, line)
                SELECT p_table, p_first + given.ordinal::integer - 1, given.line
                FROM unnest(p_lines) WITH ORDINALITY AS given (line, ordinal);
            UPDATE game_tables SET line_count = p_first + cardinality(p_lines) WHERE table_id = p_table;
        END IF;
        RETURN json_build_array(found_row.status, found_row.line_count, found_row.lease_holder)::text;
    END
    $$""",
)

# The indexes, each created when missing (a database set up by an earlier version gains
# them as it is opened: an index changes no row, so the schema version stays). Looked up
# first, not "CREATE INDEX IF NOT EXISTS" at every start: that takes a SHARE lock on the
# table before it finds the index there, and a second process starting beside a serving
# one would hold up every write of the first until its schema transaction committed.
#
# game_tables_running: the running tables in creation order, and only them. The claim
# query (``_claimable``, every process at every tick), the takeover of an earlier
# incarnation and the lobby's list of running tables read the running rows; without it each
# reads every row ever filed, and finished tables pile up while the running ones stay as
# many as are being played. Its columns are never updated by a lease or an append (the
# lease and the line count are not in it), so those updates stay HOT: only a status
# change writes to it.
_INDEXES = (
    (
        "game_tables_running",
        "CREATE INDEX game_tables_running ON game_tables (created_at, seq) WHERE status = 'running'",
    ),
)

# The lease clock: the caller's when the store was given one, else the server's.
_NOW = "COALESCE(%(now)s::double precision, extract(epoch FROM clock_timestamp())::double precision)"

_RENEW_UNLOCKED = (
    f"UPDATE game_tables SET lease_expires = {_NOW} + %(ttl)s WHERE table_id IN"
    " (SELECT table_id FROM game_tables WHERE lease_holder = %(holder)s AND table_id = ANY(%(ids)s)"
    " FOR NO KEY UPDATE SKIP LOCKED) AND lease_holder = %(holder)s RETURNING table_id"
)
"""Extend ``%(holder)s``'s leases of ``%(ids)s`` whose rows nobody has locked now."""
_RENEW_WAITING = (
    f"UPDATE game_tables SET lease_expires = {_NOW} + %(ttl)s"
    " WHERE lease_holder = %(holder)s AND table_id = ANY(%(ids)s) RETURNING table_id"
)
"""Extend ``%(holder)s``'s leases of ``%(ids)s``, waiting for a row's lock where it is held."""

CLAIM_QUERY = (
    "SELECT table_id FROM game_tables WHERE status = 'running'"
    f" AND {sql_may_take(_NOW, '%(holder)s')} ORDER BY created_at, seq"
)
"""The running tables ``%(holder)s`` may take, oldest first
(:meth:`~gm_engine.serve.store_base.TableStoreBase.claimable_tables`,
run by every process at every tick); read through ``game_tables_running`` (a test EXPLAINs it)."""



_KEEP_SECRETS = (
    "INSERT INTO table_secrets (table_id, name, value)"
    " SELECT given.table_id, given.name, given.value"
    " FROM unnest(%s::text[], %s::text[], %s::bytea[], %s::text[]) WITH ORDINALITY"
    " AS given (table_id, name, value, holder, ordinal)"
    " CROSS JOIN LATERAL (SELECT 1 FROM game_tables"
    " WHERE game_tables.table_id = given.table_id AND lease_holder = given.holder FOR SHARE) AS held"
    " ORDER BY given.ordinal"
    " ON CONFLICT (table_id, name) DO UPDATE SET value = excluded.value RETURNING table_id, name"
)
"""Keep every given secret whose table's recorded holder is the given one, in one statement
(one commit): the rows locked FOR SHARE one by one in the given order (the writer sorts
them by table, so that two such statements lock in the same order), as ``_upsert_secret``
locks one; the (table, name) of each kept. Every (table, name) at most once: a conflict
is updated once a statement."""


class _QueuedSecret:
    """A secret waiting for the store's secret writer, and who to tell."""

    __slots__ = ("holder", "name", "table_id", "then", "value")

    def __init__(
        self,
        table_id: str,
        name: str,
        value: bytes,
        holder: str,
        then: Callable[[BaseException | None], None],
    ) -> None:
        self.table_id = table_id
        self.name = name
        self.value = value
        self.holder = holder
        self.then = then

    def tell(self, error: BaseException | None) -> None:
        try:
            self.then(error)
        except Exception:  # the caller's bug: the writer must live on for the others
            traceback.print_exc(file=sys.stderr)


class PostgresTableStore(TableStoreBase):
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
        self._url = url
        self._secrets_db: psycopg.Connection[tuple[Any, ...]] | None = None
        self._writer: BatchWriter[_QueuedSecret] = BatchWriter(
            "gm-postgres-secrets", self._keep, lambda queued: queued.tell(self._closed_error())
        )
        self._writer.start()

    def _create_schema(self) -> None:
        with self._pool.connection() as db, db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in _SCHEMA:
                db.execute(statement)
            for name, statement in _INDEXES:
                if db.execute("SELECT to_regclass(%s)", (name,)).fetchone() in (None, (None,)):
                    db.execute(statement)
            row = db.execute("SELECT version FROM gm_store_meta").fetchone()
            if row is None:
                db.execute("INSERT INTO gm_store_meta (version) VALUES (%s)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise StoreError(StoreOtherSchema("PostgreSQL", int(row[0]), SCHEMA_VERSION))

    def _now(self) -> float | None:
        return None if self._clock is None else self._clock()

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        """A connection of the pool for one statement.

        Raises:
            StoreError: the store is closed, or was closed while this call waited for a
                connection (the pool fails its waiting callers then: nothing was written).
        """
        try:
            with self._pool.connection() as db:
                yield db
        except PoolClosed:
            raise StoreError("the PostgreSQL table store is closed") from None

    def _one(self, query: str, parameters: Sequence[Any] | dict[str, Any]) -> tuple[Any, ...] | None:
        """The first row of one statement (its own transaction), or None."""
        with self._connection() as db:
            # typed by psycopg when its stubs are at hand; Any (the override) when it is absent
            row: tuple[Any, ...] | None = db.execute(query, parameters).fetchone()
            return row

    def _all(self, query: str, parameters: Sequence[Any] | dict[str, Any]) -> list[tuple[Any, ...]]:
        """Every row of one statement (its own transaction)."""
        with self._connection() as db:
            rows: list[tuple[Any, ...]] = db.execute(query, parameters).fetchall()
            return rows

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
        inserted = self._one(
            "INSERT INTO game_tables"
            " (table_id, kind, title, status, created_at, config_json, lease_holder, lease_expires)"
            " VALUES (%(table_id)s, %(kind)s, %(title)s, 'running', %(created)s, %(config)s, %(holder)s,"
            f" CASE WHEN %(holder)s::text IS NULL THEN 0 ELSE {_NOW} + %(ttl)s END)"
            " ON CONFLICT (table_id) DO NOTHING RETURNING 1",
            {
                "table_id": table_id,
                "kind": kind,
                "title": title,
                "created": created_at,
                "config": config_json,
                "holder": holder,
                "ttl": ttl_seconds,
                "now": self._now(),
            },
        )
        return inserted is not None

    def _select_table(self, table_id: str) -> Sequence[object] | None:
        return self._one(f"SELECT {ROW_COLUMNS} FROM game_tables WHERE table_id = %s", (table_id,))

    def _select_tables(self, status: TableStatus | None) -> list[Sequence[object]]:
        if status is None:
            return list(self._all(f"SELECT {ROW_COLUMNS} FROM game_tables ORDER BY created_at, seq", ()))
        return list(
            self._all(
                f"SELECT {ROW_COLUMNS} FROM game_tables WHERE status = %s ORDER BY created_at, seq", (status,)
            )
        )

    def _update_status(self, table_id: str, status: TableStatus, holder: str) -> bool:
        changed = self._one(
            "UPDATE game_tables SET status = %s WHERE table_id = %s AND lease_holder = %s RETURNING 1",
            (status, table_id, holder),
        )
        return changed is not None

    def _append(self, table_id: str, first_index: int, lines: list[str], holder: str) -> LeaseRecord | None:
        row = self._one(
            "SELECT gm_append_lines_v2(%s, %s, %s::text[], %s)", (table_id, first_index, lines, holder)
        )
        if row is None or row[0] is None:
            return None
        status, line_count, found_holder = json.loads(str(row[0]))
        return LeaseRecord(str(status), int(line_count), None if found_holder is None else str(found_holder))

    def _select_lines(self, table_id: str) -> list[str] | None:
        rows = self._all("SELECT line FROM table_lines WHERE table_id = %s ORDER BY line_index", (table_id,))
        # a table has its lines from its start: no line, maybe no table
        if not rows and self._one("SELECT 1 FROM game_tables WHERE table_id = %s", (table_id,)) is None:
            return None
        return [str(row[0]) for row in rows]

    def _upsert_secret(self, table_id: str, name: str, value: bytes, holder: str) -> bool:
        # The row is locked (FOR SHARE: a takeover's UPDATE waits for this statement, and this
        # one for a takeover under way), so the holder read is still the holder at the write.
        kept = self._one(
            "INSERT INTO table_secrets (table_id, name, value)"
            " SELECT table_id, %(name)s, %(value)s FROM game_tables"
            " WHERE table_id = %(table_id)s AND lease_holder = %(holder)s FOR SHARE"
            " ON CONFLICT (table_id, name) DO UPDATE SET value = excluded.value RETURNING 1",
            {"table_id": table_id, "name": name, "value": value, "holder": holder},
        )
        return kept is not None

    def _select_secret(self, table_id: str, name: str) -> bytes | None:
        row = self._one("SELECT value FROM table_secrets WHERE table_id = %s AND name = %s", (table_id, name))
        return None if row is None else bytes(row[0])

    def _insert_seat(self, table_id: str, seat: int, token_digest: str) -> SeatInsert:
        try:
            inserted = self._one(
                "INSERT INTO seats (token_digest, table_id, seat) VALUES (%s, %s, %s)"
                " ON CONFLICT (token_digest) DO NOTHING RETURNING 1",
                (token_digest, table_id, seat),
            )
        except errors.ForeignKeyViolation:
            return "no table"
        return "granted" if inserted is not None else "taken"

    def _select_seat(self, token_digest: str) -> SeatGrant | None:
        row = self._one("SELECT table_id, seat FROM seats WHERE token_digest = %s", (token_digest,))
        return None if row is None else SeatGrant(table_id=str(row[0]), seat=int(row[1]))

    def _take(self, table_id: str, holder: str, ttl_seconds: float) -> bool | None:
        taken = self._one(
            f"UPDATE game_tables SET lease_holder = %(holder)s, lease_expires = {_NOW} + %(ttl)s"
            f" WHERE table_id = %(table_id)s AND {sql_may_take(_NOW, '%(holder)s')} RETURNING 1",
            {"holder": holder, "ttl": ttl_seconds, "table_id": table_id, "now": self._now()},
        )
        if taken is not None:
            return True
        return (
            None if self._one("SELECT 1 FROM game_tables WHERE table_id = %s", (table_id,)) is None else False
        )

    def _renew(self, holder: str, table_ids: list[str], ttl_seconds: float) -> set[str]:
        # Every row free of locks in one statement, skipping the rows locked now (a table of
        # this process appending, or storing an answer, holds its row until its commit is
        # flushed); then each skipped one alone. One statement waiting for the locked rows
        # in turn held the rows it had renewed all the while, and every append and answer of
        # those tables queued behind it: measured with bench_serve.py (2 processes, 100
        # tables), the renewal was in 14-23 of the lock waits over 5 ms and the appends in
        # 19-41, the answers' store phase at 125-132 ms p95.
        parameters = {"holder": holder, "ttl": ttl_seconds, "ids": table_ids, "now": self._now()}
        rows = self._all(_RENEW_UNLOCKED, parameters)
        renewed = {str(row[0]) for row in rows}
        for table_id in table_ids:
            if table_id not in renewed:  # locked just now, or not this holder's lease any more
                parameters["ids"] = [table_id]
                renewed.update(str(row[0]) for row in self._all(_RENEW_WAITING, parameters))
        return renewed

    def _take_over(self, holder: str, prefix: str, ttl_seconds: float) -> set[str]:
        rows = self._all(
            f"UPDATE game_tables SET lease_holder = %(holder)s, lease_expires = {_NOW} + %(ttl)s"
            " WHERE status = 'running' AND lease_holder <> %(holder)s"
            " AND left(lease_holder, %(length)s) = %(prefix)s RETURNING table_id",
            {
                "holder": holder,
                "ttl": ttl_seconds,
                "length": len(prefix),
                "prefix": prefix,
                "now": self._now(),
            },
        )
        return {str(row[0]) for row in rows}

    def _release(self, table_id: str, holder: str) -> None:
        self._all(
            "UPDATE game_tables SET lease_holder = NULL, lease_expires = 0"
            " WHERE table_id = %s AND lease_holder = %s RETURNING 1",
            (table_id, holder),
        )

    def _current_holder(self, table_id: str) -> str | None:
        row = self._one(
            f"SELECT lease_holder FROM game_tables WHERE table_id = %(table_id)s AND lease_expires > {_NOW}",
            {"table_id": table_id, "now": self._now()},
        )
        return None if row is None or row[0] is None else str(row[0])

    def _claimable(self, holder: str) -> list[str]:
        rows = self._all(CLAIM_QUERY, {"holder": holder, "now": self._now()})
        return [str(row[0]) for row in rows]

    # the secret writer (QueuedSecrets): P1's answers without a thread waiting for each

    def put_secret_then(
        self,
        table_id: str,
        name: str,
        value: bytes,
        then: Callable[[BaseException | None], None],
        *,
        holder: str,
    ) -> None:
        """Keep a secret under ``holder``'s lease without waiting: the store's secret writer
        keeps every secret waiting in one statement (one commit), then calls ``then(None)``
        from its thread once that commit is flushed, or ``then(error)`` when it was refused
        (LeaseLost: ``holder`` does not hold the table's lease; StoreError: no such table,
        or the store was closed while it waited, and nothing of it is stored); see
        :class:`~gm_engine.serve.store.QueuedSecrets`.

        Raises:
            StoreError: a bad argument, or the store is closed (``then`` is not called).
        """
        check_secret(table_id, name, value)
        check_holder(holder)
        if self._closed:
            raise self._closed_error()
        self._writer.put(_QueuedSecret(table_id, name, value, holder, then))

    def _closed_error(self) -> StoreError:
        return StoreError("the PostgreSQL table store is closed")

    @property
    def _closed(self) -> bool:
        return self._writer.closed

    def _keep(self, batch: list[_QueuedSecret]) -> None:
        """Keep a batch: one statement for each round of distinct (table, name), in the order
        they came (a later secret of a name replaces an earlier one, as one by one), then
        every caller told."""
        rounds: list[list[_QueuedSecret]] = []
        last: dict[tuple[str, str], int] = {}
        for queued in batch:
            number = last.get((queued.table_id, queued.name), -1) + 1
            if number == len(rounds):
                rounds.append([])
            rounds[number].append(queued)
            last[(queued.table_id, queued.name)] = number
        for number, keeping in enumerate(rounds):
            keeping.sort(key=lambda queued: queued.table_id)  # every such statement locks in one order
            try:
                kept = self._keep_round(keeping)
            except Exception as failure:  # the connection or the server: nothing of it is kept
                self._drop_secrets_db()
                for later in rounds[number:]:
                    for queued in later:
                        queued.tell(failure)
                return
            for queued in keeping:
                if (queued.table_id, queued.name) in kept:
                    queued.tell(None)
                    continue
                try:
                    refusal: BaseException = self._refuse(queued.table_id, queued.holder)
                except Exception as failure:  # the store closing meanwhile, the server gone
                    refusal = failure
                queued.tell(refusal)

    def _keep_round(self, keeping: list[_QueuedSecret]) -> set[tuple[str, str]]:
        if self._secrets_db is None or self._secrets_db.closed:
            self._secrets_db = psycopg.connect(self._url, autocommit=True, connect_timeout=10)
        rows = self._secrets_db.execute(
            _KEEP_SECRETS,
            (
                [queued.table_id for queued in keeping],
                [queued.name for queued in keeping],
                [queued.value for queued in keeping],
                [queued.holder for queued in keeping],
            ),
        ).fetchall()
        return {(str(row[0]), str(row[1])) for row in rows}

    def _drop_secrets_db(self) -> None:
        if self._secrets_db is not None:
            with suppress(psycopg.Error):
                self._secrets_db.close()
            self._secrets_db = None

    def close(self) -> None:
        """Keep the secrets already queued, then close the connections; the store refuses
        calls afterwards."""
        if self._closed:
            return
        self._writer.close()
        self._drop_secrets_db()
        self._pool.close()
