"""The :class:`~gm_engine.serve.store.TableStore` contract, run against every backend: SQLite
(always), PostgreSQL (a real server from tests/postgres_server.py; skipped without one) and
the runtime tests' memory store (tests/memory_store.py; not where a second process is needed).

Time is a fake clock the test steps, so a lease expires without anyone sleeping. The
concurrency tests race real threads and real processes on one database and check what
must hold whatever the interleaving: no line lost, none twice, no gap, one holder.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gm_engine.serve.store import LeaseLost, LineConflict, SeatGrant, StoreError, TableRow, TableStore
from gm_engine.serve.store_sqlite import SQLiteTableStore
from tests.memory_store import MemoryData, MemoryStore
from tests.postgres_server import PostgresServer

ROOT = Path(__file__).resolve().parent.parent


class FakeClock:
    """Seconds since the epoch that move only when the test says so."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Backend:
    """One database and a way to open stores on it (several stores: several "processes")."""

    name: str
    target: str
    """The SQLite file or the PostgreSQL URL."""
    opened: list[TableStore]
    memory: MemoryData | None = None
    """The memory store's "database", shared by the stores opened on it."""

    def open(self, clock: Callable[[], float] | None = None) -> TableStore:
        store: TableStore
        if self.memory is not None:
            store = MemoryStore(self.memory, clock=clock) if clock else MemoryStore(self.memory)
        elif self.name == "sqlite":
            store = SQLiteTableStore(self.target, clock=clock) if clock else SQLiteTableStore(self.target)
        else:
            from gm_engine.serve.store_postgres import PostgresTableStore

            store = PostgresTableStore(self.target, clock=clock)
        self.opened.append(store)
        return store


