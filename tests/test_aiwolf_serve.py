"""AIWolf agents at ``gm serve`` tables: aiwolf-nlp-common's own Client, in threads on
127.0.0.1, plays the agent seats of a table opened over HTTP, P1 played over HTTP by the
scripted player (tests/serve_client.py); each agent's packets carry only its seat's
knowledge, the transcript replays. The agents' tokens survive a restart; a connection that
reaches a process not driving the table is relayed to the one that does, and when that one
goes the agent connects again and the next holder seats it afresh."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiwolf_nlp_common")

import uvicorn
import websockets.sync.client as websockets_client
from aiwolf_nlp_common.client import Client
from aiwolf_nlp_common.packet import Packet, Request, Role
from websocket import WebSocketException
from websockets.exceptions import ConnectionClosed

from gm_engine.serve.app import create_app
from gm_engine.serve.forward import FORWARDED_HEADER
from gm_engine.serve.tables import TableError, TableRuntime, WerewolfTableConfig, parse_config
from gm_engine.transcripts import read_transcript, replay_file
from gm_engine.transcripts.format import Event, TranscriptStream
from gm_engine.transcripts.sealing import GameKey, KeptGame
from tests.memory_store import MemoryStore
from tests.serve_client import ServeClient, TableSeat
from tests.serve_server import running_server
from tests.test_aiwolf_host import LINES, pick
from tests.test_serve_app import offline_only
from tests.test_serve_tables import fixed_seeds

WAIT = 120.0
SEATS = [3, 5, 8]
CONFIG: dict[str, Any] = {
    "kind": "werewolf",
    "title": "AIWolf卓",
    "narrator": False,
    "aiwolf": {"seats": SEATS, "timeout_s": 20},
}


def answer(packet: Packet) -> str | None:
    """The test agents' answer to ``packet`` (None: a notice)."""
    request = packet.request
    if request is Request.WHISPER:
        return pick(packet, ["今夜はどうする？", "Over"])
    if request is Request.TALK:
        return pick(packet, list(LINES))
    if request in (Request.VOTE, Request.DIVINE, Request.GUARD, Request.ATTACK):
        assert packet.info is not None
        alive = sorted(n for n, s in packet.info.status_map.items() if s.value == "ALIVE")
        return pick(packet, [n for n in alive if n != packet.info.agent])
    return None


class Agent:
    """An AIWolf agent on the library's Client that connects again whenever its connection
    is closed before FINISH (to whatever :attr:`url` says then); every connection's packets kept."""

    def __init__(self, url: str, name: str) -> None:
        self.url = url
        self.name = name
        self.connections: list[list[Packet]] = []
        self.closes: list[tuple[int | None, str]] = []
        self.finished = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"agent-{name}", daemon=True)

    @property
    def packets(self) -> list[Packet]:
        return [p for got in self.connections for p in got]

    def _run(self) -> None:
        while not self.stop.is_set() and not self.finished.is_set():
            client = Client(self.url, None)
            try:
                client.connect()
            except (WebSocketException, OSError):
                time.sleep(0.1)
                continue
            got: list[Packet] = []
            self.connections.append(got)
            try:
                while True:
                    try:
                        packet = client.receive()
                    except (WebSocketException, ValueError, OSError):
                        break
                    got.append(packet)
                    if packet.request is Request.NAME:
                        client.send(self.name)
                    elif packet.request is Request.FINISH:
                        self.finished.set()
                        break
                    else:
                        said = answer(packet)
                        if said is not None:
                            client.send(said)
            finally:
                status = getattr(client.socket, "status", None)
                self.closes.append((status, ""))
                client.close()
            time.sleep(0.1)


def asked(packets: list[Packet]) -> bool:
    """Whether any of ``packets`` asked for an answer beyond NAME."""
    return any(
        p.request in (Request.TALK, Request.VOTE, Request.DIVINE, Request.GUARD, Request.ATTACK)
        for p in packets
    )


def agent_list(client: ServeClient, seat: TableSeat) -> dict[str, Any]:
    listing: dict[str, Any] = client.json("GET", f"/api/tables/{seat.table_id}/aiwolf", token=seat.token)
    return listing


