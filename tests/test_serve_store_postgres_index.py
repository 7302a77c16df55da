"""The PostgreSQL store's index of running tables (``game_tables_running``): the claim query
every process runs at every tick reads it, a database set up without it gains it when a
store opens it, and opening a store beside one that is writing does not wait for its writes.

Against a real server (tests/postgres_server.py); skipped without one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.postgres_server import PostgresServer

psycopg = pytest.importorskip("psycopg")

FINISHED = 3000
"""Finished tables beside the running ones: a server that ran for a while (the running
tables stay as many as are being played, the finished ones pile up)."""


@pytest.fixture
def database(postgres_server: PostgresServer) -> str:
    return postgres_server.create_database()


@pytest.fixture
def connection(database: str) -> Iterator[Any]:
    with psycopg.connect(database, autocommit=True) as db:
        yield db


def _fill(db: Any) -> None:
    """Many finished tables, a few running ones (one leased, one expired, one free), and
    fresh planner statistics."""
    db.execute(
        "INSERT INTO game_tables (table_id, kind, title, status, created_at, config_json)"
        " SELECT 'old-' || n, 'werewolf', 'old', 'finished', n, '{}' FROM generate_series(1, %s) AS n",
        (FINISHED,),
    )
    db.execute(
        "INSERT INTO game_tables (table_id, kind, title, status, created_at, config_json,"
        " lease_holder, lease_expires) VALUES"
        " ('held', 'werewolf', 't', 'running', 5000, '{}', 'other', 4e9),"
        " ('expired', 'werewolf', 't', 'running', 5001, '{}', 'other', 1),"
        " ('free', 'werewolf', 't', 'running', 5002, '{}', NULL, 0)"
    )
    db.execute("ANALYZE game_tables")


def _claim_plan(db: Any) -> list[str]:
    from gm_engine.serve.store_postgres import CLAIM_QUERY

    plan = db.execute(
        "EXPLAIN (FORMAT JSON) " + CLAIM_QUERY, {"holder": "me", "now": 2_000_000_000.0}
    ).fetchone()[0]
    nodes = plan if isinstance(plan, list) else json.loads(plan)
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        found.append(f"{node['Node Type']}:{node.get('Index Name', '')}")
        for child in node.get("Plans", []):
            walk(child)

    walk(nodes[0]["Plan"])
    return found


def _index_names(db: Any) -> set[str]:
    rows = db.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'game_tables'").fetchall()
    return {str(row[0]) for row in rows}


def test_the_claim_query_reads_the_running_tables_index(database: str, connection: Any) -> None:
    from gm_engine.serve.store_postgres import PostgresTableStore

    store = PostgresTableStore(database)
    try:
        _fill(connection)
        plan = _claim_plan(connection)
        assert any(step.endswith(":game_tables_running") for step in plan), plan
        assert not any(step.startswith("Seq Scan") for step in plan), plan
        # and through it the store's own call answers what the lease rules say
        assert store.claimable_tables("me") == ["expired", "free"]
        assert store.claimable_tables("other") == ["held", "expired", "free"]
    finally:
        store.close()


def test_a_database_set_up_without_the_index_gains_it_when_opened(database: str, connection: Any) -> None:
    from gm_engine.serve.store_postgres import PostgresTableStore

    PostgresTableStore(database).close()
    connection.execute("DROP INDEX game_tables_running")  # the schema as the earlier version left it
    _fill(connection)
    assert "game_tables_running" not in _index_names(connection)
    assert not any(step.endswith(":game_tables_running") for step in _claim_plan(connection))

    store = PostgresTableStore(database)
    try:
        assert "game_tables_running" in _index_names(connection)
        connection.execute("ANALYZE game_tables")
        assert any(step.endswith(":game_tables_running") for step in _claim_plan(connection))
        assert store.claimable_tables("me") == ["expired", "free"]
    finally:
        store.close()


def test_opening_a_store_does_not_wait_for_another_process_writing(database: str, connection: Any) -> None:
    """A second server starting while the first holds a write open on the tables (an append
    in its transaction) opens at once: the index is looked up, not created again (``CREATE
    INDEX IF NOT EXISTS`` would queue a SHARE lock behind that write, and every later write of
    the first server behind it). The new store's lock timeout makes a wait an error here, not
    a hang."""
    from gm_engine.serve.store import StoreError
    from gm_engine.serve.store_postgres import PostgresTableStore

    PostgresTableStore(database).close()
    connection.execute(
        "INSERT INTO game_tables (table_id, kind, title, status, created_at, config_json)"
        " VALUES ('t', 'werewolf', 't', 'running', 1, '{}')"
    )
    opened: list[object] = []
    with connection.transaction():
        connection.execute("UPDATE game_tables SET line_count = 1 WHERE table_id = 't'")  # row lock held
        separator = "&" if "?" in database else "?"

        def open_store() -> None:
            try:
                opened.append(PostgresTableStore(f"{database}{separator}options=-c%20lock_timeout%3D5000"))
            except StoreError as exc:  # the lock timeout, as the store reports a failed schema step
                opened.append(exc)
            except psycopg.Error as exc:
                opened.append(exc)

        opener = threading.Thread(target=open_store)
        opener.start()
        opener.join(60)
    assert len(opened) == 1, "the store did not open within a minute"
    store = opened[0]
    assert isinstance(store, PostgresTableStore), f"opening waited for the other write: {store!r}"
    store.close()
