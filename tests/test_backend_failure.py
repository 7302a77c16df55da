"""A failing model server stops a session cleanly, and `resume` finishes it.

A backend failure (the server unreachable, or 5xx after the retry policy gave up) is the
server's problem, not the model's: two failed turns in a row are played by their fallbacks (a
server that fails now and then costs a turn, not the game: tests/test_werewolf_faults.py), a
third stops the session, the transcript is left without its end line, and resuming it with a
working server plays on to the end; what was recorded before the first failure is the
uninterrupted game's start, event for event.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import (
    BackendDefaults,
    BackendError,
    ModelRequest,
    ModelResponse,
    TransientBackendError,
)
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.offline import OfflineBackend
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import measures_time
from gm_engine.transcripts.resume import resume_session
from gm_engine.werewolf.agents import OfflineAgent


def _untimed(outcome: SessionOutcome) -> tuple[str, dict[str, float]]:
    """An outcome without its wall-clock figures (model latency differs from run to run)."""
    return outcome.summary, {k: v for k, v in outcome.figures.items() if not measures_time(k)}


async def no_sleep(seconds: float) -> None:
    return None


def answer(body: dict[str, Any]) -> FakeReply:
    """A model that answers from the tools it was sent (first choice of every enum)."""
    tools = body.get("tools") or []
    if not tools:
        return FakeReply.text("夜が明けました。")
    return FakeReply.tool_calls(*first_choice_calls(tools, text="よろしくね"))


class GoodThenBroken:
    """Answers the first ``good`` chat requests, then only 500s."""

    def __init__(self, good: int) -> None:
        self.good = good
        self.seen = 0
        self.failed = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> FakeReply:
        with self._lock:
            self.seen += 1
            if self.seen > self.good:
                self.failed += 1
                return FakeReply.error(500, "the model server is down")
        return answer(body)


WEREWOLF = SessionSpec(
    kind="werewolf", seed=4, options={"role": 2, "narrator": True}, backend="openai", model="fake"
)


def werewolf_io(server: FakeChatServer) -> SessionIO:
    backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", sleep=no_sleep)
    human = AutoHuman(OfflineAgent(1, SeededSource(f"{WEREWOLF.seed}/human")))
    return SessionIO(backend=backend, human=human, show=lambda line: None)


def events_of(path: Path) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, e.payload) for e in read_transcript(path, require_end=False).events]


@pytest.mark.parametrize("good", [3, 40])
def test_werewolf_stops_on_a_dead_server_and_resumes_to_the_same_end(tmp_path: Path, good: int) -> None:
    # the game as it goes with a server that never fails
    whole = tmp_path / "whole.jsonl"
    with FakeChatServer(responder=answer) as server:
        expected = record_session(WEREWOLF, werewolf_io(server), whole, durable=False)
    assert "の勝利" in expected.summary

    # the same game, with the server failing for good after `good` answers
    cut = tmp_path / "cut.jsonl"
    broken = GoodThenBroken(good)
    with FakeChatServer(responder=broken) as server, pytest.raises(TransientBackendError, match="500"):
        record_session(WEREWOLF, werewolf_io(server), cut, durable=False)
    # every failing call was retried by the policy (4 attempts each), two failed turns were
    # played by their fallbacks, and the third stopped the game
    assert broken.failed >= 12
    transcript = read_transcript(cut, require_end=False)
    assert transcript.end is None
    recorded = events_of(cut)
    assert len([p for k, p in recorded if k == "fallback"]) <= 2
    assert len([k for k, p in recorded if k == "model_response" and "error" not in p]) <= good
    # what was recorded before the failures is the start of the uninterrupted game, event for event
    first_fault = next(i for i, (k, p) in enumerate(recorded) if k == "model_response" and p.get("error"))
    assert recorded[:first_fault] == events_of(whole)[:first_fault]

    with FakeChatServer(responder=answer) as server:
        result = resume_session(cut, werewolf_io(server), durable=False, shadow_human=True)
    assert "の勝利" in result.outcome.summary
    assert result.replayed_events == len(recorded) and result.new_events > 0
    finished = read_transcript(cut)  # complete now, with its end line and the seed revealed
    assert finished.end is not None and finished.end.seed == WEREWOLF.seed
    assert events_of(cut)[: len(recorded)] == recorded


class FailsAfter(BackendDefaults):
    """The offline GM, whose server goes away after ``good`` calls."""

    name = "offline"
    keeps_state = True  # the offline model it wraps does

    def __init__(self, good: int) -> None:
        self.inner = OfflineBackend()
        self.good = good
        self.calls = 0

    async def complete(self, request: ModelRequest, context: object | None = None) -> ModelResponse:
        self.calls += 1
        if self.calls > self.good:
            raise TransientBackendError("connection failed: Connection refused")
        return await self.inner.complete(request, context)


ADVENTURE = SessionSpec(kind="adventure", seed=3, options={})
LINES = ["アリア 駆け出し おまかせ", "慎重に進む"]


def adventure_io(backend: Any) -> SessionIO:
    return SessionIO(backend=backend, human=ScriptedHuman(LINES, when_done="次へ"), show=lambda line: None)


def test_adventure_stops_on_a_dead_server_and_resumes_to_the_same_end(tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    expected = record_session(ADVENTURE, adventure_io(OfflineBackend()), whole, durable=False)
    assert "勝利" in expected.summary

    cut = tmp_path / "cut.jsonl"
    failing = FailsAfter(4)
    with pytest.raises(BackendError, match="Connection refused"):
        record_session(ADVENTURE, adventure_io(failing), cut, durable=False)
    assert failing.calls == 7  # two failed turns went to their fallbacks; the third stopped the session
    assert read_transcript(cut, require_end=False).end is None
    recorded = events_of(cut)
    first_fault = next(i for i, (k, p) in enumerate(recorded) if k == "model_response" and p.get("error"))
    assert recorded[:first_fault] == events_of(whole)[:first_fault]

    result = resume_session(cut, adventure_io(OfflineBackend()), durable=False, shadow_human=True)
    assert result.outcome.summary
    assert read_transcript(cut).end is not None
    assert events_of(cut)[: len(recorded)] == recorded


def test_the_round_is_not_half_applied_over_the_wire(tmp_path: Path) -> None:
    """The server fails in the middle of the first vote (some personas have answered, some
    not): the game stays exactly as the last recorded step left it, at the vote, with none of
    the round's votes applied; resuming still ends the game as it would have ended."""
    from gm_engine.sessions.werewolf import WerewolfSession, session_options

    whole = tmp_path / "whole.jsonl"
    with FakeChatServer(responder=answer) as server:
        expected = record_session(WEREWOLF, werewolf_io(server), whole, durable=False)
    requests = [p for k, p in events_of(whole) if k == "model_request"]
    first_vote = next(i for i, p in enumerate(requests) if p["phase"] == "vote")

    cut = tmp_path / "cut.jsonl"
    broken = GoodThenBroken(first_vote + 3)
    sessions: list[WerewolfSession] = []

    def runner(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
        # the werewolf runner, keeping its session for a look at the game afterwards
        sessions.append(WerewolfSession(spec, session_options(spec), io))
        return asyncio.run(sessions[-1].run())

    with FakeChatServer(responder=broken) as server, pytest.raises(TransientBackendError):
        record_session(WEREWOLF, werewolf_io(server), cut, durable=False, runner=runner)
    session = sessions[0]
    assert session.game.stage.value == "vote"
    recorded = events_of(cut)
    states = [p for k, p in recorded if k == "state"]
    assert session.game.state_hash() == states[-1]["hash"]
    assert not [p for k, p in recorded if k == "model_request" and p["phase"] == "vote"]

    with FakeChatServer(responder=answer) as server:
        result = resume_session(cut, werewolf_io(server), durable=False, shadow_human=True)
    assert _untimed(result.outcome) == _untimed(expected)
    assert events_of(cut) == events_of(whole)
