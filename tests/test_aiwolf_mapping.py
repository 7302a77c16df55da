"""How the AIWolf protocol maps onto our game (docs/aiwolf.md), seat by seat, without
sockets: scripted agents behind an in-memory link play through the real session."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from gm_engine.aiwolf.export import game_log_lines
from gm_engine.aiwolf.persona_wolf import HEARD_HEADER, PersonaWolf
from gm_engine.aiwolf.protocol import SeatChannel, TalkRules, answer_text, seat_named, truncated
from gm_engine.aiwolf.roster import Roster
from gm_engine.aiwolf.seat import AIWolfSeat
from gm_engine.aiwolf.whisper import WHISPER_PREFIX, WhisperChannel, whispers_in
from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import MalformedAnswerError, ModelRequest
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import ListSink, SessionError, SessionIO, SessionSpec
from gm_engine.sessions.personas import Notes, load_personas
from gm_engine.sessions.werewolf.session import WerewolfSession, session_options
from gm_engine.sessions.werewolf_offline import AutoHuman, PersonaTurnContext
from gm_engine.werewolf import Divine, Game, Speak, Stage, Vote, WerewolfOptions
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import (
    ActionTaken,
    ClaimMade,
    ClaimRequested,
    Declined,
    ResultStated,
    Speech,
    VoteTally,
)
from gm_engine.werewolf.records import Colour, Role
from gm_engine.werewolf.views import observe

#: P1 村人, P2 村人, P3 占い師, P4 P5 人狼, P6 村人, P7 狩人, P8 霊媒師, P9 狂人.
DEAL = (2, 2, 3, 1, 1, 2, 4, 5, 6)

Answer = Callable[[dict[str, Any]], str | None]


class ScriptLink:
    """An agent in memory: every packet kept, answers from a function of the packet."""

    def __init__(self, name: str, answer: Answer) -> None:
        self.name = name
        self.answer = answer
        self.packets: list[dict[str, Any]] = []
        self.connection_number = 1

    async def notify(self, packet: dict[str, Any]) -> None:
        self.packets.append(packet)

    async def ask(self, packet: dict[str, Any]) -> str | None:
        self.packets.append(packet)
        return self.answer(packet)


def first_other(packet: dict[str, Any]) -> str:
    info = packet["info"]
    return str(next(n for n, s in info["status_map"].items() if s == "ALIVE" and n != info["agent"]))


def quiet(packet: dict[str, Any]) -> str | None:
    return "Over" if packet["request"] == "TALK" else first_other(packet)


def play(
    answers: dict[int, Answer],
    agents: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9),
    answer_takes_turn: bool = False,
) -> tuple[WerewolfSession, dict[int, ScriptLink], ListSink]:
    links = {seat: ScriptLink(f"agent{seat}", answers.get(seat, quiet)) for seat in agents}
    rules = TalkRules(per_agent=2, answer_takes_turn=answer_takes_turn)
    whispers = WhisperChannel(agents, rounds=2)
    seats: dict[int, Any] = {
        seat: AIWolfSeat(seat, link, rules, seed=3, whispers=whispers) for seat, link in links.items()
    }
    agent_seats = dict(seats)
    sink = ListSink()
    io = SessionIO(
        backend=OfflineBackend(),
        human=AutoHuman(OfflineAgent(1, SeededSource("3/human"))),
        sink=sink,
        show=lambda line: None,
    )
    options: dict[str, Any] = {"deal": list(DEAL), "narrator": False}
    # said either way: the two sides' rules must agree whatever the game's default
    options["rules"] = {"answer_takes_turn": answer_takes_turn}
    spec = SessionSpec(kind="werewolf", seed=3, options=options)
    for seat in range(2, 10):
        if seat not in agent_seats:
            seats[seat] = PersonaWolf(seat, io.backend, whispers, rules, seed=3)
    session = WerewolfSession(spec, session_options(spec), io, seat_backends=seats)
    roster = Roster(agent_seats, session.game, whispers)
    for seat_source in agent_seats.values():
        seat_source.roster = roster
    asyncio.run(session.run())
    return session, links, sink


def test_the_pre_divination_is_the_day_0_divine_and_its_result_comes_on_day_1() -> None:
    _, links, _ = play({})
    seer = links[3].packets
    kinds = [p["request"] for p in seer]
    # as the server: day 0's day section (no greetings at our table), then its night: the divination
    assert kinds[:4] == ["INITIALIZE", "DAILY_INITIALIZE", "DAILY_FINISH", "DIVINE"]
    assert [p["info"]["day"] for p in seer[:4]] == [0, 0, 0, 0]
    assert seer[0]["info"]["role_map"] == {"ヒミヤ": "SEER"}
    seer = seer[2:]
    morning = seer[2]
    assert morning["request"] == "DAILY_INITIALIZE" and morning["info"]["day"] == 1
    judge = morning["info"]["divine_result"]
    target = first_other(seer[1])  # what the scripted seer answered
    colour = "WEREWOLF" if target in ("アオト", "ミスノ") else "HUMAN"
    assert judge == {"day": 0, "agent": "ヒミヤ", "target": target, "result": colour}
    # nobody else hears of it, and only the 人狼 see each other
    for seat, link in links.items():
        for packet in link.packets[:-1]:  # FINISH tells everything
            info = packet.get("info") or {}
            if seat != 3:
                assert info.get("divine_result") is None
            if seat in (4, 5):
                assert info["role_map"] == {"アオト": "WEREWOLF", "ミスノ": "WEREWOLF"}
            elif seat != 3:
                assert len(info["role_map"]) == 1


def test_claims_are_read_from_an_agent_s_words_and_co_requests_reach_others_as_talk() -> None:
    def seer(packet: dict[str, Any]) -> str | None:
        if packet["request"] == "TALK":
            judge = packet["info"]["divine_result"]
            colour = "黒" if judge["result"] == "WEREWOLF" else "白"
            return f"私が占い師です。{judge['target']}は{colour}でした。"
        return first_other(packet)

    def asker(packet: dict[str, Any]) -> str | None:
        if packet["request"] == "TALK":
            return "占い師は名乗り出てください" if packet["info"]["day"] == 1 else "Over"
        return first_other(packet)

    session, links, _ = play({3: seer, 2: asker})
    log = session.game.public_log
    requested = [e for e in log if isinstance(e, ClaimRequested) and e.speaker == 2]
    assert requested and requested[0].role is Role.SEER
    claims = [e for e in log if isinstance(e, ClaimMade) and e.speaker == 3]
    assert claims and claims[0].role is Role.SEER and claims[0].target is not None
    truth = Colour.BLACK if DEAL[claims[0].target - 1] == 1 else Colour.WHITE
    assert claims[0].colour is truth
    heard = [t["text"] for p in links[6].packets for t in (p.get("talk_history") or [])]
    assert any(t.startswith("【CO要求: 占い師は名乗り出てください】") for t in heard)
    assert any(t.startswith("【占い師CO ") for t in heard)


def test_a_silent_agent_is_played_by_its_persona_and_the_game_goes_on() -> None:
    session, _, sink = play({7: lambda packet: None})
    assert session.game.is_over
    reasons = [e.payload()["reason"] for e in sink.events if e.type == "fallback"]
    assert any("agent7 did not answer" in r for r in reasons)


def runoff_game() -> Game:
    game = Game.from_deal(list(DEAL))
    while game.stage is not Stage.RUNOFF:
        seats = game.to_act()
        if not seats:
            game.advance()
            continue
        for seat in seats:
            legal = game.legal_actions(seat)
            if game.stage is Stage.PRE_DIVINATION:
                game.apply(next(a for a in legal if isinstance(a, Divine)))
            elif game.stage is Stage.DISCUSSION:
                game.apply(Speak(seat, ""))
            else:  # 4 votes for P5, 4 for P6, one for P1: a tie
                target = 5 if seat in (1, 2, 3, 4) else 6 if seat in (5, 7, 8, 9) else 1
                game.apply(Vote(seat, target, "理由"))
    return game


def test_a_runoff_is_a_second_vote_among_the_tied() -> None:
    game = runoff_game()
    tally = next(e for e in game.public_log if isinstance(e, VoteTally))
    assert tally.outcome == "runoff"
    persona = next(p for p in load_personas() if p.seat == 3)

    def ask(answer: str) -> Any:
        link = ScriptLink("agent3", lambda packet: answer)
        seat = AIWolfSeat(3, link, TalkRules(per_agent=2), seed=1)
        context = PersonaTurnContext(
            seat=3,
            persona=persona,
            notes=Notes(),
            observation=observe(game, 3),
            legal=tuple(game.legal_actions(3)),
            task="vote",
            turn=7,
            agent=OfflineAgent(3, SeededSource("x")),
        )
        request = ModelRequest(actor="P3", messages=(), phase="runoff", day=1, turn=7)
        return link, asyncio.run(seat.complete(request, context))

    link, response = ask("ミスノ")
    vote = link.packets[-1]
    assert vote["request"] == "VOTE"
    # the first round's votes tell the agent who is tied
    assert len(vote["info"]["vote_list"]) == 9
    assert response.tool_calls[0].name == "vote" and '"P5"' in response.tool_calls[0].arguments
    with pytest.raises(MalformedAnswerError, match="選べるのは ミスノ、キウミ"):
        ask("プレイヤー")  # voted for in the first round, but not tied


def test_agent_wolves_whisper_to_each_other_and_to_nobody_else() -> None:
    def wolf(packet: dict[str, Any]) -> str | None:
        if packet["request"] == "WHISPER":
            return (
                f"{packet['info']['agent']}です、今夜はトウダを狙おう"
                if packet["info"]["remain_count"] == 1
                else "Over"
            )
        return quiet(packet)

    session, links, sink = play({4: wolf, 5: wolf})
    nights = [
        e.day for e in session.game.private_logs[4] if isinstance(e, ActionTaken) and e.ability == "attack"
    ]
    assert nights  # the 人狼 attacked at least once
    asked = [p for p in links[4].packets if p["request"] == "WHISPER"]
    assert asked and all(p["info"]["role_map"] == {"アオト": "WEREWOLF", "ミスノ": "WEREWOLF"} for p in asked)
    # P5 whispers after P4 and hears P4's line first; commas become 、
    heard = [w["text"] for p in links[5].packets for w in (p.get("whisper_history") or [])]
    assert "アオトです、今夜はトウダを狙おう" in heard
    for seat, link in links.items():
        if seat not in (4, 5):
            assert all(p["request"] != "WHISPER" and not p.get("whisper_history") for p in link.packets)
    carried = [
        e.payload()["content"]
        for e in sink.events
        if e.type == "model_response" and e.payload()["actor"] == "P4"
    ]
    lines = [w for c in carried for w in whispers_in(c)]
    assert [w["agent"] for w in lines[:2]] == ["アオト", "ミスノ"]
    assert not any(
        (e.payload().get("content") or "").startswith(WHISPER_PREFIX)
        for e in sink.events
        if e.type == "model_response" and e.payload()["actor"] == "P5"
    )


class HearingBackend(OfflineBackend):
    """The offline model, keeping every request it is asked."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest, context: object | None = None) -> Any:
        self.requests.append(request)
        return await super().complete(request, context)


