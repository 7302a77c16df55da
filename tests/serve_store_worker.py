"""A second process for tests/test_serve_store.py: it opens its own store on the test's
database and appends or races for leases, printing what it won.

    python -m tests.serve_store_worker BACKEND TARGET append TABLE HOLDER NAME COUNT
    python -m tests.serve_store_worker BACKEND TARGET claim NAME
"""

from __future__ import annotations

import sys

from gm_engine.serve.store import LineConflict, TableStore
from gm_engine.serve.store_sqlite import SQLiteTableStore


def open_store(backend: str, target: str) -> TableStore:
    """The store the parent test opened, seen from this process."""
    if backend == "sqlite":
        return SQLiteTableStore(target)
    from gm_engine.serve.store_postgres import PostgresTableStore

    return PostgresTableStore(target)


def append(store: TableStore, table_id: str, holder: str, name: str, count: int) -> None:
    """Append ``name i`` for i < count, each at the table's current count, retrying on a conflict."""
    for number in range(count):
        while True:
            row = store.get_table(table_id)
            assert row is not None
            try:
                store.append_lines(table_id, row.line_count, [f"{name} {number}"], holder=holder)
            except LineConflict:
                continue
            break


def claim(store: TableStore, name: str) -> None:
    """Try to take every table's lease; write and print the ids of those won."""
    for row in store.list_tables():
        if store.acquire_lease(row.table_id, name, 600):
            store.append_lines(row.table_id, 0, [f"won by {name}"], holder=name)
            print(row.table_id, flush=True)


def main(argv: list[str]) -> None:
    backend, target, role, *arguments = argv
    store = open_store(backend, target)
    try:
        if role == "append":
            table_id, holder, name, count = arguments
            append(store, table_id, holder, name, int(count))
        else:
            (name,) = arguments
            claim(store, name)
    finally:
        store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