def wait_connected(client: ServeClient, seat: TableSeat, seats: list[int]) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        connected = {s["seat"]: s["connected"] for s in agent_list(client, seat)["seats"]}
        if all(connected.get(s) for s in seats):
            return
        time.sleep(0.05)
    raise AssertionError(f"the agents did not connect: {agent_list(client, seat)}")


def check_knowledge(agent: Agent) -> Role:
    """Every packet before FINISH tells the agent its own role only (a 人狼: its partner's too)."""
    packets = agent.packets
    first = next(p for p in packets if p.request is Request.INITIALIZE)
    assert first.info is not None
    me = first.info.agent
    role = first.info.role_map[me]
    for packet in packets:
        info = packet.info
        if info is None or packet.request is Request.FINISH:
            continue
        assert info.agent == me
        if role is Role.WEREWOLF:
            assert set(info.role_map.values()) == {Role.WEREWOLF} and me in info.role_map
        else:
            assert info.role_map == {me: role}
        if info.divine_result is not None:
            assert role is Role.SEER
        if info.medium_result is not None:
            assert role is Role.MEDIUM
        if packet.whisper_history:
            assert role is Role.WEREWOLF
    return role


def stored_events(store: MemoryStore, table_id: str) -> list[Event]:
    """The events of a table's lines in the store, unsealed with the table's own key."""
    seed = int((store.get_secret(table_id, "seed") or b"").decode("ascii"))
    kept = json.loads((store.get_secret(table_id, "game_key") or b"").decode("ascii"))
    key = GameKey.from_hex(str(kept["key_id"]), kept["key"])
    data = "".join(f"{line}\n" for line in store.read_lines(table_id)).encode("utf-8")
    with TranscriptStream(f"table-{table_id}", data=data, kept=KeptGame(key=key, seed=seed)) as stream:
        return list(stream)


def save_transcript(client: ServeClient, seat: TableSeat, path: Path) -> Path:
    status, data = client.request("GET", f"/api/tables/{seat.table_id}/transcript", token=seat.token)
    assert status == 200, data[:300]
    path.write_bytes(data)
    return path


def test_a_served_table_with_three_aiwolf_agents_plays_to_its_end(tmp_path: Path) -> None:
    store = MemoryStore()
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(4_455_667_788_990_011))
    with running_server(runtime) as url:
        client = ServeClient(url)
        seat = client.create_table(CONFIG)
        listing = agent_list(client, seat)
        assert [s["seat"] for s in listing["seats"]] == SEATS
        urls = {s["seat"]: str(s["url"]) for s in listing["seats"]}
        where = f"ws://127.0.0.1:{url.rsplit(':', 1)[1]}/tables/{seat.table_id}/aiwolf/ws?token="
        assert all(address.startswith(where) for address in urls.values())
        assert len(set(urls.values())) == 3
        agents = {number: Agent(address, f"team{number}") for number, address in urls.items()}
        for agent in agents.values():
            agent.thread.start()
        wait_connected(client, seat, SEATS)
        final = seat.play(client, timeout=WAIT)
        assert final["status"] == "finished", final["message"]
        for agent in agents.values():
            assert agent.finished.wait(WAIT)
            agent.thread.join(WAIT)
        path = save_transcript(client, seat, tmp_path / "served.jsonl")
    roles = {number: check_knowledge(agent) for number, agent in agents.items()}
    for agent in agents.values():
        assert len(agent.connections) == 1  # one connection for the whole game
        finish = agent.packets[-1]
        assert finish.request is Request.FINISH and finish.info is not None and len(finish.info.role_map) == 9
        told = [(t.day, t.idx) for p in agent.packets for t in (p.talk_history or [])]
        assert len(told) == len(set(told))  # every talk line once
        assert any(p.request is Request.DAILY_FINISH for p in agent.packets)
    transcript = read_transcript(path)
    agents_recorded = {int(s): v for s, v in transcript.header.options["seat_agents"].items()}
    assert agents_recorded == dict.fromkeys(SEATS, "aiwolf")
    answered = [
        e
        for e in transcript.events
        if e.type == "model_response"
        and e.payload["actor"] in {f"P{s}" for s in SEATS}
        and any(str(c.get("id", "")).startswith("aiwolf-") for c in e.payload.get("tool_calls") or [])
    ]
    assert {e.payload["actor"] for e in answered} == {f"P{s}" for s in SEATS}  # the agents played
    report = replay_file(path)
    assert report.ok, report.describe()
    assert set(roles) == set(SEATS)


