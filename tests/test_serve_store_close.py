"""A store closed while writes are on their way: every write is either done or refused with
the closed store's error, told to its caller (a waiting call raises, a queued secret's
callback is called), whatever the timing of ``close``; none is left waiting for ever.

The race is driven, not slept into: the write is held between the store's "is it closed?"
test and the moment it hands its job over (where the old code lost it), ``close`` runs to
its end meanwhile, and only then is the write let go. The waits below only bound how long
a lost write is waited for before the test says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gm_engine.serve import store_sqlite
from gm_engine.serve.store import StoreError, TableStore
from gm_engine.serve.store_sqlite import SQLiteTableStore
from tests.postgres_server import PostgresServer

LOST = 30.0
"""Seconds after which a write not yet told anything counts as lost."""


class _Gate:
    """Holds the first job made after :meth:`arm` (in the thread that makes it) until
    :meth:`release`; ``reached`` says it is held."""

    def __init__(self) -> None:
        self.armed = False
        self.reached = threading.Event()
        self.released = threading.Event()

    def arm(self) -> None:
        self.armed = True

    def hold(self) -> None:
        if self.armed:
            self.armed = False
            self.reached.set()
            assert self.released.wait(LOST), "the test never let the write go"

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> _Gate:
    """The SQLite store's jobs are made through the gate: a job made after ``arm`` waits there,
    after the closed test and before it is queued."""
    made = _Gate()
    original = store_sqlite._Job

    class HeldJob(original):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.hold()
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(store_sqlite, "_Job", HeldJob)
    return made


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteTableStore]:
    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    store.create_table("t1", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
    yield store
    store.close()


def _race_close(store: TableStore, gate: _Gate, write: Callable[[], None]) -> None:
    """Start ``write`` in a thread, hold it at the gate, close the store to its end, let it go."""
    gate.arm()
    writer = threading.Thread(target=write, daemon=True)  # a lost write must not keep pytest alive
    writer.start()
    assert gate.reached.wait(LOST), "the write never made its job"
    store.close()  # to its end: the writer thread stopped, the connections closed
    gate.release()
    writer.join(LOST)


def test_a_queued_secret_arriving_as_the_store_closes_is_told_it_was_not_kept(
    sqlite_store: SQLiteTableStore, gate: _Gate, tmp_path: Path
) -> None:
    told: list[BaseException | None] = []
    called = threading.Event()

    def then(error: BaseException | None) -> None:
        told.append(error)
        called.set()

    refused: list[BaseException] = []

    def write() -> None:
        try:
            sqlite_store.put_secret_then("t1", "answer", b"late", then, holder="a")
        except StoreError as exc:  # refused at once is also telling the caller
            refused.append(exc)

    _race_close(sqlite_store, gate, write)
    assert not refused  # it found the store open: it is told through its callback
    assert called.wait(LOST), "the callback was never called"
    assert len(told) == 1, told
    assert isinstance(told[0], StoreError) and "closed" in str(told[0])
    reopened = SQLiteTableStore(tmp_path / "tables.sqlite3")
    try:
        assert reopened.get_secret("t1", "answer") is None  # refused means nothing of it is kept
    finally:
        reopened.close()


def test_a_write_that_waits_arriving_as_the_store_closes_raises(
    sqlite_store: SQLiteTableStore, gate: _Gate
) -> None:
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            sqlite_store.put_secret("t1", "seed", b"1", holder="a")
        except StoreError as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    _race_close(sqlite_store, gate, write)
    assert outcome, "the write is still waiting for a writer that stopped"
    assert isinstance(outcome[0], StoreError) and "closed" in str(outcome[0])


def test_writes_queued_before_close_are_done_before_it_returns(tmp_path: Path) -> None:
    store = SQLiteTableStore(tmp_path / "tables.sqlite3")
    store.create_table("t1", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
    told: list[BaseException | None] = []
    for number in range(50):
        store.put_secret_then("t1", f"answer{number}", b"x", told.append, holder="a")
    store.close()
    assert told == [None] * 50
    with pytest.raises(StoreError, match="closed"):
        store.put_secret_then("t1", "after", b"x", told.append, holder="a")
    with pytest.raises(StoreError, match="closed"):
        store.put_secret("t1", "after", b"x", holder="a")
    assert len(told) == 50  # a refused call is not also called back
    reopened = SQLiteTableStore(tmp_path / "tables.sqlite3")
    try:
        assert all(reopened.get_secret("t1", f"answer{number}") == b"x" for number in range(50))
    finally:
        reopened.close()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    return postgres_server.create_database()


def test_a_postgres_call_after_close_is_refused_as_closed(postgres_url: str) -> None:
    from gm_engine.serve.store_postgres import PostgresTableStore

    store = PostgresTableStore(postgres_url)
    store.create_table("t1", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.put_secret("t1", "answer", b"x", holder="a")
    with pytest.raises(StoreError, match="closed"):
        store.append_lines("t1", 0, ["line"], holder="a")


def test_a_postgres_call_waiting_for_a_connection_as_the_store_closes_is_refused(postgres_url: str) -> None:
    """The only connection is busy (its append waits for a row another connection locked),
    a second call waits for it in the pool, and the store closes: the waiting call is told
    the store closed (the pool's own error was no StoreError), and the busy one finishes."""
    import psycopg

    from gm_engine.serve.store_postgres import PostgresTableStore

    store = PostgresTableStore(postgres_url, max_connections=1)
    store.create_table("t1", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
    outcomes: dict[str, BaseException | None] = {}

    def call(name: str, write: Callable[[], None]) -> threading.Thread:
        def run() -> None:
            try:
                write()
            except Exception as exc:
                outcomes[name] = exc
            else:
                outcomes[name] = None

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    with psycopg.connect(postgres_url, autocommit=True) as other:
        with other.transaction():
            other.execute("SELECT 1 FROM game_tables WHERE table_id = 't1' FOR UPDATE")
            busy = call("append", lambda: store.append_lines("t1", 0, ["line"], holder="a"))
            _until(lambda: _lock_waiters(other) == 1, "the append never waited for the row")
            waiting = call("secret", lambda: store.put_secret("t1", "answer", b"x", holder="a"))
            _until(lambda: store._pool.get_stats().get("requests_waiting", 0) == 1, "no call waited")
            store.close()
            waiting.join(LOST)
            assert "secret" in outcomes, "the waiting call is still waiting"
            refused = outcomes["secret"]
            assert isinstance(refused, StoreError) and "closed" in str(refused), refused
        busy.join(LOST)  # the row is free: the append that held the connection goes in
    assert outcomes.get("append", "missing") is None, outcomes
    reopened = PostgresTableStore(postgres_url)
    try:
        assert reopened.read_lines("t1") == ["line"]
        assert reopened.get_secret("t1", "answer") is None
    finally:
        reopened.close()


def _lock_waiters(db: Any) -> int:
    row = db.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").fetchone()
    return int(row[0])


def _until(condition: Callable[[], bool], failure: str) -> None:
    """Wait for another thread to reach a state the test can see (no time is asserted)."""
    deadline = time.monotonic() + LOST
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.01)
