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
    assert called.wait(LOST) or refused, "the callback was never called and the call did not fail"
    errors = told + refused
    assert len(errors) == 1, errors
    assert isinstance(errors[0], StoreError) and "closed" in str(errors[0])
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
