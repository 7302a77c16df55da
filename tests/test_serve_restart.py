"""``gm serve`` killed with ``kill -9`` mid-table and started again, on SQLite and on
PostgreSQL; and two servers on one PostgreSQL, the one driving a table killed and the
other carrying it to its end.

A scripted P1 (tests/serve_client.py) plays over HTTP. The checks: every line P1 saw
before the kill is where it was in the screen after the restart (nothing shown is lost or
changed), and the whole screen at the end is the one the same game shows when nothing
interrupts it (the same seed, read from the store, played in this process by the same
scripted P1); the downloaded transcript replays with ``gm replay``'s checks.

A server started again at the killed one's address (its port) takes that one's tables over
at once: the first request after the restart is served, not refused with 503 until the
killed process's lease runs out. Another process (the two-server tests) takes a killed
one's tables over once their leases expire.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gm_engine.serve.store import TableStore
from gm_engine.serve.store_open import open_store
from gm_engine.serve.tables import TableRuntime, WerewolfTableConfig
from gm_engine.transcripts.replay import replay_file
from tests.memory_store import MemoryStore
from tests.postgres_server import PostgresServer
from tests.serve_client import HTTPFailure, ServeClient, TableSeat, scripted_answer
from tests.serve_process import ServeProcess, start_serve

# P1 the seer (a night action every night, a CO to make), nine seats, the rules' defaults.
CONFIG: dict[str, Any] = {"kind": "werewolf", "title": "再開テスト", "role": 3}
WAIT = 180.0  # seconds a step may take on a loaded machine (a takeover included) before giving up


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "tables.sqlite3")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.create_database()


@pytest.fixture
def servers() -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    yield started
    for server in started:
        server.kill()


def reference_game(seed: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], int]:
    """The screen of the game with ``seed`` played to its end without interruption, in
    this process, by the same scripted P1, and the number of answers P1 gave."""
    with monkeypatch.context() as patch:
        patch.setattr(secrets, "randbelow", lambda _bound: seed)  # the runtime draws its seed so
        runtime = TableRuntime(MemoryStore())
        created = runtime.create_table(WerewolfTableConfig.model_validate(CONFIG))
    try:
        live = runtime.live(created.table_id)
        assert live is not None
        deadline = time.monotonic() + WAIT
        answers = 0
        while time.monotonic() < deadline:
            view = live.view()
            if view["status"] not in ("starting", "running"):
                break
            if view["question"] is not None:
                live.submit(scripted_answer(view["question"]))
                answers += 1
            else:
                time.sleep(0.005)
        view = live.view()
        assert view["status"] == "finished", view["message"]
        lines: list[str] = view["lines"]
        return lines, answers
    finally:
        runtime.close()


def seed_of(database: str, table_id: str) -> int:
    store: TableStore = open_store(database)
    try:
        seed = store.get_secret(table_id, "seed")
    finally:
        store.close()
    assert seed is not None
    return int(seed.decode("ascii"))


def check_transcript(client: ServeClient, seat: TableSeat, tmp_path: Path) -> None:
    status, data = client.request("GET", f"/api/tables/{seat.table_id}/transcript", token=seat.token)
    assert status == 200, data[:300]
    path = tmp_path / f"table-{seat.table_id}.jsonl"
    path.write_bytes(data)
    report = replay_file(path)
    assert report.ok, report.describe()


def play_after_takeover(seat: TableSeat, client: ServeClient) -> dict[str, Any]:
    """Wait for ``client``'s server to drive the table, then play it to its end."""
    return seat.play(client, timeout=WAIT)


def holder_of(database: str, table_id: str) -> str | None:
    store: TableStore = open_store(database)
    try:
        return store.lease_holder(table_id)
    finally:
        store.close()


