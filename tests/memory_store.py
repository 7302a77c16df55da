"""A :class:`~gm_engine.serve.store.TableStore` in memory, for the runtime's tests: the
contract of :class:`~gm_engine.serve.store_base.TableStoreBase` (its checks, its lease rules)
over dictionaries, and nothing durable. Several stores may share one :class:`MemoryData`
(several "processes" on one database); tests/test_serve_store.py runs the contract on it
as on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from gm_engine.serve.store import SeatGrant, StoreError, TableRow, TableStatus
from gm_engine.serve.store_base import LeaseRecord, SeatInsert, TableStoreBase, append_refusal, may_take


@dataclass
class _Table:
    row: TableRow
    seq: int
    lines: list[str] = field(default_factory=list)
    secrets: dict[str, bytes] = field(default_factory=dict)
    holder: str | None = None
    expires: float = 0.0

    def values(self) -> tuple[object, ...]:
        row = self.row
        return (
            row.table_id,
            row.kind,
            row.title,
            row.status,
            row.created_at,
            row.config_json,
            len(self.lines),
        )


@dataclass
class MemoryData:
    """The "database": tables and seats, under one lock (each statement holds it, as one
    transaction)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    tables: dict[str, _Table] = field(default_factory=dict)
    seats: dict[str, SeatGrant] = field(default_factory=dict)


class MemoryStore(TableStoreBase):
    """Tables, seats and leases in a :class:`MemoryData` (a new one unless given); lease times
    from ``clock`` (wall-clock seconds by default, as the SQLite store)."""

    def __init__(self, data: MemoryData | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self._data = data or MemoryData()
        self._clock = clock
        self._closed = False

    def _tables(self) -> dict[str, _Table]:
        if self._closed:
            raise StoreError("the table store is closed")
        return self._data.tables

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
        with self._data.lock:
            tables = self._tables()
            if table_id in tables:
                return False
            table = _Table(
                TableRow(table_id, kind, title, "running", created_at, config_json, 0), len(tables)
            )
            if holder is not None:
                table.holder, table.expires = holder, self._clock() + ttl_seconds
            tables[table_id] = table
            return True

    def _select_table(self, table_id: str) -> Sequence[object] | None:
        with self._data.lock:
            table = self._tables().get(table_id)
            return None if table is None else table.values()

    def _select_tables(self, status: TableStatus | None) -> list[Sequence[object]]:
        with self._data.lock:
            tables = sorted(self._tables().values(), key=lambda table: (table.row.created_at, table.seq))
            return [table.values() for table in tables if status is None or table.row.status == status]

    def _update_status(self, table_id: str, status: TableStatus, holder: str) -> bool:
        with self._data.lock:
            table = self._tables().get(table_id)
            if table is None or table.holder != holder:
                return False
            table.row = replace(table.row, status=status)
            return True

    def _append(self, table_id: str, first_index: int, lines: list[str], holder: str) -> LeaseRecord | None:
        with self._data.lock:
            table = self._tables().get(table_id)
            if table is None:
                return None
            found = LeaseRecord(table.row.status, len(table.lines), table.holder)
            if append_refusal(table_id, found, holder, first_index) is None:
                table.lines.extend(lines)
            return found

    def _select_lines(self, table_id: str) -> list[str] | None:
        with self._data.lock:
            table = self._tables().get(table_id)
            return None if table is None else list(table.lines)

    def _upsert_secret(self, table_id: str, name: str, value: bytes, holder: str) -> bool:
        with self._data.lock:
            table = self._tables().get(table_id)
            if table is None or table.holder != holder:
                return False
            table.secrets[name] = bytes(value)
            return True

    def _select_secret(self, table_id: str, name: str) -> bytes | None:
        with self._data.lock:
            table = self._tables().get(table_id)
            return None if table is None else table.secrets.get(name)

    def _insert_seat(self, table_id: str, seat: int, token_digest: str) -> SeatInsert:
        with self._data.lock:
            if table_id not in self._tables():
                return "no table"
            if token_digest in self._data.seats:
                return "taken"
            self._data.seats[token_digest] = SeatGrant(table_id, seat)
            return "granted"

    def _select_seat(self, token_digest: str) -> SeatGrant | None:
        with self._data.lock:
            self._tables()
            return self._data.seats.get(token_digest)

    def _take(self, table_id: str, holder: str, ttl_seconds: float) -> bool | None:
        with self._data.lock:
            table = self._tables().get(table_id)
            if table is None:
                return None
            now = self._clock()
            if not may_take(table.holder, table.expires, holder, now):
                return False
            table.holder, table.expires = holder, now + ttl_seconds
            return True

    def _renew(self, holder: str, table_ids: list[str], ttl_seconds: float) -> set[str]:
        with self._data.lock:
            tables = self._tables()
            renewed = {
                table_id for table_id in table_ids if table_id in tables and tables[table_id].holder == holder
            }
            until = self._clock() + ttl_seconds
            for table_id in renewed:
                tables[table_id].expires = until
            return renewed

    def _take_over(self, holder: str, prefix: str, ttl_seconds: float) -> set[str]:
        with self._data.lock:
            taken = set()
            until = self._clock() + ttl_seconds
            for table_id, table in self._tables().items():
                current = table.holder or ""
                if table.row.status == "running" and current != holder and current.startswith(prefix):
                    table.holder, table.expires = holder, until
                    taken.add(table_id)
            return taken

    def _release(self, table_id: str, holder: str) -> None:
        with self._data.lock:
            table = self._tables().get(table_id)
            if table is not None and table.holder == holder:
                table.holder, table.expires = None, 0.0

    def _current_holder(self, table_id: str) -> str | None:
        with self._data.lock:
            table = self._tables().get(table_id)
            if table is None or table.expires <= self._clock():
                return None
            return table.holder

    def _claimable(self, holder: str) -> list[str]:
        with self._data.lock:
            now = self._clock()
            tables = sorted(self._tables().values(), key=lambda table: (table.row.created_at, table.seq))
            return [
                table.row.table_id
                for table in tables
                if table.row.status == "running" and may_take(table.holder, table.expires, holder, now)
            ]

    def close(self) -> None:
        self._closed = True
