"""Several ``gm serve`` processes on one PostgreSQL behind a load balancer that is not sticky:
every request of P1 goes to the next process in turn, whichever drives the table.

A process that does not hold the table's lease passes the table's requests (the view, the
answer, the event stream) on to the one that does, at the address it advertised; when the
holder is killed mid-game, a survivor takes the table over and P1 plays on through the same
balancer, never told which process holds it. The screen at the end is the one the same
game shows when nothing interrupts it, and the transcript replays.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gm_engine.serve.store_open import open_store
from gm_engine.serve.tables import holder_address
from tests.postgres_server import PostgresServer
from tests.serve_client import ServeClient
from tests.serve_process import ServeProcess, start_serve
from tests.test_serve_restart import CONFIG, WAIT, check_transcript, reference_game, seed_of


@dataclass
class RoundRobin(ServeClient):
    """A load balancer with no stickiness: each request goes to the next live process (a
    killed one is left out, as a balancer's health check would)."""

    servers: list[ServeProcess] = field(default_factory=list)
    served: list[tuple[int, str, int]] = field(default_factory=list)
    """(process index, path, status) of every request."""
    _next: dict[str, int] = field(default_factory=dict)
    """The next process, by the kind of request (its path's last part): each kind goes round
    the processes on its own, so that answers reach every process however many views the
    player polls between two answers (one counter for all would let an even number of polls
    send every answer to the same process)."""

    def exchange(
        self, method: str, path: str, body: object | None = None, token: str | None = None
    ) -> tuple[int, bytes, dict[str, str]]:
        """Send the request to the next live process for its kind."""
        kind = path.split("?")[0].rsplit("/", 1)[-1]
        for _ in range(len(self.servers)):
            turn = self._next.get(kind, 0)
            index = turn % len(self.servers)
            self._next[kind] = turn + 1
            server = self.servers[index]
            if server.process.poll() is None:
                status, data, headers = server.client.exchange(method, path, body, token)
                self.served.append((index, path.split("?")[0], status))
                return status, data, headers
        return 0, b"no live process", {}


@pytest.fixture
def servers() -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    yield started
    for server in started:
        server.kill()


def holder_index(database: str, table_id: str, servers: list[ServeProcess]) -> int | None:
    """Which process holds the table's lease (by the address it advertised)."""
    store = open_store(database)
    try:
        holder = store.lease_holder(table_id)
    finally:
        store.close()
    address = None if holder is None else holder_address(holder)
    for index, server in enumerate(servers):
        if address == server.client.base:
            return index
    return None


def first_event(base: str, table_id: str, token: str) -> dict[str, object]:
    """The first message of the table's event stream at ``base``."""
    request = urllib.request.Request(f"{base}/api/tables/{table_id}/events")
    request.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for raw in response:
            line = raw.decode("utf-8").strip()
            if line.startswith("data: "):
                event: dict[str, object] = json.loads(line[len("data: ") :])
                return event
    raise AssertionError("the stream ended without a message")


@pytest.mark.parametrize("kill_holder", [False, True])
def test_p1_plays_a_whole_game_through_a_balancer_that_alternates_between_processes(
    kill_holder: bool,
    postgres_server: PostgresServer,
    servers: list[ServeProcess],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    database = postgres_server.create_database()
    count = 3 if kill_holder else 2  # with the holder killed, a survivor still forwards to the other
    for number in range(count):
        servers.append(start_serve(database, tmp_path / f"serve-{number}.log"))
    balancer = RoundRobin(base="balancer", servers=servers)
    seat = balancer.create_table(CONFIG)
    expected, answers = reference_game(seed_of(database, seat.table_id), monkeypatch)
    holder = holder_index(database, seat.table_id, servers)
    assert holder is not None
    others = [index for index in range(count) if index != holder]

    # a process that does not drive the table streams its events from the one that does
    event = first_event(servers[others[0]].client.base, seat.table_id, seat.token)
    assert event["table_id"] == seat.table_id and event["status"] in ("starting", "running")

    if kill_holder:
        seat.play(balancer, answers=answers // 2, timeout=WAIT)
        shown_before = list(seat.lines)
        servers[holder].kill()
        final = seat.play(balancer, timeout=WAIT)
        assert seat.lines[: len(shown_before)] == shown_before  # nothing shown is lost or changed
        taker = holder_index(database, seat.table_id, servers)
        assert taker is None or taker in others  # a finished table's lease is given up
    else:
        final = seat.play(balancer, timeout=WAIT)
    assert final["status"] == "finished", final["message"]
    assert seat.lines == expected
    check_transcript(balancer, seat, tmp_path)

    # every process answered views and answers of the table, driving it or not
    for index in range(count):
        mine = [(path, status) for number, path, status in balancer.served if number == index]
        if kill_holder and index == holder:
            continue
        assert any(path.endswith("/answer") and status == 200 for path, status in mine), (index, mine)
        assert any(path.endswith("/view") and status == 200 for path, status in mine), (index, mine)
    assert not any(status >= 500 and status != 503 for _, _, status in balancer.served)
    if not kill_holder:  # with the holder alive, no request ever needs a retry
        assert all(status == 200 for _, _, status in balancer.served), balancer.served[:20]
