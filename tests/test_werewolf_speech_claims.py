"""A persona's speech read as what it says (issue 11), and the fallback that never claims
unless the rules force it.

The rule document: 「参加者が自分の役職を公に宣言した場合、COとして扱う」 and 「COは参加者本人が行う。
GMが参加者の代わりにCOしてはならない」. A model that declares a role in a ``speak`` call has
claimed, under the club rules of the structured ``claim``; the engine, playing a turn the model
did not take, makes a claim only where the rules leave no other choice.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.events import ListSink
from gm_engine.llm.base import BackendDefaults, ModelRequest, ModelResponse
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf.session import (
    FALLBACK_SPEECH,
    WerewolfSession,
    session_options,
    unforced_claim_withheld,
)
from gm_engine.sessions.werewolf_offline import AutoHuman
from gm_engine.tools.base import response_with_calls
from gm_engine.werewolf import (
    Action,
    Claim,
    Colour,
    Decline,
    Divine,
    Game,
    RequestClaim,
    Role,
    Speak,
    StateResult,
    Vote,
)
from gm_engine.werewolf.agents import OfflineAgent
from gm_engine.werewolf.log import ClaimMade, ClaimRequested, ResultStated, Speech
from gm_engine.werewolf.phrases import Passing, Table, read_line
from gm_engine.werewolf.phrases import Speech as SpeechMeaning

# P1 村人, P2 占い師, P3 P4 人狼, P5 P6 村人, P7 狩人, P8 霊媒師, P9 狂人
DEAL = [2, 3, 1, 1, 2, 2, 4, 5, 6]


def speak(text: str) -> ModelResponse:
    return response_with_calls(("speak", {"text": text}))


def session_at(backend: Any, seat: int, backend_name: str = "scripted") -> tuple[WerewolfSession, ListSink]:
    """A session on DEAL at day 1's discussion, everyone before ``seat`` having passed."""
    sink = ListSink()
    spec = SessionSpec(
        kind="werewolf", seed=5, options={"deal": DEAL, "narrator": False}, backend=backend_name
    )
    io = SessionIO(
        backend=backend, human=AutoHuman(OfflineAgent(1, SeededSource("h"))), sink=sink, show=lambda _: None
    )
    session = WerewolfSession(spec, session_options(spec), io)
    game = session.game
    game.apply(Divine(2, 3))  # 人狼 P3: 黒
    game.advance()
    while game.to_act() != [seat]:
        game.apply(Speak(game.to_act()[0], ""))
    return session, sink


def turn(session: WerewolfSession, seat: int) -> None:
    asyncio.run(session._discussion_turn(seat))


def refusals(sink: ListSink) -> list[str]:
    return [str(p["result"]) for kind, p in sink.payloads() if kind == "tool_result" and not p["ok"]]


# ---------------------------------------------------------------- speech read as claims


def test_a_seer_declaring_its_role_in_a_speech_has_claimed_with_its_result() -> None:
    backend = ScriptedBackend([("P2", speak("実は私が占い師です。ヒミヤさんは黒でした。"))])
    session, _ = session_at(backend, 2)
    turn(session, 2)
    backend.assert_done()
    last = session.game.public_log[-1]
    assert last == ClaimMade(1, 2, Role.SEER, 3, Colour.BLACK, "実は私が占い師です。ヒミヤさんは黒でした。")
    assert session.game.claims == {2: Role.SEER}