def test_a_persona_wolf_whispers_with_its_agent_partner() -> None:
    def wolf(packet: dict[str, Any]) -> str | None:
        if packet["request"] == "WHISPER":
            return "今夜はトウダを狙おう" if packet["info"]["remain_count"] == 1 else "Over"
        return quiet(packet)

    backend = HearingBackend()
    links = {seat: ScriptLink(f"agent{seat}", wolf if seat == 4 else quiet) for seat in (2, 3, 4, 6)}
    rules = TalkRules(per_agent=2)
    whispers = WhisperChannel(list(links), rounds=2)
    seats: dict[int, Any] = {
        s: AIWolfSeat(s, link, rules, seed=3, whispers=whispers) for s, link in links.items()
    }
    for seat in (5, 7, 8, 9):  # P5, the other 人狼, is a persona
        seats[seat] = PersonaWolf(seat, backend, whispers, rules, seed=3)
    sink = ListSink()
    io = SessionIO(
        backend=backend,
        human=AutoHuman(OfflineAgent(1, SeededSource("3/human"))),
        sink=sink,
        show=lambda line: None,
    )
    spec = SessionSpec(kind="werewolf", seed=3, options={"deal": list(DEAL), "narrator": False})
    session = WerewolfSession(spec, session_options(spec), io, seat_backends=seats)
    asyncio.run(session.run())
    names = observe(session.game, 1).names
    attacks = [
        e for e in session.game.private_logs[5] if isinstance(e, ActionTaken) and e.ability == "attack"
    ]
    assert attacks
    # the agent hears the persona's choice, as a whisper
    heard = [w for p in links[4].packets for w in (p.get("whisper_history") or [])]
    chosen = {f"今夜は{names[a.target]}を襲撃したい" for a in attacks}
    assert {w["text"] for w in heard if w["agent"] == names[5]} & chosen
    # the persona's night prompt holds the agent's whispers, and no other prompt does
    told = [
        (r.actor, m["content"])
        for r in backend.requests
        for m in r.messages
        if isinstance(m.get("content"), str) and m["content"].startswith(HEARD_HEADER)
    ]
    assert told and all(actor == "P5" and "アオト: 今夜はトウダを狙おう" in text for actor, text in told)
    for seat, link in links.items():
        if seat != 4:
            assert all(p["request"] != "WHISPER" and not p.get("whisper_history") for p in link.packets)
    carried = [
        w
        for e in sink.events
        if e.type == "model_response" and e.payload()["actor"] == "P4"
        for w in whispers_in(e.payload()["content"])
    ]
    assert {w["agent"] for w in carried} == {names[4], names[5]}  # the transcript holds both