@pytest.fixture(params=["sqlite", "postgres", "memory"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "memory":
        made = Backend("memory", "", [], MemoryData())
    elif request.param == "sqlite":
        made = Backend("sqlite", str(tmp_path / "tables.sqlite3"), [])
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        made = Backend("postgres", server.create_database(), [])
    yield made
    for store in made.opened:
        store.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(backend: Backend, clock: FakeClock) -> TableStore:
    return backend.open(clock)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_table(store: TableStore, table_id: str = "t1", created_at: float = 100.0) -> TableRow:
    return store.create_table(table_id, "werewolf", "村の卓", '{"rounds": 3}', created_at)


# tables


def test_a_new_table_is_running_with_no_lines_and_is_listed_oldest_first(store: TableStore) -> None:
    later = new_table(store, "later", created_at=200.0)
    earlier = store.create_table("earlier", "adventure", "霧森の祠", "{}", 150.0)
    assert later == TableRow("later", "werewolf", "村の卓", "running", 200.0, '{"rounds": 3}', 0)
    assert store.get_table("later") == later
    assert store.get_table("earlier") == earlier
    assert store.get_table("nobody") is None
    assert [row.table_id for row in store.list_tables()] == ["earlier", "later"]
    assert [row.table_id for row in store.list_tables("running")] == ["earlier", "later"]
    assert store.list_tables("finished") == []
    assert store.read_lines("later") == []


def test_a_taken_table_id_is_refused_and_the_first_table_is_kept(store: TableStore) -> None:
    first = new_table(store)
    with pytest.raises(StoreError, match="exists already"):
        store.create_table("t1", "adventure", "another", "{}", 999.0)
    assert store.get_table("t1") == first
    assert len(store.list_tables()) == 1


@pytest.mark.parametrize(
    ("table_id", "kind", "title", "created_at", "message"),
    [
        ("", "werewolf", "x", 1.0, "table id"),
        ("t", "", "x", 1.0, "kind"),
        ("t", "werewolf", "a\x00b", 1.0, "NUL"),
        ("t", "werewolf", "x", float("nan"), "creation time"),
    ],
)
def test_a_table_with_a_bad_argument_is_refused(
    store: TableStore, table_id: str, kind: str, title: str, created_at: float, message: str
) -> None:
    with pytest.raises(StoreError, match=message):
        store.create_table(table_id, kind, title, "{}", created_at)
    assert store.list_tables() == []


def test_set_status_needs_the_lease_and_a_known_status(store: TableStore) -> None:
    new_table(store)
    with pytest.raises(LeaseLost):
        store.set_status("t1", "finished", holder="a")
    assert store.acquire_lease("t1", "a", 30)
    with pytest.raises(StoreError, match="unknown table status"):
        store.set_status("t1", "paused", holder="a")  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="no table"):
        store.set_status("nobody", "finished", holder="a")
    assert store.get_table("t1") is not None and store.get_table("t1").status == "running"  # type: ignore[union-attr]
    store.set_status("t1", "finished", holder="a")
    assert [row.table_id for row in store.list_tables("finished")] == ["t1"]
    assert store.list_tables("running") == []
    with pytest.raises(StoreError, match="unknown table status"):
        store.list_tables("over")  # type: ignore[arg-type]


# lines


def test_lines_are_appended_in_order_and_counted(store: TableStore) -> None:
    new_table(store)
    assert store.acquire_lease("t1", "a", 30)
    store.append_lines("t1", 0, ['{"type": "header"}', '{"type": "speech", "text": "おはよう"}'], holder="a")
    store.append_lines("t1", 2, [], holder="a")
    store.append_lines("t1", 2, ['{"type": "vote"}'], holder="a")
    assert store.read_lines("t1") == [
        '{"type": "header"}',
        '{"type": "speech", "text": "おはよう"}',
        '{"type": "vote"}',
    ]
    row = store.get_table("t1")
    assert row is not None and row.line_count == 3


@pytest.mark.parametrize("first_index", [0, 1, 3, 10])
def test_an_append_at_another_index_than_the_line_count_is_a_conflict(
    store: TableStore, first_index: int
) -> None:
    new_table(store)
    assert store.acquire_lease("t1", "a", 30)
    store.append_lines("t1", 0, ["l0", "l1"], holder="a")
    with pytest.raises(LineConflict, match="has 2 lines"):
        store.append_lines("t1", first_index, ["late"], holder="a")
    assert store.read_lines("t1") == ["l0", "l1"]


@pytest.mark.parametrize(
    ("first_index", "lines", "message"),
    [
        (-1, ["x"], "non-negative"),
        (0, "one string", "not one string"),
        (0, ["ok", "two\nlines"], "line 1 holds a line break"),
        (0, ["carriage\rreturn"], "line break"),
        (0, ["nul\x00"], "NUL"),
        (0, ["ok", 7], "line 1 must be a string"),
    ],
)
def test_malformed_lines_are_refused_whole(
    store: TableStore, first_index: int, lines: list[str], message: str
) -> None:
    new_table(store)
    assert store.acquire_lease("t1", "a", 30)
    with pytest.raises(StoreError, match=message):
        store.append_lines("t1", first_index, lines, holder="a")
    assert store.read_lines("t1") == []
    assert store.get_table("t1") is not None and store.get_table("t1").line_count == 0  # type: ignore[union-attr]


def test_appending_needs_the_lease(store: TableStore, clock: FakeClock) -> None:
    new_table(store)
    with pytest.raises(LeaseLost):
        store.append_lines("t1", 0, ["x"], holder="a")
    assert store.acquire_lease("t1", "a", 10)
    with pytest.raises(LeaseLost):
        store.append_lines("t1", 0, ["x"], holder="b")
    assert store.read_lines("t1") == []


def test_a_holder_past_its_expiry_goes_on_until_another_takes_the_lease(
    backend: Backend, clock: FakeClock
) -> None:
    """The expiry frees the lease for others; it does not stop a slow holder that nobody
    replaced (a loaded server renewing a hundred leases late keeps its tables)."""
    first, second = backend.open(clock), backend.open(clock)
    new_table(first)
    assert first.acquire_lease("t1", "a", 10)
    clock.advance(25)
    first.append_lines("t1", 0, ["late but still a's"], holder="a")
    first.set_status("t1", "running", holder="a")
    assert first.renew_lease("t1", "a", 10)
    assert not second.acquire_lease("t1", "b", 10)  # renewed: not free again
    clock.advance(10)
    assert second.acquire_lease("t1", "b", 10)  # expired: b takes it, and from now on a is refused
    with pytest.raises(LeaseLost):
        first.append_lines("t1", 1, ["stale"], holder="a")
    assert not first.renew_lease("t1", "a", 10)
    assert first.read_lines("t1") == ["late but still a's"]


def test_a_finished_table_takes_no_more_lines(store: TableStore) -> None:
    new_table(store)
    assert store.acquire_lease("t1", "a", 30)
    store.append_lines("t1", 0, ["header", "end"], holder="a")
    store.set_status("t1", "finished", holder="a")
    with pytest.raises(StoreError, match="finished"):
        store.append_lines("t1", 2, ["after the end"], holder="a")
    assert store.read_lines("t1") == ["header", "end"]


def test_unknown_tables_are_refused(store: TableStore) -> None:
    with pytest.raises(StoreError, match="no table"):
        store.read_lines("nobody")
    with pytest.raises(StoreError, match="no table"):
        store.read_lines("nul\x00")
    with pytest.raises(StoreError, match="no table"):
        store.append_lines("nobody", 0, ["x"], holder="a")
    with pytest.raises(StoreError, match="no table"):
        store.acquire_lease("nobody", "a", 30)
    with pytest.raises(StoreError, match="no table"):
        store.renew_lease("nobody", "a", 30)
    with pytest.raises(StoreError, match="no table"):
        store.put_secret("nobody", "seed", b"7", holder="a")
    with pytest.raises(StoreError, match="no table"):
        store.add_seat("nobody", 1, digest("x"))
    store.release_lease("nobody", "a")  # nothing to give up: nothing happens
    assert store.get_table("nul\x00") is None
    assert store.list_tables() == []


def test_texts_keep_every_character(store: TableStore) -> None:
    line = json.dumps(
        {"text": "【投票結果】 <script>alert(1)</script> 'quote' \"dq\" \\ 🐺"}, ensure_ascii=False
    )
    store.create_table("卓🐺", "werewolf", "<b>題</b>", '{"x": "\'"}', 1.0)
    assert store.acquire_lease("卓🐺", "a", 30)
    store.append_lines("卓🐺", 0, [line, ""], holder="a")
    assert store.read_lines("卓🐺") == [line, ""]
    assert store.get_table("卓🐺") == TableRow(
        "卓🐺", "werewolf", "<b>題</b>", "running", 1.0, '{"x": "\'"}', 2
    )


# secrets and seats


def test_secrets_are_kept_replaced_and_separate_per_table(store: TableStore) -> None:
    new_table(store, "t1")
    new_table(store, "t2")
    assert store.acquire_lease("t1", "a", 30) and store.acquire_lease("t2", "a", 30)
    every_byte = bytes(range(256))
    store.put_secret("t1", "seed", b"12345", holder="a")
    store.put_secret("t1", "key", every_byte, holder="a")
    store.put_secret("t2", "seed", b"999", holder="a")
    store.put_secret("t1", "seed", b"54321", holder="a")
    assert store.get_secret("t1", "seed") == b"54321"
    assert store.get_secret("t1", "key") == every_byte
    assert store.get_secret("t2", "seed") == b"999"
    assert store.get_secret("t2", "key") is None
    assert store.get_secret("nobody", "seed") is None
    with pytest.raises(StoreError, match="bytes"):
        store.put_secret("t1", "seed", "text", holder="a")  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="must not be empty"):
        store.put_secret("t1", "", b"x", holder="a")
    assert store.get_secret("t1", "seed") == b"54321"


