"""What every :class:`~gm_engine.serve.store.TableStore` backend shares: the argument checks,
the lease rules, the reasons a write is refused and the row → :class:`TableRow` conversion.
A backend subclasses :class:`TableStoreBase` and writes only its statements (the methods
named ``_…`` below), each one transaction of its database.

The lease rules (the module doc of :mod:`gm_engine.serve.store` says why):

* a lease may be **taken** (:meth:`TableStoreBase.acquire_lease`, and
  :meth:`~TableStoreBase.claimable_tables` lists the running tables where it may) when it is
  free, expired or already the taker's: :func:`may_take`, in SQL :func:`sql_may_take`;
* **holding** a lease is being its recorded holder: an append, a secret kept (P1's pending
  answer among them), a status change and a renewal
  are allowed to the holder written in the row even after the expiry passed, and refused
  once another holder is written there (or the lease was given up); the expiry only says
  when another process may take it;
* an **append** goes in when its holder holds the lease, the table is running and the
  table has exactly ``first_index`` lines (checked in this order: :func:`append_refusal`);
* a process started again at the address of a killed one **takes over** at once the leases
  of that earlier incarnation (:meth:`TableStoreBase.take_over_leases`): a holder is named
  ``IDENTITY#INCARNATION`` (:func:`holder_identity`), so the earlier incarnation's leases are
  the ones whose holder has this process's identity and another incarnation.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gm_engine.serve.store import LeaseLost, LineConflict, SeatGrant, StoreError, TableRow, TableStatus
from gm_engine.serve.store_checks import (
    check_created_at,
    check_holder,
    check_lines,
    check_name,
    check_seat,
    check_secret,
    check_status,
    check_table_id,
    check_text,
    check_token_digest,
    check_ttl,
)

__all__ = [
    "ROW_COLUMNS",
    "LeaseRecord",
    "SeatInsert",
    "TableStoreBase",
    "append_refusal",
    "holder_identity",
    "may_take",
    "sql_may_take",
    "table_row",
]

ROW_COLUMNS = "table_id, kind, title, status, created_at, config_json, line_count"
"""The columns a backend selects for :func:`table_row`, in its order."""

SeatInsert = Literal["granted", "no table", "taken"]
"""What inserting a seat grant did: granted, refused for want of the table, or refused
because the digest is granted already."""


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    """What a table's row says of its lease and its lines when a write is judged."""

    status: str
    line_count: int
    holder: str | None


def table_row(values: Sequence[object]) -> TableRow:
    """A :class:`TableRow` from the :data:`ROW_COLUMNS` of a backend's row.

    Raises:
        StoreError: the row holds an unknown status or a value of the wrong type (a database
            written by something else).
    """
    table_id, kind, title, status, created_at, config_json, line_count = values
    if not (
        isinstance(table_id, str)
        and isinstance(kind, str)
        and isinstance(title, str)
        and isinstance(status, str)
        and isinstance(config_json, str)
        and isinstance(created_at, int | float)
        and isinstance(line_count, int)
    ):
        raise StoreError(f"a table row of an unknown shape: {values!r}")
    return TableRow(
        table_id=table_id,
        kind=kind,
        title=title,
        status=check_status(status),
        created_at=float(created_at),
        config_json=config_json,
        line_count=line_count,
    )


def holder_identity(holder: str) -> str | None:
    """The part of a holder's name that a process keeps when it is started again (its
    advertised address: ``URL`` of ``URL#host:pid:suffix``), or None for a holder named
    without one (it has no earlier incarnation to take over from)."""
    identity, mark, _incarnation = holder.partition("#")
    return identity if mark and identity else None


def may_take(current: str | None, expires: float, holder: str, now: float) -> bool:
    """Whether ``holder`` may take a lease held by ``current`` until ``expires`` at ``now``:
    it is free, expired or already ``holder``'s."""
    return current is None or expires <= now or current == holder


def sql_may_take(now: str, holder: str) -> str:
    """:func:`may_take` as an SQL condition on the ``lease_holder`` and ``lease_expires``
    columns; ``now`` and ``holder`` are the backend's placeholders (or expressions)."""
    return f"(lease_holder IS NULL OR lease_expires <= {now} OR lease_holder = {holder})"


def append_refusal(
    table_id: str, found: LeaseRecord | None, holder: str, first_index: int
) -> StoreError | None:
    """Why ``holder`` may not append at ``first_index`` to a table whose row says ``found``
    (None: there is no such table), or None when the append may go in."""
    if found is None:
        return StoreError(f"no table {table_id!r}")
    if found.holder != holder:
        return LeaseLost(f"{holder!r} does not hold the lease of table {table_id!r}")
    if found.status != "running":
        return StoreError(f"table {table_id!r} is {found.status}: no more lines")
    if found.line_count != first_index:
        return LineConflict(
            f"table {table_id!r} has {found.line_count} lines; lines cannot go at index {first_index}"
        )
    return None


def _sendable(*keys: str) -> bool:
    """Whether every key can name a row: none holds a NUL (refused when a row is written, and
    PostgreSQL cannot even be asked about one)."""
    return all(isinstance(key, str) and "\x00" not in key for key in keys)


