"""The werewolf tool models: schemas narrowed to legal choices, validation, and the mapping to
engine actions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from gm_engine.tools.base import ToolOutput
from gm_engine.tools.werewolf import (
    ALL_TOOLS,
    ClaimTool,
    SpeakTool,
    UpdateNotesTool,
    VoteTool,
    action_from_tool,
    discussion_offers,
    round_offers,
    seat_label,
    seat_number,
)
from gm_engine.werewolf import Claim, Colour, Game, Role, Speak, Vote


def test_every_tool_has_a_name_and_a_closed_schema() -> None:
    names = [tool.tool_name for tool in ALL_TOOLS]
    assert len(names) == len(set(names)) == 10
    for tool in ALL_TOOLS:
        spec = tool.spec()
        assert spec.description
        assert spec.parameters["additionalProperties"] is False


def test_seat_labels() -> None:
    assert seat_label(3) == "P3" and seat_number("P9") == 9
    for bad in ("P0", "P10", "3", "p3", ""):
        with pytest.raises(ValueError, match="not a seat"):
            seat_number(bad)


def test_text_is_flattened_and_capped() -> None:
    assert SpeakTool.model_validate({"text": " a\n\nb  c "}).text == "a b c"
    with pytest.raises(ValidationError):
        SpeakTool.model_validate({"text": "x" * 401})
    with pytest.raises(ValidationError):
        SpeakTool.model_validate({"text": ""})
    with pytest.raises(ValidationError):
        VoteTool.model_validate({"target": "P2", "reason": "r", "extra": 1})


def test_notes_tool_limits() -> None:
    assert UpdateNotesTool.model_validate({"lines": ["a", " ", "b\nc"]}).lines == ["a", "b c"]
    with pytest.raises(ValidationError):
        UpdateNotesTool.model_validate({"lines": ["x"] * 6})
    with pytest.raises(ValidationError, match="at most 120"):
        UpdateNotesTool.model_validate({"lines": ["x" * 121]})


def test_offers_are_narrowed_to_the_legal_actions() -> None:
    game = Game.from_deal([2, 3, 1, 1, 2, 2, 4, 5, 6])
    game.apply(game.legal_actions(2)[0])  # the 占い師 at P2 divines before day 1
    game.advance()
    legal = game.legal_actions(1)  # P1, a 村人, speaks first on day 1
    offers = {o.name: o for o in discussion_offers(1, legal, lambda action: ToolOutput("ok"))}
    assert set(offers) == {"speak", "request_claim"}  # a 村人 may not claim
    schema = offers["request_claim"].spec().parameters
    assert schema["properties"]["role"]["enum"] == ["占い師"]  # day 1: only the seer may be asked
    assert all(not isinstance(a, Claim) for a in legal)
    game.apply(Speak(1, "やあ"))
    seer_offers = {o.name: o for o in discussion_offers(2, game.legal_actions(2), lambda a: ToolOutput("ok"))}
    claim = seer_offers["claim"].spec().parameters["properties"]
    assert claim["role"]["enum"] == ["占い師"]  # the real seer may claim only its own role


def test_vote_offer_and_actions() -> None:
    legal = [Vote(3, 1), Vote(3, 2), Vote(3, 4)]
    (offer,) = round_offers(3, legal, lambda action: ToolOutput("ok"))
    assert offer.spec().parameters["properties"]["target"]["enum"] == ["P1", "P2", "P4"]
    with pytest.raises(ValidationError):
        offer.model.model_validate({"target": "P3", "reason": "self"})
    assert action_from_tool(3, VoteTool(target="P2", reason="r")) == Vote(3, 2, "r")
    claim = ClaimTool(role="占い師", target="P4", result="黒", text="見えた")
    assert action_from_tool(5, claim) == Claim(5, Role.SEER, 4, Colour.BLACK, "見えた")
    with pytest.raises(ValueError, match="both target and result"):
        action_from_tool(5, ClaimTool(role="占い師", target="P4"))
    with pytest.raises(ValueError, match="unknown role"):
        action_from_tool(5, ClaimTool(role="魔法使い"))


def test_a_blank_speech_or_vote_reason_is_silence_after_folding_white_space() -> None:
    # the schema allows white space only (a grammar may write it), so it is normalised, not refused
    assert SpeakTool.model_validate({"text": "  \n\t "}).text == "……"
    assert VoteTool.model_validate({"target": "P2", "reason": "\n"}).reason == "……"
    assert SpeakTool.model_validate({"text": " 僕は \n 村人です "}).text == "僕は 村人です"


def _claims_the_schema_allows(offer: object) -> list[dict[str, object]]:
    from tests.test_tool_schemas import allowed_values

    schema = offer.spec().parameters  # type: ignore[attr-defined]
    return [a for a in allowed_values(schema, schema.get("$defs", {})) if isinstance(a, dict)]


def test_a_claim_schema_requires_the_result_exactly_when_the_rules_do() -> None:
    # A grammar built from the schema (llama.cpp's) lets a model write only what the schema
    # allows: every claim it allows must be one the rules accept, or the turn falls back
    game = Game.from_deal([2, 3, 1, 1, 2, 2, 4, 5, 6])  # P2 占い師, P7 狩人
    game.apply(game.legal_actions(2)[0])
    game.advance()
    schemas: dict[int, dict[str, Any]] = {}
    for seat in range(1, 8):  # the seats speak in turn up to the 狩人
        legal = game.legal_actions(seat)
        offers = {o.name: o for o in discussion_offers(seat, legal, lambda a: ToolOutput("ok"))}
        if seat in (2, 7):
            schemas[seat] = offers["claim"].spec().parameters
            allowed = _claims_the_schema_allows(offers["claim"])
            assert allowed
            for arguments in allowed:
                action = action_from_tool(seat, offers["claim"].validate(arguments))
                assert game.is_legal(action), (seat, arguments)
        game.apply(Speak(seat, "やあ"))
    assert {"role", "target", "result"} <= set(schemas[2]["required"])  # the 占い師 states its 事前占い
    assert "target" not in schemas[7]["properties"] and "result" not in schemas[7]["properties"]


def test_every_claim_a_wolfs_schema_allows_is_played_not_refused() -> None:
    # A wolf may claim 占い師 only with a result on day 1, and 狩人 or 霊媒師 only without one:
    # the schema requires the result (before, it was optional, so a grammar could write the
    # 占い師 alone, which the rules refuse), and a result written with a role that takes none
    # is dropped (the role claimed alone), not refused; a model that writes no result for
    # 狩人 or 霊媒師, as the rules have it, is taken too
    game = Game.from_deal([2, 3, 1, 1, 2, 2, 4, 5, 6])  # P3, P4 人狼
    game.apply(game.legal_actions(2)[0])
    game.advance()
    checked = 0
    for seat in range(1, 5):
        legal = game.legal_actions(seat)
        played: list[Any] = []

        def apply(action: Any, played: list[Any] = played) -> ToolOutput:
            played.append(action)
            return ToolOutput("ok")

        claim = {o.name: o for o in discussion_offers(seat, legal, apply)}.get("claim")
        if claim is not None and seat in (3, 4):
            parameters = claim.spec().parameters
            assert set(parameters["required"]) == {"role", "target", "result"}
            assert set(parameters["properties"]["role"]["enum"]) == {"占い師", "狩人", "霊媒師"}
            allowed = _claims_the_schema_allows(claim)
            assert {a["role"] for a in allowed} == {"占い師", "狩人", "霊媒師"}
            for arguments in allowed:
                claim.handler(claim.validate(arguments))
                assert game.is_legal(played[-1]), (seat, arguments, played[-1])
            target = parameters["properties"]["target"]["enum"][0]
            for role in ("狩人", "霊媒師"):
                for alone in ({"role": role}, {"role": role, "target": target}):
                    claim.handler(claim.validate(alone))
                    assert game.is_legal(played[-1]), (seat, alone, played[-1])
                    assert played[-1].target is None
            checked += 1
        game.apply(Speak(seat, "やあ"))
    assert checked == 2  # both wolves


def _grammar_claims(tools: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """A model steered by a grammar of the offered schemas that comes out whenever it may: the
    claim with only the fields the schema requires (a grammar's shortest call), its role 占い師
    where it may (else its first), else what a trivial model calls."""
    from gm_engine.sessions.werewolf_offline import first_choice_calls

    claim = next((t for t in tools if t.get("name") == "claim"), None)
    if claim is None:
        return first_choice_calls(tools)
    parameters = claim["parameters"]
    properties = parameters["properties"]
    roles = properties["role"]["enum"]
    arguments: dict[str, Any] = {"role": "占い師" if "占い師" in roles else roles[0]}
    for name in parameters["required"]:
        if name != "role":
            arguments[name] = properties[name]["enum"][0]
    return [("claim", arguments)]


def test_a_wolfs_claim_as_its_schema_has_it_is_played_through_the_server() -> None:
    # through the fake server, a model that writes a claim as the offered schema has it (only
    # its required fields) comes out as 占い師 with a result, never falls back; on the old
    # schema the result was optional, the wolves' 占い師 claims came without one and the rules
    # refused them until the turn fell back
    import asyncio

    from gm_engine.dice.source import SeededSource
    from gm_engine.llm.fakeserver import FakeChatServer, tool_model
    from gm_engine.llm.openai_backend import OpenAIBackend
    from gm_engine.sessions.base import ListSink, SessionIO, SessionSpec
    from gm_engine.sessions.werewolf import play_werewolf
    from gm_engine.sessions.werewolf_offline import AutoHuman
    from gm_engine.werewolf.agents import OfflineAgent

    with FakeChatServer(responder=tool_model(calls=_grammar_claims)) as server:
        backend = OpenAIBackend(model="fake", base_url=server.base_url, api_key="k", profile="llamacpp")
        sink = ListSink()
        io = SessionIO(backend=backend, human=AutoHuman(OfflineAgent(1, SeededSource("3/human"))),
                       sink=sink, show=lambda line: None)
        deal = (2, 1, 1, 2, 2, 3, 4, 5, 6)  # P2, P3 人狼; P6 占い師
        spec = SessionSpec(kind="werewolf", seed=3, options={"deal": deal, "narrator": False},
                           backend="openai", model="fake")

        async def play() -> Any:
            try:
                return await play_werewolf(spec, io)
            finally:
                await backend.aclose()

        asyncio.run(play())
    payloads = sink.payloads()
    assert [p for kind, p in payloads if kind == "fallback"] == []
    results = [p for kind, p in payloads if kind == "tool_result"]
    assert results and [p for p in results if not p["ok"]] == []
    wolves = [p for p in results if p["tool"] == "claim" and p["actor"] in ("P2", "P3")]
    assert len(wolves) == 2
    for p in wolves:
        arguments = p["arguments"] if isinstance(p["arguments"], dict) else json.loads(p["arguments"])
        assert arguments["role"] == "占い師" and arguments["result"] in ("白", "黒")
