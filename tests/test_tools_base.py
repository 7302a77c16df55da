"""Tool schemas generated with enums of the legal choices, and the turn runner's error handling."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, ClassVar, TypedDict, TypeVar

import pytest
from pydantic import Field

from gm_engine.llm.base import ModelRequest, ModelResponse, ToolCall, user_message
from gm_engine.llm.scripted import ScriptedBackend, ScriptError
from gm_engine.sessions.base import ListSink
from gm_engine.tools.base import (
    ModelRetry,
    Offer,
    Tool,
    ToolDefinitionError,
    ToolOutput,
    TurnError,
    TurnRunner,
    response_with_calls,
    retry_on,
)


class Vote(Tool):
    """Vote for the player you want to leave the table."""

    tool_name: ClassVar[str] = "vote"
    target: str = Field(description="seat of the player")


class Speak(Tool):
    """Say something to the table."""

    tool_name: ClassVar[str] = "speak"
    text: str


class Pick(Tool):
    """Pick some seats."""

    tool_name: ClassVar[str] = "pick"
    seats: list[str]
    note: str | None = None


class Counter:
    """A toy engine: votes are legal only for living seats; P5 is protected by a rule."""

    def __init__(self) -> None:
        self.votes: list[str] = []

    def vote(self, args: Vote) -> ToolOutput:
        if args.target == "P5":
            raise ModelRetry("P5 cannot be voted for today (rule: 決選投票 candidates only)")
        self.votes.append(args.target)
        return ToolOutput(text=f"vote for {args.target} recorded", data={"target": args.target})


class FreeTurn(TypedDict):
    """The keyword arguments of a free (narration) turn, shared by consecutive turns."""

    offers: list[Offer[Any]]
    require_action: bool
    max_actions: int


T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run one coroutine to completion on a fresh event loop."""
    return asyncio.run(coro)


def test_schema_is_generated_with_enum_of_legal_targets() -> None:
    offer = Offer.of(Vote, Counter().vote, target=["P2", "P4", "P5"])
    spec = offer.spec()
    assert spec.name == "vote"
    assert spec.description == "Vote for the player you want to leave the table."
    target = spec.parameters["properties"]["target"]
    assert target["enum"] == ["P2", "P4", "P5"]
    assert target["description"] == "seat of the player"
    assert spec.parameters["required"] == ["target"]
    assert spec.parameters["additionalProperties"] is False
    assert spec.strict_compatible
    # the unnarrowed tool has no enum
    assert "enum" not in Vote.spec().parameters["properties"]["target"]


def test_list_and_optional_fields_are_narrowed() -> None:
    spec = Pick.narrowed(seats=["P2", "P3"], note=["a", "b"]).spec()
    props = spec.parameters["properties"]
    assert props["seats"]["items"]["enum"] == ["P2", "P3"]
    # an optional field is written as what it holds when given (left out, it is None)
    assert props["note"] == {"enum": ["a", "b"], "type": "string"}
    assert not spec.strict_compatible  # note is optional


def test_bad_declarations_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="no legal value"):
        Vote.narrowed(target=[])
    with pytest.raises(ToolDefinitionError, match="no field"):
        Vote.narrowed(seat=["P2"])

    class Nameless(Tool):
        """x"""

    with pytest.raises(ToolDefinitionError, match="tool_name"):
        Nameless.spec()


def test_errors_are_answered_then_a_valid_call_applies() -> None:
    engine = Counter()
    offers: list[Offer[Any]] = [
        Offer.of(Vote, engine.vote, target=["P2", "P3", "P5"]),
        Offer.of(Speak, lambda s: "said"),
    ]
    script = [
        ("P4", ModelResponse(tool_calls=(ToolCall(id="a", name="vote", arguments='{"target": "P2"'),))),
        ("P4", response_with_calls(("shoot", {"target": "P2"}))),
        ("P4", response_with_calls(("vote", {"target": "P9"}))),
        ("P4", response_with_calls(("vote", {"target": "P5"}))),
        ("P4", response_with_calls(("vote", {"target": "P3"}))),
    ]
    sink = ListSink()
    with ScriptedBackend(script) as backend:
        result = run(
            TurnRunner(backend, sink, retry_budget=4).run(
                actor="P4", messages=[user_message("vote now")], offers=offers, phase="vote", day=1
            )
        )
    assert engine.votes == ["P3"]  # the state changed only once, by the valid call
    assert not result.fallback
    assert [a.tool for a in result.actions] == ["vote"]
    assert len(result.errors) == 4
    assert "not valid JSON" in result.errors[0]
    assert "unknown tool 'shoot'" in result.errors[1] and "vote, speak" in result.errors[1]
    assert "target" in result.errors[2] and '"P2", "P3", "P5"' in result.errors[2]
    assert "refused by the rules" in result.errors[3] and "決選投票" in result.errors[3]
    # each error went back to the model as the tool result of its call
    second_request = backend.requests[1]
    assert second_request.messages[-1]["role"] == "tool"
    assert second_request.messages[-1]["tool_call_id"] == "a"
    assert "not valid JSON" in second_request.messages[-1]["content"]
    assert backend.requests[0].tool_choice == "required"
    kinds = [kind for kind, _ in sink.payloads()]
    assert kinds.count("model_request") == 5
    assert kinds.count("model_response") == 5
    results = [p for k, p in sink.payloads() if k == "tool_result"]
    assert [p["ok"] for p in results] == [False, False, False, False, True]
    assert results[-1]["result"] == "vote for P3 recorded"


