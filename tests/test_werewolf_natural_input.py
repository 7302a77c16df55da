"""The human's discussion line in words becomes the action it surely means (issue 11):
the one point where the phrase reader reaches today's session (``parse_discussion``)."""

from __future__ import annotations

import asyncio

from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.werewolf import WerewolfSession, parse_discussion, session_options
from gm_engine.werewolf.actions import Claim, Decline, RequestClaim, Speak, StateResult
from gm_engine.werewolf.log import ClaimRequested
from gm_engine.werewolf.phrases import Table
from gm_engine.werewolf.records import Colour, Role


def test_a_sure_reading_is_the_action_and_an_unsure_one_stays_speech() -> None:
    plain = Table()
    request = "占い師は名乗り出ろ"
    assert parse_discussion(request, 1, plain) == RequestClaim(1, Role.SEER, request)
    assert parse_discussion("占い師COします。アオトは白でした", 1, plain) == Claim(
        1, Role.SEER, 4, Colour.WHITE, "占い師COします。アオトは白でした"
    )
    assert parse_discussion("僕は違います", 1, Table(answering=Role.SEER)) == Decline(1, "僕は違います")
    assert parse_discussion("P4黒", 1, Table(claimed=Role.SEER)) == StateResult(1, 4, Colour.BLACK, "P4黒")
    assert parse_discussion("パス", 1, plain) == Speak(1, "")
    # unsure: a result from a seat that never claimed may be an opinion
    assert parse_discussion("P4黒", 1, plain) == Speak(1, "P4黒")
    # without the table (as before) every line in words is speech
    assert parse_discussion("占い師は名乗り出ろ", 1) == Speak(1, "占い師は名乗り出ろ")


def test_a_co_request_typed_in_words_reaches_the_table() -> None:
    """Day 1, P1 (a 村人) types 「占い師さん出てきて」: the engine records P1's CO要求 for the
    占い師, as /request 占い師 would."""
    human = ScriptedHuman(["占い師さん出てきて", "/quit"], when_done="/quit")
    spec = SessionSpec(kind="werewolf", seed=5, options={"role": 2, "narrator": False})
    screen: list[str] = []
    io = SessionIO(backend=OfflineBackend(), human=human, sink=ListSink(), show=screen.append)
    session = WerewolfSession(spec, session_options(spec), io)
    asyncio.run(session.run())
    requests = [e for e in session.game.public_log if isinstance(e, ClaimRequested)]
    assert requests and requests[0].speaker == 1 and requests[0].role is Role.SEER