def test_a_villager_claiming_in_words_is_refused_by_the_club_rule_and_asked_again() -> None:
    """A 村人 may not claim: the speech is refused as the claim it is (the model gets the rule
    as a retry), nothing changed, and its next speech stands."""
    backend = ScriptedBackend([("P5", speak("僕が占い師です！")), ("P5", speak("まだ様子を見たいな。"))])
    session, sink = session_at(backend, 5)
    before = session.game.state_hash()
    log_length = len(session.game.public_log)
    turn(session, 5)
    backend.assert_done()
    errors = refusals(sink)
    assert len(errors) == 1
    assert "占い師CO" in errors[0] and "村人が占い師などを騙る→禁止" in errors[0]
    # the refused speech left no trace; the second one is plain speech
    assert session.game.claims == {}
    assert session.game.public_log[log_length:] == [Speech(1, 5, "まだ様子を見たいな。")]
    assert before != session.game.state_hash()
    # the retry request carried the refusal to the model
    retry = backend.requests[1]
    assert any("村人が占い師などを騙る→禁止" in str(m.get("content")) for m in retry.messages)


def test_a_request_in_words_is_the_co_request() -> None:
    backend = ScriptedBackend([("P5", speak("占い師さん、そろそろ名乗り出てください！"))])
    session, _ = session_at(backend, 5)
    turn(session, 5)
    assert isinstance(session.game.public_log[-1], ClaimRequested)
    assert session.game.awaiting_claim is Role.SEER


def test_a_claim_in_words_without_the_due_result_is_refused() -> None:
    """The real 占い師 must state its 事前占い when it comes out, in words as in the tool."""
    backend = ScriptedBackend([("P2", speak("私が占い師です。")), ("P2", speak("今日はよろしく。"))])
    session, sink = session_at(backend, 2)
    turn(session, 2)
    assert "coming out states its result" in refusals(sink)[0]
    assert session.game.claims == {}


@pytest.mark.parametrize(
    "text",
    [
        "占い師が本物か怪しい",
        "占い師は名乗り出るべきかな？",  # unsure: a question that may be rhetorical
        "アオトは白だと思う",
        "ヒミヤは黒でした",  # a result from a seat that has not claimed: unsure
    ],
)
def test_unsure_readings_and_mere_mentions_stay_speech(text: str) -> None:
    backend = ScriptedBackend([("P5", speak(text))])
    session, _ = session_at(backend, 5)
    turn(session, 5)
    assert session.game.public_log[-1] == Speech(1, 5, text)
    assert session.game.claims == {} and session.game.awaiting_claim is None


def test_a_speech_claim_through_the_openai_client_and_the_fake_server() -> None:
    """The same over the wire: the villager's spoken claim comes back to the model as an error."""
    said = {"claim": 0, "retry": 0}

    def responder(body: dict[str, Any]) -> FakeReply:
        text = json.dumps(body["messages"], ensure_ascii=False)
        if "村人が占い師などを騙る→禁止" in text:
            said["retry"] += 1
            return FakeReply.tool_calls(("speak", {"text": "じゃあ、様子見で。"}))
        said["claim"] += 1
        return FakeReply.tool_calls(("speak", {"text": "俺、霊媒師だよ。"}))

    async def no_sleep(seconds: float) -> None:
        return None

    with FakeChatServer([], responder=responder) as server:
        backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", sleep=no_sleep)
        session, sink = session_at(backend, 6, "openai")
        turn(session, 6)
    assert said == {"claim": 1, "retry": 1}
    assert "霊媒師CO" in refusals(sink)[0]
    assert session.game.public_log[-1] == Speech(1, 6, "じゃあ、様子見で。")
    assert session.game.claims == {}


def test_a_wolf_may_claim_in_words_over_the_wire() -> None:
    def responder(body: dict[str, Any]) -> FakeReply:
        return FakeReply.tool_calls(("speak", {"text": "僕が占い師です。アオトさんは白でした。"}))

    async def no_sleep(seconds: float) -> None:
        return None

    with FakeChatServer([], responder=responder) as server:
        backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", sleep=no_sleep)
        session, _ = session_at(backend, 3, "openai")
        turn(session, 3)
    entry = session.game.public_log[-1]
    assert isinstance(entry, ClaimMade) and (entry.speaker, entry.role, entry.target) == (3, Role.SEER, 4)