def test_budget_exhausted_applies_the_fallback_and_records_it() -> None:
    engine = Counter()
    offers = [Offer.of(Vote, engine.vote, target=["P2", "P3"])]
    script = [("P4", response_with_calls(("vote", {"target": "P7"})))] * 3
    sink = ListSink()
    with ScriptedBackend(script) as backend:
        result = run(
            TurnRunner(backend, sink, retry_budget=2).run(
                actor="P4", messages=[user_message("vote")], offers=offers, fallback=lambda: Vote(target="P2")
            )
        )
    assert result.fallback
    assert engine.votes == ["P2"]
    assert result.actions[0].by_fallback
    assert result.messages[-1]["role"] == "user"
    assert result.messages[-1]["content"].startswith("[engine] after the errors above")
    assert 'vote {"target": "P2"} -> vote for P2 recorded' in result.messages[-1]["content"]
    fallback_events = [p for k, p in sink.payloads() if k == "fallback"]
    assert fallback_events == [
        {"actor": "P4", "tool": "vote", "arguments": {"target": "P2"}, "reason": result.errors[-1]}
    ]


def test_budget_exhausted_without_fallback_raises_and_state_is_unchanged() -> None:
    engine = Counter()
    offers = [Offer.of(Vote, engine.vote, target=["P2", "P5"])]
    script = [("P4", response_with_calls(("vote", {"target": "P5"})))] * 2
    with ScriptedBackend(script) as backend, pytest.raises(TurnError, match="no legal action"):
        run(TurnRunner(backend, retry_budget=1).run(actor="P4", messages=[user_message("v")], offers=offers))
    assert engine.votes == []


def test_text_only_answer_when_an_action_is_required_is_an_error() -> None:
    engine = Counter()
    offers = [Offer.of(Vote, engine.vote, target=["P2"])]
    script = [
        ("P4", ModelResponse(content="I vote P2")),
        ("P4", response_with_calls(("vote", {"target": "P2"}))),
    ]
    with ScriptedBackend(script) as backend:
        result = run(TurnRunner(backend).run(actor="P4", messages=[user_message("v")], offers=offers))
    assert engine.votes == ["P2"]
    assert "without calling a tool" in result.errors[0]
    assert backend.requests[1].messages[-1]["role"] == "user"


def test_free_turn_runs_tools_until_text_and_stops_at_a_pause() -> None:
    log: list[str] = []

    def speak(s: Speak) -> ToolOutput:
        log.append(s.text)
        return ToolOutput(text="ok", ends_turn=s.text == "pause")

    offers = [Offer.of(Speak, speak)]
    script = [
        ("gm", response_with_calls(("speak", {"text": "one"}), ("speak", {"text": "two"}))),
        ("gm", ModelResponse(content="done talking")),
        ("gm", response_with_calls(("speak", {"text": "pause"}), ("speak", {"text": "after"}))),
    ]
    with ScriptedBackend(script) as backend:
        runner = TurnRunner(backend)
        free = FreeTurn(offers=offers, require_action=False, max_actions=9)
        first = run(runner.run(actor="gm", messages=[user_message("go")], **free))
        assert first.content == "done talking" and log == ["one", "two"]
        second = run(runner.run(actor="gm", messages=first.messages, **free))
    assert second.ended_by_tool
    assert log == ["one", "two", "pause"]  # the call after the pause was not executed
    assert "not executed" in second.messages[-1]["content"]


