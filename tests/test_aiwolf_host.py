"""gm_engine hosts AIWolf agents: aiwolf-nlp-common's own Client, in threads on 127.0.0.1,
plays seats of whole games; each agent's packets carry only what its seat may know; the
transcript replays without the agents."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiwolf_nlp_common")

from aiwolf_nlp_common.client import Client
from aiwolf_nlp_common.packet import Packet, Request, Role
from websocket import WebSocketException

from gm_engine.aiwolf.auth import is_player_token, player_token, token_of
from gm_engine.aiwolf.export import export_transcript
from gm_engine.aiwolf.host import AIWolfHost, HostError, play_hosted
from gm_engine.aiwolf.protocol import OVER, AnswerError, TalkRules, seat_named, talk_text, truncated
from gm_engine.cli import main
from gm_engine.dice.source import SeededSource
from gm_engine.events import FallbackEvent
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman
from gm_engine.transcripts import read_transcript, record_session, replay_file
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import ClaimMade
from gm_engine.werewolf.records import Colour
from gm_engine.werewolf.records import Role as OurRole
from tests.aiwolf_viewer import process_archive_log

#: What the test's agents say: a function of the packet alone, so that whichever thread
#: gets which seat, the same seat says the same things.
LINES = (
    "こんにちは、よろしく。",
    OVER,
    "私は占い師です。",
    "@トウダ 少し怪しいと思う",
    "Skip",
    "様子を見ます",
)


def pick(packet: Packet, options: list[str]) -> str:
    assert packet.info is not None
    talk = len(packet.talk_history or [])
    key = f"{packet.info.agent}/{packet.request.value}/{packet.info.day}/{talk}/{packet.info.remain_count}"
    return options[int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(options)]


def play_agent(url: str, name: str, got: list[Packet], quit_after: int | None = None) -> None:
    """An AIWolf agent on the library's Client: answers every request, keeps every packet."""
    client = Client(url, None)
    client.connect()
    try:
        while True:
            try:
                packet = client.receive()
            except (WebSocketException, ValueError):
                return  # the host closed the connection (the test checks what came before)
            got.append(packet)
            request = packet.request
            if request is Request.NAME:
                client.send(name)
            elif request is Request.WHISPER:
                client.send(pick(packet, ["今夜はどうする？", OVER]))
            elif request is Request.TALK:
                if quit_after is not None and sum(p.request is Request.TALK for p in got) > quit_after:
                    return  # gone in the middle of the game
                client.send(pick(packet, list(LINES)))
            elif request in (Request.VOTE, Request.DIVINE, Request.GUARD, Request.ATTACK):
                assert packet.info is not None
                alive = sorted(n for n, s in packet.info.status_map.items() if s.value == "ALIVE")
                client.send(pick(packet, [n for n in alive if n != packet.info.agent]))
            elif request is Request.FINISH:
                return
    finally:
        client.close()


def host_game(
    seats: list[int], seed: int, path: Path, quit_after: dict[int, int] | None = None
) -> tuple[dict[str, list[Packet]], ListSink, Any]:
    host = AIWolfHost(seats, seed=seed, rules=TalkRules(per_agent=2, action_timeout_ms=20_000), port=0)
    port = host.start()
    packets: dict[str, list[Packet]] = {}
    threads = []
    for index in range(len(seats)):
        name = f"team{index}"
        got = packets.setdefault(name, [])
        stop = (quit_after or {}).get(index)
        thread = threading.Thread(target=play_agent, args=(f"ws://127.0.0.1:{port}/ws", name, got, stop))
        thread.start()
        threads.append(thread)
    try:
        sources = host.wait_for_agents(30)
        spec = SessionSpec(kind="werewolf", seed=seed, options={"seat_agents": host.agent_names})
        sink = ListSink()
        io = SessionIO(
            backend=OfflineBackend(),
            human=AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/human"))),
            sink=sink,
            show=lambda line: None,
        )

        def runner(s: SessionSpec, i: SessionIO) -> Any:
            return asyncio.run(play_hosted(s, i, sources))

        outcome = record_session(spec, io, path, runner=runner)
        for thread in threads:
            thread.join(30)
    finally:
        host.close()
    return packets, sink, outcome


def roles_seen(packets: list[Packet]) -> list[dict[str, Role]]:
    return [p.info.role_map for p in packets if p.info is not None and p.request is not Request.FINISH]