# ---------------------------------------------------------------- the fallback's guard


def test_the_guard_withholds_unforced_claims_and_keeps_forced_ones() -> None:
    speakable: list[Action] = [Speak(4), Claim(4, Role.SEER, 2, Colour.BLACK)]
    assert unforced_claim_withheld(Claim(4, Role.SEER, 2, Colour.BLACK), speakable) == Speak(4)
    requesting: list[Action] = [Speak(4), RequestClaim(4, Role.SEER)]
    assert unforced_claim_withheld(RequestClaim(4, Role.SEER), requesting) == Speak(4)
    answering: list[Action] = [Decline(3), Claim(3, Role.SEER, 2, Colour.WHITE)]
    assert unforced_claim_withheld(Claim(3, Role.SEER, 2, Colour.WHITE), answering) == Decline(3)
    forced: list[Action] = [Claim(2, Role.SEER, 3, Colour.BLACK)]
    assert unforced_claim_withheld(forced[0], forced) == forced[0]
    reasked: list[Action] = [StateResult(8, 2, Colour.BLACK)]
    assert unforced_claim_withheld(reasked[0], reasked) == reasked[0]
    assert unforced_claim_withheld(Vote(4, 2), [Vote(4, 2)]) == Vote(4, 2)
    # the line said instead of words that would read as a claim is itself plain talk
    assert isinstance(read_line(FALLBACK_SPEECH, Table()).meaning, SpeechMeaning)


class NeverActs(BackendDefaults):
    """A model that answers every request with words and never calls a tool."""

    name = "never_acts"

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        return ModelResponse(content="うーん、どうしようかな。")


GAMES = [(seed, role) for seed in range(1, 11) for role in (2, 1)]  # 20 games, P1 村人 or 人狼


def test_no_unforced_claim_in_games_where_the_model_never_acts(monkeypatch: pytest.MonkeyPatch) -> None:
    """20 games in which every persona turn is the fallback's: every claim, stated result or
    CO要求 made in a persona's name was the only legal choice, and no persona's words read as
    one."""
    announced: list[tuple[int, Claim | StateResult | RequestClaim, bool]] = []
    original = Game.apply

    def watched(game: Game, action: Action) -> Any:
        if isinstance(action, Claim | StateResult | RequestClaim) and action.actor != 1:
            legal = game.legal_actions(action.actor)
            forced = not any(isinstance(a, Speak | Decline) for a in legal)
            announced.append((action.actor, action, forced))
        return original(game, action)

    monkeypatch.setattr(Game, "apply", watched)
    fallbacks = 0
    speeches = 0
    for seed, role in GAMES:
        spec = SessionSpec(
            kind="werewolf", seed=seed, options={"role": role, "narrator": False}, backend="never_acts"
        )
        sink = ListSink()
        io = SessionIO(
            backend=NeverActs(), human=AutoHuman(OfflineAgent(1, SeededSource(f"{seed}/h"))),
            sink=sink, show=lambda _: None,
        )
        session = WerewolfSession(spec, session_options(spec), io)
        outcome = asyncio.run(session.run())
        assert "の勝利" in outcome.summary
        fallbacks += session.figures.fallbacks
        table = Table.of(session.game.names)
        for entry in session.game.public_log:
            if isinstance(entry, Speech) and entry.speaker != 1 and entry.text:
                speeches += 1
                meaning = read_line(entry.text, table).meaning
                assert isinstance(meaning, SpeechMeaning | Passing), (seed, entry)
            if isinstance(entry, ClaimMade | ResultStated | ClaimRequested) and entry.speaker != 1:
                assert any(seat == entry.speaker for seat, _, _ in announced)
    assert fallbacks > 500 and speeches > 100  # the fallback played every persona turn
    unforced = [(seat, action) for seat, action, forced in announced if not forced]
    assert unforced == []
    forced_claims = [action for _, action, _ in announced]
    assert forced_claims, "the real holders came out when called, as the rules force"
    assert FALLBACK_SPEECH not in {a.text for a in forced_claims}