def test_seat_agents_must_be_seats_2_to_9() -> None:
    bad = SessionSpec(kind="werewolf", seed=1, options={"seat_agents": {1: "x"}})
    with pytest.raises(SessionError, match="seat_agents"):
        session_options(bad)
    good = SessionSpec(kind="werewolf", seed=1, options={"seat_agents": {"3": "kanolab1"}})
    assert session_options(good).seat_agents == {3: "kanolab1"}


def attack_votes_told(link: ScriptLink) -> set[tuple[int, str, str]]:
    return {
        (v["day"], v["agent"], v["target"])
        for p in link.packets
        if "info" in p
        for v in p["info"]["attack_vote_list"] or []
    }


def test_attack_votes_go_to_the_wolves_only() -> None:
    session, links, _ = play({})
    names = observe(session.game, 1).names
    for seat, link in links.items():
        if seat not in (4, 5):
            lists = [p["info"]["attack_vote_list"] for p in link.packets if "info" in p]
            assert lists and all(votes is None for votes in lists), seat
    chosen = {
        (e.day, names[seat], names[e.target])
        for seat in (4, 5)
        for e in session.game.private_logs[seat]
        if isinstance(e, ActionTaken) and e.ability == "attack"
    }
    # each vote told is one a 人狼 cast, and each 人狼 hears its own the next day it is asked
    for seat in (4, 5):
        heard = attack_votes_told(links[seat])
        assert heard <= chosen
        days = {p["info"]["day"] for p in links[seat].packets if "info" in p}
        due = {v for v in chosen if v[1] == names[seat] and v[0] + 1 in days}
        assert due and due <= heard, seat


