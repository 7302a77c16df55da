"""The storage contract of ``gm serve``: where a table's event log, seats and lease live.

A table's event log (its transcript lines, in the format of :mod:`gm_engine.transcripts`) is
the source of truth: a line is appended to the store before anything it records is shown to
anyone, and a server that starts (or takes a table over) rebuilds the table by replaying
its lines, the same replay that ``gm resume`` uses.

Every backend (SQLite by default, PostgreSQL with ``--database postgresql://…``) implements
:class:`TableStore`. Its methods are synchronous and safe to call from several threads;
the web layer calls them from worker threads.

A table is driven by one process at a time: the holder of its lease. A lease is held for a
time-to-live and renewed while the table runs; when its holder dies, another process
acquires it once it has expired and resumes the table from its lines. Appending lines
checks the lease and the line count in one transaction, and keeping a secret checks the
lease in the transaction that writes it, so a process that lost its lease can never write
after the new holder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from gm_engine.messages.catalogue import Message, render
from gm_engine.messages.texts import Said

__all__ = [
    "LeaseLost",
    "LineConflict",
    "QueuedSecrets",
    "SeatGrant",
    "StoreError",
    "TableRow",
    "TableStatus",
    "TableStore",
]

TableStatus = Literal["running", "finished", "failed"]
"""``running``: unfinished, to be driven (and resumed after a crash); ``finished``: its end
line is written; ``failed``: it cannot go on (its lines no longer replay), kept for
inspection."""


class StoreError(ValueError):
    """A store operation was refused: unknown table, duplicate id, bad argument.

    ``reason`` is a catalogue message where an operator or a player reads the error (a
    database that cannot be opened, the wrong schema): :meth:`message` is then shown in
    their language; ``str(exc)`` is its English. A program's misuse of the store's API
    (an argument of the wrong type) keeps its English text only, for its developer.
    """

    def __init__(self, reason: Message | str) -> None:
        self.reason = reason if isinstance(reason, Message) else None
        super().__init__(render(reason, "en") if isinstance(reason, Message) else reason)

    def explanation(self) -> Message:
        """What was wrong (:class:`~gm_engine.messages.validation.Explained`)."""
        return self.reason if self.reason is not None else Said(str(self))


class LeaseLost(StoreError):
    """The caller does not hold the table's lease (it expired and may have been taken over)."""


class LineConflict(StoreError):
    """Lines were appended at an index other than the table's current line count."""


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table as the lobby lists it: nothing secret (the seed and keys are secrets)."""

    table_id: str
    kind: str
    """The session kind: ``werewolf`` or ``adventure``."""
    title: str
    status: TableStatus
    created_at: float
    """Seconds since the epoch."""
    config_json: str
    """The table's public options as JSON (rule options, backend name; never a key)."""
    line_count: int


@dataclass(frozen=True, slots=True)
class SeatGrant:
    """What a seat token opens: one seat of one table."""

    table_id: str
    seat: int


