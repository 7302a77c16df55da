"""Each quirk of a real server, through the real ``openai`` client and the fake server in
that quirk's mode: the profile's flags shape the request around it, or the turn runner's
recovery plays the turn anyway (see gm_engine.llm.fakeserver for what each quirk does)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from gm_engine.dice.source import SeededSource
from gm_engine.llm.base import user_message
from gm_engine.llm.fakeserver import FakeChatServer, Quirk
from gm_engine.llm.openai_backend import OpenAIBackend
from gm_engine.llm.profiles import ServerProfile
from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
from gm_engine.sessions.werewolf_offline import AutoHuman, first_choice_calls
from gm_engine.tools.base import Offer, ToolOutput, TurnResult, TurnRunner
from gm_engine.tools.werewolf import UpdateNotesTool, VoteTool
from gm_engine.transcripts.format import read_transcript
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_transcript
from gm_engine.werewolf.agents import OfflineAgent


async def no_sleep(seconds: float) -> None:
    return None


class Turn:
    """One vote turn played against a fake server with ``quirks`` under ``profile``."""

    def __init__(self, profile: str | ServerProfile, *quirks: Quirk) -> None:
        self.votes: list[str] = []
        self.sink = ListSink()
        with FakeChatServer.with_quirks(*quirks) as server:
            backend = OpenAIBackend(
                model="fake", base_url=server.base_url, api_key="k", profile=profile, sleep=no_sleep
            )
            self.result = asyncio.run(self._play(backend))
            self.bodies = [r.body for r in server.requests]

    async def _play(self, backend: OpenAIBackend) -> TurnResult:
        def vote(args: VoteTool) -> ToolOutput:
            self.votes.append(args.target)
            return ToolOutput(text="受理されました")

        offers: list[Offer[Any]] = [
            Offer.of(VoteTool, vote, target=["P3", "P4"]),
            Offer.of(UpdateNotesTool, lambda args: "ok"),
        ]
        try:
            return await TurnRunner(backend, self.sink, retry_budget=2).run(
                actor="P2", messages=[user_message("投票してください")], offers=offers,
                fallback=lambda: VoteTool(target="P4", reason="代わりに"), parallel_tool_calls=None,
            )
        finally:
            await backend.aclose()

    @property
    def recoveries(self) -> list[tuple[str, str | None]]:
        return [(p["kind"], p["format"]) for k, p in self.sink.payloads() if k == "recovery"]


def test_calls_written_in_the_content_are_played() -> None:
    turn = Turn("openai", "calls_in_content")
    assert turn.votes == ["P3"] and not turn.result.fallback and turn.result.responses == 1
    assert turn.recoveries == [("calls_in_text", "tool_call_tag")]


def test_calls_written_as_a_json_code_block_are_played() -> None:
    turn = Turn("openai", "calls_in_code_block")
    assert turn.votes == ["P3"] and not turn.result.fallback and turn.result.responses == 1
    assert turn.recoveries == [("calls_in_text", "code_block")]
    assert "```" not in (turn.result.content or "")


def test_names_a_grammar_starts_with_a_space_are_stripped_not_refused() -> None:
    """A grammar built from a schema without a pattern may start a free string with a space:
    the name is stripped and the character made on the first answer (it was refused before)."""
    from gm_engine.tools.combat import CombatTable

    table = CombatTable(SeededSource(0))
    offers = [o for o in table.offers() if o.name == "create_character_preset"]
    sink = ListSink()
    with FakeChatServer.with_quirks("pads_strings") as server:
        backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", profile="openai",
                                sleep=no_sleep)

        async def play() -> TurnResult:
            try:
                return await TurnRunner(backend, sink, retry_budget=2).run(
                    actor="gm", messages=[user_message("キャラクターを作ってください")], offers=offers,
                )
            finally:
                await backend.aclose()

        result = asyncio.run(play())
    sent = json.loads(_first_call(sink))
    assert sent["name"].startswith(" ") and sent["name"].strip()
    assert result.responses == 1 and not result.errors
    assert [c.name for c in table.party] == [sent["name"].strip()]


def _first_call(sink: ListSink) -> str:
    calls = [p["tool_calls"][0]["arguments"] for k, p in sink.payloads() if k == "model_response"]
    return str(calls[0])


def test_a_template_without_tools_is_played_through_the_reask() -> None:
    # the server drops the tools silently; the re-ask describes them in words and the model
    # writes its call in the text
    turn = Turn("llamacpp", "drops_tools")
    assert turn.votes == ["P3"] and not turn.result.fallback and turn.result.responses == 2
    assert turn.recoveries == [("reask", None), ("calls_in_text", "tool_call_tag")]


def test_llamacpp_text_before_the_call_is_kept_and_the_call_played() -> None:
    turn = Turn("llamacpp", "text_before_call")
    assert turn.votes == ["P3"] and turn.result.responses == 1
    assert turn.result.content == "考えてから決めます。"
    assert turn.recoveries == []


def test_ollama_ignoring_tool_choice_is_played_through_the_reask() -> None:
    turn = Turn("ollama", "ignores_tool_choice")
    assert all("tool_choice" not in body for body in turn.bodies)  # not sent where ignored
    assert turn.votes == ["P3"] and not turn.result.fallback
    assert turn.recoveries == [("reask", None)]


def test_lmstudio_empty_reply_to_required_is_avoided_by_its_profile() -> None:
    as_openai = Turn("openai", "empty_on_required")
    assert as_openai.result.fallback and as_openai.votes == ["P4"]  # required twice: empty twice
    turn = Turn("lmstudio", "empty_on_required", "rejects_named_choice")
    assert [body["tool_choice"] for body in turn.bodies] == ["auto", "auto"]
    assert turn.votes == ["P3"] and not turn.result.fallback


def test_vllm_schemas_are_enforced_through_strict() -> None:
    turn = Turn("vllm", "loose_without_strict")
    assert all(tool["function"]["strict"] is True for tool in turn.bodies[0]["tools"])
    assert turn.votes == ["P3"] and turn.result.responses == 1
    # the same server under a profile that does not send strict: every answer is outside the enum
    loose = Turn("llamacpp", "loose_without_strict")
    assert loose.result.fallback
    assert "allowed: \"P3\", \"P4\"" in loose.result.errors[0]


def test_llamacpp_parallel_calls_are_turned_off_explicitly() -> None:
    turn = Turn("llamacpp", "parallel_by_default")
    assert turn.bodies[0]["parallel_tool_calls"] is False
    assert turn.votes == ["P3"]
    assert not [p for k, p in turn.sink.payloads() if k == "tool_result" and not p["ok"]]
    # a profile that leaves the parameter out gets two calls back; the second is not played
    leaves_it_out = ServerProfile(
        name="loose", supports_tool_choice_required=True, supports_parallel_tool_calls=True
    )
    two = Turn(leaves_it_out, "parallel_by_default")
    assert "parallel_tool_calls" not in two.bodies[0]
    refused = [p["result"] for k, p in two.sink.payloads() if k == "tool_result" and not p["ok"]]
    assert refused == ["not executed: the turn had already ended with an earlier call"]


@pytest.mark.parametrize(
    ("profile", "quirks"),
    [
        ("llamacpp", ("drops_tools",)),
        ("ollama", ("ignores_tool_choice", "calls_in_content")),
        ("lmstudio", ("empty_on_required", "calls_in_code_block")),
    ],
)
def test_a_whole_game_is_played_by_the_model_through_the_recoveries_and_replays(
    tmp_path: Path, profile: str, quirks: tuple[Quirk, ...]
) -> None:
    spec = SessionSpec(
        kind="werewolf", seed=4, options={"deal": [2, 3, 1, 1, 2, 2, 4, 5, 6], "narrator": False},
        backend="openai", model="fake",
    )
    path = tmp_path / "game.jsonl"
    with FakeChatServer.with_quirks(*quirks, calls=first_choice_calls) as server:
        backend = OpenAIBackend(
            model="fake", base_url=server.base_url, api_key="k", profile=profile, sleep=no_sleep
        )
        human = AutoHuman(OfflineAgent(1, SeededSource(f"{spec.seed}/human")))
        outcome = record_session(spec, SessionIO(backend=backend, human=human, show=lambda line: None),
                                 path, durable=False, remember_seed=False)
    assert "の勝利" in outcome.summary
    events = read_transcript(path).events
    assert not [e for e in events if e.type == "fallback"]  # every turn played by the model
    kinds = {e.payload["kind"] for e in events if e.type == "recovery"}
    assert kinds == {"reask", "calls_in_text"}
    for tolerant in (False, True):  # the recoveries replay as recorded
        report = replay_transcript(read_transcript(path), tolerant=tolerant)
        assert report.ok, report.describe()


def test_a_whole_game_whose_strings_start_with_a_space_has_no_refusal(tmp_path: Path) -> None:
    spec = SessionSpec(
        kind="werewolf", seed=4, options={"deal": [2, 3, 1, 1, 2, 2, 4, 5, 6], "narrator": False},
        backend="openai", model="fake",
    )
    path = tmp_path / "game.jsonl"
    with FakeChatServer.with_quirks("pads_strings", calls=first_choice_calls) as server:
        backend = OpenAIBackend(
            model="fake", base_url=server.base_url, api_key="k", profile="vllm", sleep=no_sleep
        )
        human = AutoHuman(OfflineAgent(1, SeededSource(f"{spec.seed}/human")))
        outcome = record_session(spec, SessionIO(backend=backend, human=human, show=lambda line: None),
                                 path, durable=False, remember_seed=False)
    assert "の勝利" in outcome.summary
    events = read_transcript(path).events
    padded = [
        json.loads(call["arguments"]) for e in events if e.type == "model_response"
        for call in e.payload.get("tool_calls") or ()
    ]
    assert any(str(a.get("text", "")).startswith(" ") for a in padded)  # the quirk was met
    assert not [e for e in events if e.type == "fallback"]
    assert not [e for e in events if e.type == "tool_result" and not e.payload["ok"]]