class TableStoreBase(abc.ABC):
    """A :class:`~gm_engine.serve.store.TableStore` written once (see the module doc); a
    backend implements the abstract ``_…`` statements, each in one transaction."""

    # -- the backend's statements ----------------------------------------------------------------

    @abc.abstractmethod
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
        """File the running table (leased to ``holder`` for ``ttl_seconds`` when a holder is
        given); False when ``table_id`` is taken."""

    @abc.abstractmethod
    def _select_table(self, table_id: str) -> Sequence[object] | None:
        """The table's :data:`ROW_COLUMNS`, or None."""

    @abc.abstractmethod
    def _select_tables(self, status: TableStatus | None) -> list[Sequence[object]]:
        """The :data:`ROW_COLUMNS` of every table (of ``status`` when given), oldest first
        (by creation time, then by filing order)."""

    @abc.abstractmethod
    def _update_status(self, table_id: str, status: TableStatus, holder: str) -> bool:
        """Set the status where ``holder`` is the recorded holder; whether a row changed."""

    @abc.abstractmethod
    def _append(self, table_id: str, first_index: int, lines: list[str], holder: str) -> LeaseRecord | None:
        """In one transaction: lock the table's row, and append ``lines`` if and only if
        :func:`append_refusal` finds nothing against it; what the row said (None: no table)."""

    @abc.abstractmethod
    def _select_lines(self, table_id: str) -> list[str] | None:
        """The table's lines in order, or None when there is no such table."""

    @abc.abstractmethod
    def _upsert_secret(self, table_id: str, name: str, value: bytes, holder: str) -> bool:
        """Keep or replace the secret where ``holder`` is the table's recorded holder, in one
        transaction; whether it was kept (False: no such table, or not ``holder``'s lease)."""

    @abc.abstractmethod
    def _select_secret(self, table_id: str, name: str) -> bytes | None:
        """The secret, or None."""

    @abc.abstractmethod
    def _insert_seat(self, table_id: str, seat: int, token_digest: str) -> SeatInsert:
        """Grant the seat to the digest (see :data:`SeatInsert`)."""

    @abc.abstractmethod
    def _select_seat(self, token_digest: str) -> SeatGrant | None:
        """The grant of the digest, or None."""

    @abc.abstractmethod
    def _take(self, table_id: str, holder: str, ttl_seconds: float) -> bool | None:
        """Give ``holder`` the lease where :func:`may_take`; whether it did, None when there
        is no such table."""

    @abc.abstractmethod
    def _renew(self, holder: str, table_ids: list[str], ttl_seconds: float) -> set[str]:
        """Extend the leases of ``table_ids`` whose recorded holder is ``holder``, in one
        statement; the ids extended."""

    @abc.abstractmethod
    def _take_over(self, holder: str, prefix: str, ttl_seconds: float) -> set[str]:
        """Give ``holder`` every running table's lease whose recorded holder starts with
        ``prefix`` and is not ``holder``, in one statement; the ids taken."""

    @abc.abstractmethod
    def _release(self, table_id: str, holder: str) -> None:
        """Free the lease where ``holder`` is the recorded holder."""

    @abc.abstractmethod
    def _current_holder(self, table_id: str) -> str | None:
        """The recorded holder of a lease that has not expired, or None."""

    @abc.abstractmethod
    def _claimable(self, holder: str) -> list[str]:
        """The running tables where :func:`may_take` for ``holder``, oldest first."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close the store's connections; the store refuses calls afterwards."""

    # -- the contract ------------------------------------------------------------------------------

    def _refuse(self, table_id: str, holder: str) -> StoreError:
        """Why a write under ``holder``'s lease changed no row: no such table, or not its lease."""
        if self.get_table(table_id) is None:
            return StoreError(f"no table {table_id!r}")
        return LeaseLost(f"{holder!r} does not hold the lease of table {table_id!r}")

    def _require_table(self, table_id: str) -> None:
        if self.get_table(table_id) is None:
            raise StoreError(f"no table {table_id!r}")

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
        ttl = 0.0
        if holder is not None:
            check_holder(holder)
            check_ttl(ttl_seconds)  # type: ignore[arg-type]  # None is refused there, with its reason
            ttl = float(ttl_seconds)  # type: ignore[arg-type]  # checked just above
        if not self._insert_table(table_id, kind, title, config_json, created, holder, ttl):
            raise StoreError(f"table {table_id!r} exists already")
        return TableRow(table_id, kind, title, "running", created, config_json, 0)

    def get_table(self, table_id: str) -> TableRow | None:
        """The table, or None when there is none with that id."""
        if not _sendable(table_id):
            return None
        values = self._select_table(table_id)
        return None if values is None else table_row(values)

    def list_tables(self, status: TableStatus | None = None) -> list[TableRow]:
        """Every table (of ``status`` when given), oldest first."""
        wanted = None if status is None else check_status(status)
        return [table_row(values) for values in self._select_tables(wanted)]

    def set_status(self, table_id: str, status: TableStatus, *, holder: str) -> None:
        """Mark the table ``status``.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
            StoreError: no such table, or an unknown status.
        """
        checked = check_status(status)
        check_text("a table id", table_id)
        check_text("a lease holder", holder)
        if not self._update_status(table_id, checked, holder):
            raise self._refuse(table_id, holder)

    def append_lines(self, table_id: str, first_index: int, lines: Sequence[str], *, holder: str) -> None:
        """Append ``lines`` at ``first_index`` in one transaction, durable when it returns.

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
            LineConflict: the table does not have exactly ``first_index`` lines.
            StoreError: no such table, the table is no longer running, or a line is not one
                line of text.
        """
        checked = check_lines(first_index, lines)
        check_text("a table id", table_id)
        check_text("a lease holder", holder)
        refusal = append_refusal(
            table_id, self._append(table_id, first_index, checked, holder), holder, first_index
        )
        if refusal is not None:
            raise refusal

    def read_lines(self, table_id: str) -> list[str]:
        """All of the table's lines, in order.

        Raises:
            StoreError: there is no such table.
        """
        lines = self._select_lines(table_id) if _sendable(table_id) else None
        if lines is None:
            raise StoreError(f"no table {table_id!r}")
        return lines

    def put_secret(self, table_id: str, name: str, value: bytes, *, holder: str) -> None:
        """Keep (or replace) a secret of the table, under ``holder``'s lease (checked in the
        transaction that writes it, as an append is).

        Raises:
            LeaseLost: ``holder`` does not hold the table's lease.
            StoreError: no such table, an empty name, or a value that is not bytes.
        """
        check_secret(table_id, name, value)
        check_holder(holder)
        if not self._upsert_secret(table_id, name, value, holder):
            raise self._refuse(table_id, holder)

    def get_secret(self, table_id: str, name: str) -> bytes | None:
        """The secret kept under ``name``, or None."""
        return self._select_secret(table_id, name) if _sendable(table_id, name) else None

    def add_seat(self, table_id: str, seat: int, token_digest: str) -> None:
        """Grant ``seat`` to the token whose SHA-256 hex digest is ``token_digest``.

        Raises:
            StoreError: the digest is already granted, no such table, or a malformed digest
                or seat.
        """
        check_seat(seat)
        check_token_digest(token_digest)
        check_text("a table id", table_id)
        done = self._insert_seat(table_id, seat, token_digest)
        if done == "no table":
            raise StoreError(f"no table {table_id!r}")
        if done == "taken":
            raise StoreError("that seat token is already granted")

    def find_seat(self, token_digest: str) -> SeatGrant | None:
        """The seat a token's digest opens, or None."""
        return self._select_seat(token_digest) if _sendable(token_digest) else None

    def acquire_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Take the lease for ``ttl_seconds`` if it is free, expired or ``holder``'s.

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        check_text("a table id", table_id)
        taken = self._take(table_id, holder, float(ttl_seconds))
        if taken is None:
            raise StoreError(f"no table {table_id!r}")
        return taken

    def renew_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        """Extend ``holder``'s lease to ``ttl_seconds`` from now, even if it expired while
        nobody took it over; False when another process took it (or it was given up): the
        one-table case of :meth:`renew_leases`.

        Raises:
            StoreError: no such table, an empty holder, or a bad time-to-live.
        """
        check_text("a table id", table_id)
        if table_id in self.renew_leases(holder, [table_id], ttl_seconds):
            return True
        self._require_table(table_id)
        return False

    def renew_leases(self, holder: str, table_ids: Sequence[str], ttl_seconds: float) -> set[str]:
        """Extend ``holder``'s leases of ``table_ids`` in one statement; the ids renewed (see
        :meth:`~gm_engine.serve.store.TableStore.renew_leases`).

        Raises:
            StoreError: an empty holder or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        wanted = [table_id for table_id in dict.fromkeys(str(table_id) for table_id in table_ids)]
        wanted = [table_id for table_id in wanted if _sendable(table_id)]
        return self._renew(holder, wanted, float(ttl_seconds)) if wanted else set()

    def take_over_leases(self, holder: str, ttl_seconds: float) -> set[str]:
        """Give ``holder`` the leases of the running tables held by an earlier incarnation of
        the same process (see :meth:`~gm_engine.serve.store.TableStore.take_over_leases`).

        Raises:
            StoreError: an empty holder or a bad time-to-live.
        """
        check_holder(holder)
        check_ttl(ttl_seconds)
        identity = holder_identity(holder)
        if identity is None or not _sendable(holder):
            return set()
        return self._take_over(holder, f"{identity}#", float(ttl_seconds))

    def release_lease(self, table_id: str, holder: str) -> None:
        """Give the lease up (nothing happens if ``holder`` does not hold it)."""
        if _sendable(table_id, holder):
            self._release(table_id, holder)

    def lease_holder(self, table_id: str) -> str | None:
        """Who holds the table's lease now; None when it is free, expired or there is no table."""
        check_text("a table id", table_id)
        return self._current_holder(table_id)

    def claimable_tables(self, holder: str) -> list[str]:
        """Ids of running tables whose lease is free, expired or ``holder``'s, oldest first."""
        check_text("a lease holder", holder)
        return self._claimable(holder)
