"""Bad 200 answers and slow servers, through the real ``openai`` client and the fake server.

A 200 answer that is not a chat completion (no choices, an HTML page, cut-off JSON, another
shape) is a transient fault: retried by the policy, then the turn's fallback plays, and the
game goes on (and replays). A request has a total deadline on top of the per-read timeout:
an answer trickled past it is cut off, and retries never take a call past it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tenacity import RetryCallState

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import (
    BackendError,
    MalformedAnswerError,
    ModelRequest,
    TransientBackendError,
    user_message,
)
from gm_engine.llm.fakeserver import MALFORMED_KINDS, FakeChatServer, FakeReply, MalformedKind
from gm_engine.llm.openai_backend import OpenAIBackend, read_completion
from gm_engine.llm.retry import DEFAULT_REQUEST_DEADLINE_S
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_transcript
from gm_engine.werewolf.agents import OfflineAgent

REQUEST = ModelRequest(actor="P2", messages=(user_message("hello"),))


async def no_sleep(seconds: float) -> None:
    return None


def backend_for(server: FakeChatServer, **kwargs: Any) -> OpenAIBackend:
    kwargs.setdefault("sleep", no_sleep)
    return OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", **kwargs)


def complete(backend: OpenAIBackend) -> Any:
    async def run() -> Any:
        try:
            return await backend.complete(REQUEST)
        finally:
            await backend.aclose()

    return asyncio.run(run())


# ------------------------------------------------ item 4: a bad 200 answer is transient


@pytest.mark.parametrize("kind", MALFORMED_KINDS)
def test_a_malformed_answer_is_retried(kind: MalformedKind) -> None:
    with FakeChatServer([FakeReply.malformed(kind), FakeReply.text("やあ")]) as server:
        backend = backend_for(server)
        response = complete(backend)
        assert len(server.requests) == 2
    assert response.content == "やあ"
    assert backend.retries == 1


@pytest.mark.parametrize("kind", MALFORMED_KINDS)
def test_malformed_answers_past_the_policy_raise_a_transient_error(kind: MalformedKind) -> None:
    with FakeChatServer([FakeReply.malformed(kind)] * 4) as server:
        backend = backend_for(server, max_attempts=4)
        with pytest.raises(MalformedAnswerError) as caught:
            complete(backend)
        assert len(server.requests) == 4 and server.leftovers == 0
    assert isinstance(caught.value, TransientBackendError)
    assert "server" in str(caught.value)


def test_read_completion_takes_what_servers_really_send() -> None:
    # arguments as an object (some local servers), content as text parts, no usage
    raw = (
        b'{"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", '
        b'"text": "b"}], "tool_calls": [{"function": {"name": "vote", "arguments": {"target": "P3"}}}]}}]}'
    )
    content, calls, usage = read_completion(raw)
    assert content == "ab"
    assert [(c.id, c.name, c.arguments) for c in calls] == [("call_0", "vote", '{"target": "P3"}')]
    assert usage is None
    with pytest.raises(MalformedAnswerError, match="upstream model crashed"):
        read_completion(b'{"error": {"message": "upstream model crashed"}}')


def test_a_turn_whose_answers_are_all_malformed_is_played_by_its_fallback(tmp_path: Path) -> None:
    spec = SessionSpec(
        kind="werewolf", seed=4, options={"deal": [2, 1, 1, 2, 3, 2, 4, 5, 6], "narrator": False},
        backend="openai", model="fake",
    )
    wrong: list[str] = []

    def responder(body: dict[str, Any]) -> FakeReply:
        # the first discussion request gets a malformed answer at each of its four attempts
        # (discussion turns go one at a time, so the four are that one call's)
        speaks = any(t["function"]["name"] == "speak" for t in body.get("tools") or [])
        if speaks and len(wrong) < 4:
            wrong.append("x")
            return FakeReply.malformed(MALFORMED_KINDS[len(wrong) - 1])
        tools = body.get("tools") or []
        if not tools:
            return FakeReply.text("夜が明けました。")
        return FakeReply.tool_calls(*first_choice_calls(tools, text="よろしくね"))

    path = tmp_path / "game.jsonl"
    with FakeChatServer(responder=responder) as server:
        backend = backend_for(server)
        human = AutoHuman(OfflineAgent(1, SeededSource(f"{spec.seed}/human")))
        io = SessionIO(backend=backend, human=human, show=lambda line: None)
        outcome = record_session(spec, io, path, durable=False, remember_seed=False)
    assert len(wrong) == 4
    assert "の勝利" in outcome.summary  # the game went on to its end
    events = read_transcript(path).events
    failed = [e.payload for e in events if e.type == "model_response" and "error" in e.payload]
    assert len(failed) == 1 and failed[0]["tool_calls"] == []
    fallbacks = [e.payload for e in events if e.type == "fallback"]
    assert len(fallbacks) == 1 and "could not be read" in fallbacks[0]["reason"]
    assert fallbacks[0]["actor"] == failed[0]["actor"]
    for tolerant in (False, True):  # the failed call replays as the same failure
        report = replay_transcript(read_transcript(path), tolerant=tolerant)
        assert report.ok, report.describe()


# ------------------------------------------------ item 8: a total deadline per request


def test_an_answer_trickled_past_the_deadline_is_abandoned() -> None:
    # each piece comes well within the per-read timeout, the whole answer long after the deadline
    slow = FakeReply.text("遅い").trickled(6.0)
    with FakeChatServer([slow, slow, slow, slow]) as server:
        backend = backend_for(server, timeout=10.0, request_deadline=1.0, max_attempts=4)
        # the deadline covers every attempt: the first used it all, so there was no second
        with pytest.raises(TransientBackendError, match=r"deadline of 1 s \(1 attempt\)") as caught:
            complete(backend)
        assert len(server.requests) <= 1
    assert not isinstance(caught.value, MalformedAnswerError)


def test_retries_stop_short_of_the_deadline() -> None:
    """A Retry-After that would end past the deadline is not waited for: the call fails
    at once with the server's error."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    with FakeChatServer([FakeReply.error(503, "busy", retry_after=25), FakeReply.text("ok")]) as server:
        backend = backend_for(server, sleep=sleep, request_deadline=5.0)
        with pytest.raises(TransientBackendError, match="503"):
            complete(backend)
        assert len(server.requests) == 1
    assert waits == []
    # the same answer with a deadline that leaves room: waited for, retried, answered
    with FakeChatServer([FakeReply.error(503, "busy", retry_after=25), FakeReply.text("ok")]) as server:
        backend = backend_for(server, sleep=sleep, request_deadline=60.0)
        assert complete(backend).content == "ok"
    assert waits == [25.0]