def test_agent_tokens_open_their_own_seat_and_nothing_else(tmp_path: Path) -> None:
    store = MemoryStore()
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(91))
    with running_server(runtime) as url:
        client = ServeClient(url)
        seat = client.create_table(CONFIG)
        other = client.create_table(CONFIG)
        urls = {s["seat"]: str(s["url"]) for s in agent_list(client, seat)["seats"]}
        token = urls[3].split("token=", 1)[1]
        # an agent's token opens no page of P1's, nor the creator's list
        for path in ("view", "aiwolf", "transcript"):
            status, _ = client.request("GET", f"/api/tables/{seat.table_id}/{path}", token=token)
            assert status == 403, path
        status, _ = client.request("GET", f"/api/tables/{other.table_id}/aiwolf", token=seat.token)
        assert status == 403  # another table's creator
        ws = url.replace("http", "ws", 1)
        for refused in (
            f"{ws}/tables/{seat.table_id}/aiwolf/ws",  # no token
            f"{ws}/tables/{seat.table_id}/aiwolf/ws?token={seat.token}",  # P1's token
            f"{ws}/tables/{other.table_id}/aiwolf/ws?token={token}",  # another table's seat
            f"{ws}/tables/{seat.table_id}/aiwolf/ws?token={token}x",
        ):
            intruder = Client(refused, None)
            intruder.connect()
            with pytest.raises((WebSocketException, ValueError)):
                intruder.receive()  # closed at once: no NAME, no packet
            intruder.close()
        # the Bearer header works as the query does (aiwolf-nlp-common's Client(url, token))
        bearer = Client(urls[3].split("?", 1)[0], token)
        bearer.connect()
        assert bearer.receive().request is Request.NAME
        bearer.send("bearer1")
        deadline = time.monotonic() + WAIT
        while not agent_list(client, seat)["seats"][0]["connected"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        bearer.close()


def test_bad_agent_seats_are_refused_in_japanese() -> None:
    for seats in ([1, 2], [2, 2], [], [10], [2, 3, 4, 5, 6, 7, 8, 9, 2]):
        with pytest.raises(TableError, match="AIWolfエージェントの席は P2〜P9 から重複なく"):
            parse_config({"kind": "werewolf", "aiwolf": {"seats": seats}})
    with pytest.raises(TableError, match="aiwolf"):
        parse_config({"kind": "werewolf", "aiwolf": {"seats": "3"}})
    config = parse_config({"kind": "werewolf", "aiwolf": {"seats": [8, 3]}})
    assert isinstance(config, WerewolfTableConfig) and config.aiwolf is not None
    assert config.aiwolf.seats == (3, 8)
    assert config.spec(1).options["seat_agents"] == {3: "aiwolf", 8: "aiwolf"}


@contextmanager
def serving_advertised(
    store: MemoryStore, name: str, **runtime_options: Any
) -> Iterator[tuple[str, TableRuntime]]:
    """A runtime on ``store`` served on a free port, advertising its own address (as
    ``gm serve`` does), so that another runtime on the store passes requests on to it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    runtime = TableRuntime(store, backend=offline_only, advertise=base, holder=name, **runtime_options)
    config = uvicorn.Config(
        create_app(runtime),
        log_level="warning",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.01)
    try:
        yield base, runtime
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def test_a_connection_to_another_process_is_relayed_and_a_new_holder_seats_the_agent_again(
    tmp_path: Path,
) -> None:
    """Two runtimes on one store: the agent connects to the one that does not drive the
    table and is relayed to the holder; the holder stops, the relay closes, the agent
    connects again, the survivor takes the table over and seats it afresh (INITIALIZE);
    the game ends and replays. The agent's token is the same throughout (it is in the store)."""
    store = MemoryStore()
    fast: dict[str, Any] = {"lease_seconds": 2.0, "tick_seconds": 0.2, "seeds": fixed_seeds(31)}
    config = {**CONFIG, "aiwolf": {"seats": [4], "timeout_s": 20}}
    with serving_advertised(store, "survivor", **fast) as (base_b, runtime_b):
        client_b = ServeClient(base_b)
        with serving_advertised(store, "first", **fast) as (base_a, runtime_a):
            client_a = ServeClient(base_a)
            seat = client_a.create_table(config)
            assert store.lease_holder(seat.table_id) == runtime_a.holder
            listing = agent_list(client_b, seat)  # the list from the other process too
            (entry,) = listing["seats"]
            assert entry["connected"] is None  # not driven there: it cannot tell
            address = str(entry["url"])
            assert address.startswith(base_b.replace("http", "ws", 1))
            # a connection another process passed on already is never passed on again
            with (
                websockets_client.connect(address, additional_headers={FORWARDED_HEADER: "1"}) as looped,
                pytest.raises(ConnectionClosed),
            ):
                looped.recv(timeout=WAIT)
            assert looped.close_code == 1013 and "try again later" in (looped.close_reason or "")
            agent = Agent(address, "relayed")
            agent.thread.start()
            wait_connected(client_a, seat, [4])  # seated at the holder, through the other
            seat.play(client_a, answers=3, timeout=WAIT)
            told_before = len(agent.packets)
            assert told_before > 2
        # the holder is gone (its runtime closed, its lease given up)
        final = seat.play(client_b, timeout=WAIT)
        assert final["status"] == "finished", final["message"]
        assert agent.finished.wait(WAIT)
        agent.thread.join(WAIT)
        assert store.lease_holder(seat.table_id) in (None, runtime_b.holder)
        path = save_transcript(client_b, seat, tmp_path / "relayed.jsonl")
    assert len(agent.connections) >= 2
    assert asked(agent.connections[-1])  # the new holder asked the agent on its new connection
    for got in agent.connections[1:]:
        if got:
            assert got[0].request is Request.NAME and got[1].request is Request.INITIALIZE  # told afresh
    check_knowledge(agent)
    assert replay_file(path).ok


def test_a_restarted_server_admits_the_agent_with_the_same_token(tmp_path: Path) -> None:
    store = MemoryStore()
    config = {**CONFIG, "aiwolf": {"seats": [2, 7], "timeout_s": 20}}
    fast: dict[str, Any] = {"lease_seconds": 2.0, "tick_seconds": 0.2}
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(57), **fast)
    with running_server(runtime) as url:
        client = ServeClient(url)
        seat = client.create_table(config)
        paths = {s["seat"]: str(s["url"]).split("/tables/", 1)[1] for s in agent_list(client, seat)["seats"]}
        ws = url.replace("http", "ws", 1)
        agents = {n: Agent(f"{ws}/tables/{p}", f"keep{n}") for n, p in paths.items()}
        for agent in agents.values():
            agent.thread.start()
        wait_connected(client, seat, [2, 7])
        seat.play(client, answers=4, timeout=WAIT)
    # the server is gone; the agents keep trying; a new one starts on the same store
    runtime = TableRuntime(store, backend=offline_only, **fast)
    with running_server(runtime) as url:
        client = ServeClient(url)
        for number, agent in agents.items():
            agent.url = f"{url.replace('http', 'ws', 1)}/tables/{paths[number]}"  # the same token
        wait_connected(client, seat, [2, 7])
        final = seat.play(client, timeout=WAIT)
        assert final["status"] == "finished", final["message"]
        for agent in agents.values():
            assert agent.finished.wait(WAIT)
            agent.thread.join(WAIT)
        path = save_transcript(client, seat, tmp_path / "restarted.jsonl")
    for agent in agents.values():
        assert len(agent.connections) >= 2
        check_knowledge(agent)
    # the restarted server asked the agents on their new connections (past the recording)
    assert any(asked(agent.connections[-1]) for agent in agents.values())
    assert replay_file(path).ok
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[-1]["type"] == "end"