def test_every_agent_dead_or_alive_gets_each_day_s_daily_initialize() -> None:
    session, links, _ = play({})
    last = session.game.phase.day
    dead_seen = False
    for seat, link in links.items():
        requests = [p["request"] for p in link.packets]
        assert requests.count("INITIALIZE") == 1 and requests[0] == "INITIALIZE", seat
        days = [p["info"]["day"] for p in link.packets if p["request"] == "DAILY_INITIALIZE"]
        assert days == list(range(0, last + 1)), seat  # once a day, every day, in order
        dead = [
            p["info"]["day"]
            for p in link.packets
            if p["request"] == "DAILY_INITIALIZE" and p["info"]["status_map"][p["info"]["agent"]] == "DEAD"
        ]
        dead_seen = dead_seen or bool(dead)
    assert dead_seen  # some agent was told of a day it did not live to play


@pytest.mark.parametrize("answer_takes_turn", [False, True])
def test_remain_count_is_what_is_left_after_this_request(answer_takes_turn: bool) -> None:
    """As the server counts: a discussion turn spends one of the day's two before it is
    asked; an answer to a CO要求 spends none, unless answers take turns (then it spends the
    answering seat's next turn, but the caller's own answer does not)."""

    def talker(packet: dict[str, Any]) -> str | None:
        return "様子を見ます" if packet["request"] == "TALK" else first_other(packet)

    def asker(packet: dict[str, Any]) -> str | None:
        if packet["request"] == "TALK" and packet["info"]["day"] == 1:
            return "占い師は名乗り出てください"
        return talker(packet)

    answers: dict[int, Answer] = {seat: talker for seat in range(2, 10)}
    answers[2] = asker
    session, links, sink = play(answers, answer_takes_turn=answer_takes_turn)
    assert any(isinstance(e, ClaimRequested) and e.speaker == 2 for e in session.game.public_log)
    answered_unchanged = 0
    for seat, link in links.items():
        talks = [p["info"] for p in link.packets if p["request"] == "TALK"]
        turns: list[tuple[int, str, int]] = []
        for event in sink.events:
            if event.type != "model_request":
                continue
            payload = event.payload()
            key = (int(payload["day"]), str(payload["phase"]), int(payload["turn"]))
            talking = payload["actor"] == f"P{seat}" and key[1] in ("discussion", "answer")
            if talking and (not turns or turns[-1] != key):  # a retry asks the same turn again
                turns.append(key)
        assert len(turns) == len(talks), seat  # every talk turn of the seat was one TALK packet
        used: dict[int, int] = {}
        for (day, phase, _), info in zip(turns, talks, strict=True):
            assert info["day"] == day
            caller_answers = phase == "answer" and seat == 2
            if phase == "discussion" or (answer_takes_turn and not caller_answers):
                used[day] = used.get(day, 0) + 1
            elif info["remain_count"] == 2 - used.get(day, 0):
                answered_unchanged += 1
            assert info["remain_count"] == max(2 - used.get(day, 0), 0), (seat, day, phase)
        assert any(info["remain_count"] == 0 for info in talks), seat
    if not answer_takes_turn:
        assert answered_unchanged > 0  # some answer came with the count it found


