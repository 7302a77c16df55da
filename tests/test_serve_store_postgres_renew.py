"""The PostgreSQL store's renewal of many leases (``renew_leases``, every process at every
tick) never holds the rows it renewed while it waits for a row locked by someone else (an
append of the same process waiting for its commit to be flushed): those tables' appends
and answers would queue behind the renewal.

Against a real server (tests/postgres_server.py); skipped without one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.postgres_server import PostgresServer

psycopg = pytest.importorskip("psycopg")

WAIT = 30.0
"""Seconds to wait for another thread to reach a state the test can see (nothing is timed)."""


def _until(condition: Callable[[], bool], failure: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.01)


def _waiting_for_locks(db: Any) -> int:
    row = db.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").fetchone()
    return int(row[0])


def test_a_renewal_waiting_for_one_locked_row_holds_none_of_the_others(
    postgres_server: PostgresServer,
) -> None:
    from gm_engine.serve.store_postgres import PostgresTableStore

    url = postgres_server.create_database()
    store = PostgresTableStore(url)
    try:
        for table_id in ("t0", "t1", "t2"):
            store.create_table(table_id, "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
        store.create_table("theirs", "werewolf", "卓", "{}", 1.0, holder="b", ttl_seconds=60)
        renewed: list[set[str]] = []
        with psycopg.connect(url, autocommit=True) as locker, psycopg.connect(url, autocommit=True) as probe:
            with locker.transaction():
                # t2's row locked as an append holds it until its commit
                locker.execute("SELECT 1 FROM game_tables WHERE table_id = 't2' FOR UPDATE")
                renewer = threading.Thread(
                    target=lambda: renewed.append(store.renew_leases("a", ["t0", "t1", "t2", "theirs"], 60)),
                    daemon=True,
                )
                renewer.start()
                _until(lambda: _waiting_for_locks(probe) == 1, "the renewal never waited for t2")
                # meanwhile t0 and t1 are free: an append of theirs would not wait for the renewal
                with probe.transaction():
                    locked = probe.execute(
                        "SELECT table_id FROM game_tables WHERE table_id IN ('t0', 't1') FOR UPDATE NOWAIT"
                    ).fetchall()
                assert sorted(row[0] for row in locked) == ["t0", "t1"]
                assert not renewed  # t2's renewal still waits for its row
            renewer.join(WAIT)
        assert renewed == [{"t0", "t1", "t2"}]  # every lease of a's renewed, b's left alone
    finally:
        store.close()