@pytest.mark.parametrize(("seats", "seed"), [([3, 5, 8], 4), ([2, 3, 4, 5, 6, 7, 8, 9], 5)])
def test_aiwolf_clients_play_a_whole_hosted_game(tmp_path: Path, seats: list[int], seed: int) -> None:
    path = tmp_path / "hosted.jsonl"
    packets, _, outcome = host_game(seats, seed, path)
    assert outcome.finished and "の勝利" in outcome.summary
    transcript = read_transcript(path)
    agents = transcript.header.options["seat_agents"]
    assert sorted(int(s) for s in agents) == seats and sorted(agents.values()) == sorted(packets)
    wolves_seen = 0
    for got in packets.values():
        kinds = [p.request for p in got]
        assert kinds[0] is Request.NAME and kinds[1] is Request.INITIALIZE and kinds[-1] is Request.FINISH
        own = got[1].info
        assert own is not None
        me = own.agent
        role = own.role_map[me]
        for seen in roles_seen(got):
            if role is Role.WEREWOLF:
                # a 人狼 sees its partner and nobody else's role
                assert set(seen.values()) == {Role.WEREWOLF} and me in seen and len(seen) == 2
                wolves_seen += 1
            else:
                assert seen == {me: role}  # nobody else sees a role
        for packet in got:
            info = packet.info
            if info is None:
                continue
            if info.divine_result is not None:
                assert role is Role.SEER and info.divine_result.agent == me
            if info.medium_result is not None:
                assert role is Role.MEDIUM
        finish = got[-1].info
        assert finish is not None and len(finish.role_map) == 9  # the end makes every role public
        # the agent was told every talk line once, in order, as differences
        told = [(t.day, t.idx) for p in got for t in (p.talk_history or [])]
        assert len(told) == len(set(told))
    assert len(packets) == len(seats)
    report = replay_file(path)
    assert report.ok, report.describe()
    if len(seats) == 8:
        assert wolves_seen > 0
    # the exported log names each agent where it sat, as the viewer reads it
    exported = export_transcript(path).game_log
    days = process_archive_log(exported)
    if len(seats) == 8:
        # both 人狼 are agents: they whispered on the nights both of them chose a victim
        both = [day for day in days.values() if len(day.attack_votes) == 2]
        assert all(day.after_whisper for day in both)
        assert sum(len(day.after_whisper) for day in days.values()) >= 2 * len(both)
    start = days["0"].agents
    assert {int(i): a["originalName"] for i, a in start.items() if int(i) in seats} == {
        int(seat): name for seat, name in agents.items()
    }


def test_same_seed_and_answers_make_the_same_game(tmp_path: Path) -> None:
    first = host_game([2, 4, 6, 9], 8, tmp_path / "a.jsonl")[1]
    second = host_game([2, 4, 6, 9], 8, tmp_path / "b.jsonl")[1]

    def dump(sink: ListSink) -> str:
        return json.dumps(sink.payloads(), ensure_ascii=False, sort_keys=True)

    assert dump(first) == dump(second)


def test_an_agent_that_leaves_is_played_by_its_persona(tmp_path: Path) -> None:
    path = tmp_path / "left.jsonl"
    _, sink, outcome = host_game([2, 3, 4], 9, path, quit_after={1: 1})
    assert outcome.finished
    fallbacks = [e for e in sink.events if isinstance(e, FallbackEvent)]
    gone = [e for e in fallbacks if "team1" in e.reason and "did not answer" in e.reason]
    assert gone, [e.reason for e in fallbacks]
    assert replay_file(path).ok


def test_host_refuses_bad_seats() -> None:
    for seats in ([1, 2], [2, 2], [], [10]):
        with pytest.raises(HostError, match="P2〜P9"):
            AIWolfHost(seats, seed=1, rules=TalkRules(per_agent=2))


def test_the_server_s_truncation_rules() -> None:
    names = ["プレイヤー", "トウダ", "ヒミヤ"]
    assert truncated("あ" * 80, names, "トウダ") == "あ" * 50
    cut = truncated("い" * 60 + "@ヒミヤ" + "う" * 70, names, "トウダ")
    assert cut == "い" * 50 + " @ヒミヤ " + "う" * 50
    # one's own name is no mention
    assert (
        truncated("え" * 30 + "@トウダ" + "お" * 40, names, "トウダ")
        == ("え" * 30 + "@トウダ" + "お" * 40)[:50]
    )
    assert truncated("   ", names, "トウダ") == OVER