def test_agent_wolves_whisper_on_day_0_before_the_first_day() -> None:
    def wolf(packet: dict[str, Any]) -> str | None:
        if packet["request"] == "WHISPER":
            day = packet["info"]["day"]
            return f"{day}日目の囁き" if packet["info"]["remain_count"] == 1 else "Over"
        return quiet(packet)

    session, links, sink = play({4: wolf, 5: wolf})
    for seat in (4, 5):
        requests = [(p["request"], p["info"]["day"]) for p in links[seat].packets if "info" in p]
        assert requests[0] == ("INITIALIZE", 0)
        first_day = requests.index(("DAILY_INITIALIZE", 1))
        assert ("WHISPER", 0) in requests[:first_day]  # day 0's whispers come before day 1
    heard = [w for p in links[5].packets for w in (p.get("whisper_history") or [])]
    assert {"day": 0, "agent": "アオト", "text": "0日目の囁き"}.items() <= heard[0].items()
    carried = [
        w
        for e in sink.events
        if e.type == "model_response" and e.payload()["actor"] == "P4"
        for w in whispers_in(e.payload()["content"])
    ]
    assert [w["day"] for w in carried[:2]] == [0, 0]  # the transcript holds day 0's too
    names = observe(session.game, 1).names
    lines = game_log_lines(session.game, {}, 0, carried)
    zero = [line for line in lines if line.startswith("0,whisper,")]
    assert zero and zero[0].split(",")[4] == "4" and "0日目の囁き" in zero[0]
    assert lines.index(zero[0]) < next(i for i, line in enumerate(lines) if line.startswith("1,status"))
    assert names[4] == "アオト"