def test_only_the_lease_holder_keeps_a_secret(store: TableStore, clock: FakeClock) -> None:
    new_table(store, "t1")
    with pytest.raises(LeaseLost):  # nobody holds it yet
        store.put_secret("t1", "pending_answer", b"a's answer", holder="a")
    assert store.acquire_lease("t1", "a", 30)
    store.put_secret("t1", "pending_answer", b"a's answer", holder="a")
    with pytest.raises(LeaseLost):
        store.put_secret("t1", "pending_answer", b"b's answer", holder="b")
    clock.advance(31)
    assert store.acquire_lease("t1", "b", 30)  # a's lease ran out and b took the table over
    with pytest.raises(LeaseLost):  # a, still running, answers for a table it lost
        store.put_secret("t1", "pending_answer", b"a's late answer", holder="a")
    assert store.get_secret("t1", "pending_answer") == b"a's answer"
    store.put_secret("t1", "pending_answer", b"b's answer", holder="b")
    store.release_lease("t1", "b")
    with pytest.raises(LeaseLost):  # given up: nobody's
        store.put_secret("t1", "pending_answer", b"b's late answer", holder="b")
    assert store.get_secret("t1", "pending_answer") == b"b's answer"
    with pytest.raises(StoreError, match="must not be empty"):
        store.put_secret("t1", "seed", b"1", holder="")