def test_an_answer_must_be_an_exact_name_among_the_choices() -> None:
    names = {1: "プレイヤー", 2: "トウダ", 3: "ヒミヤ"}
    assert seat_named("トウダ\n", names, [2, 3]) == 2
    with pytest.raises(AnswerError, match="選べるのは トウダ、ヒミヤ"):
        seat_named("Agent[01]", names, [2, 3])
    with pytest.raises(AnswerError):
        seat_named("プレイヤー", names, [2, 3])  # a name, but not a choice


def test_claims_are_rendered_as_talk_lines() -> None:
    names = ["", "プレイヤー", "トウダ"]
    claim = ClaimMade(
        day=1, speaker=1, role=OurRole.SEER, target=2, colour=Colour.BLACK, text="信じて, ください"
    )
    assert talk_text(claim, names) == "【占い師CO トウダは黒（WEREWOLF）】信じて、 ください"


def test_tokens_are_checked_as_the_server_checks_them() -> None:
    token = player_token("s3cret", "kanolab")
    assert is_player_token("s3cret", token, "kanolab")
    assert not is_player_token("other", token, "kanolab")  # another key
    assert not is_player_token("s3cret", token, "intruder")  # another team
    assert not is_player_token("s3cret", player_token("s3cret", "kanolab", expires=100), "kanolab", now=100)
    assert is_player_token("s3cret", player_token("s3cret", "kanolab", expires=100), "kanolab", now=99)
    for garbage in ("", "a.b", "a.b.c", "!!.??.**", token + "x"):
        assert not is_player_token("s3cret", garbage, "kanolab")
    assert token_of("/ws?token=abc", None) == "abc"
    assert token_of("/ws", "Bearer xyz") == "xyz"
    assert token_of("/ws", None) is None


def test_a_host_with_a_secret_seats_only_agents_with_a_token(tmp_path: Path) -> None:
    host = AIWolfHost([3], seed=2, rules=TalkRules(per_agent=2), port=0, secret="s3cret")
    port = host.start()
    member: threading.Thread | None = None
    try:
        url = f"ws://127.0.0.1:{port}/ws"
        intruder = Client(url, None)  # no token: told to go after NAME
        intruder.connect()
        assert intruder.receive().request is Request.NAME
        intruder.send("kanolab1")
        with pytest.raises((WebSocketException, ValueError)):  # closed: no packet comes
            intruder.receive()
        intruder.close()
        wrong = Client(url, player_token("s3cret", "other"))
        wrong.connect()
        assert wrong.receive().request is Request.NAME
        wrong.send("kanolab1")
        with pytest.raises((WebSocketException, ValueError)):
            wrong.receive()
        wrong.close()
        got: list[Packet] = []
        member = threading.Thread(
            target=play_agent, args=(f"{url}?token={player_token('s3cret', 'kanolab')}", "kanolab1", got)
        )
        member.start()
        sources = host.wait_for_agents(30)
        assert host.agent_names == {3: "kanolab1"} and list(sources) == [3]
    finally:
        host.close()
        if member is not None:
            member.join(30)


def test_the_host_command_plays_and_records_a_game(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port free a moment ago (the command binds it itself)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    record = tmp_path / "cli.jsonl"
    status: list[int] = []
    command = threading.Thread(
        target=lambda: status.append(
            main(
                [
                    "aiwolf",
                    "host",
                    "--auto",
                    "--plain",
                    "--port",
                    str(port),
                    "--seats",
                    "2,7",
                    "--seed",
                    "6",
                    "--record",
                    str(record),
                    "--wait",
                    "60",
                ]
            )
        )
    )
    command.start()
    agents = []
    for index in range(2):
        got: list[Packet] = []
        for _ in range(100):  # until the command listens
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        agent = threading.Thread(target=play_agent, args=(f"ws://127.0.0.1:{port}/ws", f"cli{index}", got))
        agent.start()
        agents.append((agent, got))
    command.join(120)
    for agent, got in agents:
        agent.join(30)
        assert got[-1].request is Request.FINISH
    assert status == [0]
    assert replay_file(record).ok
    assert sorted(read_transcript(record).header.options["seat_agents"].values()) == ["cli0", "cli1"]


def test_the_host_command_refuses_bad_seats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["aiwolf", "host", "--seats", "1,2"])
    assert "--seats" in capsys.readouterr().err


def test_auth_needs_its_key(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    assert main(["aiwolf", "host", "--auth", "--port", "0"]) == 2
    assert "SECRET_KEY" in capsys.readouterr().err