def test_daily_finish_goes_to_every_agent_at_the_end_of_each_day_s_talk() -> None:
    """As the server's progressNight: DAILY_FINISH to everyone, the dead included, once a day
    (day 0 too), after the day's talk and before its vote, with the talk the agent has not
    been sent; a 人狼 also gets its whisper history (a list, empty or not), nobody else."""

    def wolf(packet: dict[str, Any]) -> str | None:
        if packet["request"] == "WHISPER":
            return "今夜どうする" if packet["info"]["remain_count"] == 1 else "Over"
        return talkative(packet)

    def talkative(packet: dict[str, Any]) -> str | None:
        return f"{packet['info']['agent']}です" if packet["request"] == "TALK" else first_other(packet)

    answers: dict[int, Answer] = {seat: talkative for seat in range(2, 10)}
    answers[4] = answers[5] = wolf
    session, links, _ = play(answers)
    last = session.game.phase.day
    talk_by_day: dict[int, int] = {}
    for entry in session.game.public_log:
        if isinstance(entry, Speech | ClaimMade | ClaimRequested | Declined | ResultStated):
            talk_by_day[entry.day] = talk_by_day.get(entry.day, 0) + 1
    dead_told = False
    for seat, link in links.items():
        packets = link.packets
        finishes = [p for p in packets if p["request"] == "DAILY_FINISH"]
        # every day whose talk ended got its DAILY_FINISH before its vote (the server's night
        # section opens with it, the execution comes after); a game that ended at night ended there
        ended_by_vote = any(p["request"] == "VOTE" and p["info"]["day"] == last for p in packets)
        expected = list(range(0, last + 1)) if ended_by_vote else list(range(0, last))
        assert [p["info"]["day"] for p in finishes][: len(expected)] == expected, seat
        for finish in finishes:
            day = finish["info"]["day"]
            at = packets.index(finish)
            later_talk = [p for p in packets[at:] if p["request"] == "TALK" and p["info"]["day"] == day]
            earlier_vote = [p for p in packets[:at] if p["request"] == "VOTE" and p["info"]["day"] == day]
            assert not later_talk and not earlier_vote, (seat, day)
            if seat in (4, 5):
                assert isinstance(finish["whisper_history"], list)
            else:
                assert "whisper_history" not in finish
            if finish["info"]["status_map"][finish["info"]["agent"]] == "DEAD":
                dead_told = True
        # by each day's DAILY_FINISH the agent has been told all of that day's talk, once
        for finish in finishes:
            day = finish["info"]["day"]
            upto = packets[: packets.index(finish) + 1]
            told = [t for p in upto for t in (p.get("talk_history") or []) if t["day"] == day]
            assert len(told) == talk_by_day.get(day, 0) == len({t["idx"] for t in told}), (seat, day)
    assert dead_told  # a dead agent still hears how each day ended
    wolf_heard = [w for p in links[4].packets if p["request"] == "DAILY_FINISH" for w in p["whisper_history"]]
    assert wolf_heard  # the whispers it had not been sent (day 0's, the morning's) came with it


def test_a_skip_with_none_left_is_over_and_the_skips_start_again_each_day() -> None:
    """As the server's conductCommunication: each Skip spends one of ``remain_skip`` (the
    day's; any other words give them back), a Skip with none left is Over, which ends the
    agent's day; the next day has its skips again."""
    channel = SeatChannel(seat=2, rules=TalkRules(per_agent=2), seed=1)
    game = Game.from_deal(DEAL, WerewolfOptions(), "プレイヤー", source=SeededSource("skips"))
    obs = observe(game, 2)
    day1, day2 = obs._replace(day=1), obs._replace(day=2)
    assert channel.info(day1, talking=True)["remain_skip"] == 2
    assert channel.talked(1, "Skip") == "Skip"
    assert channel.info(day1, talking=True)["remain_skip"] == 1
    assert channel.talked(1, "よろしく") == "よろしく"  # words give the skips back
    assert channel.info(day1, talking=True)["remain_skip"] == 2
    assert [channel.talked(1, "Skip") for _ in range(3)] == ["Skip", "Skip", "Over"]
    assert channel.over_day == 1 and channel.info(day1, talking=True)["remain_skip"] == 0
    assert channel.info(day2, talking=True)["remain_skip"] == 2  # a new day
    assert channel.talked(2, "Skip") == "Skip" and channel.over_day == 1


def test_white_space_does_not_count_against_the_length_and_newlines_are_removed() -> None:
    """As the server with count_spaces false (what our setting says): 50 characters that
    are not white space; an answer's newlines are removed before it is read."""
    names = ["プレイヤー", "トウダ", "ヒミヤ"]
    spaced = "あ い " * 40
    cut = truncated(spaced, names, "トウダ")
    assert len(cut.replace(" ", "")) == 50 and cut == spaced[: len(cut)] and cut.endswith("い")
    mentioned = truncated("う " * 60 + "@ヒミヤ" + "え " * 60, names, "トウダ")
    before, after = mentioned.split(" @ヒミヤ ")
    assert len(before.replace(" ", "")) == 50 and len(after.replace(" ", "")) == 50
    assert truncated("短い 発言", names, "トウダ") == "短い 発言"
    assert answer_text("トウ\nダ\n") == "トウダ"
    assert seat_named("トウ\nダ\n", {2: "トウダ", 3: "ヒミヤ"}, [2, 3]) == 2