def test_an_agent_seat_with_no_agent_is_played_by_its_persona_and_recorded(tmp_path: Path) -> None:
    store = MemoryStore()
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(77))
    with running_server(runtime) as url:
        client = ServeClient(url)
        seat = client.create_table({**CONFIG, "aiwolf": {"seats": [6, 9]}})
        final = seat.play(client, timeout=WAIT)  # nobody ever connects
        assert final["status"] == "finished", final["message"]
        path = save_transcript(client, seat, tmp_path / "absent.jsonl")
    fallbacks = [e.payload for e in read_transcript(path).events if e.type == "fallback"]
    for number in (6, 9):
        mine = [f for f in fallbacks if f.get("actor") == f"P{number}"]
        assert mine and all("did not answer" in str(f.get("reason")) for f in mine), number
    assert replay_file(path).ok


def test_a_new_connection_replaces_the_old_and_a_finished_table_turns_agents_away(tmp_path: Path) -> None:
    store = MemoryStore()
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(83))
    with running_server(runtime) as url:
        client = ServeClient(url)
        seat = client.create_table({**CONFIG, "aiwolf": {"seats": [5]}})
        (entry,) = agent_list(client, seat)["seats"]
        first = Client(str(entry["url"]), None)
        first.connect()
        assert first.receive().request is Request.NAME
        first.send("first1")
        wait_connected(client, seat, [5])
        agent = Agent(str(entry["url"]), "second")
        agent.thread.start()
        deadline = time.monotonic() + WAIT
        while not agent.connections or not agent.connections[0]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with pytest.raises((WebSocketException, ValueError)):  # the first is closed
            while True:
                first.receive()
        first.close()
        final = seat.play(client, timeout=WAIT)
        assert final["status"] == "finished", final["message"]
        assert agent.finished.wait(WAIT)
        agent.thread.join(WAIT)
        assert len(agent.connections) == 1 and asked(agent.connections[0])
        late = Client(str(entry["url"]), None)
        late.connect()
        with pytest.raises((WebSocketException, ValueError)):  # no NAME: the game is over
            late.receive()
        late.close()


