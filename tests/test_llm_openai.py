"""The real ``openai`` client against the fake Chat Completions server on 127.0.0.1.

No test here reaches the network: every server is the in-process fake on a free local
port. A live test runs only with GM_LIVE_OPENAI=1 (and a configured server).
"""

from __future__ import annotations

import asyncio
import os
from typing import ClassVar

import pytest
from pydantic import Field
from tenacity import RetryCallState

from gm_engine.llm.base import BackendError, ModelRequest, ToolSpec, TransientBackendError, user_message
from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.llm.ledger import Ledger, MeteredBackend
from gm_engine.llm.openai_backend import OpenAIBackend, build_chat_request, parse_models
from gm_engine.llm.profiles import get_profile
from gm_engine.llm.retry import backoff_wait, parse_retry_after
from gm_engine.sessions.base import ListSink
from gm_engine.tools.base import Offer, Tool, TurnRunner


class Vote(Tool):
    """Vote for a player."""

    tool_name: ClassVar[str] = "vote"
    target: str = Field(description="seat")


class Waits:
    """Records the waits the retry policy chose, and sleeps for none of them."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self.slept: list[float] = []
        self.inner = backoff_wait(base_s=0.001, cap_s=0.002, max_retry_after_s=0.5)

    def wait(self, state: RetryCallState) -> float:
        value = self.inner(state)
        self.waits.append(value)
        return value

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


def backend_for(server: FakeChatServer, waits: Waits | None = None, **kwargs: object) -> OpenAIBackend:
    w = waits or Waits()
    return OpenAIBackend(
        model="fake-model",
        base_url=server.base_url,
        api_key="test-key",
        wait=w.wait,
        sleep=w.sleep,
        timeout=10,
        **kwargs,  # type: ignore[arg-type]
    )


REQUEST = ModelRequest(
    actor="P2",
    messages=(user_message("vote"),),
    tools=(Vote.narrowed(target=["P3", "P4"]).spec(),),
    tool_choice="required",
)


def test_plain_tool_call_goes_through_the_real_client() -> None:
    with FakeChatServer([FakeReply.tool_calls(("vote", {"target": "P3"}), usage=(120, 9))]) as server:
        backend = backend_for(server, models={"P2": "persona-model"})
        response = asyncio.run(backend.complete(REQUEST))
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("vote", '{"target": "P3"}')]
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (120, 9)
    assert not response.usage.estimated
    [recorded] = server.requests
    assert recorded.path == "/v1/chat/completions"
    assert recorded.headers.get("authorization") == "Bearer test-key"
    body = recorded.body
    assert body["model"] == "persona-model"  # the per-actor model
    assert body["tool_choice"] == "required"
    function = body["tools"][0]["function"]
    assert function["name"] == "vote"
    assert function["strict"] is True
    assert function["parameters"]["properties"]["target"]["enum"] == ["P3", "P4"]


def test_429_is_retried_honouring_retry_after() -> None:
    waits = Waits()
    script = [FakeReply.error(429, "slow down", retry_after=0.25), FakeReply.text("ok")]
    with FakeChatServer(script) as server:
        backend = backend_for(server, waits)
        response = asyncio.run(backend.complete(REQUEST))
    assert response.content == "ok"
    assert len(server.requests) == 2
    assert waits.waits == [0.25]  # the server's Retry-After, not the backoff
    assert waits.slept == [0.25]
    assert backend.retries == 1


def test_500_is_retried_with_backoff() -> None:
    waits = Waits()
    with FakeChatServer([FakeReply.error(500), FakeReply.error(503), FakeReply.text("ok")]) as server:
        backend = backend_for(server, waits)
        response = asyncio.run(backend.complete(REQUEST))
    assert response.content == "ok"
    assert len(server.requests) == 3
    assert waits.waits == [0.001, 0.002]


def test_400_is_not_retried() -> None:
    with FakeChatServer([FakeReply.error(400, "bad schema"), FakeReply.text("never")]) as server:
        backend = backend_for(server)
        with pytest.raises(BackendError, match=r"refused \(400\): bad schema") as info:
            asyncio.run(backend.complete(REQUEST))
    assert not isinstance(info.value, TransientBackendError)
    assert len(server.requests) == 1
    assert server.leftovers == 1


def test_retries_are_bounded() -> None:
    with FakeChatServer([FakeReply.error(500)] * 5) as server:
        backend = backend_for(server, max_attempts=3)
        with pytest.raises(TransientBackendError, match="server error"):
            asyncio.run(backend.complete(REQUEST))
    assert len(server.requests) == 3


def test_a_timeout_is_retried() -> None:
    slow = FakeReply.text("too late", usage=None)
    slow = FakeReply(status=slow.status, body=slow.body, headers=slow.headers, delay_s=1.0)
    with FakeChatServer([slow, FakeReply.text("in time")]) as server:
        backend = backend_for(server)
        backend.timeout = 0.3
        response = asyncio.run(backend.complete(REQUEST))
    assert response.content == "in time"
    assert backend.retries == 1 and len(server.requests) == 2


def test_connection_refused_is_transient() -> None:
    server = FakeChatServer().start()
    url = server.base_url
    server.stop()
    waits = Waits()
    backend = OpenAIBackend(
        model="m", base_url=url, api_key="k", wait=waits.wait, sleep=waits.sleep, max_attempts=2
    )
    with pytest.raises(TransientBackendError, match="connection failed"):
        asyncio.run(backend.complete(REQUEST))
    assert len(waits.slept) == 1


def test_malformed_tool_arguments_are_answered_and_recovered_from() -> None:
    chosen: list[str] = []
    def vote(v: Vote) -> str:
        chosen.append(v.target)
        return f"vote for {v.target} recorded"

    offer = Offer.of(Vote, vote, target=["P3", "P4"])
    script = [
        FakeReply.tool_calls(("vote", '{"target": "P3"')),  # broken JSON
        FakeReply.tool_calls(("vote", {"target": "P3"})),
    ]
    sink = ListSink()
    ledger = Ledger(game="test")
    with FakeChatServer(script) as server:
        backend = MeteredBackend(backend_for(server), ledger)
        result = asyncio.run(
            TurnRunner(backend, sink).run(actor="P2", messages=[user_message("vote")], offers=[offer], day=1)
        )
    assert chosen == ["P3"]
    assert len(result.errors) == 1 and "not valid JSON" in result.errors[0]
    second = server.requests[1].body["messages"]
    assert second[-2]["role"] == "assistant"
    assert second[-2]["tool_calls"][0]["function"]["arguments"] == '{"target": "P3"'
    assert second[-1] == {"role": "tool", "tool_call_id": "call_0_vote", "content": result.errors[0]}
    assert ledger.totals().calls == 2
    assert ledger.totals().prompt_tokens == 22
    assert "2 calls" in ledger.summary()


def test_usage_is_left_to_the_ledger_when_the_server_reports_none() -> None:
    # the ledger counts Japanese by the characters a token a real tokenizer gives it, where
    # the backend's old four characters a token was about seven times low
    ledger = Ledger()
    with FakeChatServer([FakeReply.text("こんにちは、みなさん", usage=None)]) as server:
        response = asyncio.run(MeteredBackend(backend_for(server), ledger).complete(REQUEST))
    assert response.usage is None
    (entry,) = ledger.entries
    assert entry.counted_by == "estimate" and entry.estimated
    assert entry.completion_tokens >= 15  # 10 Japanese characters at 0.557 a token, not 3
    assert entry.prompt_tokens > 10


def test_the_prompt_tokens_served_from_the_servers_cache_are_counted() -> None:
    # llama.cpp's server (and OpenAI's, vLLM's) report usage.prompt_tokens_details.cached_tokens
    def answer(cached: object) -> FakeReply:
        body = FakeReply.text("はい").body
        assert isinstance(body, dict)
        details = {"prompt_tokens_details": {"cached_tokens": cached}}
        return FakeReply(body={**body, "usage": {**body["usage"], "prompt_tokens": 40, **details}})

    ledger = Ledger()
    replies = [answer(30), answer(True), answer(-1), answer(99), FakeReply.text("はい")]
    with FakeChatServer(replies) as server:
        backend = MeteredBackend(backend_for(server), ledger)
        responses = [asyncio.run(backend.complete(REQUEST)) for _ in replies]
    cached = [r.usage.cached_tokens for r in responses if r.usage is not None]
    assert cached == [30, 0, 0, 40, 0]  # unreadable counts are 0; never more than the prompt
    totals = ledger.totals()
    assert totals.cached_tokens == 70 and totals.prompt_tokens == 4 * 40 + 11
    assert f"70 from the server's cache, {70 / totals.prompt_tokens:.0%}" in ledger.summary()
    # a count of 0 is left out of the record, which reads as before the count was kept
    assert "cached_tokens" not in responses[4].usage.model_dump()  # type: ignore[union-attr]
    assert responses[0].usage.model_dump()["cached_tokens"] == 30  # type: ignore[union-attr]


def test_profile_flags_shape_the_request() -> None:
    ollama = build_chat_request(REQUEST, "m", get_profile("ollama"))
    assert "tool_choice" not in ollama  # Ollama ignores it
    assert "strict" not in ollama["tools"][0]["function"]
    lmstudio = build_chat_request(REQUEST, "m", get_profile("lmstudio"))
    assert lmstudio["tool_choice"] == "auto"  # required is answered with an empty reply there
    # llama.cpp answers several calls unless told not to: an open request says False
    assert build_chat_request(REQUEST, "m", get_profile("llamacpp"))["parallel_tool_calls"] is False
    assert "parallel_tool_calls" not in build_chat_request(REQUEST, "m", get_profile("openai"))
    # vLLM enforces a schema only with strict, and takes any schema as strict
    loose_schema = REQUEST.model_copy(update={"tools": (ToolSpec(
        name="say", description="d",
        parameters={"type": "object", "properties": {"text": {"type": "string", "maxLength": 5}}},
    ),)})
    vllm = build_chat_request(loose_schema, "m", get_profile("vllm"))
    assert vllm["tools"][0]["function"]["strict"] is True
    openai_body = build_chat_request(loose_schema, "m", get_profile("openai"))
    assert "strict" not in openai_body["tools"][0]["function"]
    parallel = REQUEST.model_copy(update={"parallel_tool_calls": False})
    assert build_chat_request(parallel, "m", get_profile("openai"))["parallel_tool_calls"] is False
    assert "parallel_tool_calls" not in build_chat_request(parallel, "m", get_profile("lmstudio"))
    loose = REQUEST.model_copy(
        update={"tools": (ToolSpec(name="x", description="d", parameters={"type": "object"}),)}
    )
    assert "strict" not in build_chat_request(loose, "m", get_profile("openai"))["tools"][0]["function"]
    with pytest.raises(ValueError, match="known: llamacpp, lmstudio, ollama, openai, vllm"):
        get_profile("koboldcpp")


def test_retry_after_parsing() -> None:
    assert parse_retry_after({"Retry-After": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "150"}) == 0.15
    assert parse_retry_after({"retry-after": "Sun, 29 Nov 2026 12:00:10 GMT"}, now=1795953600.0) == 10.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_no_key_and_no_base_url_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(BackendError, match="no API key"):
        OpenAIBackend(model="m")
    monkeypatch.delenv("GM_MODEL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    with pytest.raises(BackendError, match="no model name"):
        OpenAIBackend.from_env()


@pytest.mark.skipif(os.environ.get("GM_LIVE_OPENAI") != "1", reason="live model test: set GM_LIVE_OPENAI=1")
def test_live_server_answers_a_tool_call() -> None:  # pragma: no cover - opt-in only
    backend = OpenAIBackend.from_env()
    offer = Offer.of(Vote, lambda v: f"vote for {v.target} recorded", target=["P3", "P4"])
    result = asyncio.run(
        TurnRunner(backend).run(
            actor="P2", messages=[user_message("Vote for P4 using the vote tool.")], offers=[offer]
        )
    )
    assert result.actions and result.actions[0].tool == "vote"


def test_models_per_actor_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GM_MODEL", "base")
    monkeypatch.setenv("GM_MODELS", "P2=alpha, P3 = beta")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = OpenAIBackend.from_env(profile="vllm")
    assert backend.models == {"P2": "alpha", "P3": "beta"}
    assert backend.model_for(ModelRequest(actor="P3", messages=())) == "beta"
    assert backend.model_for(ModelRequest(actor="P4", messages=())) == "base"
    assert backend.model_for(ModelRequest(actor="P3", messages=(), model="pinned")) == "pinned"
    with pytest.raises(BackendError, match="bad GM_MODELS entry"):
        parse_models("P2")


def test_the_body_is_posted_as_chat_completions_create_would_send_it() -> None:
    """The backend posts its built body directly; the server gets the same request (path,
    headers, JSON) as through ``chat.completions.create``, for every profile."""
    conversation = (
        user_message("vote"),
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "vote", "arguments": '{"target":"P9"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "error: P9 is not offered"},
    )
    request = REQUEST.model_copy(update={"messages": conversation, "parallel_tool_calls": True})
    for profile in ("openai", "vllm", "ollama"):
        with FakeChatServer(responder=lambda body: FakeReply.text("ok")) as server:
            backend = backend_for(server, profile=profile)

            async def both(backend: OpenAIBackend) -> None:
                backend.prepare()
                await backend.complete(request)
                body = build_chat_request(request, backend.model_for(request), backend.profile)
                await backend._client().chat.completions.create(**body)
                await backend.aclose()

            asyncio.run(both(backend))
        ours, theirs = server.requests
        assert (ours.path, ours.body) == (theirs.path, theirs.body)
        skip = {"x-stainless-retry-count"}
        assert {k: v for k, v in ours.headers.items() if k not in skip} == {
            k: v for k, v in theirs.headers.items() if k not in skip
        }


def test_prepare_makes_the_client_the_calls_then_use() -> None:
    with FakeChatServer([FakeReply.text("a"), FakeReply.text("b")]) as server:
        backend = backend_for(server)
        metered = MeteredBackend(backend, Ledger())

        async def run() -> bool:
            metered.prepare()
            client = backend._client()
            await metered.complete(REQUEST)
            await metered.complete(REQUEST)
            same = backend._client() is client
            await backend.aclose()
            return same

        assert asyncio.run(run())
    assert len(server.requests) == 2
