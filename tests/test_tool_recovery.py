"""Tool calls recovered wherever a model puts them, and the one corrective re-ask.

A call written in the text (Hermes/Qwen ``<tool_call>`` tags, a JSON code block, a bare
JSON object naming an offered tool) is applied as if sent; a text-only answer where a tool
was required gets one re-ask that describes the tools, then the fallback; ``update_notes``
never uses up the turn's action. Each recovery is a ``recovery`` event.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import pytest
from pydantic import Field

from gm_engine.events import RecoveryEvent, parse_event
from gm_engine.llm.base import ModelResponse, ToolCall, user_message
from gm_engine.llm.scripted import ScriptedBackend
from gm_engine.llm.text_calls import calls_in_text
from gm_engine.sessions.base import ListSink
from gm_engine.tools.base import Offer, Tool, ToolOutput, TurnResult, TurnRunner, response_with_calls
from gm_engine.tools.werewolf import UpdateNotesTool, VoteTool

TOOLS = {"vote", "update_notes"}


@pytest.mark.parametrize(
    ("text", "fmt", "calls", "left"),
    [
        ('<tool_call>{"name": "vote", "arguments": {"target": "P3"}}</tool_call>',
         "tool_call_tag", [("vote", {"target": "P3"})], None),
        ('P3が怪しい。\n<tool_call>\n{"name": "vote", "arguments": {"target": "P3"}}\n</tool_call>',
         "tool_call_tag", [("vote", {"target": "P3"})], "P3が怪しい。"),
        # the closing tag cut off at the end of the answer, and two calls in a row
        ('<tool_call>{"name": "update_notes", "arguments": {"lines": ["a"]}}</tool_call>'
         '<tool_call>{"name": "vote", "arguments": "{\\"target\\": \\"P4\\"}"}',
         "tool_call_tag", [("update_notes", {"lines": ["a"]}), ("vote", {"target": "P4"})], None),
        ('投票します。\n```json\n{"name": "vote", "parameters": {"target": "P5"}}\n```\n以上。',
         "code_block", [("vote", {"target": "P5"})], "投票します。 以上。"),
        ('```\n[{"type": "function", "function": {"name": "vote", "arguments": {"target": "P6"}}}]\n```',
         "code_block", [("vote", {"target": "P6"})], None),
        ('では {"name": "vote", "arguments": {"target": "P7"}} で。',
         "json", [("vote", {"target": "P7"})], "では で。"),
        ('{"tool": "vote", "target": "P8"}', "json", [("vote", {"target": "P8"})], None),
        ('{"tool_calls": [{"function": {"name": "vote", "arguments": {"target": "P9"}}}]}',
         "json", [("vote", {"target": "P9"})], None),
    ],
)
def test_calls_written_in_the_text_are_read(
    text: str, fmt: str, calls: list[tuple[str, dict[str, Any]]], left: str | None
) -> None:
    found = calls_in_text(text, TOOLS)
    assert found is not None
    assert found.format == fmt
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == calls
    assert [c.id for c in found.calls] == [f"text_call_{i}" for i in range(len(calls))]
    assert found.remaining == left


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "P3に投票します。",
        '{"name": "attack", "arguments": {"target": "P3"}}',  # not offered now
        '占いの結果は {"P3": "人狼"} でした',  # JSON that names no tool
        '<tool_call>{"name": "vote", "arguments": {"target": </tool_call>',  # broken
        '[{"name": "vote", "arguments": {}}, {"name": "fly"}]',  # a list is taken whole or not at all
    ],
)
def test_text_without_a_call_of_an_offered_tool_is_left_alone(text: str | None) -> None:
    assert calls_in_text(text, TOOLS) is None


class Ballot:
    def __init__(self) -> None:
        self.votes: list[str] = []
        self.notes: list[list[str]] = []

    def vote(self, args: VoteTool) -> ToolOutput:
        self.votes.append(args.target)
        return ToolOutput(text="受理されました")

    def note(self, args: UpdateNotesTool) -> ToolOutput:
        self.notes.append(list(args.lines))
        return ToolOutput(text="メモを更新しました")


def play(script: list[ModelResponse]) -> tuple[TurnResult, Ballot, ListSink, ScriptedBackend]:
    ballot = Ballot()
    sink = ListSink()
    offers: list[Offer[Any]] = [
        Offer.of(VoteTool, ballot.vote, target=["P3", "P4"]),
        Offer.of(UpdateNotesTool, ballot.note),
    ]
    with ScriptedBackend([("P2", reply) for reply in script]) as backend:
        result = asyncio.run(
            TurnRunner(backend, sink, retry_budget=3).run(
                actor="P2", messages=[user_message("投票して")], offers=offers,
                fallback=lambda: VoteTool(target="P4", reason="代わりに"),
            )
        )
    return result, ballot, sink, backend


def test_a_call_in_the_text_is_applied_and_recorded_as_a_recovery() -> None:
    call = '{"name": "vote", "arguments": {"target": "P3", "reason": "怪しい"}}'
    text = f"P3に入れます。<tool_call>{call}</tool_call>"
    result, ballot, sink, _ = play([ModelResponse(content=text)])
    assert ballot.votes == ["P3"] and not result.fallback and result.responses == 1
    kinds = [k for k, _ in sink.payloads()]
    assert kinds == ["model_request", "model_response", "recovery", "tool_result"]
    recovery = dict(sink.payloads())["recovery"]
    assert recovery["kind"] == "calls_in_text" and recovery["format"] == "tool_call_tag"
    arguments = json.dumps(json.loads(call)["arguments"], ensure_ascii=False)
    assert parse_event({"type": "recovery", **recovery}) == RecoveryEvent(
        actor="P2", kind="calls_in_text", format="tool_call_tag",
        tool_calls=(ToolCall(id="text_call_0", name="vote", arguments=arguments),),
    )
    # the recorded answer is the model's own; the conversation shows the call as a call, so
    # that the tool's answer follows a call of its id
    assert dict(sink.payloads())["model_response"]["content"] == text
    assistant, tool = result.messages[-2:]
    assert assistant["content"] == "P3に入れます。" and assistant["tool_calls"][0]["id"] == "text_call_0"
    assert tool == {"role": "tool", "tool_call_id": "text_call_0", "content": "受理されました"}


def test_a_text_only_answer_gets_one_reask_that_describes_the_tools() -> None:
    result, ballot, sink, backend = play([
        ModelResponse(content="P3が怪しいと思います。"),
        response_with_calls(("vote", {"target": "P3", "reason": "怪しい"})),
    ])
    assert ballot.votes == ["P3"] and not result.fallback
    reask = backend.requests[1].messages[-1]
    assert reask["role"] == "user" and "without calling a tool" in reask["content"]
    described = [json.loads(line) for line in reask["content"].splitlines() if line.startswith("{")]
    assert [d["name"] for d in described] == ["vote", "update_notes"]
    assert described[0]["parameters"]["properties"]["target"]["enum"] == ["P3", "P4"]
    assert ("recovery", {"actor": "P2", "kind": "reask", "format": None, "tool_calls": []}) in sink.payloads()


def test_a_second_text_only_answer_goes_to_the_fallback_at_once() -> None:
    # before, each text-only answer spent one retry of the budget (four answers here)
    result, ballot, sink, backend = play([ModelResponse(content="うーん"), ModelResponse(content="まだ迷う")])
    assert result.fallback and ballot.votes == ["P4"]
    assert result.responses == 2 and len(backend.requests) == 2
    assert [p["kind"] for k, p in sink.payloads() if k == "recovery"] == ["reask"]


def test_update_notes_alone_does_not_use_up_the_action() -> None:
    # before, notes were the turn's one action (or, with two allowed, a text answer after
    # them ended the turn without one): the turn fell back
    result, ballot, _, backend = play([
        response_with_calls(("update_notes", {"lines": ["P3が怪しい"]})),
        response_with_calls(("vote", {"target": "P3", "reason": "怪しい"})),
    ])
    assert ballot.notes == [["P3が怪しい"]] and ballot.votes == ["P3"]
    assert not result.fallback and len(result.actions) == 2
    assert backend.requests[1].tool_choice == "required"  # still owed its action


def test_notes_sent_after_the_action_in_the_same_answer_still_stand() -> None:
    result, ballot, _, _ = play([
        response_with_calls(
            ("vote", {"target": "P4", "reason": "勘"}),
            ("update_notes", {"lines": ["P4に投票"]}),
            ("vote", {"target": "P3", "reason": "勘"}),
        ),
    ])
    assert ballot.votes == ["P4"] and ballot.notes == [["P4に投票"]]
    assert "not executed" in result.messages[-1]["content"]


class Narrate(Tool):
    """Narrate."""

    tool_name: ClassVar[str] = "narrate"
    text: str = Field(max_length=50)


def test_a_free_turn_reads_calls_in_its_text_too() -> None:
    said: list[str] = []

    def narrate(args: Narrate) -> str:
        said.append(args.text)
        return "ok"

    script = [
        ModelResponse(content='```json\n{"name": "narrate", "arguments": {"text": "扉が開く"}}\n```'),
        ModelResponse(content="どうしますか？"),
    ]
    with ScriptedBackend([("gm", reply) for reply in script]) as backend:
        result = asyncio.run(
            TurnRunner(backend).run(actor="gm", messages=[user_message("go")],
                                    offers=[Offer.of(Narrate, narrate)], require_action=False, max_actions=4)
        )
    assert said == ["扉が開く"] and result.content == "どうしますか？"