def test_a_server_that_stops_while_an_agent_thinks_records_nothing_for_that_turn(tmp_path: Path) -> None:
    """The agent has been asked and has not answered when the server stops: no fallback is
    recorded for that turn; the server started again asks it again, and the agent answers."""
    store = MemoryStore()
    runtime = TableRuntime(store, backend=offline_only, seeds=fixed_seeds(61))
    asked_now = threading.Event()
    with running_server(runtime) as url:
        client = ServeClient(url)
        seat = client.create_table({**CONFIG, "aiwolf": {"seats": [2, 3, 4, 5, 6, 7, 8, 9]}})
        (entry, *_) = agent_list(client, seat)["seats"]
        silent = Client(str(entry["url"]), None)
        silent.connect()
        assert silent.receive().request is Request.NAME
        silent.send("silent1")
        wait_connected(client, seat, [2])

        def listen() -> None:  # until P2 is asked something that needs an answer; never answered
            while True:
                packet = silent.receive()
                if packet.request in (
                    Request.TALK,
                    Request.VOTE,
                    Request.DIVINE,
                    Request.GUARD,
                    Request.ATTACK,
                ):
                    asked_now.set()
                    return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        deadline = time.monotonic() + WAIT
        while not asked_now.is_set():  # P1 plays until then
            assert time.monotonic() < deadline
            view = seat.view(client)
            if view is not None and view["question"] is not None and not asked_now.is_set():
                seat.answer(client, view["question"])
            time.sleep(0.05)
        listener.join(WAIT)
    silent.close()
    p2 = [
        event
        for event in stored_events(store, seat.table_id)
        if event.type in ("model_request", "model_response", "fallback")
        and event.payload.get("actor") == "P2"
    ]
    # the turn P2 was asked is not recorded at all (a model turn is recorded with its outcome)
    assert not any(event.type in ("fallback", "model_response") for event in p2), p2[-3:]
    runtime = TableRuntime(store, backend=offline_only, lease_seconds=2.0, tick_seconds=0.2)
    with running_server(runtime) as url:
        client = ServeClient(url)
        agent = Agent(
            f"{url.replace('http', 'ws', 1)}/tables/{str(entry['url']).split('/tables/', 1)[1]}", "back"
        )
        agent.thread.start()
        final = seat.play(client, timeout=WAIT)
        assert final["status"] == "finished", final["message"]
        assert agent.finished.wait(WAIT)
        agent.thread.join(WAIT)
        path = save_transcript(client, seat, tmp_path / "stopped.jsonl")
    assert asked_now.is_set() and asked(agent.connections[0])
    assert replay_file(path).ok