def test_scripted_backend_fails_on_unexpected_call_and_leftovers() -> None:
    backend = ScriptedBackend([("P2", ModelResponse(content="hi"))])
    offers = [Offer.of(Speak, lambda s: "ok")]
    with pytest.raises(ScriptError, match="unexpected call #1 from 'P3'"):
        run(TurnRunner(backend).run(actor="P3", messages=[user_message("x")], offers=offers))
    with pytest.raises(ScriptError, match="left over"):
        backend.assert_done()
    with pytest.raises(ScriptError, match="left over"), ScriptedBackend([(None, ModelResponse(content="x"))]):
        pass
    empty = ScriptedBackend([])
    with pytest.raises(ScriptError, match="script is used up"):
        run(empty.complete(ModelRequest(actor="a", messages=())))


def test_offers_given_as_a_function_are_recomputed_between_answers() -> None:
    engine = Counter()
    spoken: list[str] = []

    def offers() -> list[Offer[Any]]:
        def speak(s: Speak) -> str:
            spoken.append(s.text)
            return "ok"

        current: list[Offer[Any]] = [Offer.of(Speak, speak)]
        if spoken:  # voting becomes legal once something was said
            current.append(Offer.of(Vote, engine.vote, target=["P2"]))
        return current

    script = [
        ("P4", response_with_calls(("speak", {"text": "hi"}))),
        ("P4", response_with_calls(("vote", {"target": "P2"}))),
    ]
    with ScriptedBackend(script) as backend:
        runner = TurnRunner(backend)
        turn = runner.run(actor="P4", messages=[user_message("go")], offers=offers, max_actions=2)
        result = run(turn)
    assert [t.name for t in backend.requests[0].tools] == ["speak"]
    assert [t.name for t in backend.requests[1].tools] == ["speak", "vote"]
    assert engine.votes == ["P2"] and not result.errors


def test_a_fallback_may_choose_no_action_and_is_still_recorded() -> None:
    offers = [Offer.of(Speak, lambda s: "ok")]
    script = [("gm", response_with_calls(("shout", {})))] * 2
    sink = ListSink()
    with ScriptedBackend(script) as backend:
        result = run(
            TurnRunner(backend, sink, retry_budget=1).run(
                actor="gm", messages=[user_message("go")], offers=offers, require_action=False,
                fallback=lambda: None,
            )
        )
    assert result.fallback and not result.actions
    assert [p for k, p in sink.payloads() if k == "fallback"] == [
        {"actor": "gm", "tool": None, "arguments": None, "reason": result.errors[-1]}
    ]


def test_a_handler_bug_surfaces_instead_of_being_retried() -> None:
    # a handler that fails for a reason of its own (not a refusal it translated to
    # ModelRetry) is a program error: no retry, no fallback, the exception goes up
    def buggy(args: Vote) -> str:
        return str(int(args.target))  # "P3" is not a number: a bug in the handler

    backend = ScriptedBackend([(None, response_with_calls(("vote", {"target": "P3"})))])
    sink = ListSink()
    runner = TurnRunner(backend, sink, retry_budget=3)
    offer = Offer.of(Vote, buggy, target=["P3"])
    with pytest.raises(ValueError, match="invalid literal for int"):
        run(runner.run(actor="P2", messages=[], offers=[offer], fallback=lambda: Vote(target="P3")))
    assert len(backend.requests) == 1  # asked once: the error was not answered to the model
    assert [kind for kind, _ in sink.payloads()] == ["model_request", "model_response"]


def test_a_refusal_translated_to_model_retry_is_answered_and_retried() -> None:
    class Refused(ValueError):
        pass

    @retry_on(Refused)
    def strict(args: Vote) -> str:
        if args.target == "P3":
            raise Refused("P3 has already left the table")
        return "ok"

    backend = ScriptedBackend(
        [
            (None, response_with_calls(("vote", {"target": "P3"}))),
            (None, response_with_calls(("vote", {"target": "P4"}))),
        ]
    )
    sink = ListSink()
    offer = Offer.of(Vote, strict, target=["P3", "P4"])
    result = run(TurnRunner(backend, sink).run(actor="P2", messages=[], offers=[offer]))
    assert [a.output.text for a in result.actions] == ["ok"]
    refused = [p["result"] for k, p in sink.payloads() if k == "tool_result" and not p["ok"]]
    assert refused == ["error: vote refused by the rules: P3 has already left the table"]