def test_seats_are_found_by_token_digest_and_a_digest_is_granted_once(store: TableStore) -> None:
    new_table(store, "t1")
    new_table(store, "t2")
    store.add_seat("t1", 1, digest("token-one"))
    store.add_seat("t1", 2, digest("token-two"))
    store.add_seat("t2", 1, digest("token-three"))
    assert store.find_seat(digest("token-one")) == SeatGrant("t1", 1)
    assert store.find_seat(digest("token-two")) == SeatGrant("t1", 2)
    assert store.find_seat(digest("token-three")) == SeatGrant("t2", 1)
    assert store.find_seat(digest("wrong")) is None
    assert store.find_seat("token-one") is None
    assert store.find_seat("\x00") is None
    with pytest.raises(StoreError, match="already granted"):
        store.add_seat("t2", 5, digest("token-one"))
    assert store.find_seat(digest("token-one")) == SeatGrant("t1", 1)


@pytest.mark.parametrize(
    ("seat", "token_digest", "message"),
    [
        (1, "raw-token", "64 lower-case hex"),
        (1, digest("x").upper(), "64 lower-case hex"),
        (1, digest("x")[:63], "64 lower-case hex"),
        (-1, digest("x"), "non-negative"),
        (True, digest("x"), "non-negative"),
    ],
)
def test_a_malformed_seat_grant_is_refused(
    store: TableStore, seat: int, token_digest: str, message: str
) -> None:
    new_table(store)
    with pytest.raises(StoreError, match=message):
        store.add_seat("t1", seat, token_digest)
    assert store.find_seat(token_digest) is None


# leases


def test_a_held_lease_is_refused_to_others_until_it_expires_then_taken_over(
    backend: Backend, clock: FakeClock
) -> None:
    first, second = backend.open(clock), backend.open(clock)  # two processes
    new_table(first)
    assert first.acquire_lease("t1", "process-a", 10)
    first.append_lines("t1", 0, ["header", "event 1"], holder="process-a")
    assert not second.acquire_lease("t1", "process-b", 10)
    assert second.claimable_tables("process-b") == []
    clock.advance(9.5)
    assert not second.acquire_lease("t1", "process-b", 10)
    clock.advance(0.5)  # the lease's expiry: from now on it is free
    assert second.claimable_tables("process-b") == ["t1"]
    assert second.acquire_lease("t1", "process-b", 10)
    # The stale holder is refused everything that writes, and nothing it tried is kept.
    with pytest.raises(LeaseLost):
        first.append_lines("t1", 2, ["stale event"], holder="process-a")
    with pytest.raises(LeaseLost):
        first.set_status("t1", "failed", holder="process-a")
    assert not first.renew_lease("t1", "process-a", 10)
    assert not first.acquire_lease("t1", "process-a", 10)
    first.release_lease("t1", "process-a")  # not its lease: nothing happens
    second.append_lines("t1", 2, ["event 2"], holder="process-b")
    assert first.read_lines("t1") == ["header", "event 1", "event 2"]
    row = first.get_table("t1")
    assert row is not None and row.status == "running" and row.line_count == 3