def test_a_reasked_persona_is_told_to_state_its_result() -> None:
    """The 霊媒師 that came out on day 1 without a result, asked again on day 2: its prompt
    asks for state_result, the only tool offered, and its answer is recorded."""
    from gm_engine.werewolf import Attack, Guard

    answer = response_with_calls(("state_result", {"target": "P3", "result": "黒"}))
    backend = ScriptedBackend([("P8", answer)])
    session, _ = session_at(backend, 8)
    game = session.game
    game.apply(Claim(8, Role.MEDIUM))
    while game.to_act():
        game.apply(Speak(game.to_act()[0], ""))
    game.advance()
    for seat in game.to_act():
        game.apply(Vote(seat, 3 if seat != 3 else 4, "理由"))
    game.advance()  # tally: 人狼 P3 executed next
    game.advance()
    game.advance()  # night
    game.apply(Divine(2, 5))
    game.apply(Guard(7, 2))
    game.apply(Attack(4, 6))
    game.advance()  # day 2
    while game.to_act() != [5]:
        game.apply(Speak(game.to_act()[0], ""))
    game.apply(RequestClaim(5, Role.MEDIUM))
    while game.to_act() != [8]:
        game.apply(Decline(game.to_act()[0]))
    turn(session, 8)
    backend.assert_done()
    request = backend.requests[0]
    assert [t.name for t in request.tools if t.name != "update_notes"] == ["state_result"]
    assert "state_result で" in str(request.messages[-1]["content"])
    last = game.public_log[-1]
    assert isinstance(last, ResultStated) and (last.speaker, last.target, last.colour) == (8, 3, Colour.BLACK)


def test_the_human_reasked_is_offered_its_results() -> None:
    """P1, a 霊媒師 that came out on day 1 without a result, answers day 2's call: its prompt
    lists the /result it may give (and no /decline), and typing it states the result."""
    from gm_engine.sessions.humans import ScriptedHuman
    from gm_engine.werewolf import Attack, Guard

    prompts: list[str] = []

    class Recording(ScriptedHuman):
        def ask(self, prompt: str, choices: Any = None) -> str:
            prompts.append(prompt)
            return super().ask(prompt, choices)

    # P1 霊媒師, P2 占い師, P3 P4 人狼, P5 P6 P8 村人, P7 狩人, P9 狂人
    spec = SessionSpec(
        kind="werewolf", seed=5, options={"deal": [5, 3, 1, 1, 2, 2, 4, 2, 6], "narrator": False},
        backend="scripted",
    )
    io = SessionIO(backend=ScriptedBackend([]), human=Recording(["/result P3 黒"]), show=lambda _: None)
    session = WerewolfSession(spec, session_options(spec), io)
    game = session.game
    game.apply(Divine(2, 4))
    game.advance()
    game.apply(Claim(1, Role.MEDIUM))
    while game.to_act():
        game.apply(Speak(game.to_act()[0], ""))
    game.advance()
    for seat in game.to_act():
        game.apply(Vote(seat, 3 if seat != 3 else 4, "理由"))
    game.advance()
    game.advance()
    game.advance()
    game.apply(Divine(2, 5))
    game.apply(Guard(7, 2))
    game.apply(Attack(4, 6))
    game.advance()
    while game.to_act() != [5]:
        game.apply(Speak(game.to_act()[0], ""))
    game.apply(RequestClaim(5, Role.MEDIUM))
    while game.to_act() != [1]:
        game.apply(Decline(game.to_act()[0]))
    session._human_discussion()
    assert "/result P3 黒" in prompts[0] and "/decline" not in prompts[0]
    last = game.public_log[-1]
    assert isinstance(last, ResultStated) and (last.speaker, last.target, last.colour) == (1, 3, Colour.BLACK)