def test_several_slow_attempts_together_stay_within_the_deadline() -> None:
    """Answers trickled for less than the deadline each, but 500s: the attempts share one
    deadline, so the call ends with the deadline's error, not after ten attempts."""
    slow_failure = FakeReply.error(500, "boom").trickled(0.3)

    def wait(state: RetryCallState) -> float:
        return 0.0

    with FakeChatServer([slow_failure] * 10) as server:
        backend = backend_for(server, wait=wait, request_deadline=0.8, max_attempts=10)
        with pytest.raises(TransientBackendError, match="request deadline"):
            complete(backend)
        assert 1 <= len(server.requests) <= 3


def test_the_deadline_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("GM_REQUEST_DEADLINE", raising=False)
    assert OpenAIBackend.from_env(model="m").request_deadline == DEFAULT_REQUEST_DEADLINE_S
    monkeypatch.setenv("GM_REQUEST_DEADLINE", "2.5")
    assert OpenAIBackend.from_env(model="m").request_deadline == 2.5
    assert OpenAIBackend.from_env(model="m", request_deadline=7.0).request_deadline == 7.0
    for bad in ("soon", "0", "-1", "nan", "inf"):
        monkeypatch.setenv("GM_REQUEST_DEADLINE", bad)
        with pytest.raises(BackendError, match="GM_REQUEST_DEADLINE must be a positive number"):
            OpenAIBackend.from_env(model="m")


@pytest.mark.parametrize("command", [["werewolf", "play"], ["adventure"]])
def test_the_deadline_option(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from gm_engine.cli import build_parser

    parser = build_parser()
    args = parser.parse_args([*command, "--request-deadline", "30"])
    assert args.request_deadline == 30.0
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--request-deadline", "-2"])
    assert "引数 --request-deadline: 「-2」は秒数（正の数）ではありません" in capsys.readouterr().err


def test_an_adventure_whose_server_answers_only_malformed_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The GM's every answer unreadable: each GM turn ends with nothing said, the player is
    asked on, and the session ends at its turn limit (exit 0), recorded and replayable."""
    from gm_engine.cli import main

    path, script = tmp_path / "adventure.jsonl", tmp_path / "lines.txt"
    script.write_text("森へ行く\n", encoding="utf-8")
    kinds = iter(MALFORMED_KINDS * 10)
    with FakeChatServer(responder=lambda body: FakeReply.malformed(next(kinds))) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        monkeypatch.setenv("GM_MODEL", "fake")
        # tiny backoff waits: the retry policy's real ones would make the test slow
        monkeypatch.setattr("gm_engine.llm.openai_backend.retry_policy", _quick_policy)
        code = main(["adventure", "--scenario", "none", "--backend", "openai", "--seed", "5",
                     "--max-turns", "3", "--record", str(path), "--script", str(script)])
        requests = len(server.requests)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert requests == 3 * 4  # three GM turns, four attempts each
    assert "冒険はターン数の上限に達しました" in out
    events = read_transcript(path).events
    assert len([e for e in events if e.type == "model_response" and "error" in e.payload]) == 3
    report = replay_transcript(read_transcript(path))
    assert report.ok, report.describe()


def _quick_policy(**options: Any) -> Any:
    from gm_engine.llm.retry import retry_policy

    return retry_policy(**{**options, "wait": lambda state: 0.0})


def test_a_lone_surrogate_in_an_answer_becomes_a_replacement_character() -> None:
    # valid JSON, but not text: recording or showing it would fail
    raw = (
        b'{"choices": [{"message": {"content": "a\\ud800b", "tool_calls": [{"id": "c\\udc00", '
        b'"function": {"name": "speak", "arguments": "{\\"text\\": \\"x\\ud83dy\\"}"}}]}}]}'
    )
    content, calls, _ = read_completion(raw)
    assert content == "a\ufffdb"
    assert calls[0].id == "c\ufffd" and calls[0].arguments == '{"text": "x\ufffdy"}'
    assert read_completion(b'{"choices": [{"message": {"content": "\\ud83d\\ude00"}}]}')[0] == "😀"