def test_a_renewed_lease_outlives_its_first_time_to_live(backend: Backend, clock: FakeClock) -> None:
    first, second = backend.open(clock), backend.open(clock)
    new_table(first)
    assert first.acquire_lease("t1", "a", 10)
    clock.advance(8)
    assert first.renew_lease("t1", "a", 10)
    clock.advance(8)  # 16 s after the first acquisition, 8 after the renewal
    assert not second.acquire_lease("t1", "b", 10)
    first.append_lines("t1", 0, ["still mine"], holder="a")
    assert first.acquire_lease("t1", "a", 10)  # its own: acquiring again renews
    clock.advance(9)
    assert not second.acquire_lease("t1", "b", 10)
    clock.advance(1)
    assert first.acquire_lease("t1", "a", 10)  # expired, nobody took it: a takes it again
    assert first.read_lines("t1") == ["still mine"]


def test_a_released_lease_is_free_at_once(backend: Backend, clock: FakeClock) -> None:
    first, second = backend.open(clock), backend.open(clock)
    new_table(first)
    assert first.acquire_lease("t1", "a", 300)
    first.release_lease("t1", "a")
    with pytest.raises(LeaseLost):
        first.append_lines("t1", 0, ["x"], holder="a")
    assert second.acquire_lease("t1", "b", 300)
    second.release_lease("t1", "a")  # a's release does not free b's lease
    assert not first.acquire_lease("t1", "a", 300)


def test_every_lease_of_a_holder_is_renewed_in_one_call(backend: Backend, clock: FakeClock) -> None:
    """A process renews all its leases at once: the ones it still holds (even past their
    expiry, while nobody took them) are extended, one taken by another process, one given
    up, one of another holder and an unknown id are left out and left as they were."""
    first, second = backend.open(clock), backend.open(clock)
    for number in range(5):
        new_table(first, f"t{number}", created_at=100.0 + number)
        assert first.acquire_lease(f"t{number}", "a", 10)
    first.release_lease("t3", "a")
    assert second.acquire_lease("t3", "b", 10)
    clock.advance(11)  # every lease of a ran out; b takes one of them
    assert second.acquire_lease("t2", "b", 10)
    first.release_lease("t4", "a")
    renewed = first.renew_leases("a", ["t0", "t1", "t2", "t3", "t4", "nope", "t0"], 10)
    assert renewed == {"t0", "t1"}
    clock.advance(9)  # 9 s after the renewal: still a's, refused to b
    assert not second.acquire_lease("t0", "b", 10)
    assert not second.acquire_lease("t1", "b", 10)
    assert second.lease_holder("t0") == "a"
    assert second.lease_holder("t2") == "b" and second.lease_holder("t3") is None  # b's t3 ran out at 10
    assert second.renew_leases("b", ["t2"], 10) == {"t2"}
    assert first.renew_leases("a", [], 10) == set()
    with pytest.raises(LeaseLost):
        first.append_lines("t2", 0, ["stale"], holder="a")
    first.append_lines("t0", 0, ["still mine"], holder="a")
    assert first.read_lines("t0") == ["still mine"]


@pytest.mark.parametrize("ttl", [0, float("nan"), True])
def test_renewing_many_leases_refuses_a_bad_time_to_live_or_holder(store: TableStore, ttl: float) -> None:
    new_table(store)
    assert store.acquire_lease("t1", "a", 10)
    with pytest.raises(StoreError, match="positive, finite"):
        store.renew_leases("a", ["t1"], ttl)
    with pytest.raises(StoreError):
        store.renew_leases("", ["t1"], 10)
    assert store.lease_holder("t1") == "a"


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf"), True])
def test_a_bad_time_to_live_is_refused(store: TableStore, ttl: float) -> None:
    new_table(store)
    with pytest.raises(StoreError, match="positive, finite"):
        store.acquire_lease("t1", "a", ttl)
    assert store.acquire_lease("t1", "a", 10)
    with pytest.raises(StoreError, match="positive, finite"):
        store.renew_lease("t1", "a", ttl)


