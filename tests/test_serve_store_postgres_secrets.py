"""The PostgreSQL store's secret writer (``put_secret_then``, how the web stores P1's answer
without a thread waiting for it): every secret is kept or refused and its caller told
once, the secrets waiting meanwhile go in one statement with a later secret of a name
replacing an earlier one, and a secret arriving as the store closes is told so.

Against a real server (tests/postgres_server.py); skipped without one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gm_engine.serve.store import LeaseLost, QueuedSecrets, StoreError
from tests.postgres_server import PostgresServer

psycopg = pytest.importorskip("psycopg")

WAIT = 30.0
"""Seconds after which a callback not yet called counts as lost (nothing is timed)."""


@pytest.fixture
def url(postgres_server: PostgresServer) -> str:
    return postgres_server.create_database()


@pytest.fixture
def store(url: str) -> Iterator[Any]:
    from gm_engine.serve.store_postgres import PostgresTableStore

    opened = PostgresTableStore(url)
    opened.create_table("t1", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
    yield opened
    opened.close()


class _Told:
    """Callbacks' errors by key, and an event per key once called."""

    def __init__(self) -> None:
        self.errors: dict[str, list[BaseException | None]] = {}
        self.lock = threading.Lock()
        self.count = 0
        self.changed = threading.Condition(self.lock)

    def then(self, key: str) -> Callable[[BaseException | None], None]:
        def told(error: BaseException | None) -> None:
            with self.changed:
                self.errors.setdefault(key, []).append(error)
                self.count += 1
                self.changed.notify_all()

        return told

    def wait(self, count: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.count >= count, WAIT), f"{self.count} of {count} told"


def _until(condition: Callable[[], bool], failure: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.01)


def test_a_queued_secret_is_kept_or_refused_and_its_caller_told_once(store: Any) -> None:
    capable: object = store
    assert isinstance(capable, QueuedSecrets)  # the web stores P1's answers through it
    told = _Told()
    bad: list[tuple[str, str, Any]] = [("t1", "", b"x"), ("t1", "a", "text"), ("t\x00", "a", b"x")]
    for table_id, name, value in bad:
        with pytest.raises(StoreError):
            store.put_secret_then(table_id, name, value, told.then("bad"), holder="a")
    store.put_secret_then("nope", "answer", b"x", told.then("no table"), holder="a")
    store.put_secret_then("t1", "answer", b"b's", told.then("not b's"), holder="b")
    seen: list[bytes | None] = []

    def kept(error: BaseException | None) -> None:
        seen.append(store.get_secret("t1", "answer"))  # committed before the caller is told
        told.then("kept")(error)

    store.put_secret_then("t1", "answer", "答え".encode(), kept, holder="a")
    told.wait(3)
    assert "bad" not in told.errors
    (no_table,) = told.errors["no table"]
    assert isinstance(no_table, StoreError) and not isinstance(no_table, LeaseLost)
    (not_held,) = told.errors["not b's"]
    assert isinstance(not_held, LeaseLost)
    assert told.errors["kept"] == [None] and seen == ["答え".encode()]
    assert store.get_secret("nope", "answer") is None


def test_secrets_waiting_together_go_in_and_the_last_of_a_name_wins(store: Any, url: str) -> None:
    """The writer is held in its first statement (its table's row locked elsewhere) while a
    hundred secrets queue, several of one name and of tables whose lease is not the
    caller's; once it is let go they are kept together, each told once, the last of a name
    kept."""
    for number in range(5):
        store.create_table(f"t{number + 2}", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=60)
    store.create_table("b's", "werewolf", "卓", "{}", 1.0, holder="b", ttl_seconds=60)
    told = _Told()
    with psycopg.connect(url, autocommit=True) as locker, psycopg.connect(url, autocommit=True) as probe:
        with locker.transaction():
            locker.execute("SELECT 1 FROM game_tables WHERE table_id = 't1' FOR UPDATE")
            store.put_secret_then("t1", "first", b"0", told.then("first"), holder="a")
            _until(
                lambda: probe.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                ).fetchone()[0]
                == 1,
                "the writer never waited for t1's row",
            )
            for number in range(100):
                table_id = f"t{number % 6 + 1}"
                value = str(number).encode()
                store.put_secret_then(table_id, "answer", value, told.then(table_id), holder="a")
            store.put_secret_then("b's", "answer", b"x", told.then("b's"), holder="a")
        told.wait(102)
    assert told.errors["first"] == [None]
    for number in range(6):
        assert told.errors[f"t{number + 1}"] == [None] * len(range(number, 100, 6))
        assert store.get_secret(f"t{number + 1}", "answer") == str(max(range(number, 100, 6))).encode()
    (refused,) = told.errors["b's"]
    assert isinstance(refused, LeaseLost) and store.get_secret("b's", "answer") is None


def test_a_queued_secret_arriving_as_the_store_closes_is_told_it_was_not_kept(
    store: Any, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held after the "is it closed?" test and before it is queued, while close() runs to its end."""
    from gm_engine.serve import store_postgres

    reached, released = threading.Event(), threading.Event()
    original = store_postgres._QueuedSecret

    class HeldSecret(original):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            reached.set()
            assert released.wait(WAIT)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(store_postgres, "_QueuedSecret", HeldSecret)
    told = _Told()
    refused: list[BaseException] = []

    def write() -> None:
        try:
            store.put_secret_then("t1", "answer", b"late", told.then("late"), holder="a")
        except StoreError as exc:
            refused.append(exc)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert reached.wait(WAIT)
    store.close()
    released.set()
    writer.join(WAIT)
    assert not refused
    told.wait(1)
    (error,) = told.errors["late"]
    assert isinstance(error, StoreError) and "closed" in str(error)
    from gm_engine.serve.store_postgres import PostgresTableStore

    reopened = PostgresTableStore(url)
    try:
        assert reopened.get_secret("t1", "answer") is None
    finally:
        reopened.close()
