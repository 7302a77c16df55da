"""A :class:`~gm_engine.serve.store.TableStore` in memory, for the runtime's tests: the
contract's checks (lease on append, line index, digests unique) and nothing durable."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from gm_engine.serve.store import LeaseLost, LineConflict, SeatGrant, StoreError, TableRow, TableStatus


@dataclass
class _Table:
    row: TableRow
    lines: list[str] = field(default_factory=list)
    secrets: dict[str, bytes] = field(default_factory=dict)
    holder: str | None = None
    until: float = 0.0


class MemoryStore:
    """Tables, seats and leases in dictionaries, under one lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, _Table] = {}
        self._seats: dict[str, SeatGrant] = {}

    def _get(self, table_id: str) -> _Table:
        table = self._tables.get(table_id)
        if table is None:
            raise StoreError(f"no table {table_id!r}")
        return table

    def _holds(self, table: _Table, holder: str) -> bool:
        return table.holder == holder and table.until > time.monotonic()

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
        if holder is not None and not (ttl_seconds is not None and 0 < ttl_seconds < float("inf")):
            raise StoreError("a lease's time-to-live must be positive, finite seconds")
        with self._lock:
            if table_id in self._tables:
                raise StoreError(f"table {table_id!r} exists")
            row = TableRow(table_id, kind, title, "running", created_at, config_json, 0)
            table = _Table(row)
            if holder is not None and ttl_seconds is not None:
                table.holder, table.until = holder, time.monotonic() + ttl_seconds
            self._tables[table_id] = table
            return row

    def get_table(self, table_id: str) -> TableRow | None:
        with self._lock:
            table = self._tables.get(table_id)
            return None if table is None else replace(table.row, line_count=len(table.lines))

    def list_tables(self, status: TableStatus | None = None) -> list[TableRow]:
        with self._lock:
            rows = [replace(t.row, line_count=len(t.lines)) for t in self._tables.values()]
        return sorted((r for r in rows if status is None or r.status == status), key=lambda r: r.created_at)

    def set_status(self, table_id: str, status: TableStatus, *, holder: str) -> None:
        with self._lock:
            table = self._get(table_id)
            if not self._holds(table, holder):
                raise LeaseLost(table_id)
            table.row = replace(table.row, status=status)

    def append_lines(self, table_id: str, first_index: int, lines: Sequence[str], *, holder: str) -> None:
        with self._lock:
            table = self._get(table_id)
            if not self._holds(table, holder):
                raise LeaseLost(table_id)
            if first_index != len(table.lines):
                raise LineConflict(f"{table_id}: {len(table.lines)} lines, not {first_index}")
            table.lines.extend(lines)

    def read_lines(self, table_id: str) -> list[str]:
        with self._lock:
            return list(self._get(table_id).lines)

    def put_secret(self, table_id: str, name: str, value: bytes) -> None:
        with self._lock:
            self._get(table_id).secrets[name] = bytes(value)

    def get_secret(self, table_id: str, name: str) -> bytes | None:
        with self._lock:
            return self._get(table_id).secrets.get(name)

    def add_seat(self, table_id: str, seat: int, token_digest: str) -> None:
        with self._lock:
            self._get(table_id)
            if token_digest in self._seats:
                raise StoreError("the digest is granted already")
            self._seats[token_digest] = SeatGrant(table_id, seat)

    def find_seat(self, token_digest: str) -> SeatGrant | None:
        with self._lock:
            return self._seats.get(token_digest)

    def acquire_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        with self._lock:
            table = self._get(table_id)
            now = time.monotonic()
            if table.holder not in (None, holder) and table.until > now:
                return False
            table.holder, table.until = holder, now + ttl_seconds
            return True

    def renew_lease(self, table_id: str, holder: str, ttl_seconds: float) -> bool:
        with self._lock:
            table = self._get(table_id)
            if not self._holds(table, holder):
                return False
            table.until = time.monotonic() + ttl_seconds
            return True

    def renew_leases(self, holder: str, table_ids: Sequence[str], ttl_seconds: float) -> set[str]:
        if not holder or not 0 < ttl_seconds < float("inf"):
            raise StoreError("a holder and a positive, finite time-to-live are needed")
        with self._lock:
            renewed = set()
            for table_id in table_ids:
                table = self._tables.get(table_id)
                if table is not None and self._holds(table, holder):
                    table.until = time.monotonic() + ttl_seconds
                    renewed.add(table_id)
            return renewed

    def release_lease(self, table_id: str, holder: str) -> None:
        with self._lock:
            table = self._tables.get(table_id)
            if table is not None and table.holder == holder:
                table.holder, table.until = None, 0.0

    def lease_holder(self, table_id: str) -> str | None:
        with self._lock:
            table = self._tables.get(table_id)
            if table is None or table.holder is None or table.until <= time.monotonic():
                return None
            return table.holder

    def claimable_tables(self, holder: str) -> list[str]:
        now = time.monotonic()
        with self._lock:
            return [
                t.row.table_id
                for t in sorted(self._tables.values(), key=lambda t: t.row.created_at)
                if t.row.status == "running" and (t.holder in (None, holder) or t.until <= now)
            ]

    def close(self) -> None:
        pass