def test_an_empty_holder_is_refused(store: TableStore) -> None:
    new_table(store)
    with pytest.raises(StoreError, match="lease holder"):
        store.acquire_lease("t1", "", 10)
    assert store.claimable_tables("other") == ["t1"]


def test_claimable_tables_are_the_running_ones_free_expired_or_ones_own(
    backend: Backend, clock: FakeClock
) -> None:
    store = backend.open(clock)
    for number, table_id in enumerate(["free", "mine", "theirs", "expired", "finished", "failed"]):
        new_table(store, table_id, created_at=float(number))
    assert store.acquire_lease("mine", "me", 30)
    assert store.acquire_lease("theirs", "them", 60)
    assert store.acquire_lease("expired", "them", 5)
    for table_id, status in (("finished", "finished"), ("failed", "failed")):
        assert store.acquire_lease(table_id, "them", 5)
        store.set_status(table_id, status, holder="them")  # type: ignore[arg-type]
    clock.advance(5)
    assert store.claimable_tables("me") == ["free", "mine", "expired"]
    assert store.claimable_tables("them") == ["free", "theirs", "expired"]


# durability and concurrency


def test_everything_is_there_after_the_store_is_closed_and_opened_again(
    backend: Backend, clock: FakeClock
) -> None:
    store = backend.open(clock)
    new_table(store)
    assert store.acquire_lease("t1", "a", 30)
    store.append_lines("t1", 0, ["header", "event"], holder="a")
    store.put_secret("t1", "seed", b"42", holder="a")
    store.add_seat("t1", 1, digest("p1"))
    store.close()
    again = backend.open(clock)
    assert again.read_lines("t1") == ["header", "event"]
    assert again.get_secret("t1", "seed") == b"42"
    assert again.find_seat(digest("p1")) == SeatGrant("t1", 1)
    assert not again.acquire_lease("t1", "b", 30)  # the lease is in the database too
    assert again.acquire_lease("t1", "a", 30)


def _append_until(store: TableStore, table_id: str, holder: str, lines: list[str]) -> int:
    """Append each line at the count the table has now, retrying on a conflict; the
    number of conflicts met."""
    conflicts = 0
    for line in lines:
        while True:
            row = store.get_table(table_id)
            assert row is not None
            try:
                store.append_lines(table_id, row.line_count, [line], holder=holder)
            except LineConflict:
                conflicts += 1
                continue
            break
    return conflicts


