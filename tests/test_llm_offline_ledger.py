"""The offline backend's decider registry, and the ledger's totals."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from gm_engine.llm.base import BackendError, ModelRequest, ModelResponse, Usage, user_message
from gm_engine.llm.ledger import Ledger, MeteredBackend
from gm_engine.llm.offline import OfflineBackend, offline_calls, register_offline_decider
from gm_engine.llm.scripted import ScriptedBackend


@dataclass
class Ctx:
    offline_kind: str
    pick: str


def echo_decider(request: ModelRequest, context: object | None) -> ModelResponse:
    assert isinstance(context, Ctx)
    return ModelResponse(tool_calls=offline_calls(request, [("vote", {"target": context.pick})]))


def test_offline_dispatches_on_context_kind_then_actor() -> None:
    register_offline_decider("test-kind", echo_decider)
    register_offline_decider("test-actor", lambda r, c: ModelResponse(content=f"hello from {r.actor}"))
    backend = OfflineBackend()
    request = ModelRequest(actor="P7", messages=(user_message("a"), user_message("b")))
    response = asyncio.run(backend.complete(request, Ctx("test-kind", "P3")))
    assert response.tool_calls[0].id == "off_2_0"
    assert response.tool_calls[0].arguments == '{"target": "P3"}'
    assert response.usage is not None and response.usage.estimated
    by_actor = asyncio.run(backend.complete(request.model_copy(update={"actor": "test-actor"})))
    assert by_actor.content == "hello from test-actor"
    with pytest.raises(BackendError, match="no decider for 'P7'"):
        asyncio.run(backend.complete(request))


def test_ledger_totals_per_day_actor_and_game() -> None:
    replies = [
        ModelResponse(content="a", usage=Usage(prompt_tokens=100, completion_tokens=10)),
        ModelResponse(content="b", usage=Usage(prompt_tokens=50, completion_tokens=5)),
        ModelResponse(content="c" * 40),  # no usage: the scripted backend estimates it
    ]
    ledger = Ledger(game="g1")
    backend = MeteredBackend(ScriptedBackend([(None, r) for r in replies]), ledger)
    for day, actor in [(1, "P2"), (1, "P3"), (2, "P2")]:
        asyncio.run(backend.complete(ModelRequest(actor=actor, messages=(user_message("x" * 8),), day=day)))
    totals = ledger.totals()
    assert totals.calls == 3
    assert totals.completion_tokens == 10 + 5 + 10
    assert totals.estimated_calls == 1
    assert [e.counted_by for e in ledger.entries] == ["server", "server", "backend"]
    assert ledger.by_day()[1].prompt_tokens == 150
    assert ledger.by_actor()["P2"].calls == 2
    other = Ledger(game="g2")
    other.record(ModelRequest(actor="P2", messages=()), replies[0], latency_s=0.5)
    ledger.extend(other)
    assert set(ledger.by_game()) == {"g1", "g2"}
    summary = ledger.summary()
    assert summary.splitlines()[0].startswith("model calls (g1): 4 calls")
    assert "  day 2:" in summary and "  game g2:" in summary
    assert ledger.figures()["model_calls"] == 4.0
    assert "tokens counted by the server (3 calls), the backend's own estimate (1 call)" in summary


def test_the_estimate_counts_japanese_as_a_real_tokenizer_does() -> None:
    """Japanese takes about 1.8 tokens a character with SmolLM2's tokenizer (measured): a
    Japanese prompt with no reported usage is not counted at a quarter of its characters."""
    from gm_engine.llm.ledger import (
        JAPANESE_CHARS_PER_TOKEN,
        OTHER_CHARS_PER_TOKEN,
        estimate_text_tokens,
    )

    speech = "シセンさんの今の話、ここが少し気になるかな。" * 10  # 220 characters
    assert estimate_text_tokens(speech) == round(220 / JAPANESE_CHARS_PER_TOKEN + 0.5)
    assert estimate_text_tokens("P3 vote") == round(7 / OTHER_CHARS_PER_TOKEN + 0.5)
    assert estimate_text_tokens("") == 0
    ledger = Ledger()
    request = ModelRequest(actor="P2", messages=(user_message(speech),))
    # a call whose server reported no usage
    ledger.record(request, ModelResponse(content="はい"), latency_s=0.1)
    entry = ledger.entries[0]
    assert entry.counted_by == "estimate" and entry.estimated
    assert entry.prompt_tokens > len(speech)  # more tokens than characters, not a quarter of them
    assert entry.completion_tokens == 4  # two kana
    assert "tokens counted by the ledger's estimate (0.557 Japanese / 2.03 other" in ledger.summary()
