"""Configuration errors of a model server, through the real ``openai`` client and the fake
server: recognised, explained in one line with the fix, and never retried."""

from __future__ import annotations

import asyncio

import pytest

from gm_engine.cli._play import stopped_message
from gm_engine.llm.base import ConfigurationError, ModelRequest, TransientBackendError, user_message
from gm_engine.llm.diagnosis import classify_error
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.tools.werewolf import VoteTool

REQUEST = ModelRequest(
    actor="P2",
    messages=(user_message("vote"),),
    tools=(VoteTool.narrowed(target=["P3", "P4"]).spec(),),
    tool_choice="required",
)


async def no_sleep(seconds: float) -> None:
    return None


def complete(server: FakeChatServer, request: ModelRequest = REQUEST, **options: object) -> None:
    backend = OpenAIBackend(
        model=str(options.pop("model", "fake")), base_url=server.base_url,
        api_key=str(options.pop("api_key", "k")), sleep=no_sleep, **options,  # type: ignore[arg-type]
    )

    async def once() -> None:
        try:
            await backend.complete(request)
        finally:
            await backend.aclose()

    asyncio.run(once())


@pytest.mark.parametrize(
    ("options", "kind", "fix"),
    [
        ({"quirks": ["needs_jinja"]}, "missing_jinja", "restart it with --jinja"),
        ({"api_key": "right"}, "bad_key", "set OPENAI_API_KEY"),
        ({"models": ["qwen2.5:7b"]}, "unknown_model", "pass --model"),
        ({"context_length": 3}, "context_overflow", "larger context"),
    ],
)
def test_a_configuration_error_is_explained_and_not_retried(
    options: dict[str, object], kind: str, fix: str
) -> None:
    with FakeChatServer([FakeReply.text("never sent")], **options) as server:  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError) as caught:
            complete(server, api_key="wrong")
        assert len(server.requests) == 1  # not retried
    error = caught.value
    assert error.kind == kind
    assert fix in str(error)
    assert not isinstance(error, TransientBackendError)
    message = stopped_message("gm werewolf play", "game", error, None)
    assert message.startswith("gm werewolf play: モデルのサーバーがこのゲーム向けに設定されていません: ")
    assert "cannot reach" not in message


def test_a_missing_jinja_was_retried_as_transient_before() -> None:
    # the very answer llama.cpp gives: before, a 5xx was always transient
    error = classify_error(500, "tools param requires --jinja flag")
    assert error is not None and error.kind == "missing_jinja"
    assert classify_error(500, "internal error: slot crashed") is None
    assert classify_error(503, "Loading model") is None


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (400, "This model's maximum context length is 8192 tokens; you requested 9000", "context_overflow"),
        (400, "the request exceeds the available context size, try increasing it", "context_overflow"),
        (404, 'model "llama3" not found, try pulling it first', "unknown_model"),
        (404, "The model `gpt-9` does not exist or you do not have access to it.", "unknown_model"),
        (401, "Incorrect API key provided: sk-xx", "bad_key"),
        (403, "forbidden", None),  # a key may be fine and still not allowed this
        (400, "Invalid value for 'temperature'", None),
        (429, "rate limited", None),
    ],
)
def test_the_messages_real_servers_give(status: int, message: str, kind: str | None) -> None:
    problem = classify_error(status, message, model="gpt-9")
    assert (problem.kind if problem is not None else None) == kind
    if problem is not None:
        assert "\n" not in problem.explanation


def test_a_context_overflow_names_the_server_settings() -> None:
    problem = classify_error(400, "exceed_context_size_error")
    assert problem is not None
    assert "-c 8192" in problem.explanation and "--max-model-len" in problem.explanation


def test_a_game_on_a_server_without_jinja_stops_at_once_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: the 500 was retried four times as transient, then "cannot reach the model server"
    from gm_engine.cli import main

    with FakeChatServer.with_quirks("needs_jinja") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        status = main(["werewolf", "play", "--auto", "--seed", "1", "--plain", "--no-record",
                       "--backend", "openai", "--model", "m", "--profile", "llamacpp"])
        with_tools = [r for r in server.requests if r.body.get("tools")]
    err = capsys.readouterr().err
    assert status == 2
    assert "モデルのサーバーがこのゲーム向けに設定されていません: llama.cpp のサーバーが" in err
    assert "--jinja を付けて起動し直してください" in err and "restart it" not in err
    assert "cannot reach" not in err
    # one request with tools reached the server: not retried, and (one slot on llama.cpp)
    # the round's other requests, still queued in the client, were never sent
    assert len(with_tools) == 1


def test_a_configuration_error_in_a_200_answer_is_recognised_too() -> None:
    from gm_engine.llm.openai_backend import read_completion

    body = b'{"error": {"message": "tools param requires --jinja flag", "type": "server_error"}}'
    with pytest.raises(ConfigurationError, match="restart it with --jinja"):
        read_completion(body)