class TableStore(Protocol):
    """A table store (see the module doc). Every method raises :class:`StoreError` (or a
    subclass) for a refused operation and lets the driver's own errors (a lost connection)
    through."""

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
        """File a new running table with no lines; with ``holder``, its lease is ``holder``'s
        for ``ttl_seconds`` from the same transaction, so no other process can claim the table
        before its creator has stored its secrets and seats.

        Raises:
            StoreError: ``table_id`` is taken, or ``holder`` comes without a positive, finite
                ``ttl_seconds``.
        """
        ...

    def get_table(self, table_id: str) -> TableRow | None:
        """The table, or None when there is none with that id."""
        ...

    def list_tables(self, status: TableStatus | None = None) -> list[TableRow]:
        """Every table (of ``status`` when given), oldest first."""
        ...

    def set_status(self, table_id: str, status: TableStatus, *, holder: str) -> None:
        """Mark the table ``status``.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
        """
        ...

    def append_lines(self, table_id: str, first_index: int, lines: Sequence[str], *, holder: str) -> None:
        """Append ``lines`` as lines ``first_index``, ``first_index + 1``, … in one transaction,
        durable when it returns.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
            LineConflict: the table does not have exactly ``first_index`` lines.
        """
        ...

    def read_lines(self, table_id: str) -> list[str]:
        """All of the table's lines, in order.

        Raises:
            StoreError: there is no such table.
        """
        ...

    def put_secret(self, table_id: str, name: str, value: bytes, *, holder: str) -> None:
        """Keep a secret of the table (its seed, the key of its sealed lines, P1's pending
        answer); never served. Only the lease's holder keeps one: the holder check and the
        write are one transaction, so a process that lost the table cannot store an answer
        for it after the new holder took over.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
        """
        ...

    def get_secret(self, table_id: str, name: str) -> bytes | None:
        """The secret kept under ``name``, or None."""
        ...

    def add_seat(self, table_id: str, seat: int, token_digest: str) -> None:
        """Grant ``seat`` to whoever holds the token whose SHA-256 hex digest is
        ``token_digest`` (the token itself is never stored).

        Raises:
            StoreError: the digest is already granted.
        """
        ...

    def find_seat(self, token_digest: str) -> SeatGrant | None:
        """The seat a token's digest opens, or None."""
        ...

    def acquire_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Take the table's lease for ``ttl_seconds`` if it is free, expired or already
        ``holder``'s; True when ``holder`` now holds it."""
        ...

    def renew_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Extend ``holder``'s lease; False when ``holder`` no longer holds it."""
        ...

    def renew_leases(self, holder: str, table_ids: Sequence[str], ttl_seconds: float) -> set[str]:
        """Extend ``holder``'s leases of ``table_ids`` in one statement (a process renews every
        lease it holds at once, so that a hundred tables cost one write a tick, not a hundred);
        the ids whose lease ``holder`` still held and now holds for ``ttl_seconds`` more (an
        unknown id, or one another process took, is left out).

        Raises:
            StoreError: an empty holder or a bad time-to-live.
        """
        ...

    def take_over_leases(self, holder: str, ttl_seconds: float) -> set[str]:
        """Give ``holder`` for ``ttl_seconds`` the lease of every running table held by an
        earlier incarnation of the same process: a holder named ``IDENTITY#…`` with
        ``holder``'s identity (the advertised address before the ``#``) that is not
        ``holder``; the ids taken. A holder without an identity takes nothing.

        A server calls it once it listens at its address, as it starts: the process that
        held these leases had that address, so it is gone, and a table it drove answers
        at once instead of waiting out the lease. Were it alive all the same, it could not
        write after the takeover: an append, a renewal and a status change are allowed to
        the recorded holder only, so two processes never both write a table.

        Raises:
            StoreError: an empty holder or a bad time-to-live.
        """
        ...

    def release_lease(self, table_id: str, holder: str) -> None:
        """Give the lease up (nothing happens if ``holder`` does not hold it)."""
        ...

    def lease_holder(self, table_id: str) -> str | None:
        """Who holds the table's lease now; None when it is free or expired (or there is no
        such table)."""
        ...

    def claimable_tables(self, holder: str) -> list[str]:
        """Ids of running tables whose lease is free, expired or ``holder``'s, oldest first."""
        ...

    def close(self) -> None:
        """Close the store's connections."""
        ...


@runtime_checkable
class QueuedSecrets(Protocol):
    """An optional capability of a :class:`TableStore` whose writes are queued for a writer
    of its own (SQLite's group commit): keeping a secret without a thread waiting for it.
    The web's event loop stores a player's answer this way, so that the answer's way to
    the disk takes no thread of the pool and no hop into one and back."""

    def put_secret_then(
        self,
        table_id: str,
        name: str,
        value: bytes,
        then: Callable[[BaseException | None], None],
        *,
        holder: str,
    ) -> None:
        """Keep (or replace) a secret as :meth:`TableStore.put_secret` does, under ``holder``'s
        lease, without waiting: ``then`` is called once, from the store's writer, with None
        once the secret is durable (its commit is on the disk) or with why it was not kept
        (LeaseLost when ``holder`` does not hold the lease; nothing of it is then in the
        store). ``then`` must be quick and must not raise: the writer calls it between two
        commits.

        Raises:
            StoreError: at once, for what :meth:`TableStore.put_secret` refuses before it
                writes (a bad argument), or when the store is closed (``then`` is not
                called then).
        """
        ...