def restart_at_once(database: str, killed: ServeProcess, seat: TableSeat, log: Path) -> ServeProcess:
    """Start a server at ``killed``'s address and check that it drives the table from its
    first request on: the table's lease is the new process's at once (the killed one's
    has not run out), and the first view is served, not refused with 503."""
    old_holder = holder_of(database, seat.table_id)
    assert old_holder is not None and old_holder.startswith(f"{killed.client.base}#")
    again = start_serve(database, log, port=killed.port)
    status, data = again.client.request("GET", f"/api/tables/{seat.table_id}/view", token=seat.token)
    assert status == 200, data[:300]
    assert json.loads(data)["status"] in ("starting", "running")
    new_holder = holder_of(database, seat.table_id)
    assert new_holder is not None and new_holder.startswith(f"{again.client.base}#")
    assert new_holder != old_holder
    return again


@pytest.mark.parametrize("part_played", [0.2, 0.8])
def test_a_killed_server_started_again_resumes_the_table_and_loses_nothing_shown(
    database: str,
    part_played: float,
    servers: list[ServeProcess],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = start_serve(database, tmp_path / "first.log")
    servers.append(first)
    seat = first.client.create_table(CONFIG)
    expected, answers = reference_game(seed_of(database, seat.table_id), monkeypatch)
    view = seat.play(first.client, answers=max(1, int(answers * part_played)), timeout=WAIT)
    assert view["status"] == "running"
    shown_before = list(seat.lines)
    first.kill()

    second = restart_at_once(database, first, seat, tmp_path / "second.log")
    servers.append(second)
    final = play_after_takeover(seat, second.client)
    assert final["status"] == "finished", final["message"]
    assert seat.lines[: len(shown_before)] == shown_before  # nothing shown is lost or changed
    assert len(seat.lines) > len(shown_before)
    assert seat.lines == expected
    assert any("【ゲーム終了】" in line for line in seat.lines)
    check_transcript(second.client, seat, tmp_path)


def test_a_server_killed_while_an_answer_is_in_flight_loses_no_game(
    database: str, servers: list[ServeProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kill lands while the server works on an answer: it is either in the store
    (and the resumed game goes on after it) or not (and the question is asked again)."""
    import threading

    first = start_serve(database, tmp_path / "first.log")
    servers.append(first)
    seat = first.client.create_table(CONFIG)
    expected, answers = reference_game(seed_of(database, seat.table_id), monkeypatch)
    seat.play(first.client, answers=answers // 2, timeout=WAIT)
    question = seat.wait_question(first.client, WAIT)["question"]

    def send() -> None:
        with contextlib.suppress(HTTPFailure):  # the server died before it replied
            seat.answer(first.client, question)

    in_flight = threading.Thread(target=send, daemon=True)
    in_flight.start()
    time.sleep(0.01)
    first.kill()
    in_flight.join(60)
    shown_before = list(seat.lines)

    second = restart_at_once(database, first, seat, tmp_path / "second.log")
    servers.append(second)
    final = play_after_takeover(seat, second.client)
    assert final["status"] == "finished", final["message"]
    assert seat.lines[: len(shown_before)] == shown_before
    assert seat.lines == expected
    check_transcript(second.client, seat, tmp_path)


def test_two_servers_on_one_postgresql_the_survivor_takes_the_table_over(
    postgres_server: PostgresServer,
    servers: list[ServeProcess],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    database = postgres_server.create_database()
    left = start_serve(database, tmp_path / "left.log")
    right = start_serve(database, tmp_path / "right.log")
    servers.extend([left, right])
    seat = left.client.create_table(CONFIG)  # left drives it: it created it and took the lease
    expected, answers = reference_game(seed_of(database, seat.table_id), monkeypatch)
    status, data = right.client.request("GET", f"/api/tables/{seat.table_id}/view", token=seat.token)
    assert status == 200, data  # right does not drive it: it passes the request on to left
    lobby = right.client.json("GET", "/api/tables")
    assert seat.table_id in {table["table_id"] for table in lobby["tables"]}
    seat.play(left.client, answers=answers // 2, timeout=WAIT)
    shown_before = list(seat.lines)
    killed_holder = holder_of(database, seat.table_id)
    assert killed_holder is not None and killed_holder.startswith(f"{left.client.base}#")
    left.kill()

    final = play_after_takeover(seat, right.client)
    assert final["status"] == "finished", final["message"]
    assert seat.lines[: len(shown_before)] == shown_before
    assert seat.lines == expected
    # the survivor carried it to its end: the store says so, under the survivor's lease
    holder = holder_of(database, seat.table_id)
    assert holder is None or holder.startswith(f"{right.client.base}#")
    store = open_store(database)
    try:
        row = store.get_table(seat.table_id)
        assert row is not None and row.status == "finished"
    finally:
        store.close()
    check_transcript(right.client, seat, tmp_path)


#: Short leases for the two-process tests: a renewal every half second, a lease of eight.
QUICK_LEASES = ("--lease-seconds", "8", "--tick-seconds", "0.5")
#: How long the paused holder is stopped: well inside its lease (8 s less a tick).
PAUSE_SECONDS = 3.0


def test_a_paused_holder_keeps_its_tables_and_a_killed_one_loses_them_to_the_other(
    database: str, servers: list[ServeProcess], tmp_path: Path
) -> None:
    """Two servers on one database. The one driving six tables is stopped (SIGSTOP) for less
    than its lease while the other ticks: it keeps every table (same holder, same epoch, its
    games go on). Then it is killed: the other takes every table over and finishes it, with
    nothing P1 saw lost."""
    left = start_serve(database, tmp_path / "left.log", options=QUICK_LEASES)
    right = start_serve(database, tmp_path / "right.log", options=QUICK_LEASES)
    servers.extend([left, right])
    seats = [left.client.create_table(CONFIG) for _ in range(6)]
    for seat in seats:
        seat.play(left.client, answers=2, timeout=WAIT)
    store = open_store(database)
    try:
        holders = {seat.table_id: store.lease_holder(seat.table_id) for seat in seats}
        assert all(holder is not None and holder.startswith(left.client.base) for holder in holders.values())
        epochs = {seat.table_id: seat.epoch for seat in seats}

        os.kill(left.process.pid, signal.SIGSTOP)
        try:
            time.sleep(PAUSE_SECONDS)  # right ticks six times meanwhile; left's leases still run
        finally:
            os.kill(left.process.pid, signal.SIGCONT)
        for seat in seats:
            view = seat.play(left.client, answers=2, timeout=WAIT)
            assert view["status"] == "running", view["message"]
            assert seat.epoch == epochs[seat.table_id]  # never driven anew: nobody took it
            assert store.lease_holder(seat.table_id) == holders[seat.table_id]

        shown_before = {seat.table_id: list(seat.lines) for seat in seats}
        left.kill()
        for seat in seats:
            final = seat.play(right.client, timeout=WAIT)
            assert final["status"] == "finished", final["message"]
            assert seat.lines[: len(shown_before[seat.table_id])] == shown_before[seat.table_id]
            holder = store.lease_holder(seat.table_id)
            assert holder is None or holder.startswith(right.client.base)
            row = store.get_table(seat.table_id)
            assert row is not None and row.status == "finished"
        check_transcript(right.client, seats[0], tmp_path)
    finally:
        store.close()


def test_a_second_server_started_on_a_taken_port_stops_before_it_takes_a_lease(
    database: str, servers: list[ServeProcess], tmp_path: Path
) -> None:
    """Only a process that listens at the address takes over the leases held under it: a
    second ``gm serve`` started on the port a live one listens at stops (exit status 2)
    without taking the live one's table, which goes on."""
    first = start_serve(database, tmp_path / "first.log")
    servers.append(first)
    seat = first.client.create_table(CONFIG)
    seat.play(first.client, answers=1, timeout=WAIT)
    holder = holder_of(database, seat.table_id)
    assert holder is not None and holder.startswith(f"{first.client.base}#")
    gm = Path(sys.executable).with_name("gm")
    second = subprocess.run(
        [str(gm), "serve", "--port", str(first.port), "--database", database],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "GM_DATA_DIR": str(tmp_path / "data")},
    )
    assert second.returncode == 2, second.stderr
    assert second.stderr.startswith("gm serve: ") and "EADDRINUSE" in second.stderr
    assert holder_of(database, seat.table_id) == holder
    view = seat.play(first.client, answers=1, timeout=WAIT)
    assert view["status"] == "running", view["message"]
