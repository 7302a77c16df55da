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