def test_threads_racing_to_append_never_lose_or_repeat_a_line(backend: Backend) -> None:
    store = backend.open()
    new_table(store, "shared")
    assert store.acquire_lease("shared", "server", 600)
    for number in range(4):
        new_table(store, f"own{number}", created_at=float(number))
        assert store.acquire_lease(f"own{number}", "server", 600)
    failures: list[BaseException] = []

    def work(number: int) -> None:
        try:
            _append_until(store, "shared", "server", [f"thread {number} line {i}" for i in range(15)])
            own = f"own{number}"
            for i in range(15):
                store.append_lines(own, i, [f"line {i}"], holder="server")
        except BaseException as failure:  # reported below, in the test's thread
            failures.append(failure)

    threads = [threading.Thread(target=work, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    shared = store.read_lines("shared")
    assert sorted(shared) == sorted(f"thread {n} line {i}" for n in range(4) for i in range(15))
    for number in range(4):  # each thread's own lines in its own order
        assert [line for line in shared if line.startswith(f"thread {number} ")] == [
            f"thread {number} line {i}" for i in range(15)
        ]
        assert store.read_lines(f"own{number}") == [f"line {i}" for i in range(15)]


def _worker(backend: Backend, role: str, *arguments: str) -> subprocess.Popen[str]:
    if backend.memory is not None:
        pytest.skip("a memory store lives in one process")
    return subprocess.Popen(
        [sys.executable, "-m", "tests.serve_store_worker", backend.name, backend.target, role, *arguments],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _results(processes: list[subprocess.Popen[str]]) -> list[str]:
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        outputs.append(out)
    return outputs


def test_two_processes_appending_to_one_table_keep_every_line_once(backend: Backend) -> None:
    store = backend.open()
    new_table(store, "shared")
    assert store.acquire_lease("shared", "server", 600)
    _results([_worker(backend, "append", "shared", "server", name, "40") for name in ("left", "right")])
    lines = store.read_lines("shared")
    assert len(lines) == 80
    for name in ("left", "right"):
        assert [line for line in lines if line.startswith(f"{name} ")] == [f"{name} {i}" for i in range(40)]


def test_two_processes_racing_for_leases_get_one_holder_a_table(backend: Backend) -> None:
    store = backend.open()
    table_ids = [f"t{number:02d}" for number in range(30)]
    for number, table_id in enumerate(table_ids):
        new_table(store, table_id, created_at=float(number))
    outputs = _results([_worker(backend, "claim", name) for name in ("left", "right")])
    won = [set(out.split()) for out in outputs]
    assert won[0].isdisjoint(won[1])
    assert won[0] | won[1] == set(table_ids)
    # Each process wrote its name as line 0 of every table it won, and nobody else did.
    for name, tables in zip(("left", "right"), won, strict=True):
        for table_id in tables:
            assert store.read_lines(table_id) == [f"won by {name}"]


def test_sqlite_commits_are_durable_on_every_thread(tmp_path: Path) -> None:
    """WAL and synchronous=FULL (2) on every thread's connection: the module's durability
    promise, which SQLite would otherwise quietly default away (synchronous is per
    connection)."""
    store = SQLiteTableStore(tmp_path / "t.sqlite3")
    settings: list[tuple[str, int]] = []

    def look() -> None:
        connection = store._connection()
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        settings.append((str(mode), int(connection.execute("PRAGMA synchronous").fetchone()[0])))

    try:
        look()
        thread = threading.Thread(target=look)
        thread.start()
        thread.join()
    finally:
        store.close()
    assert settings == [("wal", 2), ("wal", 2)]


def test_refused_appends_racing_with_good_ones_take_nothing_from_them(backend: Backend) -> None:
    """Appends that must be refused (another's lease, a wrong index) run at the same time as
    good ones (in SQLite, in the same commits): each good one is kept whole, none of the
    refused ones leaves a line."""
    store = backend.open()
    for number in range(6):
        new_table(store, f"t{number}", created_at=float(number))
        assert store.acquire_lease(f"t{number}", "server", 600)
    refusals: list[str] = []
    failures: list[BaseException] = []

    def good(number: int) -> None:
        try:
            for index in range(20):
                store.append_lines(f"t{number}", index * 2, [f"{index}a", f"{index}b"], holder="server")
        except BaseException as failure:
            failures.append(failure)

    def bad(number: int) -> None:
        for index in range(20):
            try:
                store.append_lines(f"t{number}", 0 if index % 2 else 10_000, ["bad"], holder="intruder")
            except LeaseLost:
                refusals.append("lease")
            try:
                store.append_lines(f"t{number}", 10_000, ["bad"], holder="server")
            except LineConflict:
                refusals.append("index")

    threads = [threading.Thread(target=good, args=(n,)) for n in range(6)]
    threads += [threading.Thread(target=bad, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sorted(refusals) == ["index"] * 120 + ["lease"] * 120
    for number in range(6):
        assert store.read_lines(f"t{number}") == [f"{i}{half}" for i in range(20) for half in "ab"]


def test_a_table_created_with_a_holder_is_leased_from_its_first_moment(
    backend: Backend, clock: FakeClock
) -> None:
    """No window between filing a table and taking its lease for another process's claim."""
    first, second = backend.open(clock), backend.open(clock)
    first.create_table("t1", "werewolf", "卓", "{}", 1.0, holder="a", ttl_seconds=10)
    assert second.claimable_tables("b") == []
    assert not second.acquire_lease("t1", "b", 10)
    first.append_lines("t1", 0, ["header"], holder="a")
    assert first.claimable_tables("a") == ["t1"]
    clock.advance(10)
    assert second.acquire_lease("t1", "b", 10)
    with pytest.raises(StoreError, match="positive, finite"):
        first.create_table("t2", "werewolf", "卓", "{}", 1.0, holder="a")
    assert first.get_table("t2") is None


def test_the_lease_holder_is_named_while_its_lease_runs(backend: Backend, clock: FakeClock) -> None:
    store = backend.open(clock)
    store.create_table("t1", "werewolf", "卓", "{}", 1.0)
    assert store.lease_holder("t1") is None  # free
    assert store.lease_holder("nothing") is None
    assert store.acquire_lease("t1", "http://127.0.0.1:8001#a", 10)
    assert store.lease_holder("t1") == "http://127.0.0.1:8001#a"
    clock.advance(10)
    assert store.lease_holder("t1") is None  # expired
    assert store.acquire_lease("t1", "b", 10)
    assert store.lease_holder("t1") == "b"
    store.release_lease("t1", "b")
    assert store.lease_holder("t1") is None


def test_a_process_started_again_takes_over_its_earlier_incarnations_leases_at_once(
    backend: Backend, clock: FakeClock
) -> None:
    """A server killed and started at the same address (the identity before the ``#``) takes
    every running table its earlier incarnation held at once, not after the lease: nobody
    else's, not a finished one, and the earlier incarnation can write nothing afterwards."""
    old, new = "http://127.0.0.1:8001#host:1:aa", "http://127.0.0.1:8001#host:2:bb"
    first, second = backend.open(clock), backend.open(clock)
    for number, table_id in enumerate(["mine", "mine too", "done", "other", "prefix", "free"]):
        new_table(first, table_id, created_at=float(number))
    for table_id in ("mine", "mine too", "done"):
        assert first.acquire_lease(table_id, old, 30)
    first.append_lines("mine", 0, ["header"], holder=old)
    first.set_status("done", "finished", holder=old)
    assert first.acquire_lease("other", "http://127.0.0.1:8002#host:3:cc", 30)
    assert first.acquire_lease("prefix", "http://127.0.0.1:80011#host:4:dd", 30)  # not the address

    assert second.take_over_leases(new, 30) == {"mine", "mine too"}
    assert second.lease_holder("mine") == new and second.lease_holder("mine too") == new
    assert second.lease_holder("done") == old  # a finished table's lease runs out on its own
    assert second.lease_holder("other") == "http://127.0.0.1:8002#host:3:cc"
    assert second.lease_holder("prefix") == "http://127.0.0.1:80011#host:4:dd"
    assert second.lease_holder("free") is None
    assert second.claimable_tables(new) == ["mine", "mine too", "free"]
    # the earlier incarnation, were it alive, is refused every write from now on
    with pytest.raises(LeaseLost):
        first.append_lines("mine", 1, ["stale"], holder=old)
    assert first.renew_leases(old, ["mine", "mine too"], 30) == set()
    with pytest.raises(LeaseLost):
        first.set_status("mine too", "failed", holder=old)
    second.append_lines("mine", 1, ["event"], holder=new)
    assert second.read_lines("mine") == ["header", "event"]
    clock.advance(29)
    assert second.lease_holder("mine") == new  # a fresh lease from the takeover
    assert second.take_over_leases(new, 30) == set()  # its own leases are not taken again


def test_a_holder_without_an_identity_takes_over_nothing(backend: Backend, clock: FakeClock) -> None:
    store = backend.open(clock)
    new_table(store)
    assert store.acquire_lease("t1", "plain-a", 30)
    assert store.take_over_leases("plain-b", 30) == set()
    assert store.take_over_leases("#b", 30) == set()
    assert store.lease_holder("t1") == "plain-a"
    with pytest.raises(StoreError, match="lease holder"):
        store.take_over_leases("", 30)
    with pytest.raises(StoreError, match="positive, finite"):
        store.take_over_leases("http://x#y", 0)
